"""KEK rotation without downtime: ``ai-memory vault rotate --tenant T``.

    1. add KEK v(n+1)           new data keys are wrapped with it from now on …
    2. wait the KEK cache TTL   … in every process (each re-reads the newest within it)
    3. re-wrap every data key still under an older version (conditional per key)
    4. scan again until a whole pass finds none
    5. destroy the older versions

Writers keep running. A writer whose cached KEK was stale may store a key under the old
version after step 3 read past it; the vault's post-check (``WrappedVault._settle``)
re-reads the newest version after every store and re-wraps what it just stored with the
plain key it still holds, so such a key is never lost: either that read comes before
step 1 — and then the row was stored before step 3's scan began — or it sees v(n+1).
Step 5 runs only after a full pass found nothing left under an older version.

Every step is idempotent, so a rotation killed at any point is finished by running it
again: a tenant with more than one live version is a rotation under way, resumed with
its newest version as the target instead of adding another one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ai_memory.core.data_keys import KEK_CACHE_SECONDS, DataKeyVault
from ai_memory.core.errors import NotFound, Unavailable

#: Passes after which writers still storing under an old version are an anomaly (their
#: post-check moves their keys at once): stop, destroy nothing, and let a re-run finish.
MAX_PASSES = 10


@dataclass(frozen=True)
class KekRotated:
    tenant: str
    old_versions: tuple[int, ...]  # destroyed by this run
    new_version: int
    rewrapped: int  # data keys this run wrapped again
    resumed: bool  # a rotation stopped part-way was finished


def rotate_kek(
    vault: DataKeyVault,
    tenant: str,
    *,
    wait: Callable[[float], None] = time.sleep,
    cache_seconds: float = KEK_CACHE_SECONDS,
    page: int = 500,
) -> KekRotated:
    live = vault.kek_versions(tenant)
    if not live:
        raise NotFound(f"tenant {tenant!r} has no KEK to rotate", code="kek_not_found")
    resumed = len(live) > 1
    new = live[-1] if resumed else vault.add_kek_version(tenant)
    # Even when resuming: the version may have been added an instant before the kill.
    wait(cache_seconds)
    rewrapped = 0
    for _ in range(MAX_PASSES):
        found, moved = _rewrap_pass(vault, tenant, new, page)
        rewrapped += moved
        if not found:
            break
    else:
        raise Unavailable(
            f"data keys of {tenant!r} keep appearing under old KEK versions; "
            "nothing was destroyed, run the rotation again"
        )
    old = tuple(v for v in vault.kek_versions(tenant) if v < new)
    for version in old:
        vault.destroy_kek(tenant, version)
    return KekRotated(tenant, old, new, rewrapped, resumed)


def _rewrap_pass(vault: DataKeyVault, tenant: str, below: int, page: int) -> tuple[int, int]:
    """(keys found under a version below ``below``, keys this pass re-wrapped)."""
    found = moved = 0
    cursor: str | None = None
    while True:
        listed = vault.keys_below(tenant, below, cursor, page)
        for key_id in listed.key_ids:
            found += 1
            if vault.rewrap(tenant, key_id):
                moved += 1
            elif vault.destroyed(tenant, key_id):
                # Its KEK is gone (an offboarding, a writer killed before its post-check):
                # it went with it. Marked, so no pass lists it again.
                vault.destroy(tenant, key_id)
        if listed.cursor is None:
            return found, moved
        cursor = listed.cursor
