"""The secret policy: what a write does with a credential, decided per tenant.

Every write path (a single write, each batch item, each import line, a note, an
interaction, a forget's reason) hands what it would store to ``SecretGuard`` before an
event is built — records through ``MemoryService.admit`` — so
HTTP, MCP, A2A, the SDK, the CLI, import and migrate cannot disagree. The detector is
``ai_memory.core.secrets``. Policies:

* ``refuse`` (the default): the write is refused with 422, code ``secret_detected``,
  naming the field and the kind of credential — never the credential — and nothing is
  stored. The log is append-only: a credential that reached it stays in every replica,
  backup and export until the history is rewritten, while a refused write costs the
  caller one retry without the secret. Clients that already store such text (pasted
  configs, logs) opt in to ``redact`` or ``allow`` for their tenant.
* ``redact``: each credential in free text (content, tags, string values in meta, a
  note, an interaction's text) becomes ``[REDACTED:<kind>]`` before the event is built,
  so the log never holds it; the result names the fields that were redacted.
  Identifiers (id, scope, source_agent, meta keys, a note's agent) cannot be redacted
  meaningfully — they name things — so a credential there is refused under ``redact``
  too.
* ``allow``: stored as sent (a tenant that keeps sample keys on purpose).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import (
    Limits,
    MemoryRecord,
    safe_name,
    validate_content,
    validate_meta,
    validate_tags,
)
from ai_memory.core.secrets import (
    KIND_LABELS,
    Finding,
    SecretPolicy,
    find_secrets,
    named_secret,
    none_hold_secrets,
    redact,
)

SECRET_DETECTED = "secret_detected"


def secret_refused(
    field_name: str, findings: list[Finding], *, identifier: bool = False
) -> InvalidInput:
    """The refusal: the field and the kinds of credential, never the credential."""
    kinds = dict.fromkeys(f.kind for f in findings)
    what = ", ".join(f"{KIND_LABELS[k]} [{k}]" for k in kinds)
    why = " (an identifier cannot be redacted)" if identifier else ""
    return InvalidInput(
        field_name,
        "no_secrets",
        f"refused: {field_name} appears to contain a secret: {what}{why}; nothing was "
        "stored. Remove the credential (say where it lives instead, e.g. 'the deploy key "
        "is in the team vault') and try again.",
        code=SECRET_DETECTED,
    )


@dataclass(frozen=True)
class Screened:
    """A record as it may be stored, and the fields whose credentials were redacted."""

    record: MemoryRecord
    redacted: tuple[str, ...] = ()


@dataclass(frozen=True)
class SecretGuard:
    """The deployment's default policy and the tenants that differ from it."""

    default: SecretPolicy = "refuse"
    by_tenant: Mapping[str, SecretPolicy] = field(default_factory=dict)

    def policy(self, tenant: str) -> SecretPolicy:
        return self.by_tenant.get(tenant, self.default)

    def screen(
        self, tenant: str, record: MemoryRecord, limits: Limits, where: str = ""
    ) -> Screened:
        """``record`` as this tenant's policy lets it be stored (``InvalidInput`` with
        code ``secret_detected`` if it may not). ``where`` prefixes refused field names
        (``items[3].``); redacted names are the record's own (``content``, ``meta.x``)."""
        policy = self.policy(tenant)
        if policy == "allow" or _clean(record):
            return Screened(record)
        for name in ("id", "scope", "source_agent"):
            self.identifier(tenant, f"{where}{name}", getattr(record, name))
        redacted: list[str] = []
        content = _text(policy, where, "content", record.content, redacted)
        tags = [_text(policy, where, "tags", tag, redacted) for tag in record.tags]
        meta = _meta(policy, where, "meta", record.meta, redacted)
        if not redacted:
            return Screened(record)
        # A placeholder can be longer than what it replaced: the limits still hold.
        clean = replace(
            record,
            content=validate_content(content, limits),
            tags=validate_tags(tags, limits),
            meta=validate_meta(meta, limits),
        )
        return Screened(clean, tuple(dict.fromkeys(redacted)))

    def text(self, tenant: str, field_name: str, value: str) -> tuple[str, bool]:
        """Free text outside a record (a note, an interaction): as it may be stored, and
        whether it was redacted."""
        policy = self.policy(tenant)
        if policy == "allow":
            return value, False
        redacted: list[str] = []
        return _text(policy, "", field_name, value, redacted), bool(redacted)

    def identifier(self, tenant: str, field_name: str, value: str) -> None:
        """Refuse a credential in a name (unless the tenant allows everything)."""
        if self.policy(tenant) == "allow":
            return
        findings = find_secrets(value)
        if findings:
            raise secret_refused(field_name, findings, identifier=True)


def _clean(record: MemoryRecord) -> bool:
    """Nothing in ``record`` that ``screen`` would refuse or redact, shown at once for
    all its strings (``none_hold_secrets``); False: screen field by field. A value under
    a credential's name (``named_secret``) never passes: every such name holds one of
    the pieces the shortcut looks for (``tests/property/test_screen_at_once.py``)."""
    texts = [record.id, record.scope, record.source_agent, record.content, *record.tags]
    _meta_texts(record.meta, texts)
    return none_hold_secrets(texts)


def _meta_texts(value: Any, texts: list[str]) -> None:
    """Add the strings ``_meta`` screens (keys and string leaves) to ``texts``."""
    if isinstance(value, str):
        texts.append(value)
    elif isinstance(value, list):
        for item in value:
            _meta_texts(item, texts)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            texts.append(key)
            _meta_texts(item, texts)


def _text(policy: SecretPolicy, where: str, name: str, value: str, redacted: list[str]) -> str:
    findings = find_secrets(value)
    if not findings:
        return value
    if policy == "refuse":
        raise secret_refused(f"{where}{name}", findings)
    redacted.append(name)
    return redact(value, findings)


def _meta(policy: SecretPolicy, where: str, path: str, value: Any, redacted: list[str]) -> Any:
    """``meta`` with its string leaves screened (a value under a credential's name, such
    as ``{"db_password": "…"}``, is one); keys are names and are never redacted."""
    if isinstance(value, str):
        return _text(policy, where, path, value, redacted)
    if isinstance(value, list):
        return [
            _meta(policy, where, f"{path}[{i}]", item, redacted) for i, item in enumerate(value)
        ]
    if not isinstance(value, Mapping):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        findings = find_secrets(key)
        if findings:  # the key itself: named by its parent, which is safe to show
            raise secret_refused(f"{where}{path}", findings, identifier=True)
        child = f"{path}.{safe_name(key, 64)}"
        named = named_secret(key, item) if isinstance(item, str) else None
        if named is not None:
            if policy == "refuse":
                raise secret_refused(f"{where}{child}", [named])
            redacted.append(child)
            out[key] = redact(item, [named])
        else:
            out[key] = _meta(policy, where, child, item, redacted)
    return out
