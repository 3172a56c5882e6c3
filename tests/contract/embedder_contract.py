"""The Embedder contract: every embedder adapter (the static default, MiniLM, any
served model) must pass this suite.

Contract beyond the port's signature: rows are float32 and unit length for every input
(empty and symbol-only text included); the same text always gives the identical vector
(across calls and instances); a text's vector does not depend on its batch; similar
meaning scores higher than unrelated text, in English and Chinese; long input is
truncated, never an error; a bare ``str`` is rejected with ``InvalidInput``.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import Embedder

TEXTS = [
    "Caroline went to the LGBTQ support group yesterday.",
    "Melanie: I painted a sunrise over the lake last week!",
    "The quarterly report is due on Friday.",
    "我明天要去北京出差。",
    "ok",
]

# (anchor, paraphrase, unrelated)
PARAPHRASES = [
    (
        "The cat sat on the mat.",
        "A cat was sitting on the rug.",
        "Quarterly revenue grew by ten percent.",
    ),
    (
        "How do I reset my password?",
        "I forgot my password and need to change it.",
        "The train to Berlin leaves at noon.",
    ),
    (
        "Caroline went to the LGBTQ support group yesterday.",
        "Yesterday Caroline attended a support group for LGBTQ people.",
        "Melanie is thinking about buying a new car.",
    ),
    ("我喜欢吃苹果。", "我爱吃苹果", "今天股市大跌。"),
    ("明天北京会下雨吗？", "北京明天下雨吗", "我的猫喜欢睡觉。"),
]

EDGE_TEXTS = ["", " ", "\n\t", "😀😀😀", "???", "a", "中"]


def _long_text() -> str:
    return " ".join(f"memory{i} about the garden and the lake" for i in range(3000))


class EmbedderContract:
    def make_embedder(self) -> Embedder:
        raise NotImplementedError  # subclasses provide the adapter

    @pytest.fixture(scope="class")
    @classmethod
    def embedder(cls) -> Embedder:
        return cls().make_embedder()  # loaded once per adapter class

    def test_name_and_dim_are_stable(self, embedder: Embedder) -> None:
        assert isinstance(embedder.name, str) and embedder.name.strip() == embedder.name
        assert embedder.name and embedder.name == embedder.name
        assert isinstance(embedder.dim, int) and embedder.dim > 0
        embedder.embed(TEXTS)
        other = self.make_embedder()
        assert (other.name, other.dim) == (embedder.name, embedder.dim)

    def test_shape_and_dtype(self, embedder: Embedder) -> None:
        vectors = embedder.embed(TEXTS)
        assert vectors.shape == (len(TEXTS), embedder.dim)
        assert vectors.dtype == np.float32
        assert np.all(np.isfinite(vectors))

    def test_empty_list(self, embedder: Embedder) -> None:
        vectors = embedder.embed([])
        assert vectors.shape == (0, embedder.dim)
        assert vectors.dtype == np.float32

    def test_rows_are_unit_length_even_for_edge_input(self, embedder: Embedder) -> None:
        vectors = embedder.embed(TEXTS + EDGE_TEXTS)
        assert np.all(np.isfinite(vectors))
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)

    def test_deterministic_across_calls(self, embedder: Embedder) -> None:
        first = embedder.embed(TEXTS)
        assert np.array_equal(first, embedder.embed(TEXTS))

    def test_deterministic_across_instances(self, embedder: Embedder) -> None:
        assert np.array_equal(embedder.embed(TEXTS), self.make_embedder().embed(TEXTS))

    def test_batch_equals_single(self, embedder: Embedder) -> None:
        batch = embedder.embed(TEXTS + EDGE_TEXTS)
        singles = np.vstack([embedder.embed([t]) for t in TEXTS + EDGE_TEXTS])
        np.testing.assert_allclose(batch, singles, atol=1e-5)

    def test_order_and_duplicates_do_not_matter(self, embedder: Embedder) -> None:
        texts = [*TEXTS, TEXTS[0], *reversed(TEXTS)]
        vectors = embedder.embed(texts)
        base = embedder.embed(TEXTS)
        np.testing.assert_allclose(vectors[: len(TEXTS)], base, atol=1e-5)
        np.testing.assert_allclose(vectors[len(TEXTS)], base[0], atol=1e-5)
        np.testing.assert_allclose(vectors[len(TEXTS) + 1 :], base[::-1], atol=1e-5)

    @pytest.mark.parametrize(("anchor", "paraphrase", "unrelated"), PARAPHRASES)
    def test_paraphrase_is_closer_than_unrelated_text(
        self, embedder: Embedder, anchor: str, paraphrase: str, unrelated: str
    ) -> None:
        a, p, u = embedder.embed([anchor, paraphrase, unrelated])
        assert float(a @ p) > float(a @ u) + 0.1

    def test_long_input_is_truncated_not_rejected(self, embedder: Embedder) -> None:
        long = _long_text()
        vectors = embedder.embed([long, "short", long + " and one more sentence"])
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert float(vectors[0] @ vectors[2]) > 0.99

    def test_bare_string_is_rejected(self, embedder: Embedder) -> None:
        with pytest.raises(InvalidInput):
            embedder.embed("not a list")

    def test_concurrent_calls_agree(self, embedder: Embedder) -> None:
        expected = embedder.embed(TEXTS)
        results: list[np.ndarray] = []
        errors: list[BaseException] = []

        def work() -> None:
            try:
                for _ in range(3):
                    results.append(embedder.embed(TEXTS))
            except BaseException as e:  # surfaced in the main thread below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert len(results) == 12
        for got in results:
            np.testing.assert_allclose(got, expected, atol=1e-6)
