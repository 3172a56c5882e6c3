"""The HTTP sender of deliveries against a real loopback receiver: the destination is
resolved and judged again at every attempt and the connection goes to the address
judged (DNS rebinding reaches nothing), the name stays in ``Host``; redirects are not
followed; a silent receiver times out; the answer's body is never needed."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ai_memory.adapters.webhook_http import HttpWebhookSender
from ai_memory.core.errors import InvalidInput
from ai_memory.core.webhooks.destinations import AddressPolicy


class Rebinding:
    """A resolver whose answers a test scripts, one list per lookup."""

    def __init__(self, *answers: list[str]) -> None:
        self.answers = list(answers)
        self.lookups: list[str] = []

    def resolve(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        if host in ("127.0.0.1", "::1"):
            return [host]
        if not self.answers:
            raise InvalidInput("url", "resolvable", "no answer")
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class Seen:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, bytes]] = []  # (path, Host, body)
        self.status = 204
        self.delay = 0.0


@pytest.fixture
def receiver() -> Iterator[tuple[int, Seen]]:
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            seen.requests.append((self.path, self.headers.get("Host", ""), body))
            if seen.delay:
                threading.Event().wait(seen.delay)
            self.send_response(seen.status)
            if seen.status in (301, 302, 307, 308):
                self.send_header("Location", f"http://127.0.0.1:{self.server.server_port}/x")
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"hello")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port, seen
    server.shutdown()
    server.server_close()


def send(sender: HttpWebhookSender, url: str) -> Any:
    async def once() -> Any:
        try:
            return await sender.send(url, b'{"events":[]}', {"X-AIMemory-Event-Id": "dlv_1"})
        finally:
            await sender.aclose()

    return asyncio.run(once())


def test_a_name_rebound_to_a_private_address_is_refused_at_delivery(
    receiver: tuple[int, Seen],
) -> None:
    port, seen = receiver
    # Public when subscribed, loopback at delivery: judged again, nothing sent.
    resolver = Rebinding(["127.0.0.1"])
    attempt = send(
        HttpWebhookSender(AddressPolicy(), timeout=5, resolver=resolver),
        f"http://hooks.test:{port}/in",
    )
    assert attempt.status is None and "destination refused" in (attempt.error or "")
    assert "127.0.0.1" in (attempt.error or "") and seen.requests == []
    assert attempt.refused_destination  # counted apart from the receiver's failures
    # One allowed address and one not: refused too (the resolver could pick either).
    mixed = Rebinding(["93.184.216.34", "10.0.0.1"])
    attempt = send(
        HttpWebhookSender(AddressPolicy(), timeout=5, resolver=mixed),
        f"http://hooks.test:{port}/in",
    )
    assert attempt.status is None and attempt.refused_destination and seen.requests == []


def test_the_connection_goes_to_the_address_checked_and_keeps_the_name(
    receiver: tuple[int, Seen],
) -> None:
    port, seen = receiver
    policy = AddressPolicy.of(False, ["127.0.0.0/8"])  # an internal receiver, allowed
    resolver = Rebinding(["127.0.0.1"])
    attempt = send(
        HttpWebhookSender(policy, timeout=5, resolver=resolver), f"http://hooks.test:{port}/in?a=1"
    )
    assert attempt.ok and attempt.status == 204 and attempt.error is None
    assert not attempt.refused_destination
    assert resolver.lookups == ["hooks.test"]
    assert seen.requests == [("/in?a=1", f"hooks.test:{port}", b'{"events":[]}')]


def test_redirects_are_failures_not_followed(receiver: tuple[int, Seen]) -> None:
    port, seen = receiver
    seen.status = 307
    sender = HttpWebhookSender(AddressPolicy(allow_private=True), timeout=5)
    attempt = send(sender, f"http://127.0.0.1:{port}/in")
    assert (attempt.ok, attempt.status) == (False, 307)
    assert len(seen.requests) == 1  # the Location was not visited


@pytest.mark.parametrize("status", [400, 404, 500, 503])
def test_refusals_are_failed_attempts_with_their_status(
    receiver: tuple[int, Seen], status: int
) -> None:
    port, seen = receiver
    seen.status = status
    attempt = send(
        HttpWebhookSender(AddressPolicy(allow_private=True), timeout=5), f"http://127.0.0.1:{port}/"
    )
    assert (attempt.ok, attempt.status, attempt.error) == (False, status, f"HTTP {status}")


def test_a_silent_receiver_times_out(receiver: tuple[int, Seen]) -> None:
    port, seen = receiver
    seen.delay = 2.0
    attempt = send(
        HttpWebhookSender(AddressPolicy(allow_private=True), timeout=0.3),
        f"http://127.0.0.1:{port}/",
    )
    assert attempt.status is None and attempt.error == "timed out"


def test_nothing_listening_is_a_failed_attempt() -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as closed:
        port = closed.server_port
    attempt = send(
        HttpWebhookSender(AddressPolicy(allow_private=True), timeout=2), f"http://127.0.0.1:{port}/"
    )
    assert attempt.status is None and attempt.error


def test_https_pinned_to_the_address_checks_the_certificate_against_the_name(
    tmp_path: Path,
) -> None:
    """The URL is rewritten to the address, but TLS still names the host: a certificate
    for the name passes, the same connection named otherwise fails verification."""
    ca_context, server_context = _certificates(tmp_path, "hooks.test")
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            seen.requests.append((self.path, self.headers.get("Host", ""), body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = server_context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_port
    policy = AddressPolicy(allow_private=True)
    try:
        good = Rebinding(["127.0.0.1"])
        sender = HttpWebhookSender(policy, timeout=5, resolver=good, verify=ca_context)
        attempt = send(sender, f"https://hooks.test:{port}/in")
        assert attempt.ok, attempt.error
        assert seen.requests == [("/in", f"hooks.test:{port}", b'{"events":[]}')]
        other = Rebinding(["127.0.0.1"])
        sender = HttpWebhookSender(policy, timeout=5, resolver=other, verify=ca_context)
        attempt = send(sender, f"https://elsewhere.test:{port}/in")
        assert attempt.status is None and "CERTIFICATE" in (attempt.error or "").upper()
        assert len(seen.requests) == 1
    finally:
        server.shutdown()
        server.server_close()


def _certificates(tmp_path: Path, name: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A CA and a server certificate for ``name``: (client context, server context)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.now(UTC)

    def certificate(
        subject: str, key: ec.EllipticCurvePrivateKey, issuer: x509.Name, signer: Any, ca: bool
    ) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(issuer)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test CA")])
    ca_cert = certificate("test CA", ca_key, ca_name, ca_key, ca=True)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = certificate(name, key, ca_name, ca_key, ca=False)
    pem = serialization.Encoding.PEM
    (tmp_path / "server.pem").write_bytes(
        cert.public_bytes(pem)
        + key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(tmp_path / "server.pem")
    client_context = ssl.create_default_context(cadata=ca_cert.public_bytes(pem).decode())
    return client_context, server_context
