"""read_batches holds one batch, not the capture: its peak memory, measured in a fresh
process, stays far below the capture's size (read_table's does not)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import flatbuffers

from conftest import TELEMETRY_BFBS

# The peak resident size of this process: VmHWM (ru_maxrss would carry the parent's peak
# across fork and exec).
SCRIPT = textwrap.dedent("""
    import sys, flatstream
    def peak():
        with open("/proc/self/status") as status:
            line = next(l for l in status if l.startswith("VmHWM:"))
        return int(line.split()[1]) * 1024
    path, how = sys.argv[1], sys.argv[2]
    before = peak()
    if how == "batches":
        rows = sum(b.num_rows for b in flatstream.read_batches(path, schema=sys.argv[3]))
    else:
        rows = flatstream.read_table(path, schema=sys.argv[3]).num_rows
    print(rows, peak() - before)
""")


def peak(path, how):
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(path), how, str(TELEMETRY_BFBS)],
                          capture_output=True, check=True, text=True)
    rows, grown = done.stdout.split()
    return int(rows), int(grown)


def test_read_batches_memory_is_bounded_by_the_batch_not_the_capture(tmp_path):
    # 1.5 M telemetry frames without checksums (about 60 MB), 36 MB of columns, against batches of 8192 rows
    # (200 KB of columns): a capture many times the batch budget.
    path = tmp_path / "big.fstream"
    builder = flatbuffers.Builder(64)
    builder.StartObject(3)
    builder.PrependUint64Slot(0, 7, 0)
    builder.PrependUint64Slot(1, 1_700_000_000_000, 0)
    builder.PrependFloat64Slot(2, 21.5, 0.0)
    builder.Finish(builder.EndObject())
    payload = bytes(builder.Output())
    frame = len(payload).to_bytes(4, "little") + payload
    with open(path, "wb") as f:
        f.write(frame * 1_500_000)
    size = path.stat().st_size
    rows, streamed = peak(path, "batches")
    assert rows == 1_500_000
    rows, whole = peak(path, "table")
    assert rows == 1_500_000
    assert whole > 30_000_000, whole
    assert streamed < size // 8, (streamed, size)
