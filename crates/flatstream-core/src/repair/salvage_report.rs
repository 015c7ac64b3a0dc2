//! Writing what [`Salvage`] kept into a [`StreamWriter`]: the std half of salvage, apart so
//! that the `no_std` iterator does not reach up to the writer.

use crate::error::Result;
use crate::repair::salvage::{Salvage, Salvaged};
use crate::wire::framing::{Deframer, Framer};
use crate::write::writer::StreamWriter;

/// What [`Salvage::write_to`] kept and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SalvageReport {
    /// Frames kept and written.
    pub frames: u64,
    /// Whole frames a validating deframer rejected, not written.
    pub rejected: u64,
    /// The byte ranges skipped, in order.
    pub skipped: std::vec::Vec<core::ops::Range<u64>>,
}

impl<D: Deframer> Salvage<'_, D> {
    /// Writes every frame kept to `writer`, framed by the writer's framer, and reports what was
    /// kept and skipped: the way to turn a damaged journal into a clean one.
    ///
    /// Stops at the first write error; frames written before it stay written (see
    /// [`StreamWriter::bytes_written`](crate::StreamWriter::bytes_written)).
    ///
    /// ```
    /// use flatstream::{ChecksumDeframer, ChecksumFramer, Frames, StreamWriter, XxHash64};
    /// use flatstream::repair::Salvage;
    ///
    /// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new()));
    /// writer.write_payload(b"kept")?; // bytes 0..16 (a 12-byte header, then the payload)
    /// writer.write_payload(b"lost")?; // bytes 16..32
    /// writer.write_payload(b"kept too")?; // bytes 32..52
    /// let mut damaged = writer.into_inner();
    /// damaged[30] ^= 1; // a bit of "lost"
    ///
    /// let mut clean = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new()));
    /// let report = Salvage::new(&damaged, ChecksumDeframer::new(XxHash64::new()))
    ///     .with_max_frame_len(1024)
    ///     .write_to(&mut clean)?;
    /// assert_eq!((report.frames, report.skipped), (2, vec![16..32]));
    /// let clean = clean.into_inner();
    /// let payloads: Vec<&[u8]> = Frames::new(&clean, ChecksumDeframer::new(XxHash64::new()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(payloads, [&b"kept"[..], b"kept too"]);
    /// # Ok::<(), flatstream::Error>(())
    /// ```
    pub fn write_to<W: std::io::Write, F: Framer>(
        self,
        writer: &mut StreamWriter<W, F>,
    ) -> Result<SalvageReport> {
        let mut report = SalvageReport::default();
        for item in self {
            match item {
                Salvaged::Frame { payload, .. } => {
                    writer.write_payload(payload)?;
                    report.frames += 1;
                }
                Salvaged::Rejected { .. } => report.rejected += 1,
                Salvaged::Skipped { start, end } => report.skipped.push(start..end),
            }
        }
        Ok(report)
    }
}
