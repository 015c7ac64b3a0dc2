//! The command line: every command, option and help text (clap derive).

use crate::detect::{self, Framing};
use crate::failure::Failure;
use crate::input::{Input, create_output};
use crate::schema::Schema;
use clap::builder::NonEmptyStringValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::framing::DEFAULT_MAX_FRAME_LEN;
use flatstream::{ChecksumFramer, StreamWriter};
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) mod mcap;
pub(crate) mod sql;
use mcap::{IMPORT_HELP, ImportArgs};
use sql::{EXPORT_HELP, ExportArgs, QUERY_HELP, QueryArgs, WORKER_HELP, WorkerArgs};

const EXIT_STATUS: &str = "\
Conventions, for every command:
  FILE...         inspect, verify and cat take several files (- for standard input) and report
                  on each in turn, its results prefixed with its name; pack packs several
                  into one stream; recover, salvage, convert and tail take one
  -o OUT          where a command writes a stream (salvage, convert, pack): - for stdout
  --checksum      the checksum of the input stream (default: detected from its leading
                  frames); --to-checksum is the checksum of the output (convert); pack, whose
                  input is JSON, frames its output with --checksum
  -q, --quiet     no progress bar, and nothing on stderr but errors
  --no-progress   no progress bar (one shows only when stderr is a terminal, for work that
                  lasts a few seconds)

An empty file is an empty stream: zero frames, clean, whatever its checksum.

Exit status:
  0  all is well
  1  the stream is damaged or fails a check: the first problem is named with its frame index
     and byte offset, on stderr (in their report, for inspect, recover and salvage)
  2  the command could not do its job: a missing or unreadable file or schema, a bad option,
     a framing that cannot be told from the data (inspect reports that one, with status 1)
With several FILEs, the status is the worst of theirs (2 over 1 over 0); each file's error
line on stderr starts with its name.";

/// Look into, check, repair, salvage, convert, print, pack, export and query streams of FlatBuffers
/// messages.
///
/// A stream is frames laid end to end: [u32 LE payload length][checksum of the payload: 0, 2, 4
/// or 8 bytes][payload]. Nothing in the stream says which checksum it uses: without
/// --checksum, every command detects it from the leading frames.
///
/// FILE is a path, or - for standard input. Files are memory-mapped where that helps (verify,
/// recover, salvage) and read in a stream otherwise, so memory stays bounded by the largest
/// frame; --no-mmap reads every file as a stream.
#[derive(Debug, Parser)]
#[command(
    name = "flatstream",
    version,
    after_help = EXIT_STATUS,
    propagate_version = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// Print shell completions or the man page on stdout, and exit (`flatstream --generate
    /// complete-bash > /etc/bash_completion.d/flatstream`, `flatstream --generate man >
    /// flatstream.1`).
    #[arg(long, value_enum, value_name = "KIND")]
    pub(crate) generate: Option<Generate>,
    /// No progress bar, and nothing on stderr but errors.
    #[arg(long, short = 'q', global = true)]
    pub(crate) quiet: bool,
    /// No progress bar (one shows only when stderr is a terminal, once work lasts a few seconds).
    #[arg(long, global = true)]
    pub(crate) no_progress: bool,
}

