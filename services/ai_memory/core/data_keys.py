"""The data-key vault port: the keys that seal personal fields, kept outside the log.

One data key per memory (all its versions) and, later, one per interaction
(``docs/design/FORGETTING.md``). The log holds only ciphertext sealed under these keys;
forgetting destroys the key, so a replay of the immutable log can never open the content
again. A vault stores each data key wrapped by its tenant's key-encryption key (KEK),
which is wrapped by the deployment's root key; callers only ever see unwrapped keys.

Key ids are the vault's, not the record's. A *subject* names what a key seals:
``memory_key_id`` a memory (all its versions), ``interaction_key_id`` one raw turn. A vault
either keeps one key per subject (the key id is the subject: SQLite and in-memory, where
"create unless it exists" is a local transaction) or gives every creation an id of its own,
``<subject>/~<suffix>`` (Cassandra, where agreeing on one key per subject costs a Paxos round
per new memory): ``issue_many`` says which id it chose, and the sealed event names it.
Destroying a subject destroys every key ever issued for it, and a subject is never issued
a key again once destroyed — a memory id is never written again once forgotten
(``core.decide`` refuses it with ``memory_forgotten``), and even a path that tried to reuse
a forgotten id could not seal new content under a key that opens.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from .errors import Gone, PermanentError

#: Bytes of a data key and of a KEK (AES-256).
KEY_BYTES = 32
#: How long a process keeps using the KEK it wraps new data keys with before reading the
#: newest version again: a rotation waits this long before its re-wrap pass. The bound
#: of the API key cache (``service.keys.MAX_CACHE_TTL``), for the same reason.
KEK_CACHE_SECONDS = 5.0


#: Between a subject and the suffix of a key issued for it (``subject_of``): a subject is
#: ``kind/id`` and a memory id never holds ``/`` (``core.record``), interaction ids are
#: UUIDs, so ``/~`` after the id cannot be part of it.
KEY_ID_SEPARATOR = "/~"


def memory_key_id(memory_id: str) -> str:
    """The subject (and, in a one-key-per-subject vault, the key id) of ``memory_id``."""
    return f"memory/{memory_id}"


def interaction_key_id(interaction_id: str) -> str:
    """The id of the data key sealing one raw interaction."""
    return f"interaction/{interaction_id}"


def issued_key_id(subject: str, suffix: str) -> str:
    """The id of one key issued for ``subject`` in a vault that gives every creation an
    id of its own."""
    return f"{subject}{KEY_ID_SEPARATOR}{suffix}"


def subject_of(key_id: str) -> str:
    """The subject a key id was issued for: what comes before its suffix, or the id
    itself (a vault with one key per subject)."""
    head, sep, tail = key_id.rpartition(KEY_ID_SEPARATOR)
    return head if sep and "/" in head and "/" not in tail else key_id


def key_destroyed(tenant: str, key_id: str) -> Gone:
    return Gone(
        f"data key {key_id!r} of tenant {tenant!r} was destroyed; it is never created again",
        code="data_key_destroyed",
    )


def root_key_mismatch(what: str) -> PermanentError:
    """A wrapped key that the configured root key cannot open: the wrong AIMEM_ROOT_KEY
    (or a tampered vault). Never retried and never read as "destroyed"."""
    return PermanentError(
        f"the vault cannot unwrap {what} with the configured root key (AIMEM_ROOT_KEY)",
        code="root_key_mismatch",
    )


@dataclass(frozen=True)
class KeyPage:
    """One page of a tenant's data key ids (``DataKeyVault.keys_below``); ``cursor`` reads
    the next page, None once the listing is done. A page may be empty before the end."""

    key_ids: tuple[str, ...]
    cursor: str | None


class DataKeyVault(Protocol):
    """Data keys per (tenant, key id), 256-bit, stored wrapped; one contract suite
    (``tests/contract/data_key_vault_contract.py``) for every adapter."""

    @property
    def issues_own_ids(self) -> bool:
        """Every creation gets a key id of its own (``issue_many``). A destroyed subject
        may then still hold a key a fenced, racing creator issued after the destroy read
        the subject's keys (it never opens): destroying the subject again sweeps it."""
        ...

    def create(self, tenant: str, key_id: str) -> bytes:
        """The live key of ``key_id``, made now if it has none (two racing creators get
        the same key). ``Gone`` (``data_key_destroyed``) once the id was destroyed."""
        ...

    def create_many(
        self, tenant: str, key_ids: Sequence[str], *, new: Collection[str] = ()
    ) -> dict[str, bytes]:
        """``create`` for many ids in as few round trips as the store allows (a batch
        of new memories); ids that were destroyed are left out of the result. ``new``
        names ids the caller expects to have no key yet (first versions): a hint that
        lets a store skip looking for them first; the result is the same either way."""
        ...

    def issue_many(
        self, tenant: str, subjects: Sequence[str], *, new: Collection[str] = ()
    ) -> dict[str, tuple[str, bytes]]:
        """A key to seal new content of each subject with, as (key id, key): the
        subject's one key (made if it has none), or — in a vault that gives every creation
        its own id — a key stored now under a new id ``<subject>/~<suffix>``. Destroyed
        subjects are left out. ``new`` names subjects the caller expects to have no key
        yet: a store may then skip looking for one, and a destroyed subject hinted new may
        be issued a key whose id already reads as destroyed (``get`` None, ``destroyed``
        True), never one that opens for anyone else."""
        ...

    def get(self, tenant: str, key_id: str) -> bytes | None:
        """The unwrapped key; None when it was destroyed or never created. A key the
        root key cannot unwrap raises ``root_key_mismatch``."""
        ...

    def get_many(self, tenant: str, key_ids: Sequence[str]) -> dict[str, bytes]:
        """``get`` for many ids in as few round trips as the store allows (the keys of a
        projector's batch); ids destroyed or never created are left out."""
        ...

    def destroy(self, tenant: str, key_id: str) -> None:
        """Destroy for good (idempotent). A subject: every key ever issued for it, and a
        mark that refuses it any new key. An id never created is recorded as destroyed,
        so it can never be created later (a tombstone imported before its memory)."""
        ...

    def destroyed(self, tenant: str, key_id: str) -> bool:
        """The key was destroyed, or the KEK version it is wrapped under was."""
        ...

    def destroyed_at(self, tenant: str, key_ids: Sequence[str]) -> dict[str, int | None]:
        """When each key was destroyed (UTC microseconds), None when it was not; in one
        round trip where the store allows (a receipt lists thousands)."""
        ...

    # --- KEK rotation and offboarding (docs/design/FORGETTING.md) ---------------------------
    def kek_versions(self, tenant: str, include_destroyed: bool = False) -> list[int]:
        """The tenant's live KEK versions, oldest first; the newest wraps new data keys.
        ``include_destroyed``: every version it ever had."""
        ...

    def add_kek_version(self, tenant: str) -> int:
        """Make a KEK version above every version the tenant ever had (destroyed ones
        too: a number is never reused); return the newest live version. Other processes
        wrap with it once their cached wrap KEK expires (``KEK_CACHE_SECONDS``)."""
        ...

    def keys_below(
        self, tenant: str, version: int, cursor: str | None = None, limit: int = 500
    ) -> KeyPage:
        """Live data keys of the tenant wrapped under a KEK version below ``version``."""
        ...

    def rewrap(self, tenant: str, key_id: str) -> bool:
        """Wrap a live data key again under the newest KEK version; only if it is still
        under an older version and not destroyed (a destroyed key is never resurrected).
        True when this call re-wrapped it."""
        ...

    def destroy_kek(self, tenant: str, version: int) -> None:
        """Destroy a KEK version for good (idempotent): every data key still wrapped
        under it is destroyed with it."""
        ...

    def close(self) -> None: ...
