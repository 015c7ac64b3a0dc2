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
    /// use flatstream::{ChecksumDeframer, ChecksumFramer, Frames, StreamWriter};
    /// use flatstream::checksum::Checksum;
    /// use flatstream::repair::Salvage;
    /// # #[derive(Clone, Copy)]
    /// # struct Fnv32;
    /// # impl Checksum for Fnv32 {
    /// #     fn size(&self) -> usize { 4 }
    /// #     fn calculate(&self, p: &[u8]) -> u64 {
    /// #         p.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193)).into()
    /// #     }
    /// # }
    /// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(Fnv32));
    /// writer.write_payload(b"kept")?;
    /// writer.write_payload(b"lost")?;
    /// writer.write_payload(b"kept too")?;
    /// let mut damaged = writer.into_inner();
    /// damaged[20] ^= 1;
    ///
    /// let mut clean = StreamWriter::new(Vec::new(), ChecksumFramer::new(Fnv32));
    /// let report = Salvage::new(&damaged, ChecksumDeframer::new(Fnv32)).with_max_frame_len(1024).write_to(&mut clean)?;
    /// assert_eq!((report.frames, report.skipped), (2, vec![12..24]));
    /// let clean = clean.into_inner();
    /// let payloads: Vec<&[u8]> = Frames::new(&clean, ChecksumDeframer::new(Fnv32)).collect::<Result<_, _>>()?;
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
