"""Choosing an embedder by configuration name (used by the composition root).

``static`` (the default) is the distilled ``StaticEmbedder``; ``minilm`` is the
contextual ``MiniLMEmbedder``; ``mpnet`` the recall-first ``MPNetEmbedder`` (the
``recall`` install extra). The exact model names are accepted as aliases, so a stored
index's embedder name can be fed back in.
"""

from __future__ import annotations

from collections.abc import Callable

from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import Embedder

from .artefact import STATIC_NAME
from .minilm import MINILM_NAME, MiniLMEmbedder
from .mpnet import MPNET_NAME, MPNetEmbedder
from .static import StaticEmbedder

DEFAULT_EMBEDDER = "static"

_FACTORIES: dict[str, Callable[[], Embedder]] = {
    "static": StaticEmbedder,
    STATIC_NAME: StaticEmbedder,
    "minilm": MiniLMEmbedder,
    MINILM_NAME: MiniLMEmbedder,
    "mpnet": MPNetEmbedder,
    MPNET_NAME: MPNetEmbedder,
}


def embedder_names() -> list[str]:
    return sorted(_FACTORIES)


def make_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """A ready embedder for ``name`` (case-insensitive): ``static``, ``minilm`` or
    ``mpnet``."""
    factory = _FACTORIES.get(name.strip().lower())
    if factory is None:
        raise InvalidInput(
            "embedder", "one_of", f"unknown embedder {name!r}; choose one of {embedder_names()}"
        )
    return factory()
