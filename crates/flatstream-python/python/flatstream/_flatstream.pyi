"""Type stubs of the native module (crates/flatstream-python/src). read_table and
read_batches are typed in __init__.py."""

import os
from typing import IO, Iterator, Self, Sequence, Union

import pyarrow

__version__: str

_Source = Union[str, os.PathLike[str], bytes, bytearray, memoryview, IO[bytes]]
_Sink = Union[str, os.PathLike[str], IO[bytes]]
_Schema = Union[str, bytes]

class Error(Exception):
    """The base of every error flatstream raises about a stream or a schema."""

    offset: int | None
    """The byte offset of the frame the error is about, or None."""

class ChecksumMismatch(Error):
    """A frame's payload does not match its checksum."""

class FrameTooLarge(Error):
    """A frame declares a payload longer than max_frame_len."""

class UnexpectedEof(Error):
    """The input ends inside a frame (a torn tail)."""

class InvalidFlatbuffer(Error):
    """A payload is not a valid FlatBuffer of the schema's root table."""

class SchemaError(Error):
    """A schema is not a valid .bfbs, or names no such root type or column."""

class FramingError(Error):
    """The stream's checksum cannot be told from its leading frames."""

class Reader:
    """Iterates over the payloads of a stream of frames, each a bytes holding one FlatBuffer."""

    def __init__(
        self, source: _Source, checksum: str = "auto", max_frame_len: int | None = None
    ) -> None: ...
    def __iter__(self) -> Self: ...
    def __next__(self) -> bytes: ...
    @property
    def checksum(self) -> str:
        """The stream's checksum: the one given, or the one detected."""
    @property
    def offset(self) -> int | None:
        """The byte offset of the frame whose payload was returned last."""
    @property
    def frames(self) -> int:
        """How many payloads were returned."""
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> bool: ...

class Writer:
    """Writes finished FlatBuffers as frames: [u32 LE length][checksum][payload]."""

    def __init__(
        self, sink: _Sink, checksum: str = "xxhash64", max_frame_len: int | None = None
    ) -> None: ...
    def write(self, payload: Union[bytes, bytearray, memoryview]) -> None:
        """Writes one finished FlatBuffer (builder.Output()) as a frame."""
    def flush(self) -> None: ...
    def close(self) -> None: ...
    @property
    def checksum(self) -> str: ...
    @property
    def frames(self) -> int:
        """How many frames were written."""
    @property
    def bytes_written(self) -> int:
        """How many bytes the frames take, headers included."""
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> bool: ...

class Batches:
    """The batches of read_batches, one at a time."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> pyarrow.RecordBatch: ...
    @property
    def schema(self) -> pyarrow.Schema: ...
    @property
    def skipped(self) -> int:
        """Frames skipped as invalid so far (with skip_invalid=True)."""

class Damage:
    """One damaged range of a stream: bytes start to end (read-only)."""

    start: int
    end: int
    kind: str
    """"corrupt frame", "damaged length", "torn tail", "ambiguous end" or "invalid"."""
    message: str

class Report:
    """What inspect and verify found in a stream (read-only)."""

    path: str
    checksum: str
    detected: bool
    frames: int
    bytes: int
    damage: list[Damage]
    ok: bool
    def __bool__(self) -> bool: ...

class SalvageReport:
    """What salvage kept and skipped (read-only)."""

    frames: int
    rejected: int
    skipped: list[tuple[int, int]]

def batches(paths: Sequence[str], schema: _Schema, **options: object) -> Batches:
    """The batches of read_batches (its options are flatstream.ReadOptions)."""

def inspect(
    path: Union[str, os.PathLike[str]], checksum: str = "auto", max_frame_len: int | None = None
) -> Report:
    """What the stream at path holds: its checksum, intact frames and bytes, first damage."""

def verify(
    path: Union[str, os.PathLike[str]],
    schema: Union[str, os.PathLike[str], bytes, None] = None,
    all: bool = False,
    root_type: str | None = None,
    checksum: str = "auto",
    max_frame_len: int | None = None,
) -> Report:
    """Verifies every frame of the stream (and every payload against schema, if given)."""

def salvage(
    src: Union[str, os.PathLike[str]],
    dst: Union[str, os.PathLike[str]],
    checksum: str = "auto",
    max_frame_len: int | None = None,
) -> SalvageReport:
    """Writes every intact frame of src to a new stream at dst, skipping the damage."""
