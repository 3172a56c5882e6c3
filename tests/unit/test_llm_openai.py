"""The OpenAI-compatible adapter against a scripted endpoint (no model is reachable from
the test machines): request shape, strict parsing, error mapping, and that governance
records the model's decisions so a replay never calls it again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from ai_memory.adapters.llm_openai import ModelExtractor, OpenAICompatibleClient
from ai_memory.bootstrap import build
from ai_memory.core.errors import PermanentError, Unavailable
from ai_memory.core.events import InteractionRecorded, MemoryStateChanged
from ai_memory.core.governance import LLMJudgeDetector
from ai_memory.projector.tailer import rebuild_all
from ai_memory.service.governance import GovernanceService
from ai_memory.settings import Settings
from tests.factories import FixedClock


class ScriptedModel:
    """Answers chat completions like a model would, and counts the calls."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.calls.append(body)
        user = body["messages"][1]["content"]
        if "slot" in user and user.startswith("{"):
            answer: dict[str, Any] = {"conflict": True, "rationale": "one city at a time"}
        else:
            city = user.rsplit(" ", 1)[-1].strip(".")
            answer = {
                "memories": [
                    {
                        "type": "fact",
                        "slot": "fact/residence",
                        "value": city.lower(),
                        "content": user,
                        "confidence": 0.9,
                        "importance": 0.8,
                    }
                ]
            }
        return httpx.Response(200, json={"choices": [{"message": {"content": json.dumps(answer)}}]})


def client(handler: Any) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(
        "http://llm.test/v1", "judge-1", api_key="k", transport=httpx.MockTransport(handler)
    )


def test_request_shape_and_parsing() -> None:
    model = ScriptedModel()
    answer = client(model).judge("I live in Tokyo.", "I live in Sydney.", "fact/residence")
    assert answer.conflict is True
    sent = model.calls[0]
    assert sent["model"] == "judge-1" and sent["temperature"] == 0
    assert sent["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx.Response(503), Unavailable),
        (httpx.Response(400, json={"error": "bad"}), PermanentError),
        (
            httpx.Response(200, json={"choices": [{"message": {"content": "not json"}}]}),
            PermanentError,
        ),
        (
            httpx.Response(
                200, json={"choices": [{"message": {"content": '{"conflict": "yes"}'}}]}
            ),
            PermanentError,
        ),
    ],
)
def test_errors_are_translated(response: httpx.Response, error: type[Exception]) -> None:
    with pytest.raises(error):
        client(lambda _: response).judge("a", "b", "fact/residence")


def test_decisions_are_recorded_and_replays_do_not_call_the_model(tmp_path: Path) -> None:
    model = ScriptedModel()
    llm = client(model)
    clock = FixedClock()
    # Encryption off: the test reads the recorded decisions straight off the log (with it
    # on they are sealed evidence: tests/unit/test_evidence_sealing.py).
    c = build(Settings(data_dir=tmp_path / "data", encryption="off"), clock=clock)
    m = c.service
    governance = GovernanceService(
        units=m.units,
        store=m.store,
        secrets=m.secrets,
        limits=m.limits,
        clock=m.clock,
        extractor=ModelExtractor(llm),
        detector=LLMJudgeDetector(llm),
    )
    c.start()
    try:
        body = {"scope": "user:alice", "source_agent": "chat"}
        governance.record_interaction("default", {**body, "text": "I live in Auckland."})
        clock.advance(40 * 86_400)
        result = governance.record_interaction(
            "default", {**body, "text": "I live in Sydney."}, wait=True
        )
        assert result.transitions, "the judge's conflict must move the old memory"
        events = [e.event for e in c.log.read(after=0, limit=100)]
        changes = [e for e in events if isinstance(e, MemoryStateChanged)]
        decision = json.loads(changes[0].decision_json or "{}")["decision"]
        assert decision["kind"] == "conflict.llm_judge" and decision["model"] == "judge-1"
        interaction = [e for e in events if isinstance(e, InteractionRecorded)][-1]
        recorded = json.loads(interaction.extraction_json or "{}")["decision"]
        assert recorded["kind"] == "extraction.llm" and recorded["model"] == "judge-1"
        calls = len(model.calls)
        for tailer in c.projections.tailers:
            tailer.stop()
        rebuild_all([t for t in c.projections.tailers if t.sink.name == "records"])
        assert len(model.calls) == calls  # replay folds events; the model is never asked
    finally:
        c.close()
        llm.close()
