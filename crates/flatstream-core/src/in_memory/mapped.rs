//! [`MappedFile`]: a file's bytes as a `&[u8]`, memory-mapped where the system allows, read
//! into memory where it does not (feature `mmap`). The one `unsafe` call is the mapping.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::vec::Vec;

/// The bytes of a file, as one `&[u8]` ([`as_bytes`](Self::as_bytes), or `Deref`): memory-mapped
/// where possible, so that [`Frames`](crate::Frames), [`SplitFrames`](crate::SplitFrames) and
/// `ParallelFrames` read a file where it lies, paying only for the pages they touch; read into
/// memory where mapping is not possible.
///
/// ```
/// use flatstream::read::MappedFile;
/// use flatstream::{ChecksumDeframer, ChecksumFramer, Frames, StreamWriter, XxHash64};
///
/// let path = std::env::temp_dir().join(format!("mapped-{}.fstream", std::process::id()));
/// let file = std::fs::File::create(&path)?;
/// let mut writer = StreamWriter::new(file, ChecksumFramer::new(XxHash64::new()));
/// for word in ["alpha", "beta", "gamma"] {
///     writer.write_payload(word.as_bytes())?;
/// }
/// writer.flush()?;
///
/// let file = MappedFile::open(&path)?;
/// let mut count = 0;
/// for payload in Frames::new(&file, ChecksumDeframer::new(XxHash64::new())) {
///     let _message = payload?;
///     count += 1;
/// }
/// assert_eq!(count, 3);
/// drop(file); // unmapped before the file is removed
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # The risk of a mapped file
///
/// A mapping shows the file as it is now, not as it was when it was opened. **If another
/// process modifies the file while it is mapped, the bytes change under the reader**: frames
/// read before and after the change may disagree, and a checksum verified a moment ago may no
/// longer hold for the bytes. Every read still goes through the decoder's bounds checks, so
/// this gives wrong answers about a file being rewritten, not undefined behaviour in the
/// library. **If another process truncates the file while it is mapped, reading a page past
/// the new end raises SIGBUS on Unix** (an access violation on Windows), which ends the
/// process. That is the hazard every reader of a mapped file accepts, `ripgrep` included; it
/// is why mapping is `unsafe` in `memmap2`, and it is the one argument of this type's `unsafe`
/// block.
///
/// Map files that nothing truncates while you read them: a finished capture, a journal whose
/// writer only appends (appended bytes lie past the mapped length and are not seen). Where
/// another process may truncate or rewrite the file, use [`MappedFile::read`], which copies the
/// file into memory once, or read it as a stream with [`StreamReader`](crate::StreamReader).
///
/// # When the file is not mapped
///
/// [`open`](Self::open) reads the file into memory instead of mapping it where the file is
/// empty (a mapping cannot be empty), is not a regular file (a pipe, a FIFO, a character
/// device: the bytes are read to its end), or the system refuses to map it.
/// [`is_mapped`](Self::is_mapped) tells which happened.
pub struct MappedFile {
    bytes: Bytes,
}

