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
from typing import Iterable, Sequence, Union

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
)
from . import _flatstream

__all__ = [
    "ChecksumMismatch",
    "Damage",
    "Error",
    "FrameTooLarge",
    "FramingError",
    "InvalidFlatbuffer",
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


def read_table(
    paths: Paths,
    schema: Union[Path, bytes],
    columns: Iterable[str] | None = None,
    root_type: str | None = None,
    checksum: str = "auto",
    enums: str = "names",
    offset_column: bool = False,
    skip_invalid: bool = False,
    batch_size: int | None = None,
    max_frame_len: int | None = None,
) -> pyarrow.Table:
    """Reads every frame of the streams at `paths` as one row each of a ``pyarrow.Table``.

    `paths` is a file, a directory (its ``.fstream`` files), a glob (``captures/*.fstream``)
    or a list of these. `schema` is a ``.bfbs`` file's path or its bytes; `root_type` the
    table the frames hold (default: the schema's root type). `columns` reads only the fields
    named (the others are never read). `checksum` is the streams' checksum, or ``"auto"`` to
    detect each file's. `enums` is ``"names"`` (dictionary of the value names) or
    ``"integers"``. `offset_column` adds ``_offset``, each frame's byte offset in its file.
    Each payload is verified against the schema; an invalid one raises
    :class:`InvalidFlatbuffer`, or is skipped with `skip_invalid`.
    """
    return _flatstream.read_table(
        _paths(paths),
        _schema(schema),
        columns=None if columns is None else list(columns),
        root_type=root_type,
        checksum=checksum,
        enums=enums,
        offset_column=offset_column,
        skip_invalid=skip_invalid,
        batch_size=batch_size,
        max_frame_len=max_frame_len,
    )


def read_batches(
    paths: Paths,
    schema: Union[Path, bytes],
    columns: Iterable[str] | None = None,
    root_type: str | None = None,
    checksum: str = "auto",
    enums: str = "names",
    offset_column: bool = False,
    skip_invalid: bool = False,
    batch_size: int | None = None,
    max_frame_len: int | None = None,
) -> pyarrow.RecordBatchReader:
    """Reads the streams as :func:`read_table` does, one batch at a time.

    Returns a ``pyarrow.RecordBatchReader``: memory is bounded by the batch (`batch_size`
    rows, 8192 by default) and the largest frame, not by the capture. polars
    (``polars.from_arrow``), DuckDB (``duckdb.from_arrow``, or ``FROM reader`` in SQL) and
    pandas (``reader.read_pandas()``) read it through the Arrow C stream interface, without
    copying the columns. An error is raised after the batch of the rows before it.
    """
    batches = _flatstream.batches(
        _paths(paths),
        _schema(schema),
        columns=None if columns is None else list(columns),
        root_type=root_type,
        checksum=checksum,
        enums=enums,
        offset_column=offset_column,
        skip_invalid=skip_invalid,
        batch_size=batch_size,
        max_frame_len=max_frame_len,
    )
    return pyarrow.RecordBatchReader.from_batches(batches.schema, batches)


def inspect(path: Path, checksum: str = "auto", max_frame_len: int | None = None) -> Report:
    """What the stream at `path` holds: its checksum (detected, or `checksum`), its intact
    frames and bytes, and its first damage, if any (``report.damage``)."""
    return _flatstream.inspect(os.fspath(path), checksum, max_frame_len)


def verify(
    path: Path,
    schema: Union[Path, bytes, None] = None,
    all: bool = False,
    root_type: str | None = None,
    checksum: str = "auto",
    max_frame_len: int | None = None,
) -> Report:
    """Verifies every frame of the stream at `path` (its checksum and length) and, with a
    `schema`, every payload against it.

    Stops at the first damage; with `all`, goes past each damage as :func:`salvage` does and
    lists every damaged range. ``report.ok`` (or ``bool(report)``) says whether the stream is
    whole; ``report.damage`` lists the :class:`Damage` found.
    """
    return _flatstream.verify(
        os.fspath(path),
        None if schema is None else _schema(schema),
        all,
        root_type,
        checksum,
        max_frame_len,
    )


def salvage(
    src: Path, dst: Path, checksum: str = "auto", max_frame_len: int | None = None
) -> SalvageReport:
    """Writes every intact frame of the stream at `src` to a new stream at `dst`, in the same
    framing, skipping the damaged bytes. `dst` appears only once complete."""
    return _flatstream.salvage(os.fspath(src), os.fspath(dst), checksum, max_frame_len)
