"""The data directory is its owner's alone: made 0700 whatever the umask; an existing one
open to others is left as it is and said."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.private_dir import ensure_private_dir


@pytest.fixture
def lax_umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("lax_umask")
def test_a_new_directory_is_0700_whatever_the_umask(tmp_path: Path) -> None:
    data = tmp_path / "a" / "data"
    ensure_private_dir(data)
    assert mode(data) == 0o700


@pytest.mark.usefixtures("lax_umask")
def test_an_existing_open_directory_is_left_alone_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "shared"
    data.mkdir(mode=0o755)
    with caplog.at_level(logging.WARNING):
        ensure_private_dir(data)
    assert mode(data) == 0o755
    assert "chmod 700" in caplog.text and str(data) in caplog.text
    caplog.clear()
    data.chmod(0o700)
    with caplog.at_level(logging.WARNING):
        ensure_private_dir(data)
    assert caplog.text == ""
