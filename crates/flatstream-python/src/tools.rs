//! The tools of the `flatstream` command, as functions returning reports: `inspect`, `verify`
//! and `salvage`. Files are memory-mapped (read into memory where they cannot be), and the
//! work runs with the GIL released.

use crate::errors::{arrow_error, io_error, value_error};
use crate::source::{Checksum, DEFAULT_MAX_FRAME_LEN};
use flatstream::arrow::{Converter, Plan};
use flatstream::checksum::AnyChecksum;
use flatstream::checksum::{ChecksumKind, Detection, detect};
use flatstream::read::MappedFile;
use flatstream::repair::{Recover, Salvage, Salvaged, StreamEnd};
use flatstream::{ChecksumDeframer, ChecksumFramer, Error, Frames, StreamWriter};
use pyo3::prelude::*;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// One damaged range of a stream: bytes `start` to `end`.
#[pyclass(module = "flatstream", frozen, get_all, skip_from_py_object)]
#[derive(Debug, Clone)]
pub(crate) struct Damage {
    /// The offset of the first damaged byte: the damaged frame's first byte.
    start: u64,
    /// One past the last damaged byte: where intact frames resume, or the input's length.
    end: u64,
    /// `"corrupt frame"`, `"damaged length"`, `"torn tail"`, `"ambiguous end"`, or
    /// `"invalid"` (a frame whose payload is not a valid FlatBuffer of the schema).
    kind: &'static str,
    /// What is wrong, in words.
    message: String,
}

#[pymethods]
impl Damage {
    fn __repr__(&self) -> String {
        format!(
            "Damage(start={}, end={}, kind={:?}, message={:?})",
            self.start, self.end, self.kind, self.message
        )
    }
}

/// What `inspect` and `verify` found in a stream.
#[pyclass(module = "flatstream", frozen, get_all)]
#[derive(Debug)]
pub(crate) struct Report {
    /// The file.
    path: String,
    /// The stream's checksum.
    checksum: &'static str,
    /// Whether the checksum was detected (rather than given).
    detected: bool,
    /// The intact frames (with a schema: those whose payload is valid too).
    frames: u64,
    /// The bytes of the input.
    bytes: u64,
    /// The damaged ranges, in order: none for a stream that is whole. Without `all`, the first
    /// damage only.
    damage: Vec<Damage>,
}

#[pymethods]
impl Report {
    /// Whether the stream is whole: no damage.
    #[getter]
    fn ok(&self) -> bool {
        self.damage.is_empty()
    }