/// What `--generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Generate {
    /// Completions for bash.
    CompleteBash,
    /// Completions for zsh.
    CompleteZsh,
    /// Completions for fish.
    CompleteFish,
    /// Completions for PowerShell.
    CompletePowershell,
    /// The man page, in roff (`man ./flatstream.1`).
    Man,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Frames, bytes, payload sizes, header overhead and how the stream ends; detects the framing.
    #[command(after_help = INSPECT_HELP)]
    Inspect(InspectArgs),
    /// Check every frame's checksum, and with --schema its FlatBuffer against the schema.
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// Find where the intact part of a stream ends; with --truncate, cut the torn tail off.
    #[command(after_help = RECOVER_HELP)]
    Recover(RecoverArgs),
    /// Copy every intact frame of a damaged stream into a clean one, skipping the damage.
    #[command(
        after_help = SALVAGE_HELP,
        mut_arg("max_frame_len", |a| a.help(SALVAGE_MAX_FRAME_LEN))
    )]
    Salvage(SalvageArgs),
    /// Print each message: as JSON with --schema, else its index, offset, size and bytes.
    #[command(after_help = CAT_HELP)]
    Cat(CatArgs),
    /// Re-frame a stream with another checksum (or none), verifying every frame on the way.
    #[command(after_help = CONVERT_HELP)]
    Convert(ConvertArgs),
    /// Print the last frames of a stream, and with -f the frames appended to it as they come.
    #[command(after_help = TAIL_HELP)]
    Tail(TailArgs),
    /// Build a stream from JSON lines through a schema: what cat --schema prints, packed back.
    #[command(after_help = PACK_HELP)]
    Pack(PackArgs),
    /// Write the messages as a table (Parquet, an Arrow IPC file, CSV, JSON lines) or as MCAP.
    #[command(after_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Write the messages of an MCAP file's FlatBuffers channels as a stream.
    #[command(after_help = IMPORT_HELP)]
    Import(ImportArgs),
    /// Run SQL over streams: files and globs are tables (`SELECT ... FROM 'logs/*.fstream'`).
    #[command(after_help = QUERY_HELP)]
    Query(QueryArgs),
    /// Serve the tasks of `query --workers`: SQL over streams on a cluster.
    #[command(after_help = WORKER_HELP)]
    Worker(WorkerArgs),
}

/// The input's framing and the bound on frames (every command that reads a stream).
#[derive(Debug, Args)]
pub(crate) struct FramingArgs {
    /// The stream's checksum: none, xxhash64, crc32, crc32c or crc16 (default: detected from
    /// the leading frames).
    #[arg(long, short = 'c', value_name = "KIND", value_parser = KindParser, hide_possible_values = true)]
    pub(crate) checksum: Option<ChecksumKind>,
    /// Largest payload accepted, in bytes; a frame declaring more is corrupt. Set it to the
    /// bound the writer used: a length over it is known to be corrupt, and fewer lengths in
    /// damaged bytes fit it. (A length within it that runs past the end is a torn tail unless
    /// frames that verify follow it.) [default: 2147483648]
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_frame_len: Option<usize>,
}

impl FramingArgs {
    /// The bound on frames: `--max-frame-len`, else the library's default.
    pub(crate) fn max(&self) -> usize {
        self.max_frame_len.unwrap_or(DEFAULT_MAX_FRAME_LEN)
    }

    /// The framing to read `input` with: `--checksum`, else the one detected from its head
    /// (see [`detect::resolve`]).
    pub(crate) fn resolve(&self, input: &Input) -> Result<Framing, Failure> {
        detect::resolve(self.checksum, input.detection(), "--checksum")
    }
}

/// How `export` and `query` read streams into rows: the framing, the schema (required), the
/// root table, what to do with a message the schema rejects, and the offset column.
#[derive(Debug, Args)]
#[command(mut_arg("schema", |a| a.required(true)))]
pub(crate) struct TableArgs {
    #[command(flatten)]
    pub(crate) schema: SchemaArgs,
    /// Skip messages the schema rejects, and count them, instead of stopping.
    #[arg(long)]
    pub(crate) skip_invalid: bool,
    /// Verify every field of each message, not only the columns read.
    #[arg(long)]
    pub(crate) verify_unread: bool,
    /// Add the column `_offset`, each frame's byte offset in its stream, last (in query: to
    /// every table).
    #[arg(long)]
    pub(crate) offset_column: bool,
    #[command(flatten)]
    pub(crate) framing: FramingArgs,
}

/// `--max-frame-len` in salvage, whose default bound is another (its help says which).
const SALVAGE_MAX_FRAME_LEN: &str = "Largest payload accepted, in bytes; a frame declaring more is \
     corrupt. Set it to the bound the writer used: a length over it is known to be corrupt, and \
     fewer lengths in damaged bytes fit it. [default: see below]";

/// How to read the input: its framing, the bound on frames, and whether to map files.
#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    #[command(flatten)]
    pub(crate) framing: FramingArgs,
    /// Read files as a stream instead of memory-mapping them.
    #[arg(long)]
    pub(crate) no_mmap: bool,
}

