"""Keyword (sparse) vectors for the lexical half of hybrid search.

Dense embeddings miss exact tokens that matter to agents: identifiers, error codes,
product names, rare words. The index therefore also stores a sparse "bag of terms" per
memory and scores it BM25-style. This module turns text into that sparse vector; it is
pure (no I/O, no global state) so the projector, the gateway and a rebuild all produce
byte-identical vectors for the same text.

Pipeline (identical for documents and queries, so both sides always agree):

1. NFKC normalisation and ``casefold()`` (Unicode-aware lowercasing: ``Straße`` matches
   ``strasse``, full-width ``ＡＢＣ`` matches ``abc``).
2. Tokenisation: runs of word characters (letters, digits, ``_``; inner apostrophes
   kept, so ``don't`` is one token). Runs of CJK characters (Han, kana, Hangul) are
   unsegmented scripts: they become character unigrams plus bigrams, the standard
   dictionary-free approach (a bigram ``数据`` matches far more precisely than ``数``).
3. English stop words are dropped; tokens longer than ``MAX_TOKEN_CHARS`` (hashes,
   base64 blobs) are dropped.
4. A light, deterministic English suffix stemmer (plural / -ing / -ed / -ly and a few
   derivational suffixes). It is deliberately conservative: consistency between
   document and query matters more than linguistic accuracy, and no dependency is
   needed for it.
5. Term id = CRC-32 of the UTF-8 term (stable across processes, Python versions and
   machines; ``hash()`` is salted per process and must never be used). Collisions are
   merged by summing their weights.

Weights. Documents carry BM25 term-frequency saturation::

    tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / AVG_DOC_LEN))

with ``k1 = 1.2``, ``b = 0.75`` and a *fixed* ``AVG_DOC_LEN``: a corpus-wide average
would change every stored vector whenever the corpus changes, breaking the
"same event → same vector" property the projection relies on. Memories are short, so
32 terms is a representative constant. Queries carry weight 1 per unique term. The
inverse document frequency is applied by the engine at query time (``Modifier.Idf`` on
the sparse vector config), where corpus statistics are current, over the searching
tenant's documents only (``adapters/index_payload.py``, "Keyword IDF per tenant").
"""

from __future__ import annotations

import functools
import re
import unicodedata
import zlib
from collections.abc import Iterable

from .ports import SparseVector

K1 = 1.2
B = 0.75
AVG_DOC_LEN = 32.0
MAX_TOKEN_CHARS = 64
# Distinct words whose terms are remembered (a few MB; a vocabulary beyond it still works,
# only the least recently seen words are stemmed again).
_TERM_CACHE = 1 << 15

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002fa1f"
_TOKEN = re.compile(
    rf"(?P<cjk>[{_CJK}]+)|(?P<word>(?:(?![{_CJK}])\w)+(?:['’](?:(?![{_CJK}])\w)+)*)"
)

_STOP_WORDS_TEXT = """
    a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each few for from further had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his
    how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out
    over own same shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll
    they're they've this those through to too under until up very was wasn't we we'd we'll
    we're we've were weren't what what's when when's where where's which while who who's
    whom why why's will with won't would wouldn't you you'd you'll you're you've your
    yours yourself yourselves s t
    """
STOP_WORDS: frozenset[str] = frozenset(_STOP_WORDS_TEXT.split())

# (suffix, replacement, minimum length of the remaining stem); first match wins.
_DERIVATIONAL: tuple[tuple[str, str, int], ...] = (
    ("ational", "ate", 2),
    ("ization", "ize", 2),
    ("fulness", "ful", 2),
    ("ousness", "ous", 2),
    ("iveness", "ive", 2),
    ("tional", "tion", 2),
    ("biliti", "ble", 2),
    ("ements", "", 3),
    ("ement", "", 3),
    ("ments", "", 3),
    ("ment", "", 3),
    ("ness", "", 3),
    ("ful", "", 3),
)
_VOWEL = re.compile(r"[aeiouy]")
_UNDOUBLE = frozenset("bdfgmnprt")


