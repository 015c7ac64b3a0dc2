//! One module per command (`recover` holds `recover` and `salvage`, which share a scan); the
//! modules beside this folder are what several commands use: input and framing detection,
//! schemas, printing, progress, failures.

pub(crate) mod cat;
pub(crate) mod convert;
pub(crate) mod export;
pub(crate) mod inspect;
pub(crate) mod mcap;
pub(crate) mod pack;
pub(crate) mod query;
pub(crate) mod recover;
pub(crate) mod tail;
pub(crate) mod verify;
pub(crate) mod worker;
