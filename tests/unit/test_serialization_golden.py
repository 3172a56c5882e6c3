"""Golden fixtures: every released schema version stays readable by the current code, and
the newest versions still encode to the very same bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.golden import SAMPLES, GoldenSample, golden_dir, write_missing

SERIALIZER = AvroEventSerializer()
GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden"


def _ids(sample: GoldenSample) -> str:
    return sample.file_name


def test_fixtures_are_found_in_the_schema_folder() -> None:
    assert golden_dir().resolve() == GOLDEN.resolve()


def test_every_fixture_has_a_sample_and_every_sample_a_fixture() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.bin")) == sorted(s.file_name for s in SAMPLES)


def test_every_catalogued_version_has_a_fixture() -> None:
    covered = {(s.name, s.version) for s in SAMPLES}
    assert {(e.name, e.version) for e in SERIALIZER.catalog.entries} <= covered


@pytest.mark.parametrize("sample", SAMPLES, ids=_ids)
def test_fixture_decodes_to_the_expected_event(sample: GoldenSample) -> None:
    assert SERIALIZER.decode((GOLDEN / sample.file_name).read_bytes()) == sample.event


@pytest.mark.parametrize("sample", SAMPLES, ids=_ids)
def test_fixture_was_written_with_its_schema_version(sample: GoldenSample) -> None:
    data = (GOLDEN / sample.file_name).read_bytes()
    writer = SERIALIZER.catalog.by_fingerprint(data[2:10])
    assert writer is not None
    assert (writer.name, writer.version) == (sample.name, sample.version)


@pytest.mark.parametrize(
    "sample",
    [s for s in SAMPLES if SERIALIZER.catalog.latest(s.name).version == s.version],
    ids=_ids,
)
def test_current_encoder_reproduces_the_fixture_bytes(sample: GoldenSample) -> None:
    assert SERIALIZER.encode(sample.event) == (GOLDEN / sample.file_name).read_bytes()


def test_write_missing_writes_only_what_is_missing(tmp_path: Path) -> None:
    first = write_missing(tmp_path, SERIALIZER)
    # Only the newest version of each event is written: older ones stay frozen as they are.
    newest = [s for s in SAMPLES if SERIALIZER.catalog.latest(s.name).version == s.version]
    assert sorted(p.name for p in first) == sorted(s.file_name for s in newest)
    for path in first:
        assert path.read_bytes() == (GOLDEN / path.name).read_bytes()
    gone, kept = newest[0].file_name, newest[1].file_name
    (tmp_path / gone).unlink()
    (tmp_path / kept).write_bytes(b"frozen")  # an existing file is never touched
    again = write_missing(tmp_path, SERIALIZER)
    assert [p.name for p in again] == [gone]
    assert (tmp_path / kept).read_bytes() == b"frozen"