def _strip_inflection(word: str) -> str:
    """Plural, -ing, -ed, -ly: the inflections that most often split one concept."""
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        word = word[:-1]
    for suffix in ("ingly", "edly", "ing", "ed"):
        if word.endswith(suffix):
            if suffix == "ed" and word.endswith("eed"):
                word = word[:-1]  # agreed -> agree, not agre
                break
            stem = word[: -len(suffix)]
            if len(stem) >= 3 and _VOWEL.search(stem):
                if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] in _UNDOUBLE:
                    stem = stem[:-1]
                word = stem
            break
    if word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    if word.endswith("y") and len(word) > 3 and word[-2] not in "aeiou":
        word = word[:-1] + "i"  # happy / happiness / happier share "happi"
    return word


def stem(word: str) -> str:
    """Light English stemmer. Only ASCII-letter words are stemmed; anything else
    (numbers, identifiers with digits, other scripts) is returned unchanged."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    word = _strip_inflection(word)
    for suffix, replacement, min_stem in _DERIVATIONAL:
        if word.endswith(suffix) and len(word) - len(suffix) >= min_stem:
            return word[: -len(suffix)] + replacement
    return word


def tokens(text: str) -> list[str]:
    """The normalised, stop-word-free, stemmed terms of ``text``, in order."""
    normalised = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    # ``findall`` gives each match's two groups at once, "" for the one that did not take
    # part (either group matches at least one character).
    for cjk, word in _TOKEN.findall(normalised):
        if cjk:
            out.extend(cjk)
            out.extend(cjk[i : i + 2] for i in range(len(cjk) - 1))
            continue
        term = _term(word)
        if term is not None:
            out.append(term)
    return out


@functools.lru_cache(maxsize=_TERM_CACHE)
def _term(word: str) -> str | None:
    """The term a normalised word indexes as (None: a stop word or too long). Cached:
    words repeat (Zipf), and stemming each occurrence again was most of the keyword
    cost of every projected event and every query."""
    word = word.replace("’", "'")
    if word in STOP_WORDS or len(word) > MAX_TOKEN_CHARS:
        return None
    if word.endswith("'s"):
        word = word[:-2]
    word = stem(word.replace("'", ""))
    return word if word and word not in STOP_WORDS else None


def term_id(term: str) -> int:
    """Stable unsigned 32-bit id of a term (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(term.encode("utf-8"))


# Terms repeat as words do (``_term``): their ids are remembered the same way.
_cached_term_id = functools.lru_cache(maxsize=_TERM_CACHE)(term_id)


def _to_sparse(weights: Iterable[tuple[int, float]]) -> SparseVector:
    merged: dict[int, float] = {}
    for index, value in weights:
        merged[index] = merged.get(index, 0.0) + value  # two terms, one CRC: summed
    if not merged:
        return SparseVector((), ())
    indices, values = zip(*sorted(merged.items()), strict=True)
    return SparseVector(indices=indices, values=tuple(map(float, values)))


def sparse_terms(text: str) -> SparseVector:
    """Document-side sparse vector: BM25 term-frequency saturation per term.

    Written out rather than through ``Counter`` and ``_to_sparse``: it runs for every
    indexed event, and the plain loops with cached term ids cost a quarter less. The
    weights, their order and the summing of two terms with one CRC are the same."""
    terms = tokens(text)
    if not terms:
        return SparseVector((), ())
    norm = K1 * (1.0 - B + B * len(terms) / AVG_DOC_LEN)
    counts: dict[str, int] = {}
    for term in terms:
        counts[term] = counts.get(term, 0) + 1
    merged: dict[int, float] = {}
    for term, tf in counts.items():
        index = _cached_term_id(term)
        merged[index] = merged.get(index, 0.0) + tf * (K1 + 1.0) / (tf + norm)
    indices, values = zip(*sorted(merged.items()), strict=True)
    return SparseVector(indices, values)


def query_terms(text: str) -> SparseVector:
    """Query-side sparse vector: weight 1 per unique term (IDF comes from the engine)."""
    return _to_sparse((term_id(term), 1.0) for term in dict.fromkeys(tokens(text)))
