//! `flatstream convert`: re-frame a stream with another checksum, verifying on the way.

use crate::failure::{Failure, Status, count};
use crate::input::{Access, Input};
use crate::options::ConvertArgs;
use crate::progress::Progress;
use crate::walk::Framed;
use flatstream::checksum::AnyChecksum;
use std::ops::ControlFlow;

pub(crate) fn run(args: &ConvertArgs) -> Result<Status, Failure> {
    let mut input = Input::open(&args.file, Access::Stream, args.framing.max())?;
    input.check_not_output(&args.file, &args.out.output)?;
    let framed = Framed::resolve(&input, &args.framing)?;
    let to = AnyChecksum::new(args.to_checksum).map_err(Failure::error)?;

    let mut writer = args.out.writer(to)?;
    let write_error = |e| args.out.write_failure(e);
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
            "{damage}; {} holds the {} before it",
            args.out.name(),
            count(walked.frames, "frame")
        ))),
        None => Ok(Status::Ok),
    }
}
