//! [`FlatstreamOptions`]: the options of a flatstream table, as a session setting
//! (`SET flatstream.schema = '…'`) and as a table's `OPTIONS (…)`; and [`ScanSpec`], the same
//! options resolved (the schema loaded), which a scan carries.

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
        ScanSpec::new(
            bytes.into(),
            SpecOptions {
                root_type: self.root_type.clone().filter(|r| !r.is_empty()),
                checksum,
                enums,
                offset_column: self.offset_column,
                skip_invalid: self.skip_invalid,
                verify_unread: self.verify_unread,
                max_frame_len: self.max_frame_len,
            },
        )
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

/// The options of a [`ScanSpec`] other than the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecOptions {
    /// The table the frames hold; `None`: the schema's `root_type`.
    pub root_type: Option<String>,
    /// The framing; `None`: detected per file from its leading frames.
    pub checksum: Option<ChecksumKind>,
    /// How enums are converted.
    pub enums: Enums,
    /// Whether the `_offset` column is added.
    pub offset_column: bool,
    /// Whether invalid payloads are skipped and counted rather than an error.
    pub skip_invalid: bool,
    /// Whether the fields a scan does not read are verified too.
    pub verify_unread: bool,
    /// The largest payload accepted.
    pub max_frame_len: usize,
}

impl Default for SpecOptions {
    fn default() -> Self {
        SpecOptions {
            root_type: None,
            checksum: None,
            enums: Enums::Names,
            offset_column: false,
            skip_invalid: false,
            verify_unread: false,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
        }
    }
}

/// Everything a scan of flatstream files reads with: the binary schema's bytes, the
/// [`SpecOptions`], and the conversion plan compiled from them. Cheap to clone.
///
/// It is what a [`FlatstreamSource`](crate::FlatstreamSource) carries, and what a physical
/// codec (for a distributed engine) sends to the workers: [`to_bytes`](Self::to_bytes) and
/// [`from_bytes`](Self::from_bytes) carry the schema itself, not its path, so a worker
/// needs no access to the coordinator's files.
#[derive(Clone)]
pub struct ScanSpec {
    schema: Arc<[u8]>,
    options: SpecOptions,
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
    /// Compiles `schema` (the bytes of a `.bfbs`) with `options`.
    ///
    /// # Errors
    ///
    /// Not a binary schema, a root type it does not have, a field that cannot be converted.
    pub fn new(schema: Arc<[u8]>, options: SpecOptions) -> Result<Self, Error> {
        let binary = BinarySchema::from_bytes(schema.clone()).map_err(Error::Schema)?;
        let mut arrow = Options::new();
        if let Some(root) = &options.root_type {
            arrow.root_type(root.clone());
        }
        arrow
            .enums(options.enums)
            .offset_column(options.offset_column)
            .skip_invalid(options.skip_invalid)
            .verify_unread(options.verify_unread);
        let plan = Plan::new(&binary, &arrow).map_err(Error::Schema)?;
        Ok(ScanSpec {
            schema,
            options,
            plan,
        })
    }

    /// The bytes of the binary schema.
    pub fn schema_bytes(&self) -> &Arc<[u8]> {
        &self.schema
    }

    /// The options.
    pub fn options(&self) -> &SpecOptions {
        &self.options
    }

