"""A deployment's position tokens, read back into log positions, for the load and fault
harnesses.

A tenant is shown tokens, never log positions (``docs/design/POSITIONS.md``), so a write's
acknowledgement cannot be compared with the log as it is. A harness that checks one
against the other (is the write on the log where it was acknowledged? has every
projection passed it?) decodes it as the deployment itself does: the product's own
``bootstrap.security.position_tokens`` on the settings the deployment's processes were
started with — the same root key, receipt key or generated key file, whichever that
deployment keys its tokens with. Nothing here re-implements the permutation. (The load
profiles in ``ai_memory.benchmarks`` talk to their server over HTTP alone and wait for
the log head instead: ``probes.wait_projected``.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ai_memory.bootstrap.security import position_tokens, root_key
from ai_memory.core.positions import partition_of
from ai_memory.core.record import DEFAULT_TENANT
from ai_memory.settings import Settings


def settings_of(env: Mapping[str, str]) -> Settings:
    """The settings a process started with ``env`` reads (its ``AIMEM_*`` variables)."""
    given: dict[str, str] = {}
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias if isinstance(info.validation_alias, str) else name
        value = env.get(f"AIMEM_{alias.upper()}")
        if value is not None and name != "limits":
            given[name] = value
    return Settings.model_validate(given)


def log_positions(env: Mapping[str, str], tenant: str | None = None) -> Callable[[int], int]:
    """The log position of a token the deployment started with ``env`` showed ``tenant``
    (0 stays 0); by default the tenant its clients write as — ``AIMEM_ADMIN_TENANT`` when
    ``serve`` adopts an ``AIMEM_ADMIN_KEY``, else ``default`` (open mode's caller). Only
    a token of that tenant decodes to its write's position; any other value decodes to an
    unrelated one (one outside the token domain is refused with ``InvalidInput``, as the
    server refuses it)."""
    settings = settings_of(env)
    if tenant is None:
        tenant = settings.admin_tenant if settings.admin_key.get_secret_value() else None
    whose = tenant or DEFAULT_TENANT
    tokens = position_tokens(settings, root_key(settings))

    def position(token: int) -> int:
        return tokens.taken(whose, token)

    return position


class Acked(dict[int, int]):
    """The highest log position per partition a load's writes were acknowledged at: what
    every view must reach before the load counts as projected. Fed the tokens the writes
    returned (``note``), it keeps their decoded positions (``position_of``:
    ``log_positions`` of the writers' tenant)."""

    def __init__(self, position_of: Callable[[int], int]) -> None:
        super().__init__()
        self.position_of = position_of

    def note(self, token: int | None) -> None:
        if token:
            position = self.position_of(token)
            p = partition_of(position)
            self[p] = max(self.get(p, 0), position)