/// The stream a command writes (salvage, convert, pack, import; pack's is stdout by default),
/// and what a failed write to it is.
#[derive(Debug, Args)]
pub(crate) struct OutputArgs {
    /// Where to write the output stream (- for stdout, which must not be a terminal).
    #[arg(long, short = 'o', value_name = "OUT")]
    pub(crate) output: String,
}

impl OutputArgs {
    /// OUT as messages name it: its path, or `stdout`.
    pub(crate) fn name(&self) -> &str {
        if self.output == "-" {
            "stdout"
        } else {
            &self.output
        }
    }

    /// A writer of frames to OUT, with `checksum` (see [`create_output`]).
    pub(crate) fn writer(&self, checksum: AnyChecksum) -> Result<StreamOut, Failure> {
        let out = create_output(&self.output)?;
        Ok(StreamWriter::new(out, ChecksumFramer::new(checksum)))
    }

    /// What a failed write to OUT is: a closed stdout, an I/O error on OUT, or the writer's
    /// own error.
    pub(crate) fn write_failure(&self, e: flatstream::Error) -> Failure {
        match e {
            flatstream::Error::Io { source, .. } if self.output == "-" => Failure::stdout(source),
            flatstream::Error::Io { source, .. } => Failure::io(&self.output, source),
            other => Failure::error(other),
        }
    }
}

/// The writer [`OutputArgs::writer`] opens.
pub(crate) type StreamOut = StreamWriter<Box<dyn Write>, ChecksumFramer<AnyChecksum>>;

/// A binary schema and the table the messages are. Optional where a command can do without
/// (verify, cat, tail); `pack` and [`TableArgs`] make `--schema` required.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The messages' schema, as a binary schema (`flatc -b --schema x.fbs` writes x.bfbs).
    #[arg(long, short = 's', value_name = "S.bfbs")]
    pub(crate) schema: Option<PathBuf>,
    /// The table each message is (default: the schema's root_type). A full name
    /// (`fleet.Robot`) or, when it is unambiguous, the name alone (`Robot`).
    #[arg(long, value_name = "TABLE", requires = "schema", value_parser = NonEmptyStringValueParser::new())]
    pub(crate) root_type: Option<String>,
}

impl SchemaArgs {
    /// The schema `--schema` names, loaded with `--root-type`'s table as the messages'; `None`
    /// without `--schema`.
    pub(crate) fn load(&self) -> Result<Option<Schema>, Failure> {
        let path = self.schema.as_deref();
        path.map(|path| Schema::load(path, self.root_type.as_deref()))
            .transpose()
    }

    /// `--schema`, in a command that requires it (clap has checked that it is given).
    pub(crate) fn path(&self) -> &Path {
        self.schema
            .as_deref()
            .expect("the command requires --schema")
    }
}

const INSPECT_HELP: &str = "\
Output: the framing (and how it was found), frames, bytes, payload sizes (min, median, p99,
max; exact up to 64 KiB, within 1/256 above), header bytes and their share of the stream, and
how the stream ends: clean, or at the first damage, named as every command names it: a corrupt
frame (its checksum fails, or its length is over the bound), a damaged length (a frame runs
past the end, but intact frames follow it), a torn tail (a frame cut short, what a writer that
died leaves) or, without a checksum, an ambiguous end. A damaged stream's report ends with what
to run next: verify --all lists every damaged range, salvage keeps every intact frame. Memory
stays bounded whatever the file's size.

Framing detection reads the leading frames (up to 64, from the first 64 KiB, or from as many
bytes as a larger leading frame takes, within --max-frame-len) with each framing in turn. It names the one whose checksums verify non-empty payloads; the stream is ambiguous
when no payload tells them apart (all-zero bytes: the CRCs of an empty payload are 0), and
then inspect says why. An empty input needs no framing: it is a clean stream of zero frames.

With several FILEs, the reports follow each other, separated by a blank line (with --json, one
object per line).

Exit status:
  0  the stream ends clean (an empty file too: zero frames)
  1  the stream is damaged (a corrupt frame, a damaged length, a torn tail, an ambiguous end),
     or its framing cannot be told
  2  the command could not do its job (missing file, bad option)
