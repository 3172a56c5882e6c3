"""The static embedder's token ids, for plain text without the tokenizer's pipeline.

The tokenizer (BERT's: ``BertNormalizer`` cleaning and lowercasing, ``BertPreTokenizer``
splitting on whitespace and punctuation, WordPiece per word) costs ≈ 30 µs a text
through its Python binding, most of it per call and per ``Encoding`` rather than in the
tokenizing: the largest single cost of indexing a memory (``loadtest/RESULTS.md``). On a
*plain* text — ASCII and a few punctuation marks (``_PUNCTUATION``) — every step of that
pipeline is simple: drop the control characters, lowercase, split off each punctuation
character, split on whitespace; the WordPiece pieces of each word come from the
tokenizer's own model, remembered per word (words repeat). That is ≈ 6 µs a text.

Anything else goes through the tokenizer itself: a text with another character (accents
decompose and are stripped, other scripts have their own rules), one naming a special
token (``[SEP]`` in a text is that token, not three pieces), and every text of a
tokenizer not configured exactly as assumed (``PlainWordPiece.supports``). The ids are
the tokenizer's: tests hold them equal on a corpus and on fuzzed text.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

from tokenizers import Tokenizer
from tokenizers.models import WordPiece

# Non-ASCII characters the fast path takes: punctuation (Unicode P*) that BERT's
# normalizer leaves alone (no case, no decomposition, not a control or a space) and its
# pre-tokenizer isolates like ASCII punctuation. Dashes, curly quotes and the ellipsis are
# most of what keeps a text of English off the ASCII-only path.
_PUNCTUATION = "\u2013\u2014\u2018\u2019\u201c\u201d\u2026"
_ASCII_PUNCTUATION = "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum())
_ALL_PUNCTUATION = re.escape(_ASCII_PUNCTUATION + _PUNCTUATION)
# A word: a run of anything but whitespace and punctuation; each punctuation character is
# a piece of its own (``BertPreTokenizer``). Control characters are gone by then.
_PIECE = re.compile(f"[^\\s{_ALL_PUNCTUATION}]+|[{_ALL_PUNCTUATION}]")
# What makes a text not plain: any character outside ASCII and ``_PUNCTUATION``.
_NOT_PLAIN = re.compile(f"[^\\x00-\\x7f{_PUNCTUATION}]")
# ``BertNormalizer(clean_text=True)`` drops control characters (tab, newline and carriage
# return are whitespace, kept) and turns whitespace into spaces, which only split.
_CONTROLS = {c: None for c in [*range(32), 127] if chr(c) not in "\t\n\r"}
# A plain text without control characters, the usual one, needs no ``translate`` (which
# costs three times this search).
_NOT_CLEAN = re.compile(f"[^\\t\\n\\r\\x20-\\x7e{_PUNCTUATION}]")
_WORD_CACHE = 1 << 16


class PlainWordPiece:
    """Token ids of texts as ``tokenizer.encode(text, add_special_tokens=False)`` gives
    them, truncated to ``max_tokens``; plain texts without the tokenizer's pipeline."""

    def __init__(self, tokenizer: Tokenizer, max_tokens: int) -> None:
        self._tokenizer = tokenizer
        self._max_tokens = max_tokens
        self._fast = self.supports(tokenizer, max_tokens)
        # Added tokens (``[SEP]``, ``[MASK]``…) are matched in the raw text before anything
        # else; a text holding one, in any case, goes to the tokenizer.
        contents = [t.content for t in tokenizer.get_added_tokens_decoder().values()]
        self._special = (
            re.compile("|".join(re.escape(c) for c in contents), re.IGNORECASE)
            if contents
            else None
        )
        model = tokenizer.model

        # Per tokenizer (the model is its own), bounded: a replay meets every word once.
        @functools.lru_cache(maxsize=_WORD_CACHE)
        def pieces(word: str) -> tuple[int, ...]:
            return tuple(token.id for token in model.tokenize(word))

        self._pieces = pieces

    @staticmethod
    def supports(tokenizer: Tokenizer, max_tokens: int) -> bool:
        """Whether the fast path is this tokenizer's pipeline: BERT's normalizer that
        cleans and lowercases, BERT's pre-tokenizer, WordPiece, no padding, and truncation
        keeping the first ``max_tokens`` ids."""
        # The components' own state, not ``to_str`` (which writes the whole vocabulary).
        normalizer = _state(tokenizer.normalizer)
        truncation = tokenizer.truncation or {}
        return (
            normalizer.get("type") == "BertNormalizer"
            and normalizer.get("clean_text") is True
            and normalizer.get("lowercase") is True
            and _state(tokenizer.pre_tokenizer) == {"type": "BertPreTokenizer"}
            and isinstance(tokenizer.model, WordPiece)
            and tokenizer.padding is None
            and truncation.get("max_length") == max_tokens
            and truncation.get("direction") == "right"
            and truncation.get("strategy") == "longest_first"
            and truncation.get("stride") == 0
        )

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        out: list[list[int]] = []
        others: list[int] = []  # indexes of the texts the tokenizer encodes
        for i, text in enumerate(texts):
            ids = self._plain_ids(text) if self._fast else None
            if ids is None:
                ids = []
                others.append(i)
            out.append(ids)
        if others:
            encodings = self._tokenizer.encode_batch_fast(
                [texts[i] for i in others], add_special_tokens=False
            )
            for i, encoding in zip(others, encodings, strict=True):
                out[i] = encoding.ids
        return out

    def _plain_ids(self, text: str) -> list[int] | None:
        """The ids of a plain text; None for any other."""
        if _NOT_CLEAN.search(text) is not None:
            if _NOT_PLAIN.search(text) is not None:
                return None
            text = text.translate(_CONTROLS)
        # Looked for once the controls are gone: what the tokenizer may match after its
        # own cleaning is found too (a raw text holding a token still holds it then).
        if self._special is not None and self._special.search(text) is not None:
            return None
        ids: list[int] = []
        pieces = self._pieces
        for word in _PIECE.findall(text.lower()):
            ids.extend(pieces(word))
        return ids[: self._max_tokens]


def _state(component: object) -> dict[str, Any]:
    """A tokenizer component's configuration as JSON (empty when there is none)."""
    if component is None:
        return {}
    raw = component.__getstate__()
    state = json.loads(raw) if isinstance(raw, str | bytes) else None
    return state if isinstance(state, dict) else {}
