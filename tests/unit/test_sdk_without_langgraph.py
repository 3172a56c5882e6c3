"""The SDK alone (`pip install ai-memory`) has no LangGraph: asking for its store names
the extra to install instead of a bare ModuleNotFoundError."""

from __future__ import annotations

import sys

import pytest

import ai_memory.sdk as sdk


def test_langgraph_store_without_langgraph_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "ai_memory.sdk.langgraph_store", raising=False)
    for name in [m for m in sys.modules if m == "langgraph" or m.startswith("langgraph.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "langgraph", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'ai-memory\[langgraph\]'"):
        sdk.AiMemoryStore  # noqa: B018 - the attribute access is the import
