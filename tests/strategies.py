"""Hypothesis strategies for the domain model: records, events and their building blocks.

One module for every property-based test; extend it rather than defining strategies inline.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Literal

from hypothesis import assume
from hypothesis import strategies as st

from ai_memory.core.events import (
    DomainEvent,
    EncryptionEnvelope,
    EventHeader,
    InteractionRecorded,
    MemoriesImported,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
    SubjectErased,
)
from ai_memory.core.record import Limits, MemoryRecord, MemoryState, MemoryType
from ai_memory.core.secrets import find_secrets
from ai_memory.core.timeparse import MAX_TIMESTAMP, MIN_TIMESTAMP

# --- building blocks --------------------------------------------------------------------

#: CJK Unified Ideographs plus the CJK punctuation block.
chinese_text = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
        st.characters(min_codepoint=0x3000, max_codepoint=0x303F),
    ),
    min_size=1,
    max_size=50,
)
texts = st.one_of(st.text(max_size=80), chinese_text)
non_empty_texts = st.one_of(st.text(min_size=1, max_size=40), chinese_text)

#: Aware UTC datetimes with microseconds, within the range ``timeparse`` accepts.
utc_datetimes = st.datetimes(
    min_value=MIN_TIMESTAMP.replace(tzinfo=None),
    max_value=MAX_TIMESTAMP.replace(tzinfo=None),
    timezones=st.just(UTC),
)

avro_longs = st.integers(min_value=-(2**63), max_value=2**63 - 1)
counts = st.integers(min_value=0, max_value=2**63 - 1)

#: Any JSON value, nested.
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)
#: A ``meta`` object: a JSON object whose values may nest.
metas = st.dictionaries(texts, json_values, max_size=5)

tags = st.lists(non_empty_texts, max_size=6, unique=True).map(tuple)
ttls = st.none() | st.integers(min_value=1, max_value=2**63 - 1)
memory_types = st.sampled_from(MemoryType)
memory_states = st.sampled_from(MemoryState)

# --- records and events -----------------------------------------------------------------

memory_records = st.builds(
    MemoryRecord,
    id=non_empty_texts,
    type=memory_types,
    content=texts,
    scope=non_empty_texts,
    source_agent=non_empty_texts,
    created_at=utc_datetimes,
    ttl=ttls,
    tags=tags,
    meta=metas,
    schema_version=st.integers(min_value=1, max_value=2**31 - 1),
)

event_headers = st.builds(
    EventHeader,
    event_id=non_empty_texts,
    tenant=non_empty_texts,
    occurred_at=utc_datetimes,
    actor=texts,
)

encryption_envelopes = st.builds(
    EncryptionEnvelope,
    key_id=non_empty_texts,
    algorithm=st.sampled_from(["AES-256-GCM", "XChaCha20-Poly1305"]),
    nonce=st.binary(max_size=24),
    ciphertext=st.binary(max_size=300),
)

memory_written = st.builds(
    MemoryWritten,
    header=event_headers,
    record=memory_records,
    version=counts,
    content_sha256=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
    state=memory_states,
    cause=texts,
    import_batch_id=st.none() | non_empty_texts,
    encryption=st.none() | encryption_envelopes,
)

memory_deleted = st.builds(
    MemoryDeleted,
    header=event_headers,
    memory_id=non_empty_texts,
    scope=non_empty_texts,
    reason=texts,
    version=counts,
)

memory_state_changed = st.builds(
    MemoryStateChanged,
    header=event_headers,
    memory_id=non_empty_texts,
    scope=non_empty_texts,
    from_state=memory_states,
    to_state=memory_states,
    cause=texts,
    decision_json=st.none() | texts,
)

memories_recalled = st.builds(
    MemoriesRecalled,
    header=event_headers,
    scope=non_empty_texts,
    memory_ids=st.lists(non_empty_texts, max_size=10).map(tuple),
)

memories_imported = st.builds(
    MemoriesImported,
    header=event_headers,
    batch_id=non_empty_texts,
    source=texts,
    received=counts,
    written=counts,
    unchanged=counts,
    skipped_tombstoned=counts,
    rejected=counts,
)

#: One strategy per event type, by type name.
interactions_recorded = st.builds(
    InteractionRecorded,
    header=event_headers,
    interaction_id=non_empty_texts,
    scope=non_empty_texts,
    source_agent=non_empty_texts,
    session_id=st.none() | non_empty_texts,
    text=texts,
    at=utc_datetimes,
    extraction_json=st.none() | st.dictionaries(texts, json_values, max_size=3).map(json.dumps),
)

subjects_erased = st.builds(
    SubjectErased,
    header=event_headers,
    erasure_id=non_empty_texts,
    criteria_json=st.dictionaries(texts, json_values, max_size=3).map(json.dumps),
    reason=texts,
    memory_ids=st.lists(non_empty_texts, max_size=10).map(tuple),
    interaction_ids=st.lists(non_empty_texts, max_size=10).map(tuple),
    key_ids=st.lists(non_empty_texts, max_size=10).map(tuple),
    keys_destroyed_at=st.none() | utc_datetimes,
)

events_by_type: dict[str, st.SearchStrategy[DomainEvent]] = {
    "InteractionRecorded": interactions_recorded,
    "MemoryWritten": memory_written,
    "MemoryDeleted": memory_deleted,
    "MemoryStateChanged": memory_state_changed,
    "MemoriesRecalled": memories_recalled,
    "MemoriesImported": memories_imported,
    "SubjectErased": subjects_erased,
}
domain_events: st.SearchStrategy[DomainEvent] = st.one_of(*events_by_type.values())


# --- API input: record bodies the service must accept, and hostile ones ------------------
#
# ``record_bodies`` draws bodies that validation must accept, reaching for the extremes
# of every limit: sizes at the maximum, the first and the last representable instant
# written with UTC offsets, the longest ttl that still expires before year 10000, meta at
# the maximum depth, the maximum tag count with duplicates, text from every Unicode
# plane and whitespace at the edges. ``hostile_bodies`` mutates such a body with values
# an attacker would try; the service may accept or refuse them, never crash.

LIMITS = Limits()
_NO_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
_PRINTABLE: tuple[Literal["Cs"], Literal["Cc"]] = ("Cs", "Cc")

#: Text of every plane that validation accepts in content: no surrogates, no control
#: characters but tab/LF/CR, no U+FFFD.
content_chars = st.one_of(
    st.characters(exclude_categories=_PRINTABLE, exclude_characters="\ufffd"),
    st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF, exclude_categories=_PRINTABLE),
    st.sampled_from("\t\n\r "),
)
#: Characters of identifiers: printable, encodable, no control characters (C0/DEL/C1).
ident_chars = st.characters(exclude_categories=_PRINTABLE)


def _fits(text: str, max_bytes: int) -> bool:
    return bool(text.strip()) and len(text.encode("utf-8")) <= max_bytes


_MAX_CONTENT = LIMITS.max_content_bytes
contents = st.one_of(
    st.text(content_chars, min_size=1, max_size=200),
    st.tuples(st.sampled_from([" ", "\n", "\t", ""]), st.text(content_chars, min_size=1))
    .map(lambda p: f"{p[0]}{p[1]}{p[0]}")
    .filter(lambda t: bool(t.strip())),
    st.sampled_from(["x", "🦀", "汉", "é", "\U0010fffd"]).map(
        lambda c: c * (_MAX_CONTENT // len(c.encode("utf-8")))
    ),
    st.just("word " * (_MAX_CONTENT // 5)),
).filter(lambda t: _fits(t, _MAX_CONTENT) and "\ufffd" not in t)

_KINDS = st.sampled_from(["user", "agent", "team", "session", "project", "x", "k_1-z"])
_scope_names = st.text(ident_chars, min_size=1, max_size=40).filter(
    lambda n: not n.startswith(":") and not any(c.isspace() for c in n)
)


@st.composite
def unique_scopes(draw: st.DrawFn) -> str:
    """A valid ``kind:name`` scope no other example uses (searches are scoped to it)."""
    name = draw(_scope_names)
    return f"{draw(_KINDS)}:{name}-{uuid.uuid4().hex[:12]}"


source_agents = (
    st.tuples(
        st.sampled_from(["", " ", "  "]),
        st.text(ident_chars, min_size=1, max_size=LIMITS.max_agent_chars - 4),
    )
    .map(lambda p: f"{p[0]}{p[1]}{p[0]}")
    .filter(lambda a: bool(a.strip()))
)

tag_texts = (
    st.text(ident_chars, min_size=1, max_size=LIMITS.max_tag_chars)
    .filter(lambda t: bool(t.strip()))
    .map(lambda t: t.strip())
)
api_tags = st.one_of(
    st.none(),
    st.lists(tag_texts, max_size=LIMITS.max_tags),
    # the maximum count, with duplicates and edge whitespace
    st.lists(st.sampled_from(["a", " a ", "b", "标签", "🦀"]), min_size=32, max_size=32),
)

_meta_keys = st.one_of(
    st.text(ident_chars, max_size=12),
    st.just("k" * LIMITS.max_meta_key_chars),
)
_meta_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=_NO_SURROGATES), max_size=30)
)
_meta_values: st.SearchStrategy[Any] = st.recursive(
    _meta_leaves,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(_meta_keys, children, max_size=3)
    ),
    max_leaves=10,
)


def _deep(levels: int, leaf: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"leaf": leaf}
    for _ in range(levels - 1):
        node = {"d": node}
    return node


api_metas = st.one_of(
    st.none(),
    st.dictionaries(_meta_keys, _meta_values, max_size=5),
    _meta_leaves.map(lambda leaf: _deep(LIMITS.max_meta_depth, leaf)),
)

_offsets = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
_EDGE_INSTANTS = [MIN_TIMESTAMP, MAX_TIMESTAMP, MAX_TIMESTAMP.replace(microsecond=0)]


def _local(utc: datetime, tz: timezone) -> datetime | None:
    try:
        return utc.astimezone(tz)
    except OverflowError:  # the instant has no local time in that zone within years 1–9999
        return None


@st.composite
def created_ats(draw: st.DrawFn) -> tuple[object, datetime]:
    """(how a body spells the time, the UTC instant it means)."""
    instant = draw(st.one_of(utc_datetimes, st.sampled_from(_EDGE_INSTANTS)))
    form = draw(st.sampled_from(["z", "offset", "naive", "space", "epoch_s", "epoch_ms"]))
    if form == "offset":
        local = _local(instant, draw(_offsets))
        if local is not None:
            return local.isoformat(), instant
    if form == "naive":
        return instant.replace(tzinfo=None).isoformat(), instant
    if form == "space":
        whole = instant.replace(microsecond=0)
        return whole.replace(tzinfo=None).isoformat(sep=" "), whole
    micros = (instant - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    if form == "epoch_s" and abs(micros // 1_000_000) < 10**11:
        return micros // 1_000_000, instant.replace(microsecond=0)
    if form == "epoch_ms" and abs(micros // 1000) >= 10**11:
        whole = instant.replace(microsecond=instant.microsecond // 1000 * 1000)
        return micros // 1000, whole
    return instant.isoformat().replace("+00:00", "Z"), instant


@st.composite
def record_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A body the service must accept, with extremes of every limit."""
    body: dict[str, Any] = {
        "id": f"m-{uuid.uuid4().hex}{draw(st.text(ident_chars, max_size=20))}".replace(
            "/", ""
        ).rstrip(),
        "type": draw(memory_types).value,
        "content": draw(contents),
        "scope": draw(unique_scopes()),
        "source_agent": draw(source_agents),
    }
    created = None
    if draw(st.booleans()):
        body["created_at"], created = draw(created_ats())
    latest = MAX_TIMESTAMP - (created or datetime(2100, 1, 1, tzinfo=UTC))
    room = min(LIMITS.max_ttl_seconds, int(latest.total_seconds()))
    if room >= 1 and draw(st.booleans()):
        body["ttl"] = draw(st.one_of(st.integers(1, room), st.just(room)))
    tags = draw(api_tags)
    if tags is not None:
        body["tags"] = tags
    meta = draw(api_metas)
    if meta is not None:
        body["meta"] = meta
    # Drawn text next to the unique suffixes can look like a credential to the secret
    # screening ("TOKEN^00-" before twelve hex digits): refused by design, not accepted.
    assume(not any(find_secrets(text) for text in _texts_of(body)))
    return body


