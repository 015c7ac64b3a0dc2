//! The input of a command: a file, memory-mapped where possible, or a stream (standard input,
//! a pipe, `--no-mmap`), with its leading bytes at hand for framing detection: as many as the
//! library's [`detect`] asks for, so that a first frame of any size within the bound is read
//! whole, and a file gives the same head mapped, streamed or read by SQL.
//!
//! Files are mapped with the library's [`MappedFile`], whose docs state the risk of a mapped
//! file (another process truncating it raises SIGBUS, as it does under `ripgrep`; one
//! modifying it changes the bytes read). Mapping is what lets `verify` read at the speed of the
//! checksum (a stream read copies every byte once more); `--no-mmap` avoids it.

use crate::detect::{Detection, Framing, detect};
use crate::failure::{Failure, io_message};
use flatstream::checksum::AnyChecksum;
use flatstream::read::MappedFile;
use flatstream::{ChecksumDeframer, StreamReader};
use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;

/// Whether a command wants the bytes mapped or read as a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Map a regular file (fall back to a stream if it cannot be mapped).
    Map,
    /// Read as a stream, whatever the input is.
    Stream,
}

/// An open input.
pub(crate) struct Input {
    /// The name to print: the path, or "stdin".
    pub(crate) name: String,
    body: Body,
    /// How many leading bytes detection reads: the input's head is the first `head_len` bytes
    /// (or all of a shorter input).
    head_len: usize,
    /// What detection made of the head.
    detection: Detection,
}

enum Body {
    /// A memory-mapped file (or an empty one, which is not mapped).
    Mapped(MappedFile),
    /// A stream: its first bytes already read (the head, and one byte past it when there is
    /// one, so that a head which is the whole input is known as such), the rest in `rest`.
    Stream {
        read: Vec<u8>,
        rest: Box<dyn Read>,
        len: Option<u64>,
    },
}

impl Input {
    /// Opens `path` (`-` for standard input) and reads its head: the leading bytes framing
    /// detection needs under the bound `max` (see [`detect`]).
    pub(crate) fn open(path: &str, access: Access, max: usize) -> Result<Input, Failure> {
        let mut input = Input::unread(path, access)?;
        input.read_head(max)?;
        Ok(input)
    }

    /// Opens `path` without reading anything.
    fn unread(path: &str, access: Access) -> Result<Input, Failure> {
        if path == "-" {
            return Input::stream("stdin".to_owned(), Box::new(io::stdin()), None);
        }
        let file = File::open(path).map_err(|e| Failure::io(path, e))?;
        let meta = file.metadata().map_err(|e| Failure::io(path, e))?;
        if meta.is_dir() {
            return Err(Failure::error(format_args!("{path}: is a directory")));
        }
        let name = path.to_owned();
        if access == Access::Map && meta.is_file() {
            // Where the system cannot map it, the file is read as a stream below.
            if let Ok(map) = MappedFile::map(&file) {
                // Sequential reading is what every command does: ask for read-ahead.
                let _ = map.advise_sequential();
                return Ok(Input {
                    name,
                    body: Body::Mapped(map),
                    head_len: 0,
                    detection: Detection::Empty,
                });
            }
        }
        let len = meta.is_file().then_some(meta.len());
        Input::stream(name, Box::new(file), len)
    }

    fn stream(name: String, rest: Box<dyn Read>, len: Option<u64>) -> Result<Input, Failure> {
        Ok(Input {
            name,
            body: Body::Stream {
                read: Vec::new(),
                rest,
                len,
            },
            head_len: 0,
            detection: Detection::Empty,
        })
    }

    /// Reads the head: from nothing, as many leading bytes as [`detect`] asks for, until it
    /// tells the framing or says why it cannot. The same bytes whether the input is mapped or
    /// streamed, and the same as flatstream-datafusion reads for a file.
    fn read_head(&mut self, max: usize) -> Result<(), Failure> {
        loop {
            if let Body::Stream { read, rest, .. } = &mut self.body {
                // One byte past the head, if there is one: then the head is not all of it.
                let want = self.head_len.saturating_add(1);
                if read.len() < want {
                    let missing = (want - read.len()) as u64;
                    rest.by_ref()
                        .take(missing)
                        .read_to_end(read)
                        .map_err(|e| Failure::io(&self.name, e))?;
                }
            }
            let (head, complete) = self.head();
            match detect(head, complete, max) {
                Detection::NeedMore { len } => self.head_len = len,
                detection => {
                    self.detection = detection;
                    return Ok(());
                }
            }
        }
    }

    /// What framing detection made of the head (under the bound given to [`open`](Self::open)),
    /// whether or not the command was given `--checksum`: the framing to read with, or the
    /// one to suggest after an error.
    pub(crate) fn detection(&self) -> &Detection {
        &self.detection
    }

