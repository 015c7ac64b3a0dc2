//! `flatstream convert`: re-frame a stream with another checksum, verifying on the way.

use crate::failure::{Failure, Status, count};
use crate::input::{Access, Input, create_output};
use crate::options::ConvertArgs;
use crate::progress::Progress;
use crate::walk::Framed;
use flatstream::checksum::AnyChecksum;
use flatstream::{ChecksumFramer, Error, StreamWriter};
use std::ops::ControlFlow;

pub(crate) fn run(args: &ConvertArgs) -> Result<Status, Failure> {
    let mut input = Input::open(&args.file, Access::Stream, args.framing.max())?;
    input.check_not_output(&args.file, &args.output)?;
    let framed = Framed::resolve(&input, &args.framing)?;
    let to = AnyChecksum::new(args.to_checksum).map_err(Failure::error)?;

    let out = create_output(&args.output)?;
    let mut writer = StreamWriter::new(out, ChecksumFramer::new(to));
    let output = if args.output == "-" {
        "stdout"
    } else {
        &args.output
    };
    let write_error = |e: Error| match e {
        Error::Io { source, .. } if args.output == "-" => Failure::stdout(source),
        Error::Io { source, .. } => Failure::io(output, source),
        other => Failure::error(other),
    };
    let mut progress = Progress::new("converting", input.len());
    let walked = framed.walk(&mut input, &mut progress, |_, _, payload| {
        writer.write_payload(payload).map_err(write_error)?;
        Ok(ControlFlow::Continue(()))
    });
    // Whatever happened, what was converted reaches OUT.
    let flushed = writer.flush().map_err(write_error);
    let walked = walked?;
    flushed?;
    match framed.damage(&walked) {
        Some(damage) => Err(Failure::damaged(format_args!(
            "{damage}; {output} holds the {} before it",
            count(walked.frames, "frame")
        ))),
        None => Ok(Status::Ok),
    }
}