enum Bytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl MappedFile {
    /// Opens the file at `path` and maps it, or reads it into memory where it cannot be
    /// mapped (see [When the file is not mapped](Self#when-the-file-is-not-mapped)).
    ///
    /// # Errors
    ///
    /// Those of opening the file, reading its metadata, or reading it where it is not mapped.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            if let Ok(mapped) = Self::map(&file) {
                return Ok(mapped);
            }
        }
        read_to_end(&mut file, meta.is_file().then_some(meta.len()))
    }

    /// Maps `file`, already open for reading, with no fallback. An empty file gives no bytes,
    /// without a mapping.
    ///
    /// # Errors
    ///
    /// Those of reading the metadata, or of mapping: a file that is not a regular file
    /// usually cannot be mapped.
    pub fn map(file: &File) -> io::Result<Self> {
        if file.metadata()?.len() == 0 {
            return Ok(MappedFile {
                bytes: Bytes::Read(Vec::new()),
            });
        }
        // SAFETY: the mapping is read-only and only handed out as `&[u8]` borrowed from `self`,
        // so it lives no longer than the mapping. `memmap2::Mmap::map` is `unsafe` because the
        // file can change under the mapping: bytes modified by another process change what a
        // `&[u8]` shows (which every consumer here tolerates: the decoder bounds-checks every
        // access and trusts no byte it read earlier), and a file truncated by another process
        // makes the pages past its new end raise SIGBUS. That hazard is documented once, on
        // `MappedFile` ("The risk of a mapped file"), and accepted by whoever maps a file.
        let map = unsafe { memmap2::Mmap::map(file) }?;
        Ok(MappedFile {
            bytes: Bytes::Mapped(map),
        })
    }

    /// Reads the file at `path` into memory, never mapping it: the bytes are a copy, which
    /// another process changing the file does not touch.
    ///
    /// # Errors
    ///
    /// Those of opening and reading the file.
    pub fn read(path: impl AsRef<Path>) -> io::Result<Self> {
        let mut file = File::open(path)?;
        let len = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        read_to_end(&mut file, len)
    }

    /// The file's bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(map) => map,
            Bytes::Read(bytes) => bytes,
        }
    }

    /// Whether the bytes are mapped (rather than read into memory).
    pub fn is_mapped(&self) -> bool {
        matches!(self.bytes, Bytes::Mapped(_))
    }

    /// Tells the system the bytes will be read from start to end, so that it reads ahead and
    /// keeps less behind (`madvise(MADV_SEQUENTIAL)` on Unix). Does nothing for bytes read
    /// into memory, nor on other systems.
    ///
    /// # Errors
    ///
    /// Those of `madvise`.
    pub fn advise_sequential(&self) -> io::Result<()> {
        match &self.bytes {
            #[cfg(unix)]
            Bytes::Mapped(map) => map.advise(memmap2::Advice::Sequential),
            _ => Ok(()),
        }
    }
}

/// Reads `file` to its end, with room for `len` bytes where the length is known.
fn read_to_end(file: &mut File, len: Option<u64>) -> io::Result<MappedFile> {
    let mut bytes = Vec::new();
    if let Some(len) = len.and_then(|len| usize::try_from(len).ok()) {
        bytes.try_reserve_exact(len).map_err(io::Error::other)?;
    }
    file.read_to_end(&mut bytes)?;
    Ok(MappedFile {
        bytes: Bytes::Read(bytes),
    })
}

impl core::ops::Deref for MappedFile {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for MappedFile {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl core::fmt::Debug for MappedFile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MappedFile")
            .field("len", &self.as_bytes().len())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

// Mapping needs a real file system, which Miri does not provide.
#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("flatstream-mapped-{}-{name}", std::process::id()));
        File::create(&path).unwrap().write_all(bytes).unwrap();
        path
    }

    #[test]
    fn a_regular_file_is_mapped_and_read_the_same() {
        let path = temp_file("regular", b"\x02\0\0\0hi");
        let mapped = MappedFile::open(&path).unwrap();
        let read = MappedFile::read(&path).unwrap();
        assert!(mapped.is_mapped());
        assert!(!read.is_mapped());
        assert_eq!(mapped.as_bytes(), b"\x02\0\0\0hi");
        assert_eq!(&*read, mapped.as_bytes());
        mapped.advise_sequential().unwrap();
        drop(mapped);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_empty_file_gives_no_bytes_without_a_mapping() {
        let path = temp_file("empty", b"");
        let file = MappedFile::open(&path).unwrap();
        assert!(file.is_empty());
        assert!(!file.is_mapped());
        assert!(
            MappedFile::map(&File::open(&path).unwrap())
                .unwrap()
                .is_empty()
        );
        std::fs::remove_file(path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_read_to_its_end() {
        let path =
            std::env::temp_dir().join(format!("flatstream-mapped-{}-fifo", std::process::id()));
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success(), "mkfifo");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut fifo = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                fifo.write_all(&[7; 100_000]).unwrap();
            })
        };
        let file = MappedFile::open(&path).unwrap();
        writer.join().unwrap();
        assert!(!file.is_mapped());
        assert_eq!(file.as_bytes(), [7; 100_000]);
        std::fs::remove_file(path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_read_not_mapped() {
        let file = MappedFile::open("/dev/null").unwrap();
        assert!(!file.is_mapped());
        assert!(file.is_empty());
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let err = MappedFile::open("/nonexistent/flatstream/file").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