With several FILEs, the worst status of theirs.";

const VERIFY_HELP: &str = "\
Prints `ok: N frames, B bytes, KIND checksums verify` (`no checksum: frames parse` for a stream
without one, whose frames can only be checked to follow each other) when every frame verifies.
Otherwise it reports the first error on stderr with its frame index (0-based, counting intact
frames) and byte offset, and stops. A frame that runs past the end of a file is a torn tail
only if nothing intact follows it, as recover tells them apart (a pipe is not looked past). With --all it goes on past every error (resynchronising
after a corrupt frame as salvage does, which needs a file, not a pipe, and a checksum: a stream
without one stops at its first corrupt frame), prints each damaged range on stdout (`frame N
at bytes START..END: REASON`) and a count on stderr.
--json prints the result as one JSON object on stdout: `damage` is the array of damaged ranges
({index, offset, end, kind, message}; `end` is null where it is not known: without --all, the
stream is not read past the first error), `first_error` the first of them. Past 65536 ranges,
the rest are counted (`errors`) but not listed.

An empty file is an empty stream: `ok: 0 frames`. With several FILEs, each result line starts
with the file's name, and each file's error is printed on stderr with its name.

A mapped file of 16 MiB or more is verified on every core (--threads N sets how many; 1 reads
it on one thread): it is cut at frame boundaries found by resynchronization, which the
checksums make possible, and the parts are verified at once. Below 16 MiB, starting threads
costs about what it saves. The result is the same either way: the same first error at the same
frame index and byte offset, the same counts with --all. A stream without a checksum is
verified on one thread unless --schema gives the threads work; standard input, pipes and
--no-mmap are read on one thread.

Exit status:
  0  every frame verifies (an empty file too)
  1  a frame does not verify (checksum, bound, schema) or the stream ends inside a frame
  2  the command could not do its job (missing file, unreadable schema, unknown root type,
     a framing that cannot be told)
With several FILEs, the worst status of theirs.";

const RECOVER_HELP: &str = "\
A dry run by default: it reports the intact frames, the offset just past the last of them, and
how the stream ends, and changes nothing. With --truncate it cuts the file at that offset,
byte-exact, and syncs it, so that a writer can reopen it and append. Only a torn tail is cut
(a frame cut short, with no intact frame after it); anything else leaves the file as it is:

  corrupt frame   a frame fails its checksum or declares more than --max-frame-len
  damaged length  a frame declares a length past the end of the file, but frames whose
                  checksums verify follow it: cutting would lose them. Run salvage to keep
                  them
  ambiguous end   no checksum: a frame declares a length past the end of the file, and the
                  bytes after it parse as three or more non-empty frames that end exactly at
                  the end of the file. Nothing tells a torn tail from a damaged length
                  followed by intact frames: --force cuts it as a torn tail

--cut-corrupt cuts a corrupt or damaged frame and everything after it (run salvage first to
keep the intact frames that follow it). Pass the bound the stream was written with
(--max-frame-len): a length over it is known to be corrupt.

Exit status:
  0  the stream ends clean, or --truncate cut its end (a torn tail; with --cut-corrupt or
     --force, what they allow)
  1  the stream is damaged and was left as it is (a dry run; or with --truncate, a corrupt or
     damaged frame without --cut-corrupt, an ambiguous end without --force)
  2  the command could not do its job (missing file, --truncate on standard input,
     a framing that cannot be told)";

const SALVAGE_HELP: &str = "\
Writes every frame whose checksum verifies, in order, to OUT (- for stdout) with the same
framing, and reports the byte ranges it skipped. Only checksummed streams can be salvaged: with
no checksum, any bytes whose length field fits would pass for a frame.

Resynchronising after damage reads the length fields after it before checksumming what they
claim, within a budget of a few times the input's length. Only lengths within the bound are
candidates: by default it is 1 MiB, or the power of two at or above the largest payload among
the intact leading frames if that is larger. Frames after the damage with larger payloads
are skipped: pass --max-frame-len to keep them. Standard input is read whole into memory.