def _texts_of(value: Any) -> list[str]:
    """Every string in a body, as the secret screening reads them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_texts_of(k), *_texts_of(v))]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _texts_of(v)]
    return []


def _surrogate() -> st.SearchStrategy[str]:
    return st.integers(min_value=0xD800, max_value=0xDFFF).map(chr)


def _with_bad_char(bad: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.text(max_size=5), bad, st.text(max_size=5)).map("".join)


#: Values an attacker would try, per field.
_HOSTILE: dict[str, st.SearchStrategy[Any]] = {
    "ttl": st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),
        st.just(LIMITS.max_ttl_seconds + 1),
        st.text(max_size=5),
    ),
    "created_at": st.one_of(
        st.sampled_from(
            [
                "9999-12-31T23:00:00-05:00",
                "0001-01-01T00:00:00+05:00",
                "9999-12-31T23:59:59.9999999Z",
                "0000-01-01",
                "1e400",
                "-62135596801",
            ]
        ),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),
        st.text(max_size=30),
    ),
    "content": st.one_of(
        _with_bad_char(_surrogate()),
        _with_bad_char(st.sampled_from(["\x00", "\x07", "\ufffd", "\x7f"])),
        st.just("x" * (_MAX_CONTENT + 1)),
        st.just(" \n\t "),
        st.integers(),
    ),
    "tags": st.one_of(
        st.lists(st.just("dup"), min_size=33, max_size=200),
        st.lists(_with_bad_char(_surrogate() | st.sampled_from(["\x00", "\n", "\x85"]))),
        st.lists(st.integers() | st.none(), min_size=1, max_size=3),
        st.just(["t" * (LIMITS.max_tag_chars + 1)]),
        st.text(max_size=5),
    ),
    "meta": st.one_of(
        st.integers(min_value=33, max_value=2000).map(lambda n: _deep(n, 1)),
        st.dictionaries(_with_bad_char(_surrogate()), st.integers(), min_size=1, max_size=2),
        st.dictionaries(st.just("k"), _with_bad_char(_surrogate()), min_size=1),
        st.just({"k" * (LIMITS.max_meta_key_chars + 1): 1}),
        st.just({"nan": float("nan")}),
        st.just({"big": "x" * (LIMITS.max_meta_bytes + 1)}),
        st.lists(st.integers(), max_size=3),
    ),
    "id": st.one_of(
        _with_bad_char(_surrogate() | st.sampled_from(["/", "\x00", "\x9f"])),
        st.just(" edge "),
        st.just("i" * (LIMITS.max_id_chars + 1)),
        st.integers(),
    ),
    "scope": st.one_of(
        _with_bad_char(_surrogate() | st.sampled_from(["\x00", " ", "\x85"])).map(
            lambda s: f"user:{s}"
        ),
        st.just("user:" + "s" * LIMITS.max_scope_chars),
        st.sampled_from(["", "User:x", "user:", ":x", "public"]),
    ),
    "source_agent": st.one_of(
        _with_bad_char(_surrogate() | st.sampled_from(["\x00", "\n"])),
        st.just("a" * (LIMITS.max_agent_chars + 1)),
        st.just("   "),
    ),
    "type": st.one_of(st.text(max_size=10), st.none(), st.lists(st.just("fact"))),
    "schema_version": st.one_of(st.integers(), st.just(10**4000)),
    "\ud800": st.just(1),  # an unknown field whose very name is unencodable
}


@st.composite
def hostile_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A valid body with one to three fields replaced by hostile values."""
    body = draw(record_bodies())
    for name in draw(st.lists(st.sampled_from(sorted(_HOSTILE)), min_size=1, max_size=3)):
        body[name] = draw(_HOSTILE[name])
    return body


