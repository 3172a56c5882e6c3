"""Zep / Graphiti graph dumps: episodes, entity nodes and entity edges.

Neither Zep nor Graphiti ships a file export; a dump is the JSON of their models
(``graphiti_core/nodes.py`` ``EpisodicNode`` / ``EntityNode``, ``graphiti_core/edges.py``
``EntityEdge``), as Zep's ``graph.episode`` / ``graph.node`` / ``graph.edge`` APIs return
them — see ``tests/fixtures/migration/zep/README.md``::

    {"episodes": [{"uuid", "name", "group_id", "source", "source_description",
                   "content", "created_at", "valid_at", "entity_edges"}],
     "nodes":    [{"uuid", "name", "group_id", "labels", "summary", "created_at",
                   "name_embedding", "attributes"}],
     "edges":    [{"uuid", "group_id", "source_node_uuid", "target_node_uuid", "name",
                   "fact", "fact_embedding", "episodes", "created_at", "expired_at",
                   "valid_at", "invalid_at", "attributes"}]}

(``entities``/``entity_nodes``, ``facts``/``entity_edges`` and ``episodic_nodes`` are
accepted as aliases.) Mapping: episodes → ``interaction`` records at the time the
episode happened (``valid_at``); edges → ``fact`` records whose validity window is kept
in ``meta`` — an edge with ``invalid_at`` or ``expired_at`` is imported in the
``historical`` state; entity nodes with a summary → ``fact``, without one → accounted
(their names live on in the facts). Scope: ``user_id`` → ``user:<id>``, else
``group_id`` → ``group:<id>`` (map it with ``--scope-map group:=user:``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ai_memory.migration import Converted, Unimported, record_line

from . import ImportOptions, RowError, guarded, iso, load_json, make_scope, safe_id, vectors_in

SOURCE = "graphiti"


def _first(data: Mapping[str, Any], *keys: str) -> list[Any]:
    for key in keys:
        value = data.get(key)
        if isinstance(value, list) and value:
            return value
    return []


def convert(path: Path, options: ImportOptions) -> Iterator[Converted]:
    """Convert one Zep/Graphiti JSON dump."""
    data = load_json(path)
    if not isinstance(data, Mapping):
        raise RowError(f"{path.name}: expected a JSON object with episodes / nodes / edges")
    nodes = _first(data, "nodes", "entities", "entity_nodes")
    names = {
        str(n.get("uuid")): str(n.get("name"))
        for n in nodes
        if isinstance(n, Mapping) and n.get("uuid") and n.get("name")
    }
    for i, episode in enumerate(_first(data, "episodes", "episodic_nodes")):
        ref = f"{path.name}:episodes[{i}]"
        yield from guarded(ref, _episode, episode, ref, options)
    for i, node in enumerate(nodes):
        ref = f"{path.name}:nodes[{i}]"
        yield from guarded(ref, _node, node, ref, options)
    for i, edge in enumerate(_first(data, "edges", "facts", "entity_edges")):
        ref = f"{path.name}:edges[{i}]"
        yield from guarded(ref, _edge, edge, ref, names, options)


def _scope(row: Mapping[str, Any], options: ImportOptions) -> str:
    if row.get("user_id"):
        return make_scope("user", row["user_id"], options)
    if row.get("group_id"):
        return make_scope("group", row["group_id"], options)
    return options.scope(options.default_scope)


def _object(row: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(row, Mapping):
        raise RowError(f"{what} must be a JSON object")
    if not row.get("uuid"):
        raise RowError(f"{what} without a uuid")
    return row


def _episode(row: Any, ref: str, options: ImportOptions) -> Iterator[Converted]:
    episode = _object(row, "an episode")
    content = episode.get("content") or episode.get("episode_body")
    if not isinstance(content, str) or not content.strip():
        raise RowError("episode without content")
    at = iso(episode.get("valid_at") or episode.get("created_at"))
    if at is None:
        raise RowError("episode without valid_at / created_at")
    meta: dict[str, Any] = {"source": SOURCE, "uuid": episode["uuid"], "valid_at": at}
    for key in ("name", "source", "source_description", "entity_edges", "group_id"):
        if episode.get(key):
            meta[key] = episode[key]
    recorded = iso(episode.get("created_at"))
    if recorded:
        meta["recorded_at"] = recorded
    yield record_line(
        {
            "id": safe_id(episode["uuid"]),
            "type": "interaction",
            "content": content.strip(),
            "scope": _scope(episode, options),
            "source_agent": options.source_agent
            or str(episode.get("source_description") or SOURCE),
            "created_at": at,
            "tags": ["graphiti", "episode"],
            "meta": meta,
        }
    )


def _node(row: Any, ref: str, options: ImportOptions) -> Iterator[Converted]:
    node = _object(row, "an entity node")
    name = node.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RowError("entity node without a name")
    yield from vectors_in(node, ref)
    summary = node.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        yield Unimported(
            ref, "system_log", f"entity {name!r} has no summary; its name is kept on the facts"
        )
        return
    labels = [str(x) for x in node.get("labels") or [] if x != "Entity"]
    yield record_line(
        {
            "id": safe_id(node["uuid"]),
            "type": "fact",
            "content": f"{name}: {summary.strip()}",
            "scope": _scope(node, options),
            "source_agent": options.source_agent or SOURCE,
            "created_at": iso(node.get("created_at")),
            "tags": ["graphiti", "entity", *labels],
            "meta": {"source": SOURCE, "uuid": node["uuid"], "entity": name, "labels": labels},
        }
    )


def _edge(
    row: Any, ref: str, names: Mapping[str, str], options: ImportOptions
) -> Iterator[Converted]:
    edge = _object(row, "an entity edge")
    fact = edge.get("fact")
    if not isinstance(fact, str) or not fact.strip():
        raise RowError("entity edge without fact text")
    invalid_at = iso(edge.get("invalid_at"), "invalid_at")
    expired_at = iso(edge.get("expired_at"), "expired_at")
    valid_at = iso(edge.get("valid_at"), "valid_at")
    source, target = (
        str(edge.get("source_node_uuid") or ""),
        str(edge.get("target_node_uuid") or ""),
    )
    meta: dict[str, Any] = {
        "source": SOURCE,
        "uuid": edge["uuid"],
        "relation": edge.get("name"),
        "valid_at": valid_at,
        "invalid_at": invalid_at,
        "expired_at": expired_at,
        "subject": names.get(source, source),
        "object": names.get(target, target),
        "episodes": list(edge.get("episodes") or []),
    }
    yield from vectors_in(edge, ref)
    state = "historical" if invalid_at or expired_at else None
    yield record_line(
        {
            "id": safe_id(edge["uuid"]),
            "type": "fact",
            "content": fact.strip(),
            "scope": _scope(edge, options),
            "source_agent": options.source_agent or SOURCE,
            "created_at": iso(edge.get("created_at")),
            "tags": ["graphiti", "edge", *([str(edge["name"])] if edge.get("name") else [])],
            "meta": {k: v for k, v in meta.items() if v not in (None, [], "")},
        },
        state=state,
    )
