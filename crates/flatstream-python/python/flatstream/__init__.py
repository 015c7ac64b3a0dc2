"""Streams of FlatBuffers frames, from Python.

A flatstream capture is FlatBuffers laid end to end, each framed with its length and an
optional checksum::

    [u32 LE payload length][0, 2, 4 or 8-byte checksum][payload: one FlatBuffer]

This package reads captures as pyarrow tables and record-batch readers through a binary
schema (``.bfbs``, from ``flatc -b --schema``), reads and writes raw frames, and runs the
``flatstream`` command's tools. Every error about a stream or a schema is a
:class:`flatstream.Error`, with the byte offset of the frame it is about in ``offset``.
"""

from __future__ import annotations

import errno
import glob
import os
from typing import Iterable, Sequence, TypedDict, Union, Unpack

import pyarrow

from ._flatstream import (
    ChecksumMismatch,
    Damage,
    Error,
    FrameTooLarge,
    FramingError,
    InvalidFlatbuffer,
    Reader,
    Report,
    SalvageReport,
    SchemaError,
    UnexpectedEof,
    Writer,
    __version__,
    inspect,
    salvage,
    verify,
)
from . import _flatstream

__all__ = [
    "ChecksumMismatch",
    "Damage",
    "Error",
    "FrameTooLarge",
    "FramingError",
    "InvalidFlatbuffer",
    "ReadOptions",
    "Reader",
    "Report",
    "SalvageReport",
    "SchemaError",
    "UnexpectedEof",
    "Writer",
    "inspect",
    "read_batches",
    "read_table",
    "salvage",
    "verify",
]

Path = Union[str, "os.PathLike[str]"]
Paths = Union[Path, Sequence[Path]]

# A directory is read for its streams, as `flatstream query` reads one.
STREAM_SUFFIX = ".fstream"


def _paths(paths: Paths) -> list[str]:
    """The files `paths` names: a file, a directory (its ``.fstream`` files), a glob, or a
    list of these, each expanded in sorted order."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[str] = []
    for path in paths:
        path = os.fspath(path)
        if os.path.isdir(path):
            found = sorted(
                entry.path
                for entry in os.scandir(path)
                if entry.name.endswith(STREAM_SUFFIX) and entry.is_file()
            )
            if not found:
                raise FileNotFoundError(
                    errno.ENOENT, f"no {STREAM_SUFFIX} file in the directory", path
                )
            files.extend(found)
        elif glob.has_magic(path) and not os.path.exists(path):
            found = sorted(glob.glob(path, recursive=True))
            if not found:
                raise FileNotFoundError(errno.ENOENT, "no file matches the pattern", path)
            files.extend(found)
        else:
            files.append(path)
    if not files:
        raise ValueError("no paths to read")
    return files


def _schema(schema: Union[Path, bytes]) -> Union[str, bytes]:
    return schema if isinstance(schema, bytes) else os.fspath(schema)


class ReadOptions(TypedDict, total=False):
    """The options of :func:`read_table` and :func:`read_batches`, all optional.

    `columns` reads only the fields named, in that order (the others are never read;
    ``"_offset"`` is the frame's byte offset). `root_type` is the table the frames hold
    (default: the schema's root type). `checksum` is the streams' checksum (``"none"``,
    ``"xxhash64"``, ``"crc32"``, ``"crc16"``, ``"crc32c"``), or ``"auto"`` (the default) to
    detect each file's from its leading frames. `enums` is ``"names"`` (the default: a
    dictionary of the value names) or ``"integers"``. `offset_column` adds ``_offset``.
    `skip_invalid` skips payloads that are not valid FlatBuffers of the schema instead of
    raising :class:`InvalidFlatbuffer`. `batch_size` is the rows of a record batch (8192).
    `max_frame_len` bounds a frame's payload (2 GiB - 1): a longer one is
    :class:`FrameTooLarge`, before anything is allocated for it.
    """

    columns: Iterable[str] | None
    root_type: str | None
    checksum: str
    enums: str
    offset_column: bool
    skip_invalid: bool
    batch_size: int | None
    max_frame_len: int | None


def read_batches(
    paths: Paths, schema: Union[Path, bytes], **options: Unpack[ReadOptions]
) -> pyarrow.RecordBatchReader:
    """Reads every frame of the streams at `paths` as one row each, a batch at a time.

    `paths` is a file, a directory (its ``.fstream`` files), a glob (``captures/*.fstream``)
    or a list of these. `schema` is a ``.bfbs`` file's path or its bytes. The options are
    :class:`ReadOptions`'. Each payload is verified against the schema.

    Returns a ``pyarrow.RecordBatchReader``: memory is bounded by one batch and the largest
    frame, not by the capture. polars (``polars.from_arrow``), DuckDB (``duckdb.from_arrow``,
    or ``FROM reader`` in SQL) and pandas (``reader.read_pandas()``) read it through the Arrow
    C stream interface, without copying the columns. The reading and converting run with the
    GIL released. An error is raised after the batch of the rows before it.
    """
    if options.get("columns") is not None:
        options["columns"] = list(options["columns"])
    batches = _flatstream.batches(_paths(paths), _schema(schema), **options)
    return pyarrow.RecordBatchReader.from_batches(batches.schema, batches)


def read_table(
    paths: Paths, schema: Union[Path, bytes], **options: Unpack[ReadOptions]
) -> pyarrow.Table:
    """Reads every frame of the streams at `paths` as one row each of a ``pyarrow.Table``:
    :func:`read_batches`' batches, all of them."""
    return read_batches(paths, schema, **options).read_all()