Exit status:
  0  nothing was skipped: OUT is a copy of the input's frames
  1  damaged ranges were skipped: OUT holds every intact frame
  2  the command could not do its job (missing file, a stream without a checksum, OUT is FILE,
     a framing that cannot be told)";

const CAT_HELP: &str = "\
With --schema, one JSON object per message and per line (--format json, the default then):
fields by name in declaration order, nested tables and structs as objects, vectors as arrays,
strings as strings, enums by name (a value the enum does not name as its number), unions as
flatc writes them (the `<name>_type` field holds the member's name, the `<name>` field its
value), scalars that are absent at their default, optional scalars that are absent as null,
[ubyte] and [byte] vectors as one string (--bytes base64, the default, or hex), 64-bit integers
exactly, and NaN and infinities as the strings \"nan\", \"inf\", \"-inf\". Each message is
verified against the schema before it is printed.

Without --schema (--format hex, the default then): one line per frame, `frame INDEX offset
OFFSET size SIZE: ` and the first 32 payload bytes in hex; --format json prints
{\"index\",\"offset\",\"size\",\"payload\"} with the whole payload in --bytes encoding.

With several FILEs, each is printed in turn (--skip and --limit count per file). Hex lines
start with the file's name and a colon, raw JSON objects have a \"file\" member, and the
messages printed with --schema are as they are: one JSON stream, as cat(1) would join them.

Exit status:
  0  every frame was printed (or --limit was reached)
  1  a frame does not verify (checksum, bound, schema) or the stream ends inside a frame; the
     messages before it were printed
  2  the command could not do its job (missing file, unreadable schema, unknown root type,
     a framing that cannot be told)
With several FILEs, the worst status of theirs: a file's error does not stop the next file.";

const CONVERT_HELP: &str = "\
Reads FILE (- for stdin) with --checksum (default: detected), verifies each frame, and writes
it to -o OUT (- for stdout) framed with --to-checksum: add integrity to a plain capture
(--to-checksum xxhash64), or strip it (--to-checksum none). Payloads are copied as they are.

Exit status:
  0  every frame was converted
  1  a frame does not verify or the input ends inside a frame: OUT holds the frames before it
  2  the command could not do its job (missing file, OUT is FILE, binary output to a terminal,
     a framing that cannot be told)";

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    /// The streams (- for standard input), reported on in turn.
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<String>,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    /// Print the report as one JSON object (one line per file).
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// The streams (- for standard input), verified in turn.
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<String>,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    #[command(flatten)]
    pub(crate) schema: SchemaArgs,
    /// Keep going after an error, and list every damaged range.
    #[arg(long)]
    pub(crate) all: bool,
    /// Print the result as one JSON object (one line per file).
    #[arg(long)]
    pub(crate) json: bool,
    /// Threads to verify a mapped file on; 1 reads it on one thread. [default: every core for
    /// files of 16 MiB or more, one below]
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) threads: Option<u16>,
}

#[derive(Debug, Args)]
pub(crate) struct RecoverArgs {
    /// The stream (- for standard input; --truncate needs a file).
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    /// Cut the file after its last intact frame (default: report only, change nothing).
    #[arg(long)]
    pub(crate) truncate: bool,
    /// With --truncate, also cut a corrupt or damaged frame and everything after it.
    #[arg(long, requires = "truncate")]
    pub(crate) cut_corrupt: bool,
    /// With --truncate, cut an ambiguous end (no checksum: frames parse after it) as a torn
    /// tail.
    #[arg(long, requires = "truncate")]
    pub(crate) force: bool,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SalvageArgs {
    /// The damaged stream (- for standard input).
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    #[command(flatten)]
    pub(crate) out: OutputArgs,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    /// Print the report as one JSON object (on stderr when OUT is stdout).
    #[arg(long)]
    pub(crate) json: bool,
}

/// How `cat` prints a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// One JSON object per line.
    Json,
    /// One line per frame: index, offset, size, the first payload bytes in hex.
    Hex,
}

/// How `cat` writes bytes in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum BytesFormat {
    /// Standard base64 with padding (RFC 4648).
    Base64,
    /// Lowercase hexadecimal, two digits per byte.
    Hex,
}

