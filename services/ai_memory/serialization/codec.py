"""The optional last stage of the pipeline: bytes ↔ bytes (encryption, compression).

A codec wraps the whole single-object frame. The default is the identity; a real codec must
frame its own output so that ``decode`` can tell its payloads apart.
"""

from __future__ import annotations

from typing import Protocol


class Codec(Protocol):
    def encode(self, data: bytes) -> bytes: ...

    def decode(self, data: bytes) -> bytes: ...


class IdentityCodec:
    """Leaves the bytes as they are."""

    def encode(self, data: bytes) -> bytes:
        return data

    def decode(self, data: bytes) -> bytes:
        return data
