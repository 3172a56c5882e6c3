"""After a migration: five checks (docs/CLI.md, "migrate") as automated probes of the target.

Each check compares what the source said (the converted bundle lines) with what the
target answers, through the same API an agent uses (GET a memory, search):

1. ``preferences`` — preferences carried over: every source preference is findable by
   searching its own text in its scope.
2. ``tasks`` — task state answerable: every task is readable with the same text and
   state, and a search for it finds it.
3. ``lessons`` — lessons present: every skill is readable with the same text.
4. ``history`` — history traceable by time: every record's ``created_at`` is preserved
   and the chronological order of the source is the order on the target.
5. ``forgetting`` — nothing forgotten came back: every source tombstone / DELETE answers
   410 on the target.

A check passes vacuously when the source holds nothing of its kind (the evidence says
so). Every probe judges a memory in the scope where the target actually holds it (a GET
by id answers from any scope), and a failure carries the evidence that contradicts the
expectation: the target's scope and text, and the import's rejection of that line.
A source record the target had already forgotten before the migration (410 without
a source tombstone) is reported as kept forgotten, not as lost.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ai_memory.core.timeparse import format_timestamp, parse_timestamp
from ai_memory.sdk.errors import GoneError, NotFoundError
from ai_memory.sdk.models import MemoryOut, SearchIn, SearchOut
from ai_memory.service.transfer import _ID_NAMESPACE

MAX_FAILURES_SHOWN = 10
CHECKS = (
    ("preferences", "preferences carried over"),
    ("tasks", "task state answerable"),
    ("lessons", "lessons (skills) present"),
    ("history", "history traceable by time"),
    ("forgetting", "nothing forgotten came back"),
)


class Target(Protocol):
    """The migrated-to memory service, as an agent sees it."""

    def get(self, memory_id: str) -> tuple[int, dict[str, Any] | None]:
        """HTTP-style status and the record body (with ``state`` and ``created_at``)."""

    def search(self, body: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Search results as ``[{"record": {...}}, ...]``."""


class Client(Protocol):
    """What the checks need of a client: ``MemoryClient`` (a running server) and
    ``InProcessClient`` (a container in this process) both are one."""

    def get(self, memory_id: str, *, min_position: int = 0) -> MemoryOut: ...

    def search_request(self, request: SearchIn, *, min_position: int = 0) -> SearchOut: ...


class ClientTarget:
    """The target as an agent sees it, through the SDK client interface."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def get(self, memory_id: str) -> tuple[int, dict[str, Any] | None]:
        """``GET /v1/memories/{id}`` (or the same call in process)."""
        try:
            return 200, self.client.get(memory_id).model_dump(mode="json")
        except GoneError:
            return 410, None
        except NotFoundError:
            return 404, None

    def search(self, body: Mapping[str, Any]) -> list[dict[str, Any]]:
        """``POST /v1/memories/search`` (or the same call in process)."""
        out = self.client.search_request(SearchIn.model_validate(dict(body)))
        return [hit.model_dump(mode="json") for hit in out.results]


@dataclass(frozen=True)
class Expected:
    """One source record as the target should hold it."""

    id: str
    type: str
    scope: str
    content: str
    created_at: str | None
    state: str


@dataclass
class CheckResult:
    """One check: pass/fail, how many probes, and evidence."""

    key: str
    name: str
    passed: bool = True
    checked: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    evidence: str = ""

    def fail(self, **detail: Any) -> None:
        """Record one failing probe."""
        self.passed = False
        self.failures.append(detail)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (the first failures only)."""
        return {
            "check": self.key,
            "name": self.name,
            "result": "pass" if self.passed else "fail",
            "checked": self.checked,
            "failed": len(self.failures),
            "evidence": self.evidence,
            "failures": self.failures[:MAX_FAILURES_SHOWN],
        }


def _norm(value: object) -> str | None:
    return None if value is None else format_timestamp(parse_timestamp(value))


