"""The distributed write path (docs/design/WRITE_PATH.md): how gateways reach each
other's peer listeners, and serving without keys."""

from __future__ import annotations

from pydantic import Field

from .section import Section


class PeerSettings(Section):
    peer_listen: str = Field(
        default="127.0.0.1:0",
        description="Where this gateway's peer listener binds (`host:port`; port 0 = any "
        "free port); other gateways forward appends for its partitions there.",
    )
    peer_url: str = Field(
        default="",
        description="The URL other gateways reach the peer listener at (default "
        "`http://<listen host>:<bound port>`).",
    )
    peer_token: str = Field(
        default="",
        description="A shared secret every gateway presents to the others' peer listeners.",
    )
    insecure_open: bool = Field(
        default=False,
        description="Serve without API keys on an address beyond loopback (development only).",
    )
