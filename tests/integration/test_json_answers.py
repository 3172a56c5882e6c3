"""The reads that answer with bytes they shaped themselves (``http/json_answers.py``)
answer exactly what their response models would: every field of the model, no other,
the same values, the same headers."""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi.testclient import TestClient
from pydantic import BaseModel

from ai_memory.core.record import MemoryState, StoredRecord
from ai_memory.entrypoints.http.json_answers import JsonAnswer, search_hit
from ai_memory.service.search_reads import SearchHit
from ai_memory.wire.models import MemoryOut, SearchOut
from tests.factories import T0, record


def _as_the_model_writes_it(model: type[BaseModel], raw: bytes) -> Any:
    """What FastAPI would have sent: the answer validated by the model and dumped."""
    return json.loads(model.model_validate_json(raw).model_dump_json())


def _keys(value: Any) -> Any:
    """The answer's structure: every object's keys, in order, all the way down."""
    if isinstance(value, dict):
        return [(k, _keys(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_keys(v) for v in value]
    return type(value).__name__


def _write(client: TestClient, memory_id: str, **fields: Any) -> None:
    body = {"type": "fact", "scope": "user:ana", "source_agent": "agent-a", **fields}
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=body)
    assert r.status_code in (200, 201), r.text


def test_a_search_answers_what_its_model_would(client: TestClient) -> None:
    _write(client, "tea", content="Ana drinks green tea every morning.", tags=["drinks"])
    _write(
        client,
        "turn-1",
        type="interaction",
        content="Ana: I tried oolong tea at the market today.",
        meta={"session_id": "s1", "speaker": "Ana", "nested": {"n": 1.5, "list": [1, None]}},
        ttl=86_400,
    )
    _write(
        client,
        "turn-2",
        type="interaction",
        content="Ana: the tea seller said it was from Taiwan.",
        meta={"session_id": "s1", "speaker": "Ana"},
    )
    for body in (
        {"query": "tea", "scope": "user:ana"},
        {"query": "tea Taiwan market", "top_k": 2, "rerank": False},
        {"query": "nothing matches this", "scope": "user:nobody"},
    ):
        r = client.post("/v1/memories/search", json=body)
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/json"
        sent = json.loads(r.content)
        assert sent == _as_the_model_writes_it(SearchOut, r.content)
        assert _keys(sent) == _keys(_as_the_model_writes_it(SearchOut, r.content))
    assert sent == {"results": []}
    found = client.post("/v1/memories/search", json={"query": "tea", "scope": "user:ana"})
    assert {h["record"]["id"] for h in found.json()["results"]} == {"tea", "turn-1", "turn-2"}


def test_a_read_answers_what_its_model_would_with_its_etag(client: TestClient) -> None:
    _write(client, "tea", content="Ana drinks green tea.", meta={"k": "v"}, tags=["a", "b"])
    _write(client, "tea", content="Ana drinks green tea, no sugar.", meta={"k": "v"})
    r = client.get("/v1/memories/tea")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.headers["etag"] == '"2"'
    sent = json.loads(r.content)
    assert sent == _as_the_model_writes_it(MemoryOut, r.content)
    assert _keys(sent) == _keys(_as_the_model_writes_it(MemoryOut, r.content))
    assert sent["content"] == "Ana drinks green tea, no sugar." and sent["version"] == 2


def test_a_number_that_is_not_finite_is_sent_as_null_as_fastapi_would() -> None:
    body = bytes(JsonAnswer({"score": math.nan, "n": math.inf, "ok": 0.5}).body)
    assert json.loads(body) == {"score": None, "n": None, "ok": 0.5}


def test_a_hit_scored_with_whole_numbers_is_sent_with_floats_as_its_model_says() -> None:
    stored = StoredRecord("default", record(), 1, MemoryState.ACTIVE, "sha", T0, 7)
    hit = search_hit(SearchHit(stored, 1, {"dense_rank": 1, "keyword": 0.5}, None))
    raw = bytes(JsonAnswer({"results": [hit]}).body)
    assert _keys(json.loads(raw)) == _keys(_as_the_model_writes_it(SearchOut, raw))
    assert hit["score"] == 1.0 and isinstance(hit["components"]["dense_rank"], float)
