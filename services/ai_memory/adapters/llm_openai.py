"""An OpenAI-compatible chat-completions endpoint as a conflict judge and an extractor.

Any server speaking ``POST {base}/chat/completions`` (OpenAI, vLLM, llama.cpp server,
Ollama's OpenAI API, …) can judge conflicts (``JudgeClient``) and extract memories
(``LLMExtractionClient``). The model is asked for a JSON object and its answer is parsed
strictly; what it decided is recorded in the events by the governance core, so a replay
never calls the model again.

Configured by ``AIMEM_LLM_URL`` (e.g. ``http://127.0.0.1:11434/v1``), ``AIMEM_LLM_MODEL``,
``AIMEM_LLM_API_KEY`` and ``AIMEM_LLM_ROLES`` (``judge``, ``extract`` or ``judge,extract``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ai_memory.core.errors import PermanentError, Unavailable
from ai_memory.core.governance import JudgeAnswer, RecordedDecision
from ai_memory.core.governance.extraction import ExtractedMemory, Interaction
from ai_memory.core.governance.extraction.base import (
    extracted_from_decision,
    extraction_decision,
)

JUDGE_PROMPT = (
    "You decide whether two statements about the same person and the same slot "
    "contradict each other (they cannot both be true now). Answer with a JSON object "
    '{"conflict": true|false, "rationale": "<one sentence>"}.'
)
EXTRACT_PROMPT = (
    "Extract durable memories about the user from the text. Answer with a JSON object "
    '{"memories": [{"type": "fact|preference|task|skill|interaction", '
    '"slot": "<kind>/<entity>", "value": "<normalised value or null>", '
    '"content": "<the user\'s own sentence>", "confidence": 0..1, "importance": 0..1}]}. '
    'Return {"memories": []} when there is nothing worth remembering.'
)


class OpenAICompatibleClient:
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        self._model = model

    @property
    def model(self) -> str:
        return self._model

    def judge(self, new_content: str, old_content: str, slot: str) -> JudgeAnswer:
        answer = self._complete(
            JUDGE_PROMPT,
            json.dumps({"slot": slot, "old": old_content, "new": new_content}, ensure_ascii=False),
        )
        conflict = answer.get("conflict")
        if not isinstance(conflict, bool):
            raise PermanentError(
                "the judge did not answer conflict true/false", code="llm_bad_answer"
            )
        return JudgeAnswer(conflict, str(answer.get("rationale", "")))

    def extract(self, text: str) -> Sequence[Mapping[str, Any]]:
        items = self._complete(EXTRACT_PROMPT, text).get("memories")
        return [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else []

    def close(self) -> None:
        self._http.close()

    def _complete(self, system: str, user: str) -> dict[str, Any]:
        body = {
            "model": self._model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        try:
            response = self._http.post("/chat/completions", json=body)
        except httpx.TransportError as e:
            raise Unavailable(f"LLM endpoint unreachable: {e}", retry_after=5.0) from e
        if response.status_code in (429, 502, 503, 504):
            raise Unavailable(f"LLM endpoint busy ({response.status_code})", retry_after=5.0)
        if response.is_error:
            raise PermanentError(
                f"LLM endpoint refused the request ({response.status_code})", code="llm_refused"
            )
        try:
            content = response.json()["choices"][0]["message"]["content"]
            parsed = json.loads(content)
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise PermanentError("the LLM answer was not JSON", code="llm_bad_answer") from e
        if not isinstance(parsed, dict):
            raise PermanentError("the LLM answer was not a JSON object", code="llm_bad_answer")
        return parsed


class ModelExtractor:
    """An extractor backed by a model, whose output is recorded (``extract_recorded``):
    the governance service stores the decision in ``InteractionRecorded``."""

    def __init__(self, client: OpenAICompatibleClient) -> None:
        self.client = client

    def extract_recorded(
        self, interaction: Interaction
    ) -> tuple[list[ExtractedMemory], RecordedDecision]:
        items = self.client.extract(interaction.text)
        decision = extraction_decision(self.client.model, interaction, items)
        return extracted_from_decision(decision, interaction), decision

    def extract(self, interaction: Interaction) -> list[ExtractedMemory]:
        return self.extract_recorded(interaction)[0]
