"""Subject erasure (GDPR art. 17 style): what may be asked, and what its receipt says.

Pure rules; the use case is ``service.erasure``. An erasure names its subject by exactly
one criterion — a ``scope``, a ``source_agent``, memory ``ids``, raw
``interaction_ids`` or ``everything`` of the tenant (its offboarding) — and a ``reason``;
an optional ``erasure_id`` makes a retried request the same erasure. What it covers:

* every live memory of the subject (notes are memories of scope ``agent:<agent>``, so an
  agent's notes go with it; episodes and persona are views of memories, so they follow);
* every raw interaction turn of the subject, the turns the erased memories were extracted
  from, and the memories extracted from those turns (neither outlives the other's forget).

The receipt (``receipt_body``) is what an auditor checks offline once signed
(``core.receipts``): ids, positions, times and counts — never content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import InvalidInput
from .record import Limits, check_identifier, validate_scope

RECEIPT_FORMAT = "aimem.erasure-receipt.v1"
MAX_REASON_CHARS = 1000
MAX_IDS = 10_000
CRITERIA = ("scope", "source_agent", "ids", "interaction_ids", "everything")
_FIELDS = frozenset({*CRITERIA, "reason", "erasure_id"})
_ERASURE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
#: A tombstone of an erasure says so in its reason: the receipt finds its tombstones by it.
TOMBSTONE_REASON_PREFIX = "erasure:"


def tombstone_reason(erasure_id: str) -> str:
    return f"{TOMBSTONE_REASON_PREFIX}{erasure_id}"


def check_erasure_id(value: object, field_name: str = "erasure_id") -> str:
    if not isinstance(value, str) or not _ERASURE_ID.match(value):
        raise InvalidInput(
            field_name,
            "format",
            f"{field_name} is 1-128 characters of letters, digits and . _ : - "
            "(starting with a letter or digit)",
        )
    return value


@dataclass(frozen=True)
class ErasureRequest:
    erasure_id: str
    reason: str
    scope: str | None = None
    source_agent: str | None = None
    ids: tuple[str, ...] = ()
    interaction_ids: tuple[str, ...] = ()
    everything: bool = False  # the whole tenant: its offboarding

    def criteria(self) -> dict[str, Any]:
        if self.everything:
            return {"everything": True}
        if self.scope is not None:
            return {"scope": self.scope}
        if self.source_agent is not None:
            return {"source_agent": self.source_agent}
        if self.ids:
            return {"ids": list(self.ids)}
        return {"interaction_ids": list(self.interaction_ids)}

    @staticmethod
    def parse(body: object, limits: Limits, new_id: Callable[[], str]) -> ErasureRequest:
        if not isinstance(body, Mapping):
            raise InvalidInput("body", "type", "an erasure is a JSON object")
        for name in body:
            if name not in _FIELDS:
                raise InvalidInput(str(name), "unknown", f"unknown field {str(name)!r}")
        given = [c for c in CRITERIA if body.get(c) not in (None, [], "", False)]
        if len(given) != 1:
            raise InvalidInput(
                "scope",
                "one_criterion",
                "name the subject by exactly one of scope, source_agent, ids, interaction_ids, "
                "everything",
            )
        reason = body.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInput("reason", "required", "reason is required (why it is erased)")
        if len(reason) > MAX_REASON_CHARS:
            raise InvalidInput("reason", "length", f"reason is at most {MAX_REASON_CHARS} chars")
        check_identifier(reason.replace("\n", " "), "reason")
        raw_id = body.get("erasure_id")
        erasure_id = new_id() if raw_id is None else check_erasure_id(raw_id)
        (criterion,) = given
        value = body[criterion]
        if criterion == "everything":
            if value is not True:
                raise InvalidInput("everything", "type", "everything is true or absent")
            return ErasureRequest(erasure_id, reason, everything=True)
        if criterion == "scope":
            return ErasureRequest(erasure_id, reason, scope=validate_scope(value, limits))
        if criterion == "source_agent":
            if not isinstance(value, str) or len(value) > limits.max_agent_chars:
                raise InvalidInput("source_agent", "format", "source_agent is a short string")
            return ErasureRequest(
                erasure_id, reason, source_agent=check_identifier(value, "source_agent")
            )
        if criterion == "ids":
            return ErasureRequest(erasure_id, reason, ids=_ids(value, criterion))
        return ErasureRequest(erasure_id, reason, interaction_ids=_ids(value, criterion))


def _ids(value: object, field_name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidInput(field_name, "type", f"{field_name} is a list of ids")
    if len(value) > MAX_IDS:
        raise InvalidInput(field_name, "length", f"{field_name} holds at most {MAX_IDS} ids")
    return tuple(dict.fromkeys(check_identifier(v, field_name) for v in value))


@dataclass(frozen=True)
class ProjectionApplied:
    projection: str
    partition: int
    position: int  # how far the projection has applied the log
    needed: int  # the last event of the erasure on that partition (0: none there)

    @property
    def applied(self) -> bool:
        return self.position >= self.needed

    def to_json(self, shown: Callable[[int], int] = lambda p: p) -> dict[str, Any]:
        """``shown``: what the receipt's tenant is shown of a log position (its token,
        ``service.position_tokens``); ``applied`` is decided on the positions themselves."""
        return {
            "projection": self.projection,
            "partition": self.partition,
            "position": shown(self.position),
            "applied": self.applied,
        }


@dataclass(frozen=True)
class Verification:
    """What a scan at receipt time found; ``passed`` only when nothing of the subject
    can be read any more."""

    at: str
    keys_checked: int
    keys_live: tuple[str, ...]  # keys of the erasure the vault still holds
    memories_readable: tuple[str, ...]  # erased ids a read still answers
    events_scanned: int  # the subject's events found on the log
    events_readable: int  # of them, how many still open (clear or a live key)
    kek_versions_live: tuple[int, ...] = ()  # KEK versions the erasure destroyed, live again

    @property
    def passed(self) -> bool:
        return (
            not self.keys_live
            and not self.memories_readable
            and not self.events_readable
            and not self.kek_versions_live
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "keys_checked": self.keys_checked,
            "keys_live": list(self.keys_live),
            "memories_readable": list(self.memories_readable),
            "events_scanned": self.events_scanned,
            "events_readable": self.events_readable,
            "kek_versions_live": list(self.kek_versions_live),
            "passed": self.passed,
        }


def receipt_body(
    *,
    erasure_id: str,
    tenant: str,
    actor: str,
    requested_at: str,
    criteria_json: str,
    reason: str,
    memory_ids: tuple[str, ...],
    interaction_ids: tuple[str, ...],
    erasure_position: int,
    tombstones: Mapping[str, int],
    projections: list[ProjectionApplied],
    key_ids: tuple[str, ...],
    keys_destroyed_at: str | None,
    verification: Verification,
    issued_at: str,
    key_destroyed_at: Mapping[str, str | None] | None = None,
    kek_versions_destroyed: tuple[int, ...] = (),
    shown: Callable[[int], int] = lambda p: p,
) -> dict[str, Any]:
    """The receipt's fields. Fields are only ever added (an auditor's verifier keeps
    working): ``keys.destroyed`` gives each key's own destruction time (None: the vault
    has no time for it — encryption off, or it went with its KEK), ``keys.destroyed_at``
    the time by which all were gone; ``keys.kek_versions_destroyed`` the tenant's KEK
    versions an offboarding destroyed. Every log position is what ``shown`` makes of it:
    the tenant's token, as in every other answer (``docs/design/POSITIONS.md``)."""
    return {
        "format": RECEIPT_FORMAT,
        "erasure_id": erasure_id,
        "tenant": tenant,
        "actor": actor,
        "requested_at": requested_at,
        "request": {"criteria": json.loads(criteria_json), "reason": reason},
        "erased": {
            "memory_ids": sorted(memory_ids),
            "interaction_ids": sorted(interaction_ids),
        },
        "events": {
            "erasure": shown(erasure_position),
            "tombstones": {m: shown(p) for m, p in sorted(tombstones.items())},
        },
        "projections": [p.to_json(shown) for p in projections],
        "keys": {
            "encryption": "on" if keys_destroyed_at is not None else "off",
            "key_ids": sorted(key_ids),
            "destroyed_at": keys_destroyed_at,
            "destroyed": [
                {"key_id": k, "destroyed_at": (key_destroyed_at or {}).get(k)}
                for k in sorted(key_ids)
            ],
            "kek_versions_destroyed": sorted(kek_versions_destroyed),
        },
        "verification": verification.to_json(),
        "issued_at": issued_at,
    }