    /// The leading bytes framing detection reads, and whether they are the whole input.
    pub(crate) fn head(&self) -> (&[u8], bool) {
        let bytes = match &self.body {
            Body::Mapped(m) => m.as_bytes(),
            Body::Stream { read, .. } => read,
        };
        // A stream holds one byte past the head unless it ended: the same answer as mapped.
        let len = bytes.len().min(self.head_len);
        (&bytes[..len], bytes.len() <= self.head_len)
    }

    /// The input's length, if it is known before reading it all.
    pub(crate) fn len(&self) -> Option<u64> {
        match &self.body {
            Body::Mapped(m) => Some(m.len() as u64),
            Body::Stream { len, .. } => *len,
        }
    }

    /// The whole input in memory, if it is mapped.
    pub(crate) fn mapped(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Mapped(m) => Some(m.as_bytes()),
            Body::Stream { .. } => None,
        }
    }

    /// A reader of the input's frames under `framing`, payloads bounded by `max`.
    pub(crate) fn frames(
        &mut self,
        framing: &Framing,
        max: usize,
    ) -> StreamReader<Box<dyn Read + '_>, ChecksumDeframer<AnyChecksum>> {
        StreamReader::new(self.reader(), ChecksumDeframer::new(framing.checksum))
            .with_max_frame_len(max)
    }

    /// The input as a stream of bytes from its start.
    pub(crate) fn reader(&mut self) -> Box<dyn Read + '_> {
        match &mut self.body {
            Body::Mapped(m) => Box::new(m.as_bytes()),
            Body::Stream { read, rest, .. } => {
                Box::new(Cursor::new(std::mem::take(read)).chain(rest))
            }
        }
    }

    /// The whole input: the mapping, or for a stream every byte read into memory.
    pub(crate) fn into_bytes(self) -> Result<Bytes, Failure> {
        match self.body {
            Body::Mapped(m) => Ok(Bytes::Mapped(m)),
            Body::Stream {
                mut read, mut rest, ..
            } => {
                rest.read_to_end(&mut read)
                    .map_err(|e| Failure::io(&self.name, e))?;
                Ok(Bytes::Owned(read))
            }
        }
    }

    /// Fails if `output` names the same file as this input: writing it would destroy the
    /// input before it is read.
    pub(crate) fn check_not_output(&self, input_path: &str, output: &str) -> Result<(), Failure> {
        if input_path == "-" || output == "-" {
            return Ok(());
        }
        if same_file(Path::new(input_path), Path::new(output)) {
            return Err(Failure::error(format_args!(
                "{output} is the input file: write to another file"
            )));
        }
        Ok(())
    }
}

/// Every byte of an input, held in memory.
pub(crate) enum Bytes {
    Mapped(MappedFile),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

#[cfg(unix)]
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Creates `path` for writing (`-` is stdout), refusing to write binary frames to a terminal.
pub(crate) fn create_output(path: &str) -> Result<Box<dyn io::Write>, Failure> {
    use std::io::IsTerminal;
    if path == "-" {
        if io::stdout().is_terminal() {
            return Err(Failure::error(
                "refusing to write binary frames to a terminal: redirect stdout or pass a file",
            ));
        }
        return Ok(Box::new(io::BufWriter::with_capacity(
            1 << 16,
            io::stdout().lock(),
        )));
    }
    let file = File::create(path)
        .map_err(|e| Failure::error(format_args!("{path}: cannot create: {}", io_message(&e))))?;
    Ok(Box::new(io::BufWriter::with_capacity(1 << 16, file)))
}

/// A file OUT written whole or not at all: bytes go to a temporary file beside OUT, renamed to
/// OUT by [`commit`](Self::commit); dropped uncommitted, it is removed and OUT is as it was.
#[cfg(any(feature = "sql", feature = "mcap"))]
#[derive(Debug)]
pub(crate) struct Replacing {
    temp: tempfile::NamedTempFile,
    path: String,
}

#[cfg(any(feature = "sql", feature = "mcap"))]
impl Replacing {
    /// A temporary file in OUT's directory (`.OUT.XXXX.partial`).
    pub(crate) fn create(output: &str) -> Result<Replacing, Failure> {
        let path = Path::new(output);
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".partial")
            .tempfile_in(dir)
            .map_err(|e| {
                Failure::error(format_args!("{output}: cannot create: {}", io_message(&e)))
            })?;
        Ok(Replacing {
            temp,
            path: output.to_owned(),
        })
    }

    /// OUT's name, as given.
    #[cfg(feature = "sql")]
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The temporary file, to write through (a handle of its own).
    pub(crate) fn file(&self) -> Result<File, Failure> {
        self.temp
            .as_file()
            .try_clone()
            .map_err(|e| Failure::io(&self.path, e))
    }

    /// Syncs the temporary file and renames it to OUT, with the usual mode of a new file.
    pub(crate) fn commit(self) -> Result<(), Failure> {
        // The temporary file is private (0600).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = self
                .temp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644));
        }
        self.temp
            .as_file()
            .sync_all()
            .map_err(|e| Failure::io(&self.path, e))?;
        self.temp
            .persist(&self.path)
            .map_err(|e| Failure::io(&self.path, e.error))?;
        Ok(())
    }
}
