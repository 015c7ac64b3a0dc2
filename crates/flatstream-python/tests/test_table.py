"""Captures as Arrow: read_table's values against the official FlatBuffers runtime, field by
field; read_batches into polars, DuckDB and pandas; paths, projections and options."""

from __future__ import annotations

import random

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import flatstream
from conftest import FLEET_BFBS, TELEMETRY_BFBS, expected_row, pack, robots


def write(path, payloads, checksum="xxhash64"):
    with flatstream.Writer(path, checksum=checksum) as writer:
        for payload in payloads:
            writer.write(payload)
    return path


def telemetry(generated, rows: int, seed: int = 1) -> list[bytes]:
    from telemetry.Telemetry import TelemetryT

    rng = random.Random(seed)
    return [
        pack(TelemetryT(deviceId=rng.randrange(16), timestamp=1_700_000_000_000 + i,
                        value=rng.uniform(-100, 100)))
        for i in range(rows)
    ]


def test_read_table_equals_the_official_runtime_field_by_field(generated, tmp_path):
    payloads = robots(generated, 300, seed=5)
    path = write(tmp_path / "fleet.fstream", payloads)
    rows = flatstream.read_table(path, schema=FLEET_BFBS).to_pylist()
    assert len(rows) == len(payloads)
    shapes = set()
    for row, payload in zip(rows, payloads):
        expected = expected_row(generated, payload)
        parent = row.pop("parent")
        assert (parent is not None) == expected.pop("has_parent")
        if parent is not None:
            # The parent column is a FlatBuffer of the parent robot: the runtime reads it.
            assert expected_row(generated, parent)["name"].startswith("robot-")
        assert row == expected
        shapes.add((row["device"] or {}).get("type"))
    # Every union variant and an absent union were compared.
    assert shapes == {None, "Sensor", "Motor", "Camera"}


def test_the_parent_column_is_the_parents_flatbuffer(generated, tmp_path):
    from fleet.Robot import RobotT

    payloads = robots(generated, 100, seed=9)
    path = write(tmp_path / "fleet.fstream", payloads)
    parents = flatstream.read_table(path, schema=FLEET_BFBS, columns=["parent"]).column(0)
    compared = 0
    for parent, payload in zip(parents.to_pylist(), payloads):
        original = RobotT.InitFromPackedBuf(payload, 0).parent
        if original is None:
            assert parent is None
            continue
        got = RobotT.InitFromPackedBuf(parent, 0)
        assert (got.id, got.name, got.limit) == (original.id, original.name, original.limit)
        compared += 1
    assert compared > 10


def test_columns_root_type_enums_and_offsets(generated, tmp_path):
    payloads = robots(generated, 20)
    path = write(tmp_path / "fleet.fstream", payloads, checksum="crc16")
    table = flatstream.read_table(path, schema=FLEET_BFBS.read_bytes(), root_type="fleet.Robot",
                                  columns=["status", "_offset", "id"], enums="integers")
    assert table.column_names == ["status", "_offset", "id"]
    assert table.schema.field("status").type == pa.uint16()
    offsets, at = [], 0
    for payload in payloads:
        offsets.append(at)
        at += 6 + len(payload)
    assert table.column("_offset").to_pylist() == offsets
    assert table.column("id").to_pylist() == [expected_row(generated, p)["id"] for p in payloads]
    with pytest.raises(flatstream.SchemaError, match="no column named `nope`"):
        flatstream.read_table(path, schema=FLEET_BFBS, columns=["nope"])
    with pytest.raises(flatstream.SchemaError):
        flatstream.read_table(path, schema=FLEET_BFBS, root_type="fleet.Nothing")
    with pytest.raises(ValueError, match="enums"):
        flatstream.read_table(path, schema=FLEET_BFBS, enums="words")


