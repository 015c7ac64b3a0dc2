"""Raw frames: flatstream.Writer and flatstream.Reader against each other, against the Rust
reader and writer (the `flatstream` command) and against the official FlatBuffers runtime."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time

import pytest

import flatstream
from conftest import CHECKSUMS, FLEET_BFBS, HEADER, expected_row, robots, run


@pytest.mark.parametrize("checksum", CHECKSUMS)
def test_what_the_writer_writes_the_reader_reads_back(generated, tmp_path, checksum):
    payloads = robots(generated, 50)
    path = tmp_path / "robots.fstream"
    with flatstream.Writer(path, checksum=checksum) as writer:
        for payload in payloads:
            writer.write(payload)
    assert writer.frames == 50
    assert writer.bytes_written == path.stat().st_size
    assert path.stat().st_size == sum(HEADER[checksum] + len(p) for p in payloads)

    with flatstream.Reader(path, checksum=checksum) as reader:
        assert list(reader) == payloads
    # Detected from the leading frames (without a checksum, "none" is what reads them).
    reader = flatstream.Reader(path)
    assert list(reader) == payloads
    assert reader.checksum == checksum


@pytest.mark.parametrize("checksum", CHECKSUMS)
def test_python_frames_are_the_rust_writers_byte_for_byte(generated, tmp_path, cli, checksum):
    payloads = robots(generated, 30, seed=3)
    plain, ours, theirs = tmp_path / "plain.fstream", tmp_path / "ours.fstream", tmp_path / "theirs.fstream"
    for path, kind in [(plain, "none"), (ours, checksum)]:
        with flatstream.Writer(path, checksum=kind) as writer:
            for payload in payloads:
                writer.write(payload)
    # The Rust reader reads Python's frames, and its writer frames the payloads again.
    run(cli, "convert", plain, "--checksum", "none", "--to-checksum", checksum, "-o", theirs)
    assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("checksum", CHECKSUMS)
def test_rust_reads_python_built_robots_field_by_field(generated, tmp_path, cli, checksum):
    payloads = robots(generated, 40, seed=11)
    path = tmp_path / "robots.fstream"
    with flatstream.Writer(path, checksum=checksum) as writer:
        for payload in payloads:
            writer.write(payload)
    run(cli, "verify", path, "--schema", FLEET_BFBS)
    shown = run(cli, "cat", path, "--schema", FLEET_BFBS).stdout.decode().splitlines()
    assert len(shown) == len(payloads)
    for line, payload in zip(shown, payloads):
        message, row = json.loads(line), expected_row(generated, payload)
        assert message["name"] == row["name"]
        assert int(message.get("id", 0)) == row["id"]
        assert message.get("trim", 0) == row["trim"]
        assert message.get("tags") == row["tags"]


@pytest.mark.parametrize("checksum", CHECKSUMS)
def test_python_reads_what_rust_packs(generated, tmp_path, cli, checksum):
    from fleet.Robot import RobotT

    lines = [
        {"id": 1, "name": "alpha", "color": "Blue", "tags": ["x", "y"],
         "device_type": "Motor", "device": {"rpm": 1200, "temperature": 30.5}},
        {"id": 2, "name": "beta", "status": "Failed", "firmware": "AQID",
         "device_type": "Sensor", "device": {"name": "lidar", "readings": [1.5, -2.0]}},
        {"id": 18446744073709551615, "name": "gamma", "limit": -7, "waypoints": [{"x": 1, "y": 2, "z": 3}]},
    ]
    source = tmp_path / "robots.json"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    path = tmp_path / "robots.fstream"
    run(cli, "pack", source, "--schema", FLEET_BFBS, "--checksum", checksum, "-o", path)

    reader = flatstream.Reader(path)
    decoded = [RobotT.InitFromPackedBuf(payload, 0) for payload in reader]
    assert reader.checksum == checksum
    assert [r.id for r in decoded] == [1, 2, 18446744073709551615]
    assert [r.name.decode() for r in decoded] == ["alpha", "beta", "gamma"]
    assert decoded[0].color == 2 and [t.decode() for t in decoded[0].tags] == ["x", "y"]
    assert (decoded[0].deviceType, decoded[0].device.rpm, decoded[0].device.temperature) == (2, 1200, 30.5)
    assert decoded[1].status == 9 and bytes(bytearray(int(b) for b in decoded[1].firmware)) == b"\x01\x02\x03"
    assert decoded[1].device.name == b"lidar" and list(decoded[1].device.readings) == [1.5, -2.0]
    assert decoded[2].limit == -7 and decoded[2].waypoints[0].z == 3.0

    table = flatstream.read_table(path, schema=FLEET_BFBS, columns=["id", "name", "limit"])
    assert table.to_pydict() == {"id": [1, 2, 18446744073709551615],
                                 "name": ["alpha", "beta", "gamma"], "limit": [None, None, -7]}


def test_reader_takes_bytes_and_file_objects_and_gives_offsets(generated, tmp_path):
    payloads = robots(generated, 5)
    sink = io.BytesIO()
    with flatstream.Writer(sink, checksum="crc32") as writer:
        writer.write(payloads[0])
        writer.write(bytearray(payloads[1]))
        writer.write(memoryview(payloads[2]))
        writer.write(payloads[3])
        writer.write(payloads[4])
    data = sink.getvalue()
    starts = []
    at = 0
    for payload in payloads:
        starts.append(at)
        at += 8 + len(payload)
    for source in [data, bytearray(data), memoryview(data), io.BytesIO(data)]:
        reader = flatstream.Reader(source)
        seen = []
        for payload in reader:
            seen.append((reader.offset, payload))
        assert seen == list(zip(starts, payloads))
        assert reader.frames == 5


def test_a_writer_closed_by_an_exception_keeps_what_it_wrote(tmp_path):
    path = tmp_path / "kept.fstream"
    with pytest.raises(RuntimeError):
        with flatstream.Writer(path) as writer:
            writer.write(b"\x08\x00\x00\x00\x04\x00\x04\x00\x04\x00\x00\x00")
            raise RuntimeError("the producer failed")
    assert list(flatstream.Reader(path)) == [b"\x08\x00\x00\x00\x04\x00\x04\x00\x04\x00\x00\x00"]
    with pytest.raises(ValueError, match="closed"):
        writer.write(b"more")


def test_a_file_objects_own_exception_comes_through(tmp_path):
    class Failing(io.RawIOBase):
        def readable(self):
            return True

        def read(self, n=-1):
            raise PermissionError("the capture device went away")

    with pytest.raises(PermissionError, match="went away"):
        list(flatstream.Reader(Failing(), checksum="none"))


def test_bad_arguments_are_value_and_type_errors(tmp_path):
    with pytest.raises(ValueError, match="checksum"):
        flatstream.Reader(b"", checksum="md5")
    with pytest.raises(ValueError, match="auto"):
        flatstream.Writer(tmp_path / "x.fstream", checksum="auto")
    with pytest.raises(TypeError):
        flatstream.Reader(42)
    with pytest.raises(FileNotFoundError):
        flatstream.Reader(tmp_path / "missing.fstream")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        flatstream.Reader(tmp_path)
    with pytest.raises(FileNotFoundError) as raised:
        flatstream.read_table(tmp_path / "missing.fstream", schema=FLEET_BFBS)
    assert raised.value.filename.endswith("missing.fstream")


# Writes the file argv[2] into the named pipe argv[1], a second after each step: opening the
# pipe, its first half, the rest.
SLOW_WRITER = """
import sys, time
data = open(sys.argv[2], "rb").read()
time.sleep(1)
with open(sys.argv[1], "wb") as pipe:
    time.sleep(1)
    pipe.write(data[: len(data) // 2])
    pipe.flush()
    time.sleep(1)
    pipe.write(data[len(data) // 2 :])
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("checksum", ["xxhash64", "auto"])
def test_a_reader_waiting_for_its_input_lets_other_threads_run(generated, tmp_path, checksum):
    # The reader waits for the pipe's writer, then for each half of the stream (detection too,
    # with "auto"); while it waits, this thread keeps running.
    payloads = robots(generated, 20, seed=5)
    path = tmp_path / "robots.fstream"
    with flatstream.Writer(path, checksum="xxhash64") as writer:
        for payload in payloads:
            writer.write(payload)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    feeder = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(pipe), str(path)])
    read = []

    def reading():
        with flatstream.Reader(pipe, checksum=checksum) as reader:
            read.extend(reader)

    thread = threading.Thread(target=reading)
    ticks = [time.monotonic()]
    thread.start()
    while thread.is_alive():
        time.sleep(0.01)
        ticks.append(time.monotonic())
    assert feeder.wait() == 0
    assert read == payloads
    # The waits last three seconds; this thread never stood still for half of one.
    still = max(b - a for a, b in zip(ticks, ticks[1:]))
    assert still < 0.5, f"this thread stood still for {still:.2f} s while the reader waited"
    assert ticks[-1] - ticks[0] > 2.5