    fn __bool__(&self) -> bool {
        self.ok()
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(path={:?}, checksum={:?}, frames={}, bytes={}, damage=[{}])",
            self.path,
            self.checksum,
            self.frames,
            self.bytes,
            self.damage
                .iter()
                .map(Damage::__repr__)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// What `salvage` kept and skipped.
#[pyclass(module = "flatstream", frozen, get_all)]
#[derive(Debug)]
pub(crate) struct SalvageReport {
    /// The frames kept and written.
    frames: u64,
    /// Whole frames left out because their payload was not valid (none without a schema).
    rejected: u64,
    /// The byte ranges of the input skipped, as `(start, end)` pairs.
    skipped: Vec<(u64, u64)>,
}

#[pymethods]
impl SalvageReport {
    fn __repr__(&self) -> String {
        format!(
            "SalvageReport(frames={}, rejected={}, skipped={:?})",
            self.frames, self.rejected, self.skipped
        )
    }
}

/// A file's bytes with its framing and the bound on its frames.
struct Mapped {
    name: String,
    bytes: MappedFile,
    kind: ChecksumKind,
    detected: bool,
    deframer: ChecksumDeframer<AnyChecksum>,
    max: usize,
}

impl Mapped {
    /// Maps the file at `path`; its framing is `checksum` (a name, or `"auto"`: detected).
    fn open(path: &Path, checksum: &str, max_frame_len: Option<usize>) -> PyResult<Mapped> {
        let given = Checksum::parse(checksum)?;
        let max = max_frame_len.unwrap_or(DEFAULT_MAX_FRAME_LEN);
        let name = path.display().to_string();
        let bytes = MappedFile::open(path).map_err(|e| io_error(&name, e))?;
        let (kind, detected) = match given {
            Checksum::Given(kind) => (kind, false),
            Checksum::Auto => (
                given.resolve(&name, &detect_head(bytes.as_bytes(), max))?,
                true,
            ),
        };
        Ok(Mapped {
            deframer: ChecksumDeframer::new(crate::source::checksum(kind)?),
            name,
            bytes,
            kind,
            detected,
            max,
        })
    }

    fn report(&self, frames: u64, damage: Vec<Damage>) -> Report {
        Report {
            path: self.name.clone(),
            checksum: self.kind.name(),
            detected: self.detected,
            frames,
            bytes: self.bytes.as_bytes().len() as u64,
            damage,
        }
    }
}

/// Detection on the leading bytes of `bytes`, as many as it asks for: the same head a
/// stream read gives (see `Opened::new`).
fn detect_head(bytes: &[u8], max: usize) -> Detection {
    let mut want = 0usize;
    loop {
        let complete = bytes.len() <= want;
        match detect(&bytes[..bytes.len().min(want)], complete, max) {
            Detection::NeedMore { len } => want = len,
            detection => return detection,
        }
    }
}

/// How a scan of the bytes from `base` on ends, as a damaged range (`None` for a clean end):
/// the damage starts `valid_len` bytes after `base`; `len` is the input's length.
fn end_damage(end: StreamEnd, base: u64, valid_len: u64, len: u64) -> Option<Damage> {
    let start = base + valid_len;
    let (end, kind, message) = match end {
        StreamEnd::Clean => return None,
        StreamEnd::TornTail { needed, present } => (
            len,
            "torn tail",
            format!("the stream ends inside the frame ({present} of its {needed} bytes present)"),
        ),
        StreamEnd::Damaged {
            needed, resumes_at, ..
        } => (
            base + resumes_at,
            "damaged length",
            format!(
                "the frame declares {needed} bytes, past the end of the input, but intact \
                 frames resume at byte offset {}",
                base + resumes_at
            ),
        ),
        StreamEnd::Ambiguous {
            needed, resumes_at, ..
        } => (
            len,
            "ambiguous end",
            format!(
                "the frame declares {needed} bytes, past the end of the input, and the bytes \
                 from byte offset {} parse as frames: a torn tail or a damaged length, which \
                 a stream without a checksum cannot tell apart",
                base + resumes_at
            ),
        ),
        StreamEnd::Corrupt(error) => (len, "corrupt frame", rebased(error, base).to_string()),
        _ => (
            len,
            "corrupt frame",
            "the stream cannot be read past this frame".to_owned(),
        ),
    };
    Some(Damage {
        start,
        end,
        kind,
        message,
    })
}

/// `error`, found in bytes that start at stream offset `base`, with its stream offset.
fn rebased(mut error: Error, base: u64) -> Error {
    if let Error::ChecksumMismatch { offset, .. }
    | Error::FrameTooLarge { offset, .. }
    | Error::UnexpectedEof { offset, .. }
    | Error::InvalidFlatbuffer { offset, .. } = &mut error
    {
        *offset += base;
    }
    error
}

/// `inspect(path)`: the framing, the intact frames, and the first damage if any.
pub(crate) fn inspect(
    py: Python<'_>,
    path: PathBuf,
    checksum: &str,
    max_frame_len: Option<usize>,
) -> PyResult<Report> {
    let mapped = Mapped::open(&path, checksum, max_frame_len)?;
    py.detach(|| {
        let bytes = mapped.bytes.as_bytes();
        let scan = Recover::new(&mapped.deframer)
            .with_max_frame_len(mapped.max)
            .scan(bytes);
        let damage = end_damage(scan.end, 0, scan.valid_len, bytes.len() as u64);
        Ok(mapped.report(scan.frames, damage.into_iter().collect()))
    })
}

/// A verifier of payloads against a schema: a plan reading no column that verifies every
/// field.
struct Valid(Converter);

impl Valid {
    fn new(plan: &Plan) -> PyResult<Valid> {
        let plan = plan
            .with_projection(&[])
            .map_err(|e| arrow_error("schema", e))?;
        Ok(Valid(plan.converter()))
    }

    /// Whether `payload` is valid; the reason if not.
    fn check(&mut self, offset: u64, payload: &[u8]) -> Result<(), String> {
        let checked = self.0.append(offset, payload).map(|_| ());
        if self.0.len() >= 1 << 16 {
            // Rows without columns: taken only so that the count does not grow.
            let _ = self.0.finish();
        }
        checked.map_err(|e| e.to_string())
    }
}

/// `verify(path, schema=None, all=False)`: checks every frame (and, with a schema, every
/// payload); stops at the first damage, or with `all` resynchronises past each damage as
/// `salvage` does and lists every damaged range.
pub(crate) fn verify(
    py: Python<'_>,
    path: PathBuf,
    plan: Option<Plan>,
    all: bool,
    checksum: &str,
    max_frame_len: Option<usize>,
) -> PyResult<Report> {
    let mapped = Mapped::open(&path, checksum, max_frame_len)?;
    let (deframer, max) = (&mapped.deframer, mapped.max);
    let mut valid = plan.as_ref().map(Valid::new).transpose()?;
    let invalid = |offset: u64, len: usize, reason: String| Damage {
        start: offset,
        end: offset + len as u64,
        kind: "invalid",
        message: reason,
    };
    py.detach(|| {
        let bytes = mapped.bytes.as_bytes();
        let len = bytes.len() as u64;
        let mut frames = 0;
        let mut damage = Vec::new();
        if !all {
            let mut it = Frames::new(bytes, deframer).with_max_frame_len(max);
            loop {
                let offset = it.position();
                match it.next() {
                    None => break,
                    Some(Ok(payload)) => {
                        if let Some(Err(reason)) = valid.as_mut().map(|v| v.check(offset, payload))
                        {
                            let frame = (it.position() - offset) as usize;
                            damage.push(invalid(offset, frame, reason));
                            break;
                        }
                        frames += 1;
                    }
                    Some(Err(_)) => {
                        let rest = &bytes[offset as usize..];
                        let scan = Recover::new(deframer).with_max_frame_len(max).scan(rest);
                        let mut range = end_damage(scan.end, offset, scan.valid_len, len);
                        // A corrupt frame's range ends where salvage finds intact frames again.
                        let resumes = Salvage::new(rest, deframer).with_max_frame_len(max).next();
                        if let (Some(range), Some(Salvaged::Skipped { end, .. })) =
                            (range.as_mut(), resumes)
                        {
                            if range.kind == "corrupt frame" {
                                range.end = offset + end;
                            }
                        }
                        damage.extend(range);
                        break;
                    }
                }
            }
            return Ok(mapped.report(frames, damage));
        }
        for item in Salvage::new(bytes, deframer).with_max_frame_len(max) {
            match item {
                Salvaged::Frame { offset, payload } => {
                    match valid.as_mut().map(|v| v.check(offset, payload)) {
                        Some(Err(reason)) => {
                            let frame = 4 + mapped.kind.size() + payload.len();
                            damage.push(invalid(offset, frame, reason));
                        }
                        _ => frames += 1,
                    }
                }
                Salvaged::Skipped { start, end } => {
                    let scan = Recover::new(deframer)
                        .with_max_frame_len(max)
                        .scan(&bytes[start as usize..end as usize]);
                    let mut range =
                        end_damage(scan.end, start, scan.valid_len, end).unwrap_or(Damage {
                            start,
                            end,
                            kind: "corrupt frame",
                            message: "no frame that verifies starts in these bytes".to_owned(),
                        });
                    range.end = end;
                    if end < len && range.kind == "torn tail" {
                        // Intact frames follow: the bytes are damage, not the end of a stream.
                        range.kind = "corrupt frame";
                    }
                    damage.push(range);
                }
                Salvaged::Rejected { offset, len, error } => {
                    damage.push(invalid(offset, len, error.to_string()));
                }
                _ => {}
            }
        }
        Ok(mapped.report(frames, damage))
    })
}

/// `salvage(src, dst)`: writes every intact frame of `src` to `dst`, in `src`'s framing,
/// skipping the damage. `dst` is written under a temporary name and renamed once whole.
pub(crate) fn salvage(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    checksum: &str,
    max_frame_len: Option<usize>,
) -> PyResult<SalvageReport> {
    let mapped = Mapped::open(&src, checksum, max_frame_len)?;
    if same_file(&src, &dst) {
        return Err(value_error(format!(
            "{}: salvage writes a new file: dst must not be src",
            dst.display()
        )));
    }
    let framer = ChecksumFramer::new(crate::source::checksum(mapped.kind)?);
    let shown = dst.display().to_string();
    let mut temporary = dst.clone().into_os_string();
    temporary.push(".salvage-partial");
    let temporary = PathBuf::from(temporary);
    py.detach(|| {
        let file = File::create(&temporary).map_err(|e| io_error(&shown, e))?;
        let mut writer = StreamWriter::new(BufWriter::new(file), framer);
        let written = Salvage::new(mapped.bytes.as_bytes(), &mapped.deframer)
            .with_max_frame_len(mapped.max)
            .write_to(&mut writer)
            .and_then(|report| writer.flush().map(|()| report));
        let report = match written {
            Ok(report) => report,
            Err(e) => {
                let _ = std::fs::remove_file(&temporary);
                return Err(crate::errors::frame_error(&shown, e));
            }
        };
        std::fs::rename(&temporary, &dst).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            io_error(&shown, e)
        })?;
        Ok(SalvageReport {
            frames: report.frames,
            rejected: report.rejected,
            skipped: report.skipped.iter().map(|r| (r.start, r.end)).collect(),
        })
    })
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