/// How `cat` and `tail` print messages.
#[derive(Debug, Args)]
pub(crate) struct PrintArgs {
    #[command(flatten)]
    pub(crate) schema: SchemaArgs,
    /// Output format [default: json with --schema, hex without].
    #[arg(long, value_enum)]
    pub(crate) format: Option<Format>,
    /// How [ubyte]/[byte] vectors and raw payloads are written in JSON.
    #[arg(long, value_enum, default_value_t = BytesFormat::Base64)]
    pub(crate) bytes: BytesFormat,
}

#[derive(Debug, Args)]
pub(crate) struct CatArgs {
    /// The streams (- for standard input), printed in turn.
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<String>,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
    #[command(flatten)]
    pub(crate) print: PrintArgs,
    /// Skip the first N frames (they are still read, and their checksums checked).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) skip: u64,
    /// Print at most N frames (the frames after them are not read).
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<u64>,
}

const TAIL_HELP: &str = "\
Prints as cat does (JSON with --schema, hex without; see cat --help), with each frame's index
counted from the start of the stream. By default, like tail, it prints the last 10 frames
present when it starts (-n N for another count, -n 0 for none, --from-start for all), after
reading the stream from its start to find them: the format has no way to read backwards.
Only the frames it prints are held in memory, and only the last N of them.

Without -f, damage does not hide the end of a file: in a checksummed file, the bytes from the
first damaged frame on are read as salvage reads them, so the frames printed are the last ones
of the file that verify. stderr then names each damaged range skipped (`frame N at bytes
START..END: ` a corrupt frame, a damaged length or a torn tail, as verify --all names them),
and the exit status is 1. Standard input cannot be read again, nor a stream without a checksum
resynchronised: there, as with -f, the last frames before the damage are printed, then the
damage.

With -f (--follow) it then waits for frames that a writer appends, and prints each as soon as
it is whole and verified, however the writer split it into writes: a frame that is only partly
written is not yet there, not an error. It polls the file every --poll milliseconds and runs
until interrupted (Ctrl-C) or until stdout is closed (`flatstream tail -f J | head` ends once
head has its lines and the next frame comes). -f does not apply to standard input, which is
read to its end. A file that is truncated or replaced while followed is not noticed: tail keeps
its place in the file it opened.

