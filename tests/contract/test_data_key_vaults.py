"""The data-key vault contract against the in-memory and SQLite vaults, and what only
the SQLite vault can be asked: no byte of a destroyed key stays in its files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.key_wrapping import WrappedVault
from ai_memory.adapters.memory.data_key_vault import VaultBacking, memory_vault
from ai_memory.adapters.sqlite_data_key_vault import SqliteVaultRows, sqlite_vault
from ai_memory.core.data_keys import DataKeyVault
from tests.contract.data_key_vault_contract import ROOT, DataKeyVaultContract, MakeVault


class TestMemoryDataKeyVault(DataKeyVaultContract):
    @pytest.fixture
    def make_vault(self) -> MakeVault:
        backing = VaultBacking()
        return lambda root: memory_vault(root, backing)


class TestMemoryDataKeyVaultIssuingOwnIds(DataKeyVaultContract):
    """The layout of the Cassandra vault (a key id per creation) without a server."""

    @pytest.fixture
    def make_vault(self) -> MakeVault:
        backing = VaultBacking()
        return lambda root: memory_vault(root, backing, issues_own_ids=True)


class TestSqliteDataKeyVault(DataKeyVaultContract):
    @pytest.fixture
    def make_vault(self, tmp_path: Path) -> Iterator[MakeVault]:
        opened: list[DataKeyVault] = []

        def make(root: bytes) -> DataKeyVault:
            vault = sqlite_vault(tmp_path / "vault.db", root)
            opened.append(vault)
            return vault

        yield make
        for vault in opened:
            vault.close()

    def test_no_byte_of_a_destroyed_key_stays_in_the_files(self, tmp_path: Path) -> None:
        rows = SqliteVaultRows(tmp_path / "vault.db")
        vault = WrappedVault(rows, ROOT)
        others = [vault.create("acme", f"memory/other-{i}") for i in range(50)]
        key = vault.create("acme", "memory/m1")
        stored = rows.key("acme", "memory/m1")
        assert stored is not None and stored.wrapped is not None
        wrapped = stored.wrapped

        def files() -> list[Path]:
            return sorted(tmp_path.glob("vault.db*"))

        assert any(key not in f.read_bytes() and wrapped in f.read_bytes() for f in files())
        vault.destroy("acme", "memory/m1")
        for f in files():
            data = f.read_bytes()
            assert key not in data, f
            assert wrapped not in data, f
            assert wrapped[12:28] not in data, f  # not even a part of the ciphertext
        assert vault.get("acme", "memory/other-7") == others[7]
        vault.close()


def test_no_byte_of_a_destroyed_kek_stays_in_the_files(tmp_path: Path) -> None:
    rows = SqliteVaultRows(tmp_path / "vault.db")
    vault = WrappedVault(rows, ROOT)
    vault.create("acme", "memory/m1")
    vault.create("globex", "memory/m1")
    (kek,) = rows.keks("acme")
    assert kek.wrapped is not None
    vault.destroy_kek("acme", kek.version)
    for f in sorted(tmp_path.glob("vault.db*")):
        assert kek.wrapped[12:28] not in f.read_bytes(), f
    assert vault.get("acme", "memory/m1") is None
    assert vault.get("globex", "memory/m1") is not None
    vault.close()
