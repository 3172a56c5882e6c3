"""Webhook deliveries over HTTP (httpx), each re-checked and pinned to the address checked.

Every attempt resolves the subscribed host again and refuses it unless every address is
allowed by the deployment's ``AddressPolicy`` (``core.webhooks.destinations``); then it
connects to the first of those very addresses — the URL is rewritten to the address, the
``Host`` header and the TLS server name (SNI, and certificate verification) keep the
name — so a DNS answer that changes between the check and the connection (rebinding)
reaches nothing it was not checked for. Redirects are not followed (a 3xx is a failed
attempt: a redirect is a second destination nobody checked), the environment's proxy
settings are ignored, and the receiver's answer body is never read.
"""

from __future__ import annotations

import asyncio
import socket
import ssl

import httpx

from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import DeliveryAttempt
from ai_memory.core.webhooks.destinations import AddressPolicy, parse_destination

USER_AGENT = "ai-memory-webhooks/1"


class SystemResolver:
    """The operating system's resolver (``getaddrinfo``)."""

    def resolve(self, host: str, port: int) -> list[str]:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as e:
            raise InvalidInput(
                "url", "resolvable", f"the url's host does not resolve ({e})"
            ) from None
        addresses = [str(info[4][0]) for info in infos]
        if not addresses:
            raise InvalidInput("url", "resolvable", "the url's host resolves to no address")
        return list(dict.fromkeys(addresses))


class HttpWebhookSender:
    def __init__(
        self,
        policy: AddressPolicy,
        *,
        timeout: float,
        resolver: SystemResolver | None = None,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        """``verify``: how receivers' certificates are checked (the system's CAs by
        default; an ``SSLContext`` trusting a private CA)."""
        self._verify = verify
        self._policy = policy
        self._resolver = resolver or SystemResolver()
        self._timeout = timeout
        self._client: httpx.AsyncClient | None = None  # opened on the loop that sends

    def _opened(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=self._timeout,
                follow_redirects=False,
                trust_env=False,
                verify=self._verify,
            )
        return self._client

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> DeliveryAttempt:
        try:
            destination = parse_destination(url)
            addresses = await asyncio.to_thread(
                self._resolver.resolve, destination.host, destination.port
            )
        except InvalidInput as e:
            return DeliveryAttempt(None, str(e))
        refused = self._policy.first_refusal(addresses)
        if refused:
            return DeliveryAttempt(
                None, f"destination refused: {refused}", refused_destination=True
            )
        extensions = {} if destination.literal else {"sni_hostname": destination.host}
        try:
            async with self._opened().stream(
                "POST",
                destination.via(addresses[0]),
                content=body,
                headers={
                    **headers,
                    "Host": destination.host_header,
                    "Content-Type": "application/json",
                    "User-Agent": USER_AGENT,
                },
                extensions=extensions,
            ) as response:
                status = response.status_code
        except httpx.TimeoutException:
            return DeliveryAttempt(None, "timed out")
        except httpx.HTTPError as e:
            return DeliveryAttempt(None, f"{type(e).__name__}: {e}"[:300])
        if 200 <= status < 300:
            return DeliveryAttempt(status)
        return DeliveryAttempt(status, f"HTTP {status}")

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