def expected_from(lines: Iterable[Mapping[str, Any]]) -> tuple[list[Expected], list[str]]:
    """Records the target should hold and ids it must answer 410 for.

    A record the same source later deletes is expected forgotten, not present.
    """
    records: dict[str, Expected] = {}
    tombstones: dict[str, None] = {}
    for line in lines:
        if line.get("kind") == "tombstone":
            tombstones[str(line["id"])] = None
            records.pop(str(line["id"]), None)
            continue
        raw = line.get("record") or {}
        rid = raw.get("id") or str(
            uuid.uuid5(
                _ID_NAMESPACE, f"{raw.get('scope')}\n{raw.get('type')}\n{raw.get('content')}"
            )
        )
        try:
            created = _norm(raw.get("created_at"))
        except Exception:  # an invalid timestamp was rejected on import; nothing to compare
            created = None
        records[str(rid)] = Expected(
            str(rid),
            str(raw.get("type")),
            str(raw.get("scope")),
            str(raw.get("content")),
            created,
            str(line.get("state") or "active"),
        )
        tombstones.pop(str(rid), None)
    return list(records.values()), list(tombstones)


class _Probe:
    """GETs each id once across all checks; knows what the import said of each id."""

    def __init__(self, target: Target, rejections: Mapping[str, Mapping[str, Any]]) -> None:
        self.target, self.cache = target, dict[str, tuple[int, dict[str, Any] | None]]()
        self.rejections = rejections

    def evidence(self, memory_id: str, body: Mapping[str, Any] | None) -> dict[str, Any]:
        """What contradicts the expectation: where the target holds the memory, and the
        import's own word on its line (a rejection code and message)."""
        found: dict[str, Any] = {}
        if body is not None:
            found["target_scope"] = body.get("scope")
            found["target_content"] = str(body.get("content"))[:120]
        if memory_id in self.rejections:
            found["import_rejection"] = dict(self.rejections[memory_id])
        return found

    def get(self, memory_id: str) -> tuple[int, dict[str, Any] | None]:
        if memory_id not in self.cache:
            self.cache[memory_id] = self.target.get(memory_id)
        return self.cache[memory_id]

    def found_by_search(self, want: Expected, scope: str) -> str | None:
        """The search mode that finds ``want`` by its own text in ``scope``, or None."""
        for mode in ("hybrid", "keyword"):
            body = {
                "query": want.content[:2000],
                "scope": scope,
                "types": [want.type],
                "states": [want.state],
                "top_k": 20,
                "mode": mode,
            }
            if any(hit["record"]["id"] == want.id for hit in self.target.search(body)):
                return mode
        return None


def _readable(check: CheckResult, probe: _Probe, want: Expected, *, search: bool) -> bool:
    """GET (and optionally search) one record; record a failure; False if pre-forgotten."""
    status, body = probe.get(want.id)
    if status == 410:
        return False
    check.checked += 1
    evidence = probe.evidence(want.id, body)
    if status != 200 or body is None:
        check.fail(
            id=want.id, problem=f"GET answered {status}", content=want.content[:120], **evidence
        )
    elif body.get("scope") != want.scope:
        # Read by id, a memory answers from any scope: judge it where it actually is.
        check.fail(
            id=want.id,
            problem=f"in scope {body.get('scope')!r}, expected {want.scope!r}",
            **evidence,
        )
    elif body.get("content") != want.content:
        check.fail(
            id=want.id,
            problem="content differs",
            expected=want.content[:120],
            actual=str(body.get("content"))[:120],
            **evidence,
        )
    elif body.get("state") != want.state:
        check.fail(
            id=want.id,
            problem=f"state {body.get('state')!r}, expected {want.state!r}",
            **evidence,
        )
    elif search and probe.found_by_search(want, str(body["scope"])) is None:
        check.fail(id=want.id, problem="not found by searching its own text", scope=body["scope"])
    return True


