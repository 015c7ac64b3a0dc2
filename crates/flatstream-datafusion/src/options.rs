//! [`FlatstreamOptions`]: the options of a flatstream table, as a session setting
//! (`SET flatstream.schema = '…'`), as a table's `OPTIONS (…)` and as the distributed codec
//! carries them; and [`ScanSpec`], the same options resolved (the schema loaded, the plan
//! compiled), which a scan carries.
//!
//! One model: each option is a field of [`FlatstreamOptions`], read into its type in one
//! place ([`ScanSpec::new`]): the conversion's into flatstream-arrow's [`Options`], the
//! framing's into the spec. The codec carries the fields by their keys, so an option added
//! here reaches the workers with no change to the codec.

use crate::error::Error;
use datafusion::common::config::ConfigExtension;
use datafusion::common::extensions_options;
use flatstream_arrow::{BinarySchema, Enums, Options, Plan};
use flatstream_checksum::ChecksumKind;
use flatstream_core::frame::DEFAULT_MAX_FRAME_LEN;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

extensions_options! {
    /// The options of a flatstream table. Each is a session setting under the prefix
    /// `flatstream` (`SET flatstream.schema = 'telemetry.bfbs'`), the default of every table
    /// the session reads, and a table option that overrides it (`OPTIONS ('schema' '…')` in
    /// `CREATE EXTERNAL TABLE`, or the value given to
    /// [`register_flatstream`](crate::SessionContextExt::register_flatstream)). A table read
    /// by its path (`SELECT … FROM 'captures/*.fstream'`) has no options of its own: it reads
    /// with the session's.
    pub struct FlatstreamOptions {
        /// The binary FlatBuffers schema (`flatc -b --schema x.fbs` writes `x.bfbs`): a path
        /// on the local file system. Required: the table's columns come from it, never from
        /// the data.
        pub schema: Option<String>, default = None
        /// The table the frames hold (`telemetry.Telemetry`, or a name only one table has).
        /// Default: the schema's `root_type`.
        pub root_type: Option<String>, default = None
        /// The checksum the files were written with: `none`, `xxhash64`, `crc32`, `crc16`,
        /// `crc32c`, or `auto` (the default): told from each file's leading frames, as
        /// `flatstream inspect` does.
        pub checksum: String, default = "auto".to_owned()
        /// Enums as their value names (`names`, the default: `Dictionary<Int32, Utf8>`) or as
        /// their integers (`integers`).
        pub enums: String, default = "names".to_owned()
        /// Adds the column `_offset` (`UInt64`): each row's frame offset in its file.
        pub offset_column: bool, default = false
        /// Skips frames whose payload is not a valid FlatBuffer of the root type (and counts
        /// them in the scan's `skipped_frames` metric) instead of failing the query. Framing
        /// damage (a checksum mismatch, a torn frame) is an error either way.
        pub skip_invalid: bool, default = false
        /// Verifies the fields a query does not read too. By default a scan verifies each
        /// frame's root table and the fields it reads, each whole: a fault in a column the
        /// query never reads cannot reach its answer. On: every frame is verified whole, so
        /// that the frames `skip_invalid` skips do not depend on the columns selected.
        pub verify_unread: bool, default = false
        /// The largest payload accepted, in bytes: a frame declaring more is a framing error.
        /// Default: 2 GiB, flatstream's default bound.
        pub max_frame_len: usize, default = DEFAULT_MAX_FRAME_LEN
    }
}

impl ConfigExtension for FlatstreamOptions {
    const PREFIX: &'static str = "flatstream";
}

impl FlatstreamOptions {
    /// The defaults, with the schema at `path`.
    pub fn with_schema(path: impl Into<String>) -> Self {
        FlatstreamOptions {
            schema: Some(path.into()),
            ..Self::default()
        }
    }

    /// Sets the table the frames hold; see [`root_type`](Self::root_type).
    pub fn root_type(mut self, name: impl Into<String>) -> Self {
        self.root_type = Some(name.into());
        self
    }

    /// Sets the checksum; see [`checksum`](Self::checksum).
    pub fn checksum(mut self, kind: ChecksumKind) -> Self {
        self.checksum = kind.name().to_owned();
        self
    }

