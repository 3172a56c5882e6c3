"""Agent notes: a small notebook per agent, kept as ordinary memories.

A note is one memory: scope ``agent:<agent>``, tags = its topic (≤5 tags, any language),
``meta.kind = "note"``, type ``fact`` unless the agent says otherwise. Its id derives from
the agent and the normalised tag set, so saving a topic again replaces the note and
``note: "off"`` forgets it (``MemoryDeleted``). Forgotten ids are never reused: a topic
saved after "off" takes the id's next generation (``…-2``), found from the log's heads.
With encryption on the id is a keyed digest (``note_id``): the id outlives the note on
its tombstone, and a plain hash of a topic would let anyone holding the log confirm a
guessed topic ("alice, diagnosis") long after the note was forgotten.

Recall ranks tier by tier with rules an agent can check (``rank_notes``, pure): 1. a tag
equals a query word, 2. a tag or the body contains one (substring: works for Chinese);
inside a tier: more words matched, more reads, newest, id. Non-matching notes are not
returned. Returning a note is a read: one ``MemoriesRecalled`` event per GET, projected
into ``read_count`` (on the log, so a replay reproduces it). ``your_topics`` lists titles
and counts only and is not a read.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import re
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from ai_memory.core.errors import Conflict, InvalidInput, NotFound, Timeout
from ai_memory.core.events import MemoriesRecalled
from ai_memory.core.record import (
    Limits,
    MemoryState,
    MemoryType,
    StoredRecord,
    check_identifier,
    check_utf8,
    parse_record,
)
from ai_memory.core.timeparse import format_timestamp

from . import access
from .access import Who
from .unit_of_work import UnitOfWork
from .writing import Writing, delete_in, write_in

NOTE_KIND = "note"
OFF = "off"
_SEPARATORS = re.compile(r"[\s,、]+")  # NFKC already maps the full-width comma to ","
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_AGENT = re.compile(r"^[^\s:][^\s]*$")
_BAD_TAG = "topic_tag_invalid"
SaveStatus = Literal["created", "replaced", "unchanged", "deleted", "already_off"]


@dataclass(frozen=True)
class NoteRules:
    """The notebook's limits; ``quota`` is notes per agent."""

    quota: int = 50
    max_tags: int = 5
    max_note_chars: int = 500
    top_n: int = 3
    default_type: MemoryType = MemoryType.FACT


def normalise(text: str) -> str:
    """NFKC + casefold: ``Neo`` = ``neo``, full-width ``ＮＥＯ`` = ``neo``."""
    return unicodedata.normalize("NFKC", text).casefold().strip()


def parse_topic(value: object, rules: NoteRules, limits: Limits) -> tuple[str, ...]:
    """``"neo, jobs"`` or ``["neo", "jobs"]`` → normalised, de-duplicated tags in order.

    Linear in the input: the tag count is checked as tags are found, so a topic of a
    million words is refused after ``max_tags + 1`` of them."""
    parts = [value] if isinstance(value, str) else value
    if not isinstance(parts, list | tuple) or not all(isinstance(p, str) for p in parts):
        raise InvalidInput("topic", "string_list", "topic must be a string such as 'neo, jobs'")
    tags: dict[str, None] = {}  # an ordered set
    for part in parts:
        check_utf8(part, "topic")
        for raw in _SEPARATORS.split(normalise(part)):
            if not raw or raw in tags:
                continue
            if len(raw) > limits.max_tag_chars or _CONTROL.search(raw):
                msg = f"each topic tag must be 1–{limits.max_tag_chars} printable characters"
                raise InvalidInput("topic", "tag_format", f"{msg}, got {raw[:80]!r}", code=_BAD_TAG)
            check_identifier(raw, "topic")
            tags[raw] = None
            if len(tags) > rules.max_tags:
                shown = ", ".join(tags)
                msg = f"a topic has at most {rules.max_tags} tags; got more: {shown}"
                raise InvalidInput("topic", "max_items", msg, code="topic_too_many_tags")
    if not tags:
        raise InvalidInput("topic", "required", "topic needs at least one tag, e.g. 'neo, jobs'")
    return tuple(tags)


def validate_agent(value: object, limits: Limits) -> str:
    """An agent id usable in the scope ``agent:<agent>``."""
    max_chars = min(limits.max_agent_chars, limits.max_scope_chars - len("agent:"))
    if not isinstance(value, str) or not value:
        raise InvalidInput("agent", "required", "agent is required (your agent id)")
    if len(value) > max_chars or not _AGENT.match(value) or _CONTROL.search(value):
        msg = f"agent must be ≤{max_chars} characters without spaces, not starting with ':'"
        raise InvalidInput("agent", "agent_format", msg)
    return check_identifier(value, "agent")


