from __future__ import annotations

import importlib.metadata
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ai_memory.adapters.embedders import (
    MINILM_NAME,
    MPNET_NAME,
    STATIC_NAME,
    MiniLMEmbedder,
    MPNetEmbedder,
    StaticEmbedder,
    make_embedder,
)
from ai_memory.adapters.embedders import mpnet as mpnet_module
from ai_memory.core.errors import InvalidInput, PermanentError
from ai_memory.core.ports import Embedder
from tests.contract.embedder_contract import EmbedderContract


class TestStaticEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return StaticEmbedder()


class TestMiniLMEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return MiniLMEmbedder()


class TestMPNetEmbedder(EmbedderContract):
    def make_embedder(self) -> Embedder:
        return MPNetEmbedder()


REFERENCE = Path(__file__).parents[1] / "fixtures" / "embedders" / "mpnet_reference.json"


def test_mpnet_matches_sentence_transformers() -> None:
    """Vectors written by sentence-transformers itself (``make_mpnet_reference.py``): a
    short text, a sentence, a question, one truncated at 384 tokens and the empty text,
    embedded in one padded batch and one by one."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    expected = np.array(reference["vectors"], dtype=np.float32)
    embedder = MPNetEmbedder()
    assert embedder.name == MPNET_NAME and embedder.dim == expected.shape[1] == 768
    np.testing.assert_allclose(embedder.embed(reference["texts"]), expected, atol=2e-6)
    for text, vector in zip(reference["texts"], expected, strict=True):
        np.testing.assert_allclose(embedder.embed([text])[0], vector, atol=2e-6)


def _fake_parts(tmp_path: Path, files: dict[str, bytes]) -> list[Path]:
    """A model zip like the packages', split in two pieces."""
    whole = tmp_path / "whole.zip"
    with zipfile.ZipFile(whole, "w") as archive:
        for name, data in files.items():
            archive.writestr(f"{MPNET_NAME}/{name}", data)
    data = whole.read_bytes()
    parts = [tmp_path / "part.001", tmp_path / "part.002"]
    parts[0].write_bytes(data[: len(data) // 2])
    parts[1].write_bytes(data[len(data) // 2 :])
    return parts


def test_mpnet_refuses_weights_that_are_not_the_published_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {name: b"not the model" for name in mpnet_module.FILES}
    monkeypatch.setattr(mpnet_module, "_parts", lambda: _fake_parts(tmp_path, files))
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(PermanentError) as e:
        mpnet_module._extract(target)
    assert e.value.code == "embedder_weights_invalid" and "recall" in str(e.value)
    del files["tokenizer.json"]
    with pytest.raises(PermanentError) as e:
        mpnet_module._extract(target)
    assert e.value.code == "embedder_weights_missing" and "tokenizer.json" in str(e.value)


def test_mpnet_without_its_packages_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(PermanentError) as e:
        mpnet_module._parts()
    assert e.value.code == "embedder_weights_missing"
    assert "ai-memory[recall]" in str(e.value)


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


def test_factory_builds_each_and_defaults_to_static() -> None:
    assert make_embedder().name == STATIC_NAME
    assert make_embedder("static").name == STATIC_NAME
    assert make_embedder(STATIC_NAME).dim == 256
    assert make_embedder("MiniLM").name == MINILM_NAME
    assert make_embedder("mpnet").name == MPNET_NAME
    assert make_embedder(MPNET_NAME).dim == 768
    with pytest.raises(InvalidInput):
        make_embedder("word2vec")
