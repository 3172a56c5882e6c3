"""GovernanceService: interactions → extracted memories, conflicts decided by the θ rule,
the governor's lifecycle transitions, lineage."""

from __future__ import annotations

from typing import Any

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.record import MemoryState
from ai_memory.service.governance import GovernanceService
from ai_memory.service.memory_service import SearchRequest
from tests.factories import FixedClock

DAY = 86_400


@pytest.fixture
def gov(container: Container) -> GovernanceService:
    return container.governance


def say(gov: GovernanceService, clock: FixedClock, tenant: str, text: str, days: float = 0) -> Any:
    clock.advance(days * DAY)
    body = {"scope": "user:alice", "source_agent": "chat", "session_id": "s1", "text": text}
    return gov.record_interaction(tenant, body, wait=True)


def states(container: Container, tenant: str) -> dict[str, MemoryState]:
    return {
        s.record.content: s.state
        for s in container.store.scan_records(tenant, scopes=["user:alice"])
    }


def test_a_new_residence_supersedes_the_old_one(
    gov: GovernanceService, container: Container, clock: FixedClock, tenant: str
) -> None:
    first = say(gov, clock, tenant, "I live in Auckland.")
    assert [m["slot"] for m in first.memories] == ["fact/residence"]
    second = say(gov, clock, tenant, "I moved to Sydney.", days=30)
    assert any(t["cause"].startswith("conflict.theta") for t in second.transitions)
    now = states(container, tenant)
    assert now["I moved to Sydney."] is MemoryState.ACTIVE
    assert now["I live in Auckland."] in (MemoryState.HISTORICAL, MemoryState.ARCHIVED)
    persona = gov.persona(tenant, "user:alice")
    assert [f["content"] for f in persona["facts"]] == ["I moved to Sydney."]
    sydney, auckland = second.memories[0]["id"], first.memories[0]["id"]
    assert gov.lineage(tenant, auckland)["superseded_by"] == [sydney]
    assert gov.lineage(tenant, sydney)["supersedes"] == [auckland]


def test_history_stays_searchable_by_state(
    gov: GovernanceService, container: Container, clock: FixedClock, tenant: str
) -> None:
    say(gov, clock, tenant, "I live in Auckland.")
    say(gov, clock, tenant, "I moved to Sydney.", days=30)
    svc = container.service

    def found(**kw: Any) -> list[str]:
        request = SearchRequest.parse(
            {"query": "Auckland", "scope": "user:alice", **kw}, svc.limits
        )
        return [h.stored.record.content for h in svc.search(tenant, request)]

    assert "I live in Auckland." not in found()
    assert "I live in Auckland." in found(states=["historical", "archived"])


def test_governor_expires_ttl_and_forgets_weak_memories_softly(
    gov: GovernanceService, container: Container, clock: FixedClock, tenant: str
) -> None:
    svc = container.service
    base = {"scope": "user:alice", "source_agent": "a"}
    svc.write(tenant, {**base, "id": "otp", "type": "fact", "content": "Code 4411.", "ttl": 60})
    weak = {"importance": 0.1, "confidence": 0.4}
    svc.write(
        tenant,
        {**base, "id": "chat", "type": "interaction", "content": "Alice said good morning.",
         "meta": {"governance": weak}},
        wait=True,
    )  # fmt: skip
    clock.advance(200 * DAY)
    done = gov.govern(tenant, wait=True)
    assert sorted(d["cause"] for d in done) == ["score.below_forget", "ttl.expired"]
    assert gov.lineage(tenant, "otp")["events"][-1]["cause"] == "ttl.expired"
    chat = gov.lineage(tenant, "chat")
    assert chat["state"] == "forgotten" and chat["events"][-1]["cause"] == "score.below_forget"
    assert svc.get(tenant, "chat").state is MemoryState.FORGOTTEN  # soft: still readable
    assert gov.govern(tenant, wait=True) == []  # nothing left to decide


def test_interaction_validation_names_the_field(gov: GovernanceService, tenant: str) -> None:
    from ai_memory.core.errors import InvalidInput

    with pytest.raises(InvalidInput) as e:
        gov.record_interaction(tenant, {"scope": "user:alice", "source_agent": "a"})
    assert e.value.field == "text"