def validate_note(value: str, rules: NoteRules) -> str:
    """The note's text, stripped: non-empty, printable, at most ``max_note_chars``."""
    if not isinstance(value, str):
        raise InvalidInput("note", "text_only", "note must be text")
    text = check_utf8(value.strip(), "note")
    if not text:
        raise InvalidInput("note", "non_empty", "note must not be empty (use 'off' to delete)")
    if len(text) > rules.max_note_chars:
        msg = f"note is {len(text)} characters; the limit is {rules.max_note_chars}"
        raise InvalidInput("note", "max_chars", msg, code="note_too_long")
    if _CONTROL.search(text):
        raise InvalidInput("note", "text_only", "note must be printable text")
    return text


def note_id(
    agent: str,
    tags: Sequence[str],
    generation: int = 1,
    *,
    key: bytes | None = None,
    tenant: str = "",
) -> str:
    """Deterministic id of an agent's note on a tag set (order-insensitive). With ``key``
    (encryption on) an HMAC of the tenant, agent and tags: the same topic keeps one id,
    and the id tells nobody without the key what the topic was, not even by guessing.
    Without it, the plain hash notes were first written with."""
    if key is None:
        plain = "\x1f".join([agent, *sorted(tags)])
        digest = hashlib.sha256(plain.encode("utf-8")).hexdigest()[:32]
    else:
        keyed = json.dumps([tenant, agent, *sorted(tags)], ensure_ascii=False).encode("utf-8")
        digest = hmac.new(key, keyed, hashlib.sha256).hexdigest()[:32]
    base = "note-" + digest
    return base if generation == 1 else f"{base}-{generation}"


@dataclass(frozen=True)
class NoteView:
    """A note as ranking sees it (tags as stored, read count before this read)."""

    id: str
    tags: tuple[str, ...]
    body: str
    read_count: int
    updated_at: datetime


@dataclass(frozen=True)
class Why:
    """Why a note was returned: the tier, what matched and the read count used."""

    tier: int  # 1 exact tag, 2 tag or body contains
    words: tuple[str, ...]  # query words that matched under the tier's rule
    tags: tuple[str, ...]  # note tags that matched (equal to, or containing, a word)
    in_body: bool  # the body contains a matched word
    read_count: int


@dataclass(frozen=True)
class RankedNote:
    """A returned note and why it ranked where it did."""

    note: NoteView
    why: Why


def explain(query: Sequence[str], note: NoteView) -> Why | None:
    """Match one note against normalised query words; None when nothing matches."""
    tags, body = tuple(normalise(t) for t in note.tags), normalise(note.body)
    exact = tuple(w for w in query if w in tags)
    if exact:
        return Why(1, exact, exact, any(w in body for w in exact), note.read_count)
    words = tuple(w for w in query if w in body or any(w in t for t in tags))
    hits = tuple(t for t in tags if any(w in t for w in words))
    return Why(2, words, hits, any(w in body for w in words), note.read_count) if words else None


def rank_notes(query: Sequence[str], notes: Sequence[NoteView], limit: int) -> list[RankedNote]:
    """Best ``limit`` notes: tier, then words matched, reads, newest, id (deterministic)."""
    ranked = [RankedNote(n, why) for n in notes if (why := explain(query, n)) is not None]
    ranked.sort(key=_rank_key)
    return ranked[:limit]


def _rank_key(r: RankedNote) -> tuple[int, int, int, float, str]:
    n = r.note
    return (r.why.tier, -len(r.why.words), -n.read_count, -n.updated_at.timestamp(), n.id)


@dataclass(frozen=True)
class SaveResult:
    """The outcome of a PUT; ``notes_used`` counts the agent's notes afterwards."""

    id: str
    agent: str
    tags: tuple[str, ...]
    status: SaveStatus
    version: int | None
    position: int
    notes_used: int
    redacted: tuple[str, ...] = ()  # "note" / "topic" when credentials were redacted


@dataclass(frozen=True)
class NotesPage:
    """The outcome of a GET: ranked topic notes and every topic of the agent."""

    agent: str
    query: tuple[str, ...]
    topic_notes: list[RankedNote]
    your_topics: list[NoteView]  # most read first
    recall_position: int | None  # the MemoriesRecalled event of this read, if any