    /// Overrides these options with a table's options: keys `schema`, `root_type`, … as
    /// given to [`register_flatstream`](crate::SessionContextExt::register_flatstream), or
    /// prefixed by `format.` (what `CREATE EXTERNAL TABLE … OPTIONS` passes for a key
    /// without a dot) or by `flatstream.`.
    ///
    /// # Errors
    ///
    /// A key that is not one of these options, or a value that does not parse.
    pub fn apply(&mut self, options: &HashMap<String, String>) -> Result<(), Error> {
        // In a fixed order, so that the error for several bad keys is always the same one.
        let mut keys: Vec<&String> = options.keys().collect();
        keys.sort();
        for key in keys {
            let value = &options[key];
            let name = key
                .strip_prefix("format.")
                .or_else(|| key.strip_prefix("flatstream."))
                .unwrap_or(key);
            datafusion::common::config::ConfigField::set(self, name, value).map_err(|e| {
                Error::Option {
                    key: key.clone(),
                    reason: e.strip_backtrace(),
                }
            })?;
        }
        Ok(())
    }

    /// Loads the schema and checks every option: what a scan reads with.
    ///
    /// # Errors
    ///
    /// No schema given, a schema that cannot be read or is not a binary schema, a root type
    /// it does not have, a field that cannot be converted, an unknown checksum or enum
    /// setting.
    pub fn resolve(&self) -> Result<ScanSpec, Error> {
        let Some(path) = self.schema.as_deref().filter(|p| !p.is_empty()) else {
            return Err(Error::NoSchema);
        };
        let bytes = std::fs::read(path).map_err(|source| Error::ReadSchema {
            path: path.to_owned(),
            source,
        })?;
        ScanSpec::new(bytes.into(), self.clone())
    }

    /// The options as their types: the conversion's, and the framing's (`None`: detected per
    /// file). The one place where the text of each option is read.
    fn parse(&self) -> Result<(Options, Option<ChecksumKind>), Error> {
        let checksum = parse_checksum(&self.checksum)?;
        let enums = match self.enums.to_ascii_lowercase().as_str() {
            "names" => Enums::Names,
            "integers" => Enums::Integers,
            _ => {
                return Err(Error::Option {
                    key: "enums".to_owned(),
                    reason: format!("`{}` is not `names` or `integers`", self.enums),
                });
            }
        };
        let mut options = Options::new();
        if let Some(root) = self.root_type.as_deref().filter(|r| !r.is_empty()) {
            options.root_type(root);
        }
        options
            .enums(enums)
            .offset_column(self.offset_column)
            .skip_invalid(self.skip_invalid)
            .verify_unread(self.verify_unread);
        Ok((options, checksum))
    }
}

/// `auto` (or empty) is `None`: detect.
fn parse_checksum(text: &str) -> Result<Option<ChecksumKind>, Error> {
    let text = text.trim();
    if text.is_empty() || text.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    let kind: ChecksumKind = text.parse().map_err(|_| Error::Option {
        key: "checksum".to_owned(),
        reason: format!("`{text}` is not auto, none, xxhash64, crc32, crc16 or crc32c"),
    })?;
    Ok(Some(kind))
}

/// Everything a scan of flatstream files reads with: the binary schema's bytes, the
/// [`FlatstreamOptions`] of the table, and what they resolve to (the conversion plan compiled
/// from them, the framing). Cheap to clone.
///
/// It is what a [`FlatstreamSource`](crate::FlatstreamSource) carries, and what a physical
/// codec (for a distributed engine) sends to the workers: the schema's bytes (not its path,
/// so a worker needs no access to the coordinator's files) and the options, from which
/// [`new`](Self::new) makes the same spec again.
#[derive(Clone)]
pub struct ScanSpec {
    schema: Arc<[u8]>,
    options: FlatstreamOptions,
    checksum: Option<ChecksumKind>,
    plan: Plan,
}

