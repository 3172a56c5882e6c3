"""Where the vault's root key comes from: the setting, or a generated development file."""

from __future__ import annotations

import base64
import stat
from pathlib import Path

import pytest

from ai_memory.adapters.root_key import ROOT_KEY_FILE, load_root_key
from ai_memory.core.errors import InvalidInput


def test_the_setting_wins_and_is_base64url_of_32_bytes(tmp_path: Path) -> None:
    key = bytes(range(32))
    text = base64.urlsafe_b64encode(key).decode().rstrip("=")
    assert load_root_key(text, tmp_path, embedded=True) == key
    assert not (tmp_path / ROOT_KEY_FILE).exists()
    with pytest.raises(InvalidInput):
        load_root_key(base64.urlsafe_b64encode(b"short").decode(), tmp_path, embedded=True)


def test_embedded_without_a_setting_generates_one_file_readable_only_by_its_owner(
    tmp_path: Path,
) -> None:
    first = load_root_key("", tmp_path, embedded=True)
    assert load_root_key("", tmp_path, embedded=True) == first  # read again, not replaced
    mode = stat.S_IMODE((tmp_path / ROOT_KEY_FILE).stat().st_mode)
    assert mode == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [ROOT_KEY_FILE]


def test_a_shared_vault_needs_the_setting(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as e:
        load_root_key("", tmp_path, embedded=False)
    assert e.value.field == "AIMEM_ROOT_KEY"


def test_encryption_is_on_by_default_and_a_sealed_data_directory_refuses_off(
    tmp_path: Path,
) -> None:
    """Once on it stays on: read without the vault, every sealed write would look
    forgotten — so turning it off on a directory that has a root key stops the start."""
    from ai_memory.bootstrap import build
    from ai_memory.settings import Settings

    data = tmp_path / "data"
    assert Settings(data_dir=data).encryption == "on"
    c = build(Settings(data_dir=data))
    c.close()
    assert (data / ROOT_KEY_FILE).exists()
    with pytest.raises(InvalidInput) as e:
        build(Settings(data_dir=data, encryption="off"))
    assert e.value.field == "AIMEM_ENCRYPTION"
    fresh = build(Settings(data_dir=tmp_path / "plain", encryption="off"))
    fresh.close()
    assert not (tmp_path / "plain" / ROOT_KEY_FILE).exists()
