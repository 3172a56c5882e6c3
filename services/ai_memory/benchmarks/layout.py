"""Where the scale profile's memories live: most in one big scope, the rest in small ones.

A real tenant is lopsided — one user or team holds most of the memories, many others a
few each — and a scoped search behaves differently at each end: its filter keeps 90% of
the index in the big scope and 0.5% in a small one. Writes during the search phase go to
a scope of their own, so the scopes searched hold exactly the corpus.
"""

from __future__ import annotations

BIG_SCOPE = "user:bench"
SMALL_SCOPES = 20
WRITES_SCOPE = "user:bench-writes"
# Out of every ten memories, nine go to the big scope and one to a small scope in turn.
_PERIOD = 10


def small_scope(k: int) -> str:
    return f"user:small-{k % SMALL_SCOPES}"


def scope_of(n: int) -> str:
    """The scope of memory ``n`` (90% ``BIG_SCOPE``, 10% spread evenly over the small ones)."""
    if n % _PERIOD != _PERIOD - 1:
        return BIG_SCOPE
    return small_scope(n // _PERIOD)
