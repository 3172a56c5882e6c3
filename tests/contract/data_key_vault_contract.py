"""The DataKeyVault contract: the in-memory, SQLite and Cassandra vaults pass it.

``make_vault(root_key)`` opens another vault on the same backing data with that root
key, as a restart (or another gateway) would."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import pytest

from ai_memory.core.data_keys import KEY_BYTES, DataKeyVault
from ai_memory.core.errors import AiMemoryError, Gone

MakeVault = Callable[[bytes], DataKeyVault]
ROOT = bytes(range(32))


class DataKeyVaultContract:
    @pytest.fixture
    def make_vault(self) -> MakeVault:
        raise NotImplementedError

    def test_create_returns_a_256_bit_key_that_get_returns_after_a_restart(
        self, make_vault: MakeVault
    ) -> None:
        key = make_vault(ROOT).create("acme", "memory/m1")
        assert len(key) == KEY_BYTES
        assert make_vault(ROOT).get("acme", "memory/m1") == key

    def test_create_twice_is_the_same_key_and_racers_agree(self, make_vault: MakeVault) -> None:
        vault = make_vault(ROOT)
        assert vault.create("acme", "memory/m1") == vault.create("acme", "memory/m1")
        keys: list[bytes] = []
        threads = [
            threading.Thread(target=lambda: keys.append(make_vault(ROOT).create("acme", "race")))
            for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(set(keys)) == 1

    def test_create_many_makes_what_is_missing_and_leaves_destroyed_ids_out(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        old = vault.create("acme", "memory/old")
        vault.destroy("acme", "memory/gone")
        made = vault.create_many("acme", ["memory/old", "memory/new", "memory/gone", "memory/new"])
        assert set(made) == {"memory/old", "memory/new"}
        assert made["memory/old"] == old
        assert made["memory/new"] == make_vault(ROOT).get("acme", "memory/new")
        assert vault.create_many("globex", ["memory/new"])["memory/new"] != made["memory/new"]
        assert vault.create_many("acme", []) == {}

    def test_unknown_keys_are_absent_and_not_destroyed(self, make_vault: MakeVault) -> None:
        vault = make_vault(ROOT)
        assert vault.get("acme", "memory/nope") is None
        assert not vault.destroyed("acme", "memory/nope")

    def test_a_destroyed_key_is_gone_for_good(self, make_vault: MakeVault) -> None:
        vault = make_vault(ROOT)
        vault.create("acme", "memory/m1")
        vault.destroy("acme", "memory/m1")
        vault.destroy("acme", "memory/m1")  # idempotent
        for v in (vault, make_vault(ROOT)):
            assert v.get("acme", "memory/m1") is None
            assert v.destroyed("acme", "memory/m1")
            # A destroyed key id is never created again: no new content can be sealed
            # under an id whose old ciphertexts are still on the log.
            with pytest.raises(Gone) as e:
                v.create("acme", "memory/m1")
            assert e.value.code == "data_key_destroyed"

    def test_destroying_an_id_never_created_forbids_creating_it(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        vault.destroy("acme", "memory/imported-tombstone")
        assert vault.destroyed("acme", "memory/imported-tombstone")
        with pytest.raises(Gone):
            vault.create("acme", "memory/imported-tombstone")

    def test_tenants_are_apart(self, make_vault: MakeVault) -> None:
        vault = make_vault(ROOT)
        a = vault.create("acme", "memory/m1")
        assert vault.get("globex", "memory/m1") is None
        b = vault.create("globex", "memory/m1")
        assert a != b
        vault.destroy("globex", "memory/m1")
        assert vault.get("acme", "memory/m1") == a

    def test_a_wrong_root_key_cannot_unwrap(self, make_vault: MakeVault) -> None:
        make_vault(ROOT).create("acme", "memory/m1")
        wrong = make_vault(os.urandom(32))
        with pytest.raises(AiMemoryError) as e:
            wrong.get("acme", "memory/m1")
        assert e.value.code == "root_key_mismatch"
        assert not isinstance(e.value, Gone)  # a wrong root key is not a forget
