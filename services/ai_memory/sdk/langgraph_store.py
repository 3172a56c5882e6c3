"""``AiMemoryStore``: a LangGraph ``BaseStore`` whose items are ai-memory records.

**Namespaces ↔ scopes** (reversible; ``prefix`` is ``default_scope_prefix``, ``"lg"``):

* ``(kind, name, *rest)`` with ``kind`` a valid scope kind (``[a-z][a-z0-9_-]{0,31}``)
  other than ``prefix`` → ``kind:name/rest…`` — ``("user", "alice")`` is ``user:alice``,
  the same scope every other agent and ``wake_up`` use;
* any other namespace (one label, a capitalised first label, or one starting with
  ``prefix``) → ``prefix:label/label…`` — ``("memories",)`` is ``lg:memories``.

Inside a scope name, ``%``, ``/``, ``:``, ``~``, whitespace and control characters of a
label are percent-encoded, so ``scope_to_namespace`` inverts ``namespace_to_scope``.

**Items ↔ records.** The id is ``<scope with % and / encoded>~<encoded key>`` (a
SHA-256 when that exceeds 200 characters). The value dict is kept verbatim in
``meta["langgraph"]`` with the namespace and key, and ``content`` holds a readable text
rendering (``field: value`` lines) that search embeds. Every item is tagged
``langgraph`` and with one tag per namespace prefix, which is how prefix search is
filtered on the server. A forgotten id is never reused by ai-memory, so a key that is
put again after a delete lives on as ``<id>~g2``, ``~g3``, …

**Operations.** Writes and deletes wait for the projections (read-your-writes). A search
with a ``query`` is a hybrid search over the prefix's tag, the value ``filter`` applied
to the hits (``offset + limit`` ≤ 100, else ``ValueError``); a search without one pages
through the memories carrying the prefix's tag (``GET /v1/memories?tag=``, filtered on
the server) and ``list_namespaces`` through every item of the store — they cost
O(items under the prefix), not O(records of the tenant). ``abatch``
runs ``batch`` in a worker thread. TTLs are not supported (``supports_ttl = False``):
ai-memory's ``ttl`` counts from creation and is not refreshed by reads as LangGraph's is.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import unquote

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

from ai_memory.core.record import MemoryType

from .client import MemoryClient
from .errors import GoneError, NotFoundError
from .models import MemoryIn, MemoryOut

__all__ = ["AiMemoryStore", "namespace_to_scope", "scope_to_namespace"]

_KIND = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
_META = "langgraph"
_TAG = "langgraph"
_MAX_ID = 200
_MAX_TOP_K = 100
_PAGE = 500  # memories per listing request


def _pct(text: str, unsafe: str) -> str:
    out = []
    for c in text:
        if c in unsafe or c.isspace() or not c.isprintable():
            out.append("".join(f"%{b:02X}" for b in c.encode("utf-8")))
        else:
            out.append(c)
    return "".join(out)


def namespace_to_scope(namespace: tuple[str, ...], prefix: str = "lg") -> str:
    """The ai-memory scope of a LangGraph namespace (see the module docstring)."""
    if not namespace:
        raise ValueError("a namespace has at least one label")
    labels = [_pct(label, "%/:~") for label in namespace]
    if len(namespace) >= 2 and _KIND.match(namespace[0]) and namespace[0] != prefix:
        return f"{namespace[0]}:{'/'.join(labels[1:])}"
    return f"{prefix}:{'/'.join(labels)}"


def scope_to_namespace(scope: str, prefix: str = "lg") -> tuple[str, ...]:
    """The namespace of a scope made by ``namespace_to_scope`` (its inverse)."""
    kind, colon, name = scope.partition(":")
    if not colon or not name:
        raise ValueError(f"{scope!r} is not a '<kind>:<name>' scope")
    labels = tuple(unquote(part) for part in name.split("/"))
    return labels if kind == prefix else (kind, *labels)


def _prefix_tag(prefix: tuple[str, ...]) -> str:
    if not prefix:
        return _TAG
    digest = hashlib.sha256("\x1f".join(prefix).encode("utf-8")).hexdigest()
    return f"lgns:{digest[:32]}"


def render(value: Mapping[str, Any]) -> str:
    """A readable text rendering of a value: one ``field: value`` line per key."""
    lines = []
    for k, v in value.items():
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)
        lines.append(f"{k}: {text}")
    rendered = "\n".join(lines).strip()
    rendered = "".join(c if c.isprintable() or c in "\n\t" else " " for c in rendered)
    return rendered or json.dumps(dict(value), ensure_ascii=False) or "{}"


def _matches(value: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: nested equality and ``$eq/$ne/$gt/$gte/$lt/$lte``."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(value, op, arg) for op, arg in wanted.items())
        return isinstance(value, dict) and all(_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(_matches(a, b) for a, b in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def _operator(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(value == arg)
    if op == "$ne":
        return bool(value != arg)
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"unsupported filter operator {op!r}")
    try:
        a, b = float(value), float(arg)
    except (TypeError, ValueError):
        return False
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _path_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    pairs = (
        zip(namespace, path, strict=False)
        if condition.match_type == "prefix"
        else zip(reversed(namespace), reversed(path), strict=False)
    )
    return all(p == "*" or n == p for n, p in pairs)


def _time(text: str | None, fallback: str) -> datetime:
    return datetime.fromisoformat(text or fallback)


class AiMemoryStore(BaseStore):
    """LangGraph long-term memory kept in ai-memory (see the module docstring).

    ``source_agent`` is recorded on every write and ``memory_type`` is the type of the
    records written (``fact`` by default).
    """

    supports_ttl = False

    def __init__(
        self,
        client: MemoryClient,
        *,
        default_scope_prefix: str = "lg",
        source_agent: str = "langgraph",
        memory_type: MemoryType | str = MemoryType.FACT,
    ) -> None:
        if not _KIND.match(default_scope_prefix):
            raise ValueError("default_scope_prefix must match [a-z][a-z0-9_-]{0,31}")
        self.client = client
        self.prefix = default_scope_prefix
        self.source_agent = source_agent
        self.memory_type = MemoryType(memory_type)
        self._generation: dict[tuple[tuple[str, ...], str], int] = {}

    # --- ids ----------------------------------------------------------------------------
    def item_id(self, namespace: tuple[str, ...], key: str, generation: int = 1) -> str:
        """The record id of ``key`` in ``namespace`` (``generation`` > 1 after deletes)."""
        scope = namespace_to_scope(namespace, self.prefix)
        base = f"{scope.replace('%', '%25').replace('/', '%2F')}~{_pct(key, '%/~')}"
        if len(base) > _MAX_ID - 12:
            base = f"{self.prefix}~{hashlib.sha256(base.encode('utf-8')).hexdigest()}"
        return base if generation == 1 else f"{base}~g{generation}"

    def _ids(self, namespace: tuple[str, ...], key: str) -> Iterator[tuple[int, str]]:
        generation = self._generation.get((namespace, key), 1)
        while True:
            yield generation, self.item_id(namespace, key, generation)
            generation += 1

    def _remember(self, namespace: tuple[str, ...], key: str, generation: int) -> None:
        self._generation[(namespace, key)] = generation

    # --- records ↔ items ----------------------------------------------------------------
    def _record(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> MemoryIn:
        if len(namespace) > 31:
            raise ValueError("namespaces deeper than 31 labels are not supported")
        tags = [_TAG, *(_prefix_tag(namespace[: i + 1]) for i in range(len(namespace)))]
        meta = {_META: {"namespace": list(namespace), "key": key, "value": dict(value)}}
        return MemoryIn.model_validate(
            {
                "type": self.memory_type,
                "content": render(value),
                "scope": namespace_to_scope(namespace, self.prefix),
                "source_agent": self.source_agent,
                "tags": tags,
                "meta": meta,
            }
        )

    @staticmethod
    def _own(record: MemoryOut) -> tuple[tuple[str, ...], str, dict[str, Any]] | None:
        data = record.meta.get(_META)
        if not isinstance(data, dict) or not isinstance(data.get("value"), dict):
            return None
        return tuple(data["namespace"]), str(data["key"]), data["value"]

    def _item(self, record: MemoryOut, score: float | None = None) -> SearchItem | None:
        own = self._own(record)
        if own is None:
            return None
        namespace, key, value = own
        created = _time(record.created_at, record.created_at)
        updated = _time(record.updated_at, record.created_at)
        return SearchItem(namespace, key, value, created, updated, score)

    # --- operations ---------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph operations in order; puts and deletes are read-your-writes."""
        results: list[Result] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                if op.value is None:
                    self._delete(op.namespace, op.key)
                else:
                    self._put(op.namespace, op.key, op.value)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise TypeError(f"unknown operation {op!r}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` in a worker thread (the sync client is thread-safe)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        for generation, memory_id in self._ids(namespace, key):
            try:
                record = self.client.get(memory_id)
            except NotFoundError:
                return None
            except GoneError:
                continue
            self._remember(namespace, key, generation)
            item = self._item(record)
            if item is None or item.namespace != namespace or item.key != key:
                return None
            return Item(
                value=item.value,
                key=key,
                namespace=namespace,
                created_at=item.created_at,
                updated_at=item.updated_at,
            )
        return None  # pragma: no cover — the generator never ends

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> None:
        record = self._record(namespace, key, value)
        for generation, memory_id in self._ids(namespace, key):
            try:
                self.client.upsert(memory_id, record, wait=True)
            except GoneError:
                continue
            self._remember(namespace, key, generation)
            return

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        for generation, memory_id in self._ids(namespace, key):
            try:
                out = self.client.delete(memory_id, reason="langgraph_delete", wait=True)
            except NotFoundError:
                return
            if not out.already_forgotten:
                self._remember(namespace, key, generation + 1)
                return

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        wanted = op.filter or {}
        if op.query:
            if op.offset + op.limit > _MAX_TOP_K:
                raise ValueError(
                    f"a query search returns at most {_MAX_TOP_K} items (offset + limit)"
                )
            top_k = min(_MAX_TOP_K, (op.offset + op.limit) * (3 if wanted else 1))
            hits = self.client.search(op.query, tags=[_prefix_tag(prefix)], top_k=top_k)
            items = [self._item(h.record, h.score) for h in hits.results]
        else:
            items = [self._item(r) for r in self._listed(_prefix_tag(prefix))]
        found = [
            item
            for item in items
            if item is not None
            and item.namespace[: len(prefix)] == prefix
            and all(_matches(item.value.get(k), v) for k, v in wanted.items())
        ]
        if not op.query:  # a listing: most recently updated first
            found.sort(key=lambda i: (i.updated_at, i.key), reverse=True)
        return found[op.offset : op.offset + op.limit]

    def _listed(self, tag: str) -> Iterator[MemoryOut]:
        """Every active record this store wrote with ``tag`` (a namespace prefix's tag, or
        ``langgraph`` for all), paged from the server in id order."""
        for record in self.client.iter_memories(tag=tag, page_size=_PAGE):
            if _META in record.meta:
                yield record

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        seen: set[tuple[str, ...]] = set()
        for record in self._listed(_TAG):
            own = self._own(record)
            if own is None:
                continue
            namespace = own[0]
            if all(_path_matches(c, namespace) for c in op.match_conditions or ()):
                seen.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(seen)[op.offset : op.offset + op.limit]
