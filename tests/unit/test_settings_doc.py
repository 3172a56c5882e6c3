"""``docs/CONFIGURATION.md`` is exactly what ``ai_memory.settings_doc`` generates from the
settings' descriptions, and it lists every variable the settings read."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from ai_memory import settings_doc
from ai_memory.settings import VARIABLES, Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "CONFIGURATION.md"


def test_the_committed_reference_is_the_generated_one() -> None:
    assert DOC.read_text(encoding="utf-8") == settings_doc.render(), (
        "docs/CONFIGURATION.md is stale: run "
        "`python -m ai_memory.settings_doc > docs/CONFIGURATION.md`"
    )


def test_every_variable_is_described() -> None:
    text = settings_doc.render()
    for name in VARIABLES:
        assert f"| `{name}` |" in text, name


def test_a_field_without_a_description_stops_the_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = copy.copy(Settings.model_fields["port"])
    info.description = None
    monkeypatch.setitem(Settings.model_fields, "port", info)
    with pytest.raises(SystemExit, match="port"):
        settings_doc.render()


def test_a_field_left_out_of_the_sections_stops_the_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(settings_doc, "SECTIONS", settings_doc.SECTIONS[1:])
    with pytest.raises(SystemExit, match="data_dir"):
        settings_doc.render()