class NotesService:
    """Save / replace / turn off / recall an agent's notes (memories in ``agent:<agent>``).

    Note saves are serialised per process (``_lock``) and wait for the projections, so the
    quota check sees every earlier save of this process; each save decides its slot and
    writes in one unit of work. Two server processes saving
    new topics for the same agent at the same instant may both pass the quota check.
    """

    def __init__(
        self, deps: Writing, rules: NoteRules | None = None, *, id_key: bytes | None = None
    ) -> None:
        """``id_key`` (encryption on): notes get keyed ids (``note_id``)."""
        self.deps = deps
        self._id_key = id_key
        self.units, self.store, self.secrets = deps.units, deps.store, deps.secrets
        self.limits, self.clock = deps.limits, deps.clock
        self.rules = rules or NoteRules()
        self._lock = threading.Lock()

    def with_rules(self, rules: NoteRules) -> NotesService:
        """The same notebook under other rules (an entry point's own quota or ranking)."""
        return NotesService(self.deps, rules, id_key=self._id_key)

    def save(
        self, who: Who, agent: str, topic: object, note: str, type_: MemoryType | None = None
    ) -> SaveResult:
        """Create, replace (same tag set) or, with ``note: "off"``, forget a note: ``who``
        must be allowed to write in ``agent:<agent>``, where an agent's notes live."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        agent = validate_agent(agent, self.limits)
        access.require(caller, "write", f"agent:{agent}")
        tags = parse_topic(topic, self.rules, self.limits)
        off = isinstance(note, str) and note.strip().casefold() == OFF
        body = None if off else validate_note(note, self.rules)
        tags, body, redacted = self._screen(tenant, agent, tags, body)
        with self._lock:
            uow = self.units.begin(tenant, agent)
            with uow:
                result = self._save_in(uow, agent, tags, body, type_)
            # Waited for after the write lock, inside the notes lock: the next save's quota
            # check reads the projections, which must include this one.
            uow.wait()
        return replace(result, redacted=redacted) if redacted else result

    def _screen(
        self, tenant: str, agent: str, tags: tuple[str, ...], body: str | None
    ) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
        """The tenant's secret policy on the note, named as the caller sent it (``note``,
        ``topic``, ``agent``); the record built from it passes ``admit`` unchanged."""
        guard = self.secrets
        guard.identifier(tenant, "agent", agent)
        redacted: list[str] = []
        clean_tags: dict[str, None] = {}
        for tag in tags:
            clean, was = guard.text(tenant, "topic", tag)
            clean_tags[clean] = None
            if was:
                redacted.append("topic")
        if body is not None:
            body, was = guard.text(tenant, "note", body)
            if was:
                redacted.append("note")
        return tuple(clean_tags), body, tuple(dict.fromkeys(redacted))

    def _save_in(
        self,
        uow: UnitOfWork,
        agent: str,
        tags: tuple[str, ...],
        body: str | None,
        type_: MemoryType | None,
    ) -> SaveResult:
        """Decide the topic's slot and save (``body`` None: turn it off) inside ``uow``."""
        memory_id, live, forgotten = self._slot(uow, agent, tags)
        notes = self.notes_of(uow.tenant, agent)
        # A replacement keeps the stored tag order: "jobs neo" is the same topic.
        tags = next((n.tags for n in notes if n.id == memory_id and set(n.tags) == set(tags)), tags)
        used = len(notes)
        if body is None:
            if not live:
                if forgotten is None:
                    raise NotFound(
                        f"agent {agent!r} has no note on topic {', '.join(tags)!r}",
                        code="note_not_found",
                    )
                return SaveResult(forgotten, agent, tags, "already_off", None, 0, used)
            deleted = delete_in(uow, memory_id, reason="note_off")
            return SaveResult(memory_id, agent, tags, "deleted", None, deleted.position, used - 1)
        if not live and used >= self.rules.quota:
            raise Conflict(
                f"agent {agent!r} already has {used} notes, the limit is {self.rules.quota}; "
                "replace an existing topic or turn one off (note: 'off') first",
                code="note_quota_exceeded",
            )
        kind = (type_ or self.rules.default_type).value
        fields: dict[str, object] = {"type": kind, "content": body, "tags": list(tags)}
        fields |= {"scope": f"agent:{agent}", "source_agent": agent, "meta": {"kind": NOTE_KIND}}
        limits, now = self.limits, self.clock.now()
        record = parse_record(fields, now=now, limits=limits, memory_id=memory_id)
        record = self.secrets.screen(uow.tenant, record, limits).record  # screened: a no-op
        written = write_in(uow, record, explicit_created=False)
        status: SaveStatus = (
            "created" if written.created else "replaced" if written.changed else "unchanged"
        )
        count = used + 1 if written.created else used
        return SaveResult(memory_id, agent, tags, status, written.version, written.position, count)

    def recall(
        self, who: Who, agent: str, topic: str | None, *, min_position: int = 0
    ) -> NotesPage:
        """Rank the agent's notes for ``topic``, record the returned ones as read (``who``
        must be allowed to read ``agent:<agent>``)."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        limits = self.limits
        agent = validate_agent(agent, limits)
        access.require(caller, "read", f"agent:{agent}")
        query = parse_topic(topic, self.rules, limits) if topic and topic.strip() else ()
        if min_position:
            self.units.wait_for(min_position)
        notes = self.notes_of(tenant, agent)
        ranked = rank_notes(query, notes, self.rules.top_n) if query else []
        position = self._record_reads(tenant, agent, [r.note.id for r in ranked])
        topics = sorted(notes, key=lambda n: (-n.read_count, n.tags))
        return NotesPage(agent, query, ranked, topics, position)

    def notes_of(self, tenant: str, agent: str) -> list[NoteView]:
        """The agent's live notes as the records projection holds them."""
        now = self.clock.now()
        scan = self.store.scan_records(tenant, scopes=[f"agent:{agent}"])
        live = (s for s in scan if s.state == MemoryState.ACTIVE and not s.record.is_expired(now))
        return [_view(s) for s in live if s.record.meta.get("kind") == NOTE_KIND]

    def _slot(
        self, uow: UnitOfWork, agent: str, tags: Sequence[str]
    ) -> tuple[str, bool, str | None]:
        """(id, live, last forgotten id): this topic's live id, or the next free one. A
        note saved before ids were keyed keeps its plain id while it lives (replaced or
        turned off in place, never duplicated); a new one, or one saved after that note
        was turned off, takes a keyed id."""
        plain = self._chain(uow, lambda g: note_id(agent, tags, g))
        if self._id_key is None or plain[1]:
            return plain
        key, tenant = self._id_key, uow.tenant
        keyed = self._chain(uow, lambda g: note_id(agent, tags, g, key=key, tenant=tenant))
        memory_id, live, forgotten = keyed
        return memory_id, live, plain[2] if forgotten is None else forgotten

    @staticmethod
    def _chain(uow: UnitOfWork, id_of: Callable[[int], str]) -> tuple[str, bool, str | None]:
        """The first generation of ``id_of`` that is live or unused, and the one before."""
        generation, forgotten = 1, None
        while True:
            memory_id = id_of(generation)
            head = uow.heads([memory_id]).get(memory_id)
            if head is None or not head.deleted:
                return memory_id, head is not None, forgotten
            generation, forgotten = generation + 1, memory_id

    def _record_reads(self, tenant: str, agent: str, ids: list[str]) -> int | None:
        """Append one recall event; wait (bounded) so the next GET shows the new counts."""
        if not ids:
            return None
        with self.units.begin(tenant, agent) as uow:
            (position,) = uow.append([MemoriesRecalled(uow.header(), f"agent:{agent}", tuple(ids))])
        # On timeout the read is still on the log; its count shows once projections catch up.
        with contextlib.suppress(Timeout):
            uow.wait()
        return position