--watermark WFILE stops at the durable watermark that the writer publishes in WFILE (the
library's WatermarkFile, e.g. StreamWriter::with_watermark_file): only frames known to be on
disk are printed, and with -f each next one once the watermark passes it. Until WFILE exists
the watermark is 0.

Without --checksum the framing is detected from the leading frames; with -f, an empty file (or
one whose first frame is not all written yet) is waited for until a frame tells.

A writer that died can leave a torn frame at the end of the file; followed, it looks like a
frame still being written, and tail waits for it. Repair the file (flatstream recover
--truncate) before appending to it again: a follower that holds the start of a torn frame would
take new frames for its rest, and the checksum then fails: that is reported as an error.

Exit status:
  0  the frames were printed up to the end of the stream (or the watermark), or stdout was
     closed
  1  the stream is damaged: without -f, the last frames that verify were printed and stderr
     names the damaged ranges skipped; with -f (or from standard input, or without a
     checksum), the frames before the damage were printed, and the error names its index and
     offset; or a message is not one of the schema
  2  the command could not do its job (missing file, unreadable schema or watermark file,
     a framing that cannot be told)";

#[derive(Debug, Args)]
pub(crate) struct TailArgs {
    /// The stream (- for standard input).
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    /// Keep reading: print frames as they are appended, until interrupted.
    #[arg(long, short = 'f')]
    pub(crate) follow: bool,
    /// Print the last N frames present when tail starts (0: none, only the frames that come
    /// next with -f).
    #[arg(long = "frames", short = 'n', value_name = "N", default_value_t = 10)]
    pub(crate) frames: u64,
    /// Print every frame from the start of the stream (instead of the last N).
    #[arg(long, conflicts_with = "frames")]
    pub(crate) from_start: bool,
    /// Stop at the durable watermark the writer publishes in this watermark file.
    #[arg(long, value_name = "WFILE")]
    pub(crate) watermark: Option<PathBuf>,
    /// With -f, how often to look for new frames, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    pub(crate) poll: u64,
    #[command(flatten)]
    pub(crate) framing: FramingArgs,
    #[command(flatten)]
    pub(crate) print: PrintArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// The stream to read (- for standard input).
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    #[command(flatten)]
    pub(crate) out: OutputArgs,
    /// The checksum to frame OUT with: none, xxhash64, crc32, crc32c or crc16.
    #[arg(long, value_name = "KIND", value_parser = KindParser, hide_possible_values = true)]
    pub(crate) to_checksum: ChecksumKind,
    #[command(flatten)]
    pub(crate) framing: FramingArgs,
}

const PACK_HELP: &str = "\
Reads JSON lines, one message per line (blank lines are skipped), builds each into a FlatBuffer
of the message table, verifies it against the schema, and writes it as one frame of OUT framed
with --checksum. It reads what cat --schema prints: fields by name in any order, nested tables
and structs as objects (every field of a struct given), vectors as arrays, enums by name or by
number, a union as its `<name>_type` field (the member's name or number) and its `<name>` field
(the member's value), [ubyte] and [byte] vectors as one string (in --bytes encoding, as cat
wrote them) or an array of numbers, NaN and infinities as \"nan\", \"inf\", \"-inf\". A scalar
left out (or null, if it is optional) is absent and reads as its default, as does one given
equal to its default. A key that is not a field, a value of the wrong type or out of its type's
range, a required field left out: each is an error.

  flatstream cat in.fs -s S.bfbs | flatstream pack -s S.bfbs -o out.fs

rebuilds the messages: cat prints the same lines for out.fs as for in.fs (the bytes may differ,
as every FlatBuffers builder lays tables out its own way).

FILEs are read one after the other into one stream (none, or -, is standard input). pack stops
at the first line that is not a message of the schema, naming its file, line and field
(stdin: line 3: field `readings[2]`: expected a number, got \"abc\"): OUT then holds the
whole frames of the lines before it, and nothing of that line.

Exit status:
  0  every line was packed
  1  a line is not JSON or not a message of the schema: OUT holds the frames of the lines
     before it
  2  the command could not do its job (missing file, unreadable schema, unknown root type, OUT
     is an input, binary output to a terminal, a failed write)";

#[derive(Debug, Args)]
#[command(
    mut_arg("output", |a| a.required(false).default_value("-")),
    mut_arg("schema", |a| a.required(true))
)]
pub(crate) struct PackArgs {
    /// JSON lines to read, one message per line (- for standard input, the default).
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<String>,
    #[command(flatten)]
    pub(crate) out: OutputArgs,
    #[command(flatten)]
    pub(crate) schema: SchemaArgs,
    /// The checksum to frame the stream with: none, xxhash64, crc32, crc32c or crc16.
    #[arg(long, short = 'c', value_name = "KIND", value_parser = KindParser, hide_possible_values = true, default_value = "xxhash64")]
    pub(crate) checksum: ChecksumKind,
    /// How [ubyte]/[byte] vectors given as strings are encoded (as cat --bytes wrote them).
    #[arg(long, value_enum, default_value_t = BytesFormat::Base64)]
    pub(crate) bytes: BytesFormat,
}

fn parse_kind(name: &str) -> Result<ChecksumKind, String> {
    name.parse::<ChecksumKind>().map_err(|e| e.to_string())
}

/// Reads a checksum as [`parse_kind`] does (a name or an alias, in any case), and offers the
/// names of the enabled checksums to shell completions (`--checksum <TAB>`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct KindParser;

impl clap::builder::TypedValueParser for KindParser {
    type Value = ChecksumKind;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ChecksumKind, clap::Error> {
        let parse: fn(&str) -> Result<ChecksumKind, String> = parse_kind;
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let kinds = ChecksumKind::ALL.into_iter().filter(|k| k.is_enabled());
        Some(Box::new(
            kinds.map(|k| clap::builder::PossibleValue::new(k.name())),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