SEARCH_PROBES = 300  # per check: every memory is read back, a spread sample is searched


def _per_type(
    key: str, name: str, probe: _Probe, wants: list[Expected], *, search: bool, noun: str
) -> CheckResult:
    check = CheckResult(key, name)
    # Reads are exhaustive and cheap; a search costs milliseconds, so large migrations
    # search an evenly spread, deterministic sample (every k-th memory).
    step = max(1, -(-len(wants) // SEARCH_PROBES))
    kept_forgotten = sum(
        0 if _readable(check, probe, w, search=search and i % step == 0) else 1
        for i, w in enumerate(wants)
    )
    if not wants:
        check.evidence = f"the source holds no {noun}s (nothing to carry over)"
        return check
    searched = len(range(0, len(wants), step)) if search else 0
    how = "read back with the same text and state" + (
        f"; {searched} of them (every {step}) also found by searching that text" if search else ""
    )
    check.evidence = (
        f"{check.checked - len(check.failures)} of {check.checked} source {noun}s {how}"
    )
    if kept_forgotten:
        check.evidence += f"; {kept_forgotten} already forgotten on the target and kept forgotten"
    return check


def _history(probe: _Probe, wants: list[Expected]) -> CheckResult:
    check = CheckResult("history", "history traceable by time")
    timed = sorted((w for w in wants if w.created_at), key=lambda w: (w.created_at or "", w.id))
    previous: tuple[str, str] | None = None
    for want in timed:
        status, body = probe.get(want.id)
        if status != 200 or body is None:
            continue  # absence is the other checks' finding; here only time is judged
        check.checked += 1
        actual = _norm(body.get("created_at"))
        if actual != want.created_at:
            check.fail(
                id=want.id,
                problem="created_at changed",
                expected=want.created_at,
                actual=actual,
                **probe.evidence(want.id, body),
            )
            continue
        if previous is not None and actual is not None and actual < previous[0]:
            check.fail(id=want.id, problem=f"ordered before {previous[1]} on the target")
        previous = (actual or "", want.id)
    untimed = len(wants) - len(timed)
    check.evidence = (
        f"{check.checked - len(check.failures)} of {check.checked} records kept their created_at "
        "and the source's chronological order"
        + (f"; {untimed} source records had no timestamp" if untimed else "")
    )
    return check


def _forgetting(probe: _Probe, tombstones: list[str]) -> CheckResult:
    check = CheckResult("forgetting", "nothing forgotten came back")
    for memory_id in tombstones:
        check.checked += 1
        status, body = probe.get(memory_id)
        if status != 410:
            check.fail(
                id=memory_id,
                problem=f"GET answered {status}, expected 410",
                content=(body or {}).get("content"),
                **probe.evidence(memory_id, body),
            )
    check.evidence = (
        f"{check.checked - len(check.failures)} of {check.checked} source deletions "
        "answer 410 on the target"
        if tombstones
        else "the source holds no deletions"
    )
    return check


def verify(
    target: Target,
    lines: Iterable[Mapping[str, Any]],
    rejections: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[CheckResult]:
    """Run the five checks against ``target`` for the converted source ``lines``;
    ``rejections`` (memory id → the import's error for its line) is quoted as evidence."""
    records, tombstones = expected_from(lines)
    probe = _Probe(target, rejections or {})
    of = {t: [r for r in records if r.type == t] for t in ("preference", "task", "skill")}
    return [
        _per_type(
            "preferences",
            "preferences carried over",
            probe,
            of["preference"],
            search=True,
            noun="preference",
        ),
        _per_type("tasks", "task state answerable", probe, of["task"], search=True, noun="task"),
        _per_type(
            "lessons", "lessons (skills) present", probe, of["skill"], search=False, noun="skill"
        ),
        _history(probe, records),
        _forgetting(probe, tombstones),
    ]