#: Anything a caller might pass as a timestamp.
timestamp_inputs: st.SearchStrategy[object] = st.one_of(
    created_ats().map(lambda pair: pair[0]),
    _HOSTILE["created_at"],
    st.datetimes(timezones=st.none() | st.timezones() | _offsets),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.from_regex(
        r"\A[+-]?\d{1,6}-\d{1,2}-\d{1,2}([T ]\d{1,2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?"
        r"(Z|[+-]\d{2}:?\d{2}(:\d{2})?)?\Z"
    ),
)

#: JSON-like documents, including what JSON escapes can spell (lone surrogates) and
#: nesting deeper than any limit.
json_ish: st.SearchStrategy[Any] = st.one_of(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**70), max_value=2**70)
        | st.floats(allow_nan=False)
        | st.text(max_size=20)
        | _with_bad_char(_surrogate()),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(
                st.text(max_size=10) | _with_bad_char(_surrogate()), children, max_size=4
            )
        ),
        max_leaves=25,
    ),
    # deeper than any limit (meta: 32), yet shallow enough for Hypothesis to print a
    # failing example from deep inside a test (at 150 levels its printer overflowed the
    # stack and hid the failure behind a RecursionError)
    st.integers(min_value=1, max_value=80).map(lambda n: _deep(n, "leaf")),
)

#: JSON text nested far deeper than any parser's stack (as text: as objects it could not
#: even be printed).
deep_json_texts = st.tuples(
    st.integers(min_value=1, max_value=100_000), st.sampled_from(["object", "array"])
).map(lambda p: '{"a":' * p[0] + "1" + "}" * p[0] if p[1] == "object" else "[" * p[0] + "]" * p[0])

#: Short text as an attacker would send it: any code point, lone surrogates and control
#: characters included.
hostile_texts = st.one_of(
    st.text(max_size=30),
    _with_bad_char(_surrogate() | st.sampled_from(["\x00", "\n", "\x85", "\ufffd", "/", ":"])),
    st.sampled_from(["", " ", "off", "OFF", "neo, jobs", "a:b", "user:x"]),
)
