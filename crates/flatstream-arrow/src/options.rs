//! How a plan converts: [`Options`] and [`Enums`].

/// How enum values become Arrow values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Enums {
    /// `Dictionary<Int32, Utf8>` of the value names; a value the enum does not name is its
    /// number as text (`"7"`). The default.
    #[default]
    Names,
    /// The raw integers, at the enum's underlying width (`Int8` for `enum Color : byte`).
    Integers,
}

/// The choices of a [`Plan`](crate::Plan). Setters take `&mut self` and return it, so that
/// options can be built in one expression or changed in steps.
///
/// ```
/// use flatstream::arrow::{Enums, Options};
///
/// let mut options = Options::new();
/// options.root_type("fleet.Robot").offset_column(true).enums(Enums::Integers);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub(crate) root_type: Option<String>,
    pub(crate) enums: Enums,
    pub(crate) offset_column: bool,
    pub(crate) skip_invalid: bool,
    pub(crate) verify_unread: bool,
    pub(crate) batch_size: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            root_type: None,
            enums: Enums::Names,
            offset_column: false,
            skip_invalid: false,
            verify_unread: false,
            batch_size: 8192,
        }
    }
}

/// Setters that store their argument in the field of their name, as it is: `name(arg: Type);`
/// with the setter's doc comment before it.
macro_rules! stored_setters {
    ($($(#[$doc:meta])* $name:ident($arg:ident: $ty:ty);)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, $arg: $ty) -> &mut Self {
            self.$name = $arg;
            self
        }
    )*};
}

impl Options {
    /// The defaults: the schema's own root type, enums by name, no offset column, an invalid
    /// frame is an error, the fields a conversion reads are verified, batches of 8192 rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// The table the frames hold: a full name (`fleet.Robot`) or a name without namespace
    /// that only one table has. Default: the schema's `root_type`.
    pub fn root_type(&mut self, name: impl Into<String>) -> &mut Self {
        self.root_type = Some(name.into());
        self
    }

    stored_setters! {
        /// How enums are converted. Default: [`Enums::Names`].
        enums(enums: Enums);

        /// Whether to add the column [`OFFSET_COLUMN`](crate::OFFSET_COLUMN) (`UInt64`, not null):
        /// each row's frame offset in its stream, the start of its header. It is the last column.
        /// Default: off.
        offset_column(on: bool);

        /// Whether a frame that fails verification is skipped and counted
        /// ([`Converter::skipped`](crate::Converter::skipped)) instead of being an
        /// [`Error::InvalidFrame`](crate::Error::InvalidFrame). Default: off (an error).
        skip_invalid(on: bool);

        /// Whether a projected conversion verifies the root table's fields it does not read too.
        ///
        /// Default: off. Each frame's root table is verified (its offset, its vtable), and of its
        /// fields those the projection reads, each with everything under it; a field projected
        /// out is never read, so a fault in it cannot reach a column. With a projection of one
        /// field out of ten this is most of what the projection saves. Turn it on when the frames
        /// a query counts or skips ([`skip_invalid`](Self::skip_invalid)) must not depend on the
        /// columns it selects: then every frame is verified whole, whatever is read.
        verify_unread(on: bool);
    }

    /// The number of rows of a batch that [`Plan::convert`](crate::Plan::convert) yields (the
    /// last may have fewer), at least 1; [`Plan::with_batch_size`](crate::Plan::with_batch_size)
    /// changes it for a scan. Default: 8192, DataFusion's default batch size.
    pub fn batch_size(&mut self, rows: usize) -> &mut Self {
        self.batch_size = rows.max(1);
        self
    }
}
