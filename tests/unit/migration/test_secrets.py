"""Secrets (the service's one detector) and personal data: each kind found and masked;
ordinary prose left alone."""

from __future__ import annotations

import pytest

from ai_memory.migration.secrets import mask, redact, scan


@pytest.mark.parametrize(
    ("text", "kind", "masked"),
    [
        ("key sk-proj-abcdefghijklmnopqrstuvwxyz0123 here", "openai_key", "sk-p…23 (38 chars)"),
        ("aws AKIAIOSFODNN7EXAMPLE", "aws_key", "AKIA…LE (20 chars)"),
        ("token ghp_" + "a" * 36, "github_token", "ghp_…aa (40 chars)"),
        ("Authorization: Bearer abcdefghijklmnop1234", "bearer_token", "abcd…34 (20 chars)"),
        ("db password=hunter22xyz", "credential", "hunt…yz (11 chars)"),
        ("the db is at 192.168.1.20 now", "private_ip", "192.168.x.x"),
        ("proxy 10.0.12.7:3128", "private_ip", "10.0.x.x"),
        ("host 172.16.0.5", "private_ip", "172.16.x.x"),
        ("mail alice.smith@example.com please", "email", "a***@e***.com"),
        ("手机 13812345678", "phone", "138****78"),
        ("call +86 138 1234 5678", "phone", "+861****78"),
        ("US (555) 123-4567", "phone", "555****67"),
        ("office +44 20 7946 0958", "phone", "+442****58"),
    ],
)
def test_finds_and_masks_each_kind(text: str, kind: str, masked: str) -> None:
    findings = scan(text)
    assert [f.kind for f in findings] == [kind]
    assert mask(findings[0]) == masked
    assert findings[0].value not in mask(findings[0]) or kind == "private_ip"


@pytest.mark.parametrize(
    "text",
    [
        "Alice prefers tea over coffee and wants replies in German.",
        "用户喜欢简洁的回答，不要长表格。",
        "Meeting on 2024-03-12 at 10:30; release 1.2.3; build 2024.03.12.",
        "Unix time 1710000000 or 1710000000000 ms; order #12345678; pi is 3.14159265.",
        "Public DNS is 8.8.8.8 and 172.32.1.1 is not private; version 10.0.0 shipped.",
        "The token budget is 4096 and the password policy needs 12 characters.",
        "She wrote to the team about the sk-learn upgrade and the @mention feature.",
        "Invoice 2024-0001-2345 was paid; ISBN 978-3-16-148410-0.",
    ],
)
def test_ordinary_prose_has_no_findings(text: str) -> None:
    assert scan(text) == []


def test_redact_replaces_every_finding_and_keeps_the_rest() -> None:
    text = "Bob (bob@corp.io, 13812345678) uses key sk-abcdefghijklmnopqrstuvwx on 10.1.2.3."
    redacted, findings = redact(text)
    assert [f.kind for f in findings] == ["email", "phone", "openai_key", "private_ip"]
    assert redacted == (
        "Bob ([REDACTED:email], [REDACTED:phone]) uses key [REDACTED:openai_key] "
        "on [REDACTED:private_ip]."
    )
    assert redact("nothing here") == ("nothing here", [])


def test_private_key_block_is_one_finding() -> None:
    text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- done"
    (finding,) = scan(text)
    assert finding.kind == "private_key"
    assert text[finding.end :] == " done"
