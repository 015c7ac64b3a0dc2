"""The Python sides of the `python` benchmark suite (benches/benches/python.rs).

    python sides.py SIDE CAPTURE SCHEMA ITERS [PARQUET]

runs SIDE ITERS times on CAPTURE (a telemetry capture, XXH3-64-framed) and prints the
nanoseconds the runs took (imports and preparation not counted), then the rows of one run, then
the growth of the process's peak resident memory over the runs, in bytes. The sides:

    read_table    flatstream.read_table, every column
    read_batches  flatstream.read_batches, every batch taken and dropped
    pure_python   the same rows read in Python: each frame's XXH3-64 checked (the xxhash
                  package), its fields read through flatc's generated classes (the official
                  FlatBuffers runtime), the columns made a pyarrow.Table
    parquet       pyarrow.parquet.read_table of PARQUET (written once, from read_table, zstd)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time


def peak() -> int:
    with open("/proc/self/status") as status:
        return int(next(l for l in status if l.startswith("VmHWM:")).split()[1]) * 1024


def pure_python(capture, schema):
    import pyarrow as pa
    import xxhash

    generated = tempfile.mkdtemp()
    fbs = os.path.join(os.path.dirname(schema), "telemetry.fbs")
    subprocess.run([shutil.which("flatc"), "--python", "-o", generated, fbs], check=True)
    sys.path.insert(0, generated)
    from telemetry.Telemetry import Telemetry

    def run():
        with open(capture, "rb") as f:
            data = f.read()
        ids, stamps, values = [], [], []
        pos, end = 0, len(data)
        while pos < end:
            n = int.from_bytes(data[pos:pos + 4], "little")
            stored = int.from_bytes(data[pos + 4:pos + 12], "little")
            payload = data[pos + 12:pos + 12 + n]
            if len(payload) != n or xxhash.xxh3_64_intdigest(payload) != stored:
                raise ValueError(f"frame at byte offset {pos} is damaged")
            t = Telemetry.GetRootAs(payload, 0)
            ids.append(t.DeviceId())
            stamps.append(t.Timestamp())
            values.append(t.Value())
            pos += 12 + n
        return pa.table({"device_id": pa.array(ids, pa.uint64()),
                         "timestamp": pa.array(stamps, pa.uint64()),
                         "value": pa.array(values, pa.float64())}).num_rows

    return run


def main():
    side, capture, schema, iters = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    import flatstream

    if side == "read_table":
        run = lambda: flatstream.read_table(capture, schema=schema).num_rows
    elif side == "read_batches":
        run = lambda: sum(b.num_rows for b in flatstream.read_batches(capture, schema=schema))
    elif side == "pure_python":
        run = pure_python(capture, schema)
    elif side == "parquet":
        import pyarrow.parquet as pq

        parquet = sys.argv[5]
        if not os.path.exists(parquet):
            pq.write_table(flatstream.read_table(capture, schema=schema), parquet + ".partial",
                           compression="zstd")
            os.rename(parquet + ".partial", parquet)
        run = lambda: pq.read_table(parquet).num_rows
    else:
        sys.exit(f"no side {side}")
    before = peak()
    started = time.perf_counter_ns()
    rows = 0
    for _ in range(iters):
        rows = run()
    elapsed = time.perf_counter_ns() - started
    print(elapsed, rows, peak() - before)


if __name__ == "__main__":
    main()