impl fmt::Debug for ScanSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScanSpec")
            .field("schema", &format_args!("{} bytes", self.schema.len()))
            .field("root_type", &self.plan.root_type())
            .field("options", &self.options)
            .finish()
    }
}

impl ScanSpec {
    /// Compiles `schema` (the bytes of a `.bfbs`) with `options` (whose own `schema`, a path,
    /// is not read).
    ///
    /// # Errors
    ///
    /// An unknown checksum or enum setting, not a binary schema, a root type it does not
    /// have, a field that cannot be converted.
    pub fn new(schema: Arc<[u8]>, options: FlatstreamOptions) -> Result<Self, Error> {
        let (arrow, checksum) = options.parse()?;
        let binary = BinarySchema::from_bytes(schema.clone()).map_err(Error::Schema)?;
        let plan = Plan::new(&binary, &arrow).map_err(Error::Schema)?;
        Ok(ScanSpec {
            schema,
            options,
            checksum,
            plan,
        })
    }

    /// The bytes of the binary schema.
    pub fn schema_bytes(&self) -> &Arc<[u8]> {
        &self.schema
    }

    /// The options, as given.
    pub fn options(&self) -> &FlatstreamOptions {
        &self.options
    }

    /// The framing of the files; `None`: detected per file from its leading frames.
    pub fn checksum(&self) -> Option<ChecksumKind> {
        self.checksum
    }

    /// The largest payload accepted, in bytes.
    pub fn max_frame_len(&self) -> usize {
        self.options.max_frame_len
    }

    /// The conversion plan, unprojected: [`Plan::file_schema`] is the table's schema, and
    /// [`Plan::options`] the conversion's options.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The spec as a codec's message: the schema's bytes and every option but the schema's
    /// path, each by its key, as [`FlatstreamOptions`] names and writes it. An option added
    /// to [`FlatstreamOptions`] travels without a change here.
    #[cfg(feature = "distributed")]
    pub(crate) fn to_message(&self) -> SpecMessage {
        use datafusion::common::config::ExtensionOptions;
        let options = self
            .options
            .entries()
            .into_iter()
            .filter(|entry| entry.key != "schema")
            .filter_map(|entry| Some((entry.key, entry.value?)))
            .collect();
        SpecMessage {
            schema: self.schema.to_vec(),
            options,
        }
    }

    /// The spec [`to_message`](Self::to_message) wrote, compiled again.
    ///
    /// # Errors
    ///
    /// An option this version does not have or cannot read ([`Error::Option`]); the errors
    /// of [`new`](Self::new).
    #[cfg(feature = "distributed")]
    pub(crate) fn from_message(message: SpecMessage) -> Result<Self, Error> {
        let mut options = FlatstreamOptions::default();
        options.apply(&message.options.into_iter().collect())?;
        ScanSpec::new(message.schema.into(), options)
    }
}