    /// The conversion plan, unprojected: [`Plan::file_schema`] is the table's schema.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The spec as bytes, for [`from_bytes`](Self::from_bytes) on another machine (a
    /// distributed engine's physical codec). The layout is private to this crate and may
    /// change between versions: both ends must run the same version.
    pub fn to_bytes(&self) -> Vec<u8> {
        let o = &self.options;
        let mut out = Vec::with_capacity(self.schema.len() + 64);
        out.extend_from_slice(SPEC_MAGIC);
        let checksum = o.checksum.map_or(u8::MAX, |k| {
            ChecksumKind::ALL
                .iter()
                .position(|&x| x == k)
                .map_or(u8::MAX, |i| i as u8)
        });
        out.push(checksum);
        out.push(match o.enums {
            Enums::Integers => 1,
            _ => 0,
        });
        out.push(
            u8::from(o.offset_column)
                | u8::from(o.skip_invalid) << 1
                | u8::from(o.verify_unread) << 2,
        );
        out.extend_from_slice(&(o.max_frame_len as u64).to_le_bytes());
        let root = o.root_type.as_deref().unwrap_or("");
        out.push(u8::from(o.root_type.is_some()));
        out.extend_from_slice(&(root.len() as u64).to_le_bytes());
        out.extend_from_slice(root.as_bytes());
        out.extend_from_slice(&(self.schema.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.schema);
        out
    }

    /// Reads what [`to_bytes`](Self::to_bytes) wrote, and compiles the schema again.
    ///
    /// # Errors
    ///
    /// [`Error::Spec`] if the bytes are not such a spec; the errors of [`new`](Self::new).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let bad = |what: &str| Error::Spec {
            reason: what.to_owned(),
        };
        let rest = bytes
            .strip_prefix(SPEC_MAGIC)
            .ok_or_else(|| bad("it does not start with the spec's magic bytes"))?;
        let mut r = Reader(rest);
        let checksum = match r.byte()? {
            u8::MAX => None,
            i => Some(
                *ChecksumKind::ALL
                    .get(usize::from(i))
                    .ok_or_else(|| bad("unknown checksum"))?,
            ),
        };
        let enums = match r.byte()? {
            0 => Enums::Names,
            1 => Enums::Integers,
            _ => return Err(bad("unknown enum setting")),
        };
        let flags = r.byte()?;
        let max_frame_len = usize::try_from(r.u64()?).map_err(|_| bad("bound too large"))?;
        let has_root = r.byte()? != 0;
        let root =
            String::from_utf8(r.chunk()?.to_vec()).map_err(|_| bad("root type not utf-8"))?;
        let schema: Arc<[u8]> = r.chunk()?.into();
        if !r.0.is_empty() {
            return Err(bad("trailing bytes"));
        }
        ScanSpec::new(
            schema,
            SpecOptions {
                root_type: has_root.then_some(root),
                checksum,
                enums,
                offset_column: flags & 1 != 0,
                skip_invalid: flags & 2 != 0,
                verify_unread: flags & 4 != 0,
                max_frame_len,
            },
        )
    }
}

const SPEC_MAGIC: &[u8] = b"flatstream-scan-spec-1\0";

/// A cursor over the bytes of a spec.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.0.len() < n {
            return Err(Error::Spec {
                reason: "it ends too early".to_owned(),
            });
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    fn u64(&mut self) -> Result<u64, Error> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    fn chunk(&mut self) -> Result<&'a [u8], Error> {
        let len = usize::try_from(self.u64()?).map_err(|_| Error::Spec {
            reason: "a length too large".to_owned(),
        })?;
        self.take(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn telemetry() -> String {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/telemetry.bfbs").to_owned()
    }

    #[test]
    fn a_spec_survives_its_bytes_and_refuses_other_bytes() {
        let mut options = FlatstreamOptions::with_schema(telemetry())
            .root_type("telemetry.Telemetry")
            .checksum(ChecksumKind::Crc16);
        options.offset_column = true;
        options.skip_invalid = true;
        options.max_frame_len = 4096;
        options.enums = "integers".to_owned();
        let spec = options.resolve().unwrap();
        let bytes = spec.to_bytes();
        let back = ScanSpec::from_bytes(&bytes).unwrap();
        assert_eq!(back.options(), spec.options());
        assert_eq!(back.schema_bytes(), spec.schema_bytes());
        assert_eq!(back.plan().file_schema(), spec.plan().file_schema());
        for cut in [0, 5, bytes.len() - 1] {
            assert!(matches!(
                ScanSpec::from_bytes(&bytes[..cut]),
                Err(Error::Spec { .. })
            ));
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            ScanSpec::from_bytes(&longer),
            Err(Error::Spec { .. })
        ));
        // Detected framing and the schema's own root type travel as such.
        let spec = FlatstreamOptions::with_schema(telemetry())
            .resolve()
            .unwrap();
        let back = ScanSpec::from_bytes(&spec.to_bytes()).unwrap();
        assert_eq!(back.options().checksum, None);
        assert_eq!(back.options().root_type, None);
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
