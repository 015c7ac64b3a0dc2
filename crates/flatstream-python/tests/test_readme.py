"""The Python examples of the package's README and of the repository's README run as they are
shown, in a directory holding what they read (the demo capture, its schema, a damaged copy)."""

from __future__ import annotations

import re
import shutil

import flatbuffers
import pytest

import flatstream
from conftest import ROOT, TELEMETRY_BFBS


def blocks(readme):
    return re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "examples").mkdir()
    shutil.copy(TELEMETRY_BFBS, tmp_path / "examples" / "telemetry.bfbs")
    with flatstream.Writer(tmp_path / "demo.fstream") as writer:
        for i in range(5000):
            builder = flatbuffers.Builder(64)
            builder.StartObject(3)
            builder.PrependUint64Slot(0, i % 7, 0)
            builder.PrependUint64Slot(1, 1_700_000_000_000 + i, 0)
            builder.PrependFloat64Slot(2, i / 10, 0.0)
            builder.Finish(builder.EndObject())
            writer.write(builder.Output())
    damaged = bytearray((tmp_path / "demo.fstream").read_bytes())
    damaged[1000] ^= 0xFF
    (tmp_path / "damaged.fstream").write_bytes(bytes(damaged))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("readme", ["crates/flatstream-python/README.md", "README.md"])
def test_every_python_example_runs(workdir, readme):
    examples = blocks(ROOT / readme)
    assert examples, f"{readme} shows no Python example"
    for code in examples:
        exec(compile(code, readme, "exec"), {})
    if readme == "README.md":
        assert len(list(flatstream.Reader(workdir / "first-ten.fstream"))) == 10