/// A [`ScanSpec`] as the distributed codec carries it (a protobuf message of its own, beside
/// datafusion-proto's file scan).
#[cfg(feature = "distributed")]
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SpecMessage {
    /// The binary schema's bytes.
    #[prost(bytes = "vec", tag = "1")]
    pub(crate) schema: Vec<u8>,
    /// Every option but `schema`, by key, as text.
    #[prost(btree_map = "string, string", tag = "2")]
    pub(crate) options: std::collections::BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn telemetry() -> String {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/telemetry.bfbs").to_owned()
    }

    /// Every option of the table, away from its default.
    fn all_set() -> FlatstreamOptions {
        let mut options = FlatstreamOptions::with_schema(telemetry())
            .root_type("telemetry.Telemetry")
            .checksum(ChecksumKind::Crc16);
        options.offset_column = true;
        options.skip_invalid = true;
        options.verify_unread = true;
        options.max_frame_len = 4096;
        options.enums = "integers".to_owned();
        options
    }

    #[test]
    fn the_options_read_into_the_plan_and_the_framing() {
        let spec = all_set().resolve().unwrap();
        let mut expected = Options::new();
        expected
            .root_type("telemetry.Telemetry")
            .enums(Enums::Integers)
            .offset_column(true)
            .skip_invalid(true)
            .verify_unread(true);
        assert_eq!(spec.plan().options(), &expected);
        assert_eq!(spec.checksum(), Some(ChecksumKind::Crc16));
        assert_eq!(spec.max_frame_len(), 4096);
        let spec = FlatstreamOptions::with_schema(telemetry())
            .resolve()
            .unwrap();
        assert_eq!(spec.plan().options(), &Options::new());
        assert_eq!(spec.checksum(), None);
        assert_eq!(spec.max_frame_len(), DEFAULT_MAX_FRAME_LEN);
    }

    #[cfg(feature = "distributed")]
    #[test]
    fn every_option_travels_in_the_codec_message_and_unknown_ones_are_refused() {
        use datafusion::common::config::ExtensionOptions;
        use prost::Message;
        let entries = |o: &FlatstreamOptions| -> Vec<(String, Option<String>)> {
            let mut e: Vec<_> = o
                .entries()
                .into_iter()
                .filter(|e| e.key != "schema")
                .map(|e| (e.key, e.value))
                .collect();
            e.sort();
            e
        };
        for options in [all_set(), FlatstreamOptions::with_schema(telemetry())] {
            let spec = options.resolve().unwrap();
            let message = spec.to_message();
            let bytes = message.encode_to_vec();
            let back = ScanSpec::from_message(SpecMessage::decode(&bytes[..]).unwrap()).unwrap();
            // Each option by its key, whatever options there are; the schema by its bytes.
            assert_eq!(entries(back.options()), entries(&options));
            assert_eq!(back.schema_bytes(), spec.schema_bytes());
            assert_eq!(back.plan().options(), spec.plan().options());
            assert_eq!(back.plan().file_schema(), spec.plan().file_schema());
            assert_eq!(
                (back.checksum(), back.max_frame_len()),
                (spec.checksum(), spec.max_frame_len())
            );
            assert_eq!(
                back.options().schema,
                None,
                "the path stays on the coordinator"
            );
        }
        // All set, every option is in the message.
        let message = all_set().resolve().unwrap().to_message();
        let keys: Vec<String> = entries(&all_set()).into_iter().map(|(k, _)| k).collect();
        assert_eq!(message.options.keys().cloned().collect::<Vec<_>>(), keys);

        // From a newer coordinator: an option this worker does not have is named.
        let mut newer = message.clone();
        newer
            .options
            .insert("compression".to_owned(), "zstd".to_owned());
        let err = ScanSpec::from_message(newer).unwrap_err();
        assert!(err.to_string().starts_with("option compression: "), "{err}");
        let mut bad = message.clone();
        bad.options.insert("enums".to_owned(), "hex".to_owned());
        let err = ScanSpec::from_message(bad).unwrap_err();
        assert!(err.to_string().contains("`hex`"), "{err}");
        let mut no_schema = message;
        no_schema.schema.truncate(64);
        assert!(matches!(
            ScanSpec::from_message(no_schema),
            Err(Error::Schema(_))
        ));
    }

    #[test]
    fn table_options_override_with_any_prefix_and_bad_ones_are_named() {
        let mut options = FlatstreamOptions::default();
        let given: HashMap<String, String> = [
            ("format.schema", "a.bfbs"),
            ("flatstream.root_type", "ns.T"),
            ("checksum", "crc32c"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        options.apply(&given).unwrap();
        assert_eq!(options.schema.as_deref(), Some("a.bfbs"));
        assert_eq!(options.root_type.as_deref(), Some("ns.T"));
        assert_eq!(options.checksum, "crc32c");
        let bad: HashMap<String, String> =
            [("format.skip_invalid".to_owned(), "perhaps".to_owned())].into();
        let err = options.apply(&bad).unwrap_err();
        assert!(
            err.to_string().starts_with("option format.skip_invalid: "),
            "{err}"
        );
        assert!(matches!(
            FlatstreamOptions::default().resolve(),
            Err(Error::NoSchema)
        ));
        let mut unknown = FlatstreamOptions::with_schema(telemetry());
        unknown.checksum = "md5".to_owned();
        assert!(unknown.resolve().unwrap_err().to_string().contains("`md5`"));
    }
}