def test_paths_are_files_lists_directories_and_globs(generated, tmp_path):
    payloads = telemetry(generated, 30)
    for i in range(3):
        write(tmp_path / f"part-{i}.fstream", payloads[i * 10:(i + 1) * 10], checksum="crc32c")
    (tmp_path / "README.txt").write_text("not a stream")
    every = [p for p in payloads]
    ids = [int(r["device_id"]) for r in flatstream.read_table(tmp_path, schema=TELEMETRY_BFBS).to_pylist()]
    from telemetry.Telemetry import TelemetryT
    expected = [TelemetryT.InitFromPackedBuf(p, 0).deviceId for p in every]
    assert ids == expected
    assert flatstream.read_table(str(tmp_path / "part-*.fstream"), schema=TELEMETRY_BFBS).num_rows == 30
    listed = [tmp_path / "part-2.fstream", tmp_path / "part-0.fstream"]
    assert flatstream.read_table(listed, schema=TELEMETRY_BFBS).num_rows == 20
    with pytest.raises(FileNotFoundError):
        flatstream.read_table(str(tmp_path / "nothing-*.fstream"), schema=TELEMETRY_BFBS)
    with pytest.raises(ValueError):
        flatstream.read_table([], schema=TELEMETRY_BFBS)


def test_read_batches_into_polars_duckdb_and_pandas_give_the_same_aggregates(generated, tmp_path):
    path = write(tmp_path / "telemetry.fstream", telemetry(generated, 20_000))
    table = flatstream.read_table(path, schema=TELEMETRY_BFBS)
    grouped = table.group_by("device_id").aggregate([("value", "sum"), ("value", "count")])
    sums = dict(zip(grouped.column("device_id").to_pylist(), grouped.column("value_sum").to_pylist()))
    counts = dict(zip(grouped.column("device_id").to_pylist(), grouped.column("value_count").to_pylist()))

    def same(rows):
        rows = list(rows)
        assert {d: c for d, _, c in rows} == counts
        assert {d: s for d, s, _ in rows} == pytest.approx(sums)

    reader = flatstream.read_batches(path, schema=TELEMETRY_BFBS, batch_size=1000)
    assert isinstance(reader, pa.RecordBatchReader)
    frame = pl.from_arrow(reader)
    by_polars = frame.group_by("device_id").agg(pl.col("value").sum(), pl.len())
    same(by_polars.iter_rows())

    reader = flatstream.read_batches(path, schema=TELEMETRY_BFBS, batch_size=1000)
    by_duckdb = duckdb.sql("SELECT device_id, sum(value), count(*) FROM reader GROUP BY device_id").fetchall()
    same(by_duckdb)

    df = flatstream.read_batches(path, schema=TELEMETRY_BFBS).read_pandas()
    by_pandas = df.groupby("device_id")["value"].agg(["sum", "count"])
    same((d, r["sum"], r["count"]) for d, r in by_pandas.iterrows())


def test_read_batches_are_bounded_by_the_batch_size(generated, tmp_path):
    path = write(tmp_path / "telemetry.fstream", telemetry(generated, 2500))
    sizes = [b.num_rows for b in flatstream.read_batches(path, schema=TELEMETRY_BFBS, batch_size=1000)]
    assert sizes == [1000, 1000, 500]


def test_invalid_payloads_raise_or_are_skipped(generated, tmp_path):
    payloads = telemetry(generated, 10)
    bad = b"\xff" * 24
    path = write(tmp_path / "mixed.fstream", payloads[:4] + [bad] + payloads[4:])
    with pytest.raises(flatstream.InvalidFlatbuffer) as raised:
        flatstream.read_table(path, schema=TELEMETRY_BFBS)
    assert raised.value.offset == sum(12 + len(p) for p in payloads[:4])
    assert flatstream.read_table(path, schema=TELEMETRY_BFBS, skip_invalid=True).num_rows == 10

    # A stream error comes after the batch of the rows before it.
    reader = flatstream.read_batches(path, schema=TELEMETRY_BFBS, batch_size=100)
    assert reader.read_next_batch().num_rows == 4
    with pytest.raises(flatstream.InvalidFlatbuffer):
        reader.read_next_batch()
