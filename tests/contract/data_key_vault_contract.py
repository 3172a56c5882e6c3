"""The DataKeyVault contract: the in-memory, SQLite and Cassandra vaults pass it.

``make_vault(root_key)`` opens another vault on the same backing data with that root
key, as a restart (or another gateway) would."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

from ai_memory.core.data_keys import KEY_BYTES, DataKeyVault, subject_of
from ai_memory.core.errors import AiMemoryError, Gone

MakeVault = Callable[[bytes], DataKeyVault]
ROOT = bytes(range(32))
T = TypeVar("T")


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

    def test_a_wrong_new_hint_changes_nothing(self, make_vault: MakeVault) -> None:
        """Ids hinted as new that have a key (or were destroyed) come back exactly as
        without the hint: the stored key, and nothing for a destroyed id."""
        vault = make_vault(ROOT)
        old = vault.create("acme", "memory/old")
        vault.destroy("acme", "memory/gone")
        ids = ["memory/old", "memory/gone", "memory/fresh"]
        made = vault.create_many("acme", ids, new=ids)
        assert set(made) == {"memory/old", "memory/fresh"}
        assert made["memory/old"] == old
        assert make_vault(ROOT).create_many("acme", ids) == made
        assert make_vault(ROOT).get("acme", "memory/fresh") == made["memory/fresh"]

    def test_racing_create_many_calls_agree_on_every_key(self, make_vault: MakeVault) -> None:
        """Gateways creating the keys of one batch of new memories at once (each call's
        creations all in flight together) end with one key per id, the one stored."""
        ids = [f"memory/batch-{n}" for n in range(40)]
        made = _race(4, lambda: make_vault(ROOT), lambda v: v.create_many("acme", ids))
        assert len(made) == 4
        stored = make_vault(ROOT).create_many("acme", ids)
        assert all(m == stored for m in made)
        assert len(set(stored.values())) == len(ids)

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

    # --- KEK versions: rotation and offboarding ----------------------------------------
    def test_a_new_kek_version_wraps_new_keys_and_old_keys_still_open(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        old = vault.create("acme", "memory/old")
        assert vault.kek_versions("acme") == [1]
        assert vault.add_kek_version("acme") == 2
        assert make_vault(ROOT).kek_versions("acme") == [1, 2]
        new = make_vault(ROOT).create("acme", "memory/new")
        for v in (vault, make_vault(ROOT)):
            assert v.get("acme", "memory/old") == old
            assert v.get("acme", "memory/new") == new
        assert _all_below(vault, "acme", 2) == ["memory/old"]
        assert make_vault(ROOT).kek_versions("globex") == []

    def test_a_writer_with_a_stale_kek_cache_ends_under_the_newest_version(
        self, make_vault: MakeVault
    ) -> None:
        stale = make_vault(ROOT)
        stale.create("acme", "memory/first")  # caches KEK v1 for seconds
        make_vault(ROOT).add_kek_version("acme")
        key = stale.create("acme", "memory/racer")
        made = stale.create_many("acme", ["memory/racer-2", "memory/racer-3"])
        # Its post-check saw v2 and wrapped them again: a rotation cannot miss them.
        assert _all_below(stale, "acme", 2) == ["memory/first"]
        assert make_vault(ROOT).get("acme", "memory/racer") == key
        assert make_vault(ROOT).create_many("acme", list(made)) == made

    def test_rewrap_moves_a_key_to_the_newest_version_and_never_resurrects(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        keys = {k: vault.create("acme", k) for k in ("memory/a", "memory/b", "memory/gone")}
        vault.destroy("acme", "memory/gone")
        vault.add_kek_version("acme")
        other = make_vault(ROOT)
        assert other.rewrap("acme", "memory/a")
        assert not other.rewrap("acme", "memory/a")  # already under the newest
        assert not other.rewrap("acme", "memory/gone")
        assert not other.rewrap("acme", "memory/never")
        assert _all_below(other, "acme", 2) == ["memory/b"]
        assert other.rewrap("acme", "memory/b")
        other.destroy_kek("acme", 1)
        assert other.kek_versions("acme") == [2]
        for v in (vault, make_vault(ROOT)):
            assert v.get("acme", "memory/a") == keys["memory/a"]
            assert v.get("acme", "memory/b") == keys["memory/b"]
            assert v.get("acme", "memory/gone") is None
            assert v.destroyed("acme", "memory/gone")

    def test_keys_below_pages_through_every_old_key(self, make_vault: MakeVault) -> None:
        vault = make_vault(ROOT)
        ids = sorted(f"memory/m{i}" for i in range(7))
        vault.create_many("acme", ids)
        vault.create("globex", "memory/m0")
        vault.add_kek_version("acme")
        pages: list[tuple[str, ...]] = []
        cursor: str | None = None
        while True:
            page = vault.keys_below("acme", 2, cursor, limit=3)
            pages.append(page.key_ids)
            assert len(page.key_ids) <= 3
            if page.cursor is None:
                break
            cursor = page.cursor
        assert sorted(k for p in pages for k in p) == ids
        assert vault.keys_below("acme", 1).key_ids == ()

    def test_destroying_every_kek_destroys_every_key_and_versions_are_never_reused(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        vault.create("acme", "memory/m1")
        vault.add_kek_version("acme")
        make_vault(ROOT).create("acme", "memory/m2")
        other_tenant = vault.create("globex", "memory/m1")
        for version in vault.kek_versions("acme"):
            vault.destroy_kek("acme", version)
        vault.destroy_kek("acme", 1)  # idempotent
        for v in (vault, make_vault(ROOT)):
            assert v.kek_versions("acme") == []
            for key_id in ("memory/m1", "memory/m2"):
                assert v.get("acme", key_id) is None
                assert v.destroyed("acme", key_id)
            assert v.get("globex", "memory/m1") == other_tenant
        # The tenant writes again: a fresh KEK numbered above every destroyed one.
        fresh = make_vault(ROOT)
        key = fresh.create("acme", "memory/m3")
        assert fresh.kek_versions("acme") == [3]
        assert make_vault(ROOT).get("acme", "memory/m3") == key
        with pytest.raises(Gone):
            fresh.create("acme", "memory/m1")

    def test_destroyed_at_gives_each_key_its_first_destruction_time(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        vault.create("acme", "memory/a")
        vault.create("acme", "memory/live")
        before = time.time_ns() // 1000
        vault.destroy("acme", "memory/a")
        vault.destroy("acme", "memory/never")
        after = time.time_ns() // 1000
        times = make_vault(ROOT).destroyed_at("acme", ["memory/a", "memory/never", "memory/live"])
        assert set(times) == {"memory/a", "memory/never", "memory/live"}
        assert times["memory/live"] is None
        first = times["memory/a"]
        assert first is not None and before <= first <= after
        assert times["memory/never"] is not None
        vault.destroy("acme", "memory/a")  # a second destroy keeps the first time
        assert vault.destroyed_at("acme", ["memory/a", "memory/nope"]) == {
            "memory/a": first,
            "memory/nope": None,
        }
        assert vault.destroyed_at("acme", []) == {}

    # --- issue_many: the write path's keys (one per subject, or one per creation) --------
    def test_issued_keys_open_by_their_id_after_a_restart(self, make_vault: MakeVault) -> None:
        vault = make_vault(ROOT)
        subjects = ["memory/a", "memory/b", "interaction/t1"]
        issued = vault.issue_many("acme", [*subjects, "memory/a"], new=subjects)
        assert set(issued) == set(subjects)
        for subject, (key_id, key) in issued.items():
            assert subject_of(key_id) == subject
            assert len(key) == KEY_BYTES
            assert make_vault(ROOT).get("acme", key_id) == key
            assert not make_vault(ROOT).destroyed("acme", key_id)
        assert len({key for _, key in issued.values()}) == 3
        assert make_vault(ROOT).issue_many("acme", []) == {}

    def test_get_many_opens_what_get_opens_and_leaves_out_the_rest(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        subjects = [f"memory/m{n}" for n in range(150)]  # more than one read's worth
        issued = vault.issue_many("acme", subjects, new=subjects)
        old = vault.create("acme", "memory/before-issued-ids")
        gone = issued["memory/m7"][0]
        vault.destroy("acme", "memory/m7")
        other = vault.issue_many("globex", ["memory/m1"], new=["memory/m1"])["memory/m1"]
        asked = [key_id for key_id, _ in issued.values()]
        asked += ["memory/before-issued-ids", "memory/never", "memory/m3/~unknown", other[0]]
        got = make_vault(ROOT).get_many("acme", [*asked, asked[0]])
        expected = {key_id: key for key_id, key in issued.values() if key_id != gone}
        assert got == {**expected, "memory/before-issued-ids": old}
        assert make_vault(ROOT).get_many("acme", []) == {}

    def test_racing_issuers_of_one_subject_each_get_a_key_that_opens(
        self, make_vault: MakeVault
    ) -> None:
        """Gateways issuing keys for one new memory at once (a zombie owner and its
        successor) each seal with a key that every reader opens by the id it names."""
        got = _race(
            4,
            lambda: make_vault(ROOT),
            lambda v: v.issue_many("acme", ["memory/m1"], new=["memory/m1"])["memory/m1"],
        )
        assert len(got) == 4
        reader = make_vault(ROOT)
        for key_id, key in got:
            assert reader.get("acme", key_id) == key

    def test_destroying_a_subject_destroys_every_key_issued_for_it(
        self, make_vault: MakeVault
    ) -> None:
        a, b = make_vault(ROOT), make_vault(ROOT)
        first = a.issue_many("acme", ["memory/m1"], new=["memory/m1"])["memory/m1"]
        # A creator that did not see the first key (another gateway, a restart).
        second = b.issue_many("acme", ["memory/m1"], new=["memory/m1"])["memory/m1"]
        other = a.issue_many("acme", ["memory/m2"], new=["memory/m2"])["memory/m2"]
        elsewhere = a.issue_many("globex", ["memory/m1"], new=["memory/m1"])["memory/m1"]
        before = time.time_ns() // 1000
        a.destroy("acme", "memory/m1")
        for v in (a, make_vault(ROOT)):
            for key_id, _ in (first, second):
                assert v.get("acme", key_id) is None
                assert v.destroyed("acme", key_id)
            assert v.destroyed("acme", "memory/m1")
            at = v.destroyed_at("acme", ["memory/m1"])["memory/m1"]
            assert at is not None and at >= before
            assert v.get("acme", other[0]) == other[1]
            assert v.get("globex", elsewhere[0]) == elsewhere[1]

    def test_a_destroyed_subject_is_never_issued_a_key_that_opens(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        vault.issue_many("acme", ["memory/gone"], new=["memory/gone"])
        vault.destroy("acme", "memory/gone")
        vault.destroy("acme", "memory/imported-tombstone")  # never had a key
        for subject in ("memory/gone", "memory/imported-tombstone"):
            assert make_vault(ROOT).issue_many("acme", [subject]) == {}
            # Hinted new (a wrong hint: the caller's decision is what refuses a forgotten
            # memory), a store may skip its look: then the key it issues reads destroyed.
            hinted = make_vault(ROOT).issue_many("acme", [subject], new=[subject])
            for key_id, _ in hinted.values():
                assert make_vault(ROOT).get("acme", key_id) is None
                assert make_vault(ROOT).destroyed("acme", key_id)

    def test_a_subject_asked_again_keeps_one_of_its_keys(self, make_vault: MakeVault) -> None:
        """A restarted writer (or one whose cached key expired) seals a memory's next
        version under a key the memory has, so a memory does not gather a key per cache
        expiry; only callers sure it is new (hinted) skip the look."""
        first = make_vault(ROOT).issue_many("acme", ["memory/m1"], new=["memory/m1"])
        for _ in range(3):
            assert make_vault(ROOT).issue_many("acme", ["memory/m1"]) == first

    def test_a_key_made_before_issued_ids_keeps_sealing_its_subject(
        self, make_vault: MakeVault
    ) -> None:
        vault = make_vault(ROOT)
        old = vault.create("acme", "memory/old")
        assert make_vault(ROOT).issue_many("acme", ["memory/old"]) == {
            "memory/old": ("memory/old", old)
        }

    def test_rotation_lists_and_rewraps_issued_keys(self, make_vault: MakeVault) -> None:
        vault = make_vault(ROOT)
        subjects = [f"memory/r{i}" for i in range(5)]
        issued = vault.issue_many("acme", subjects, new=subjects)
        vault.destroy("acme", "memory/r4")
        new = vault.add_kek_version("acme")
        listed = _all_below(make_vault(ROOT), "acme", new)
        assert listed == sorted(issued[s][0] for s in subjects[:4])
        for key_id in listed:
            assert make_vault(ROOT).rewrap("acme", key_id)
        assert _all_below(vault, "acme", new) == []
        vault.destroy_kek("acme", 1)
        for subject in subjects[:4]:
            key_id, key = issued[subject]
            assert make_vault(ROOT).get("acme", key_id) == key
        assert make_vault(ROOT).get("acme", issued["memory/r4"][0]) is None


def _race(
    n: int, open_vault: Callable[[], DataKeyVault], call: Callable[[DataKeyVault], T]
) -> list[T]:
    """``call`` on ``n`` vaults (separate gateways) released together by a barrier. The
    vaults are opened first, one after another: what races is the calls (two SQLite
    vaults creating their schema at once can find the file locked)."""
    results: list[T] = []
    vaults = [open_vault() for _ in range(n)]
    start = threading.Barrier(n, timeout=60)  # a thread that died fails the test, not hangs

    def one(vault: DataKeyVault) -> None:
        start.wait()
        results.append(call(vault))

    threads = [threading.Thread(target=one, args=(v,)) for v in vaults]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _all_below(vault: DataKeyVault, tenant: str, version: int) -> list[str]:
    found: list[str] = []
    cursor: str | None = None
    while True:
        page = vault.keys_below(tenant, version, cursor)
        found += page.key_ids
        if page.cursor is None:
            return sorted(found)
        cursor = page.cursor
