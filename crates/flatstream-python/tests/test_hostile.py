"""Hostile input: random bytes, truncated streams, huge lengths and damaged schemas raise the
documented exceptions (a flatstream.Error, with the frame's offset) and never crash."""

from __future__ import annotations

import random
import struct

import pytest

import flatstream
from conftest import CHECKSUMS, FLEET_BFBS, HEADER, robots


def framed(payloads, checksum):
    import io
    sink = io.BytesIO()
    with flatstream.Writer(sink, checksum=checksum) as writer:
        for payload in payloads:
            writer.write(payload)
    return sink.getvalue()


def drain(source, **kwargs):
    return list(flatstream.Reader(source, **kwargs))


@pytest.mark.parametrize("checksum", CHECKSUMS)
def test_random_bytes_raise_only_flatstream_errors(tmp_path, checksum):
    rng = random.Random(42)
    path = tmp_path / "random.fstream"
    for size in [1, 3, 4, 7, 12, 100, 4096] + [rng.randrange(1, 10_000) for _ in range(40)]:
        data = rng.randbytes(size)
        path.write_bytes(data)
        for call in [
            lambda: drain(data, checksum=checksum, max_frame_len=1 << 20),
            lambda: flatstream.read_table(path, schema=FLEET_BFBS, checksum=checksum),
            lambda: flatstream.verify(path, schema=FLEET_BFBS, all=True, checksum=checksum),
            lambda: flatstream.inspect(path, checksum=checksum),
        ]:
            try:
                call()
            except flatstream.Error as e:
                assert e.offset is None or 0 <= e.offset <= size


def test_detection_of_random_bytes_is_a_framing_error():
    with pytest.raises(flatstream.FramingError, match="pass checksum="):
        drain(random.Random(1).randbytes(1000))


@pytest.mark.parametrize("checksum", CHECKSUMS)
def test_every_cut_of_a_stream_is_an_unexpected_eof_at_the_torn_frame(generated, tmp_path, checksum):
    payloads = robots(generated, 4)
    data = framed(payloads, checksum)
    starts = [0]
    for payload in payloads:
        starts.append(starts[-1] + HEADER[checksum] + len(payload))
    path = tmp_path / "cut.fstream"
    for cut in range(1, len(data)):
        if cut in starts:
            assert len(drain(data[:cut], checksum=checksum)) == starts.index(cut)
            continue
        torn = max(s for s in starts if s < cut)
        with pytest.raises(flatstream.UnexpectedEof) as raised:
            drain(data[:cut], checksum=checksum)
        assert raised.value.offset == torn
        path.write_bytes(data[:cut])
        with pytest.raises(flatstream.UnexpectedEof):
            flatstream.read_table(path, schema=FLEET_BFBS, checksum=checksum)
        report = flatstream.verify(path, checksum=checksum)
        assert not report.ok and report.damage[0].start == torn


def test_a_huge_length_is_refused_before_anything_is_allocated(tmp_path):
    for length in [0xFFFF_FFFF, 0x8000_0001]:
        data = struct.pack("<I", length) + b"\x00" * 16
        with pytest.raises(flatstream.FrameTooLarge) as raised:
            drain(data, checksum="none")
        assert raised.value.offset == 0
    # Under the bound but past the end of the input: a torn frame, not a 1 GiB allocation.
    with pytest.raises(flatstream.UnexpectedEof):
        drain(struct.pack("<I", 1 << 30) + b"\x01" * 32, checksum="none")
    with pytest.raises(flatstream.FrameTooLarge):
        drain(struct.pack("<I", 1000) + b"\x01" * 1000, checksum="none", max_frame_len=999)


@pytest.mark.parametrize("checksum", ["xxhash64", "crc32", "crc16", "crc32c"])
def test_a_flipped_bit_is_a_checksum_mismatch_at_its_frame(generated, tmp_path, checksum):
    payloads = robots(generated, 3)
    data = bytearray(framed(payloads, checksum))
    second = HEADER[checksum] + len(payloads[0])
    data[second + HEADER[checksum] + 5] ^= 0x10
    with pytest.raises(flatstream.ChecksumMismatch) as raised:
        drain(bytes(data))
    assert raised.value.offset == second
    path = tmp_path / "damaged.fstream"
    path.write_bytes(bytes(data))
    report = flatstream.verify(path, all=True)
    assert [(d.start, d.kind) for d in report.damage] == [(second, "corrupt frame")]
    assert report.frames == 2
    kept = flatstream.salvage(path, tmp_path / "clean.fstream")
    assert (kept.frames, kept.skipped) == (2, [(second, second + HEADER[checksum] + len(payloads[1]))])
    assert drain(tmp_path / "clean.fstream") == [payloads[0], payloads[2]]


def test_damaged_schemas_are_schema_errors(generated, tmp_path):
    payloads = robots(generated, 3)
    path = tmp_path / "fleet.fstream"
    path.write_bytes(framed(payloads, "xxhash64"))
    schema = FLEET_BFBS.read_bytes()
    cases = [b"", b"\x00" * 4, b"\x00" * 8, schema[:7], schema[: len(schema) // 2]]
    rng = random.Random(5)
    for _ in range(300):
        flipped = bytearray(schema)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        cases.append(bytes(flipped))
    refused = 0
    for case in cases:
        try:
            flatstream.read_table(path, schema=case)
            flatstream.verify(path, schema=case)
        except (flatstream.SchemaError, flatstream.InvalidFlatbuffer):
            refused += 1
    assert refused >= 5  # at least the empty, short and truncated ones
    for case in cases[:5]:
        with pytest.raises(flatstream.SchemaError):
            flatstream.read_table(path, schema=case)
    missing = tmp_path / "missing.bfbs"
    with pytest.raises(FileNotFoundError):
        flatstream.read_table(path, schema=missing)
