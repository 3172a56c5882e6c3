"""Subject erasure in process: the service calls of ``entrypoints/http/erasure_routes.py``
with the same checks, answers and errors. The in-process client acts as its tenant with
every right (an admin of it), as the HTTP routes require."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ai_memory.core import errors as core

from .._erasure import FORGET_INTERACTION_REASON, erasure_in
from ..models import ErasureOut, ErasurePublicKeyOut, ErasureReceipt
from .base import InProcessBase
from .errors import typed_errors

if TYPE_CHECKING:
    from ai_memory.service.erasure import ErasureService

__all__ = ["ErasureMethods"]

#: The actor the HTTP routes record for an erasure made without a key (open mode).
_ACTOR = "http"


class ErasureMethods(InProcessBase):
    def _erasures(self) -> ErasureService:
        erasures = self.container.services.erasures
        if erasures is None:
            raise core.NotFound("erasures are not served by this process", code="not_served")
        return erasures

    @typed_errors
    def erase(
        self,
        *,
        reason: str,
        scope: str | None = None,
        source_agent: str | None = None,
        ids: Sequence[str] | None = None,
        interaction_ids: Sequence[str] | None = None,
        everything: bool = False,
        erasure_id: str | None = None,
        wait: bool = False,
    ) -> ErasureOut:
        """As ``MemoryClient.erase`` (``POST /v1/erasures``)."""
        body = erasure_in(reason, scope, source_agent, ids, interaction_ids, everything, erasure_id)
        svc = self._erasures()
        parsed = svc.parse(body.model_dump(exclude_none=True))
        result = svc.erase(self.tenant, parsed, actor=self.actor or _ACTOR, wait=wait)
        return ErasureOut.model_validate(result.to_json())

    @typed_errors
    def erasure_receipt(self, erasure_id: str) -> ErasureReceipt:
        """As ``GET /v1/erasures/{id}``: the same signed document."""
        return ErasureReceipt.model_validate(self._erasures().receipt(self.tenant, erasure_id))

    @typed_errors
    def erasure_public_key(self) -> ErasurePublicKeyOut:
        """As ``GET /v1/erasures/public-key``."""
        from ai_memory.service.receipts import key_id

        svc = self._erasures()
        return ErasurePublicKeyOut(
            algorithm="Ed25519", key_id=key_id(svc.public_key()), pem=svc.public_key_pem()
        )

    @typed_errors
    def forget_interaction(
        self, interaction_id: str, *, reason: str = FORGET_INTERACTION_REASON, wait: bool = False
    ) -> ErasureOut:
        """As ``DELETE /v1/interactions/{id}``: 404 for a turn this tenant never had."""
        svc = self._erasures()
        if not svc.has_interaction(self.tenant, interaction_id):
            raise core.NotFound("this interaction does not exist", code="interaction_not_found")
        parsed = svc.parse({"interaction_ids": [interaction_id], "reason": reason})
        result = svc.erase(self.tenant, parsed, actor=self.actor or _ACTOR, wait=wait)
        return ErasureOut.model_validate(result.to_json())
