//! Nothing: this crate holds FlatStream 0.2.7's own wire-format tests (`tests/`), run
//! unmodified against flatstream. See `README.md`.