def _view(stored: StoredRecord) -> NoteView:
    r = stored.record
    return NoteView(r.id, r.tags, r.content, stored.read_count, stored.updated_at)


# --- on the wire (HTTP, MCP, A2A and the in-process client answer alike) ---------------
def why_json(why: Why) -> dict[str, Any]:
    """``why`` on the wire, with a one-line summary an agent can read."""
    words = ", ".join(repr(w) for w in why.words)
    if why.tier == 1:
        what = f"exact tag match on {words}"
    else:
        where = [x for x, hit in (("a tag", bool(why.tags)), ("the text", why.in_body)) if hit]
        what = f"{' and '.join(where)} contains {words}"
    return {
        "tier": why.tier,
        "match": "exact_tag" if why.tier == 1 else "contains",
        "words": list(why.words),
        "tags": list(why.tags),
        "in_body": why.in_body,
        "read_count": why.read_count,
        "summary": f"tier {why.tier}: {what}; read {why.read_count} time(s) before",
    }


def page_json(page: NotesPage, quota: int) -> dict[str, Any]:
    """The GET body (``NotesOut``)."""

    def note(r: RankedNote) -> dict[str, Any]:
        n = r.note
        return {
            "id": n.id,
            "topic": list(n.tags),
            "note": n.body,
            "read_count": n.read_count,
            "updated_at": format_timestamp(n.updated_at),
            "why": why_json(r.why),
        }

    def topic(n: NoteView) -> dict[str, Any]:
        return {"id": n.id, "topic": list(n.tags), "read_count": n.read_count}

    return {
        "agent": page.agent,
        "topic": list(page.query),
        "topic_notes": [note(r) for r in page.topic_notes],
        "your_topics": [topic(n) for n in page.your_topics],
        "notes_used": len(page.your_topics),
        "quota": quota,
        "recall_position": page.recall_position,
    }
