//! flatstream captures as a DataFusion file format (work in progress).
