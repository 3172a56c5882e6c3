"""Conditional writes (RFC 9110 §13): ``If-Match`` and ``If-None-Match`` against a
memory's version, judged where the write is decided.

**The entity tag is the version.** A memory's ``ETag`` is ``"<version>"`` — a strong tag
because a version names exactly one written content of that id: every content change
makes a new version, and a forgotten id is never written again, so a version can never
come back with other content. The tag says nothing of the tenant (a key reads one
tenant only). State changes (governance) and read counts are the server's annotations,
not the caller's content: they leave the version, and so the tag, as it was — a caller
updating what it read is not refused because a read was counted meanwhile.

**Comparison.** ``If-Match`` uses the strong comparison: a weak tag (``W/"3"``) never
matches. ``If-None-Match`` uses the weak one. ``*`` in ``If-Match`` means "a current
memory exists", in ``If-None-Match`` "none exists" (create-only). A forgotten memory has
no current representation: ``If-Match`` fails on it, ``If-None-Match: *`` holds (and the
write is then refused as forgotten, as without the header).

**Atomicity.** ``check`` is a pure function of the head the decision sees; it runs inside
the unit of work, where the decision and its append are one step (the embedded log's
lock; on Kafka the partition's single writer admits the append only if the head is still
the one the decision saw, and a refused decision is decided again with fresh heads), so
two writers holding the same tag cannot both win.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InvalidInput, PreconditionFailed
from .events import Head

ANY = "*"
_TAG = re.compile(r'\s*((?:W/)?"[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)')
_MAX_HEADER_CHARS = 4096


def etag(version: int) -> str:
    return f'"{version}"'


@dataclass(frozen=True)
class Preconditions:
    """The parsed headers: ``None`` when absent, ``("*",)`` for ``*``, else the tags."""

    if_match: tuple[str, ...] | None = None
    if_none_match: tuple[str, ...] | None = None

    @staticmethod
    def parse(if_match: str | None, if_none_match: str | None) -> Preconditions:
        return Preconditions(_parse(if_match, "If-Match"), _parse(if_none_match, "If-None-Match"))

    @property
    def empty(self) -> bool:
        return self.if_match is None and self.if_none_match is None

    def check(self, head: Head | None, memory_id: str) -> None:
        """``PreconditionFailed`` unless the memory's current head meets the conditions."""
        current = None if head is None or head.deleted else etag(head.version)
        if self.if_match is not None:
            held = (
                current is not None
                if self.if_match == (ANY,)
                else current is not None and current in self.if_match  # strong comparison
            )
            if not held:
                raise PreconditionFailed(_failed("If-Match", memory_id, current))
        if self.if_none_match is not None:
            if self.if_none_match == (ANY,):
                held = current is None
            else:
                weak = {t.removeprefix("W/") for t in self.if_none_match}
                held = current is None or current not in weak
            if not held:
                raise PreconditionFailed(_failed("If-None-Match", memory_id, current))


def _failed(header: str, memory_id: str, current: str | None) -> str:
    # No version in the answer: the caller may not be allowed to read the memory.
    now = "does not exist" if current is None else "is at another version"
    if header == "If-None-Match":
        now = "exists" if current is not None else now
    return f"{header} does not hold: memory {memory_id!r} {now}; nothing was written"


def _parse(value: str | None, header: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    text = value.strip()
    if text == ANY:
        return (ANY,)
    bad = InvalidInput(
        header,
        "entity_tag",
        f'{header} must be * or a list of entity tags such as "3" (an ETag this API sent)',
    )
    if not text or len(text) > _MAX_HEADER_CHARS:
        raise bad
    tags: list[str] = []
    pos = 0
    while pos < len(text):
        match = _TAG.match(text, pos)
        if match is None:
            raise bad
        tags.append(match.group(1))
        pos = match.end()
    return tuple(tags)
