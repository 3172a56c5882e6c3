from __future__ import annotations

import numpy as np
import pytest

from ai_memory.adapters.embedders import (
    MINILM_NAME,
    STATIC_NAME,
    MiniLMEmbedder,
    StaticEmbedder,
    make_embedder,
)
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import Embedder
from tests.contract.embedder_contract import EmbedderContract


class TestStaticEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return StaticEmbedder()


class TestMiniLMEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return MiniLMEmbedder()


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def static() -> StaticEmbedder:
    return StaticEmbedder()


def test_minilm_matches_published_sentence_transformers_values(minilm: MiniLMEmbedder) -> None:
    # First dimensions of SentenceTransformer("all-MiniLM-L6-v2").encode("hello world"),
    # as pinned by qdrant/fastembed's canonical-vector tests.
    expected = np.array([-0.034478, 0.03102, 0.00673, 0.02611, -0.039362], dtype=np.float32)
    (vector,) = minilm.embed(["hello world"])
    np.testing.assert_allclose(vector[:5], expected, atol=2e-5)


def test_minilm_ignores_text_beyond_256_tokens(minilm: MiniLMEmbedder) -> None:
    head = " ".join(["river"] * 300)
    a, b = minilm.embed([head, head + " completely different ending about taxes"])
    # Same tokens, two rows of one batch: the runtime's kernels may sum a row in another
    # order (differences of ~1e-8 were seen); a text read past 256 tokens moves by far more.
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)
    shorter = minilm.embed([" ".join(["river"] * 200) + " completely different ending"])[0]
    assert np.abs(shorter - a).max() > 1e-3  # the tolerance still tells texts apart


def test_static_text_without_known_tokens_gets_the_unknown_vector(static: StaticEmbedder) -> None:
    empty, symbols, spaces = static.embed(["", "😀", "   "])
    assert np.array_equal(empty, symbols) and np.array_equal(empty, spaces)


def test_static_and_minilm_rank_similarities_alike(
    static: StaticEmbedder, minilm: MiniLMEmbedder
) -> None:
    """Congruence: the distilled table preserves the teacher's notion of similarity."""
    words = ["dog", "puppy", "cat", "car", "truck", "bicycle", "apple", "banana", "bread"]
    s = static.embed(words)
    m = minilm.embed(words)
    upper = np.triu_indices(len(words), k=1)
    sims_s, sims_m = (s @ s.T)[upper], (m @ m.T)[upper]
    rank_s, rank_m = np.argsort(np.argsort(sims_s)), np.argsort(np.argsort(sims_m))
    assert float(np.corrcoef(rank_s, rank_m)[0, 1]) > 0.7


def test_factory_builds_both_and_defaults_to_static() -> None:
    assert make_embedder().name == STATIC_NAME
    assert make_embedder("static").name == STATIC_NAME
    assert make_embedder(STATIC_NAME).dim == 256
    assert make_embedder("MiniLM").name == MINILM_NAME
    with pytest.raises(InvalidInput):
        make_embedder("word2vec")
