"""The static embedder's plain-text token ids are the tokenizer's, exactly."""

from __future__ import annotations

import random
import string

import pytest
from loadtest.corpus import QUERIES, memories
from tokenizers import Tokenizer

from ai_memory.adapters.embedders.artefact import TOKENIZER_FILE, ensure_static_model
from ai_memory.adapters.embedders.plain_wordpiece import _PUNCTUATION, PlainWordPiece
from ai_memory.adapters.embedders.static import MAX_TOKENS
from ai_memory.adapters.embedders.weights import load_tokenizer


def _tokenizer(max_tokens: int = MAX_TOKENS) -> Tokenizer:
    tokenizer = load_tokenizer(ensure_static_model() / TOKENIZER_FILE)
    tokenizer.enable_truncation(max_length=max_tokens)
    return tokenizer


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return _tokenizer()


def _reference(tokenizer: Tokenizer, texts: list[str]) -> list[list[int]]:
    return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]


def _fuzzed(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    rare = [chr(c) for c in range(128)] + list(_PUNCTUATION) + ["é", "Ä", "ß", "日", "\u00a0"]
    common = string.ascii_letters + string.digits + "     "
    return [
        "".join(
            rnd.choice(rare) if rnd.random() < 0.25 else rnd.choice(common)
            for _ in range(rnd.randint(0, 80))
        )
        for _ in range(n)
    ]


def test_the_static_tokenizer_takes_the_fast_path(tokenizer: Tokenizer) -> None:
    assert PlainWordPiece.supports(tokenizer, MAX_TOKENS)
    ids = PlainWordPiece(tokenizer, MAX_TOKENS)
    assert ids._plain_ids("Kenji asked about meetings — before 10am… “twice”") is not None
    assert ids._plain_ids("with\x00controls\x7f\tand tabs") is not None
    assert ids._plain_ids("naïve café") is None
    assert ids._plain_ids("ends with [SEP] here") is None
    assert ids._plain_ids("a [se\x00p] hidden by a control character") is None


def test_corpus_texts_get_the_tokenizers_ids(tokenizer: Tokenizer) -> None:
    texts = [
        f"{m['content']}\n{' '.join(m['tags'])}" if m.get("tags") else m["content"]
        for m in memories(3000)
    ]
    texts += list(QUERIES)
    assert PlainWordPiece(tokenizer, MAX_TOKENS).ids(texts) == _reference(tokenizer, texts)


def test_fuzzed_and_edge_texts_get_the_tokenizers_ids(tokenizer: Tokenizer) -> None:
    edges = [
        "",
        " ",
        "\t\n\r\x0b\x0c\x1c\x1f\x7f",
        "a\x00b\x01c",
        "x" * 99,
        "x" * 100,
        "x" * 101,  # longer than a WordPiece word may be: [UNK]
        "supercalifragilisticexpialidocious unaffable",
        "it's John's e-mail: a.b@c.d (see #12, 50%)",
        "don’t “quote” – dash — ellipsis…",
        "Hello[SEP]",
        "[cls] lower-case special",
        "[MASK]",
        "[UNK] [PAD] [",
        "Ünïcödé and 日本語",
    ]
    texts = [*_fuzzed(7, 5000), *edges]
    assert PlainWordPiece(tokenizer, MAX_TOKENS).ids(texts) == _reference(tokenizer, texts)


def test_long_texts_are_truncated_as_the_tokenizer_truncates() -> None:
    tokenizer = _tokenizer(max_tokens=16)
    texts = ["word " * 40, "many-pieced, punctuated words; " * 10, "short"]
    ids = PlainWordPiece(tokenizer, 16).ids(texts)
    assert ids == _reference(tokenizer, texts)
    assert [len(i) for i in ids] == [16, 16, 1]


def test_another_pipeline_is_left_to_the_tokenizer(tokenizer: Tokenizer) -> None:
    cased = Tokenizer.from_str(tokenizer.to_str().replace('"lowercase":true', '"lowercase":false'))
    cased.enable_truncation(max_length=MAX_TOKENS)
    assert not PlainWordPiece.supports(cased, MAX_TOKENS)
    assert not PlainWordPiece.supports(tokenizer, MAX_TOKENS - 1)  # another truncation
    texts = ["Mixed Case Words", "ALL CAPS"]
    assert PlainWordPiece(cased, MAX_TOKENS).ids(texts) == _reference(cased, texts)
