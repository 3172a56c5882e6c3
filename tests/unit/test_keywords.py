from __future__ import annotations

import zlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.keywords import (
    AVG_DOC_LEN,
    K1,
    B,
    query_terms,
    sparse_terms,
    stem,
    term_id,
    tokens,
)
from ai_memory.core.ports import SparseVector


def test_lowercases_drops_stop_words_and_punctuation() -> None:
    assert tokens("The CAT, and the Dog!") == ["cat", "dog"]


def test_unicode_normalisation_and_casefolding() -> None:
    assert tokens("Straße ＡＢＣ") == ["strasse", "abc"]
    assert tokens("Ünïcode") == ["ünïcode"]


def test_identifiers_and_numbers_survive() -> None:
    assert tokens("ERR_CONN_REFUSED on kube-prod-7 v2.3") == [
        "err_conn_refused",
        "kube",
        "prod",
        "7",
        "v2",
        "3",
    ]


def test_contractions_and_possessives() -> None:
    assert tokens("Alice's dog doesn't bark") == ["alice", "dog", "bark"]


@pytest.mark.parametrize(
    "words, root",
    [
        (["run", "running", "runs"], "run"),
        (["preference", "preferences"], "preference"),
        (["agree", "agreed", "agrees"], "agree"),
        (["study", "studies", "studied"], "studi"),
        (["happy", "happiness"], "happi"),
        (["pony", "ponies"], "poni"),
        (["deploy", "deployed", "deploying", "deploys", "deployment"], "deploy"),
    ],
)
def test_stemming_conflates_inflections(words: list[str], root: str) -> None:
    assert {stem(w) for w in words} == {root}


def test_stemmer_leaves_short_and_non_ascii_words_alone() -> None:
    assert stem("bus") == "bus"
    assert stem("v2rays") == "v2rays"
    assert stem("cafés") == "cafés"


def test_cjk_becomes_unigrams_and_bigrams() -> None:
    assert tokens("数据平台") == ["数", "据", "平", "台", "数据", "据平", "平台"]
    assert tokens("用 Python 写") == ["用", "python", "写"]
    assert "データ" not in tokens("データ")  # kana runs are split too
    assert "デー" in tokens("データ")


def test_term_ids_are_crc32() -> None:
    assert term_id("tea") == zlib.crc32(b"tea")
    assert sparse_terms("tea").indices == (zlib.crc32(b"tea"),)


def test_document_weights_are_bm25_saturated() -> None:
    vec = sparse_terms("tea tea coffee")
    weights = dict(zip(vec.indices, vec.values, strict=True))
    norm = K1 * (1 - B + B * 3 / AVG_DOC_LEN)
    assert weights[term_id("tea")] == pytest.approx(2 * (K1 + 1) / (2 + norm))
    assert weights[term_id("coffee")] == pytest.approx((K1 + 1) / (1 + norm))
    assert weights[term_id("tea")] < 2 * weights[term_id("coffee")]  # saturation


def test_longer_documents_weigh_each_term_less() -> None:
    short = sparse_terms("tea coffee")
    long = sparse_terms("tea " + " ".join(f"word{i}" for i in range(60)))
    assert (
        dict(zip(long.indices, long.values, strict=True))[term_id("tea")]
        < dict(zip(short.indices, short.values, strict=True))[term_id("tea")]
    )


def test_query_terms_weigh_each_unique_term_once() -> None:
    vec = query_terms("tea tea coffee")
    assert vec.values == (1.0, 1.0)
    assert vec.indices == tuple(sorted({term_id("tea"), term_id("coffee")}))


def test_empty_or_stop_word_text_gives_an_empty_vector() -> None:
    empty = SparseVector((), ())
    assert sparse_terms("") == empty and query_terms("the of and") == empty
    assert sparse_terms("  !!! ") == empty


@given(st.text())
def test_vectors_are_deterministic_well_formed_and_u32(text: str) -> None:
    for fn in (sparse_terms, query_terms):
        vec = fn(text)
        assert vec == fn(text)
        assert len(vec.indices) == len(vec.values)
        assert list(vec.indices) == sorted(set(vec.indices))
        assert all(0 <= i < 2**32 for i in vec.indices)
        assert all(v > 0 for v in vec.values)


@given(st.text())
def test_document_and_query_see_the_same_terms(text: str) -> None:
    assert sparse_terms(text).indices == query_terms(text).indices


@given(st.lists(st.text(max_size=40), min_size=1, max_size=8))
def test_remembered_terms_are_the_terms_computed_afresh(texts: list[str]) -> None:
    """The word → term cache changes nothing: every text reads the same warm as cold,
    whatever was tokenised before it (words shared between texts included)."""
    from ai_memory.core import keywords

    warm = [tokens(t) for t in texts] + [tokens(t) for t in reversed(texts)]
    keywords._term.cache_clear()
    cold = []
    for t in texts + list(reversed(texts)):
        cold.append(tokens(t))
        keywords._term.cache_clear()
    assert warm == cold


def test_the_term_cache_is_bounded() -> None:
    from ai_memory.core import keywords

    keywords._term.cache_clear()
    tokens(" ".join(f"word{n}x" for n in range(keywords._TERM_CACHE + 100)))
    assert keywords._term.cache_info().currsize == keywords._TERM_CACHE


def _reference_sparse(text: str) -> SparseVector:
    """The document vector as the module defines it, written the plain way: what the
    hand-tuned ``sparse_terms`` must keep giving, weights and order alike."""
    terms = tokens(text)
    if not terms:
        return SparseVector((), ())
    norm = K1 * (1.0 - B + B * len(terms) / AVG_DOC_LEN)
    merged: dict[int, float] = {}
    for term, tf in Counter(terms).items():
        index = zlib.crc32(term.encode("utf-8"))
        merged[index] = merged.get(index, 0.0) + tf * (K1 + 1.0) / (tf + norm)
    ordered = sorted(merged.items())
    return SparseVector(tuple(i for i, _ in ordered), tuple(v for _, v in ordered))


@given(st.text(alphabet=st.sampled_from("ab cdé日本’'.-s1"), max_size=80))
def test_sparse_terms_equal_the_plain_definition(text: str) -> None:
    assert sparse_terms(text) == _reference_sparse(text)


def test_sparse_terms_of_one_and_of_repeated_terms() -> None:
    assert sparse_terms("tea") == _reference_sparse("tea")
    assert sparse_terms("tea coffee tea milk tea") == _reference_sparse("tea coffee tea milk tea")
