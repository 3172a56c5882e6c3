"""Who may do what, attacked where it is decided: every use case of the services facade,
called as every kind of caller — a reader, writer, admin and operator key, and the
deployment itself (no key in force) — on its own scope, another scope of its tenant,
and what only another tenant holds, against the in-memory adapters.

Each case names its answer for every caller exactly: ``ok`` or the stable code of the
refusal. A refused call appends nothing to the log (of its tenant or any other), and
learns nothing: a memory of another scope answers the same whether it lives or was
forgotten, and an id of another tenant answers as an id that never existed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.access import AccessPrincipal
from ai_memory.core.access.policy import PUBLIC
from ai_memory.core.errors import AiMemoryError, Unauthenticated
from ai_memory.service.access import Caller, Embedded
from ai_memory.service.facade import Services
from ai_memory.service.memory_service import SearchRequest
from ai_memory.service.webhooks import WebhookRequest

OWN, OTHER, AGENT = "user:alice", "team:ops", "bot"
CALLERS = ("reader", "writer", "admin", "operator", "open")
# An operator key created deployment-wide (tenant ``*``): answered as the tenant's own
# operator everywhere but where a tenant is named (DEPLOYMENT_WIDE below).
EVERY_TENANT = "operator of every tenant"
LIMITED = ("reader", "writer")  # the keys that reach only some scopes of their tenant
# Codes, short.
OK, RF, SF, NF, GONE = "ok", "role_forbidden", "scope_forbidden", "memory_not_found", "gone"


def caller_of(kind: str, tenant: str) -> Caller:
    """A caller of ``tenant``: a key limited to its own scopes (reader, writer), one of
    every scope (admin, operator), or the deployment itself (``open``)."""
    if kind == "open":
        return Embedded(tenant)
    if kind == EVERY_TENANT:
        return AccessPrincipal("*", "key-ops", "operator", ())
    scopes = (OWN, f"agent:{AGENT}") if kind in ("reader", "writer") else ()
    return AccessPrincipal(tenant, f"key-{kind}", kind, scopes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class World:
    """A tenant's memories, seeded by the deployment: ``mine`` (own scope), ``theirs``
    (another scope), each also forgotten (``gone-…``), and ``elsewhere``, an id only
    another tenant (``other``) holds."""

    tenant: str
    other: str


def seed(services: Services, tenant: str) -> World:
    world = World(tenant, f"{tenant}-x")
    memory = services.memory

    def put(who: str, memory_id: str, scope: str) -> None:
        body = {"type": "fact", "content": f"{memory_id} says", "scope": scope}
        memory.write(who, body | {"source_agent": "seed"}, memory_id=memory_id, wait=True)

    put(tenant, "mine", OWN)
    put(tenant, "theirs", OTHER)
    for memory_id, scope in (("gone-mine", OWN), ("gone-theirs", OTHER)):
        put(tenant, memory_id, scope)
        memory.delete(tenant, memory_id, actor="seed", wait=True)
    put(world.other, "elsewhere", OWN)
    return world


def body(scope: str) -> dict[str, Any]:
    return {"type": "fact", "content": "a fact", "scope": scope, "source_agent": "a"}


def batch(s: Services, who: Caller, scope: str) -> None:
    (item,) = s.memory.write_many(who, [body(scope) | {"id": "batched"}])
    if item.error is not None:
        raise item.error


def imported(s: Services, who: Caller, scope: str) -> None:
    session = s.transfer.begin_import(who)
    line = json.dumps(body(scope) | {"id": "imp"})
    session.feed([(1, line)])
    report = session.finish().to_json()
    if report["errors"]:
        raise AiMemoryError(report["errors"][0]["message"], code=report["errors"][0]["code"])


def search(s: Services, who: Caller, scopes: list[str] | None) -> None:
    s.memory.search(who, SearchRequest("says", scopes=scopes))


def erasures(s: Services) -> Any:
    assert s.erasures is not None
    return s.erasures


Call = Callable[[Services, Caller, World], object]
# The answer of each caller, in the order of CALLERS.
Answers = tuple[str, str, str, str, str]
READ_OWN: Answers = (OK, OK, OK, RF, OK)
READ_OTHER: Answers = (SF, SF, OK, RF, OK)
WRITE_OWN: Answers = (RF, OK, OK, RF, OK)
WRITE_OTHER: Answers = (RF, SF, OK, RF, OK)
ADMIN_ONLY: Answers = (RF, RF, OK, RF, OK)
MISSING: Answers = (NF, NF, NF, RF, NF)
NO_HOOK: Answers = (RF, RF, "webhook_not_found", RF, "webhook_not_found")
# A literal public address: judged without a resolver, and nothing is delivered here.
HOOK = WebhookRequest("https://93.184.216.34/hook", ["*"])

CASES: dict[str, tuple[Call, Answers]] = {
    # memory: write, batch, read, forget, search, list
    "write own scope": (lambda s, w, t: s.memory.write(w, body(OWN)), WRITE_OWN),
    "write other scope": (lambda s, w, t: s.memory.write(w, body(OTHER)), WRITE_OTHER),
    "write public": (lambda s, w, t: s.memory.write(w, body(PUBLIC)), WRITE_OTHER),
    "upsert other scope's id into own": (
        lambda s, w, t: s.memory.write(w, body(OWN), memory_id="theirs"),
        (RF, SF, "scope_immutable", RF, "scope_immutable"),
    ),
    "upsert other scope's forgotten id into own": (
        lambda s, w, t: s.memory.write(w, body(OWN), memory_id="gone-theirs"),
        (RF, SF, GONE, RF, GONE),
    ),
    "upsert other tenant's id": (
        lambda s, w, t: s.memory.write(w, body(OWN), memory_id="elsewhere"),
        WRITE_OWN,
    ),
    "batch own scope": (lambda s, w, t: batch(s, w, OWN), WRITE_OWN),
    "batch other scope": (lambda s, w, t: batch(s, w, OTHER), WRITE_OTHER),
    "get own": (lambda s, w, t: s.memory.get(w, "mine"), READ_OWN),
    "get other scope": (lambda s, w, t: s.memory.get(w, "theirs"), READ_OTHER),
    "get own forgotten": (lambda s, w, t: s.memory.get(w, "gone-mine"), (GONE,) * 3 + (RF, GONE)),
    "get other scope forgotten": (
        lambda s, w, t: s.memory.get(w, "gone-theirs"),
        (SF, SF, GONE, RF, GONE),
    ),
    "get missing": (lambda s, w, t: s.memory.get(w, "never"), MISSING),
    "get other tenant's": (lambda s, w, t: s.memory.get(w, "elsewhere"), MISSING),
    "show own to forget": (lambda s, w, t: s.memory.get(w, "mine", to="forget"), WRITE_OWN),
    "show other scope to forget": (
        lambda s, w, t: s.memory.get(w, "theirs", to="forget"),
        WRITE_OTHER,
    ),
    "forget own": (lambda s, w, t: s.memory.delete(w, "mine", actor="t"), WRITE_OWN),
    "forget other scope": (lambda s, w, t: s.memory.delete(w, "theirs", actor="t"), WRITE_OTHER),
    "forget other scope forgotten": (
        lambda s, w, t: s.memory.delete(w, "gone-theirs", actor="t"),
        WRITE_OTHER,
    ),
    "forget missing": (
        lambda s, w, t: s.memory.delete(w, "never", actor="t"),
        (RF, NF, NF, RF, NF),
    ),
    "forget other tenant's": (
        lambda s, w, t: s.memory.delete(w, "elsewhere", actor="t"),
        (RF, NF, NF, RF, NF),
    ),
    "search own scope": (lambda s, w, t: search(s, w, [OWN]), READ_OWN),
    "search other scope": (lambda s, w, t: search(s, w, [OTHER]), READ_OTHER),
    "search every readable scope": (lambda s, w, t: search(s, w, None), READ_OWN),
    "list own scope": (lambda s, w, t: s.memory.list_memories(w, {"scopes": [OWN]}), READ_OWN),
    "list other scope": (
        lambda s, w, t: s.memory.list_memories(w, {"scopes": [OTHER]}),
        READ_OTHER,
    ),
    "list with a forged cursor": (
        lambda s, w, t: s.memory.list_memories(w, {"cursor": "forged"}),
        ("invalid_input",) * 3 + (RF, "invalid_input"),
    ),
    # notes: an agent's notebook lives in agent:<agent>
    "save own agent's note": (
        lambda s, w, t: s.notes.save(w, AGENT, "diet", "vegan"),
        WRITE_OWN,
    ),
    "save other agent's note": (lambda s, w, t: s.notes.save(w, "spy", "diet", "x"), WRITE_OTHER),
    "recall own agent's notes": (lambda s, w, t: s.notes.recall(w, AGENT, None), READ_OWN),
    "recall other agent's notes": (lambda s, w, t: s.notes.recall(w, "spy", None), READ_OTHER),
    # governance
    "record interaction in own scope": (
        lambda s, w, t: s.governance.record_interaction(
            w, {"scope": OWN, "source_agent": "a", "text": "I live in Paris"}
        ),
        WRITE_OWN,
    ),
    "record interaction in other scope": (
        lambda s, w, t: s.governance.record_interaction(
            w, {"scope": OTHER, "source_agent": "a", "text": "I live in Rome"}
        ),
        WRITE_OTHER,
    ),
    "persona of own scope": (lambda s, w, t: s.governance.persona(w, OWN), READ_OWN),
    "persona of other scope": (lambda s, w, t: s.governance.persona(w, OTHER), READ_OTHER),
    "episodes of own scope": (lambda s, w, t: s.governance.episodes(w, OWN), READ_OWN),
    "episodes of other scope": (lambda s, w, t: s.governance.episodes(w, OTHER), READ_OTHER),
    "run the governor": (lambda s, w, t: s.governance.govern(w), ADMIN_ONLY),
    "lineage of own": (lambda s, w, t: s.governance.lineage(w, "mine"), READ_OWN),
    "lineage of other scope": (lambda s, w, t: s.governance.lineage(w, "theirs"), READ_OTHER),
    "lineage of own forgotten": (
        lambda s, w, t: s.governance.lineage(w, "gone-mine"),
        (SF, SF, OK, RF, OK),
    ),
    "lineage of other scope forgotten": (
        lambda s, w, t: s.governance.lineage(w, "gone-theirs"),
        (SF, SF, OK, RF, OK),
    ),
    "lineage of missing": (lambda s, w, t: s.governance.lineage(w, "never"), MISSING),
    "lineage of other tenant's": (lambda s, w, t: s.governance.lineage(w, "elsewhere"), MISSING),
    # transfer
    "export own scope": (lambda s, w, t: list(s.transfer.export(w, [OWN])), READ_OWN),
    "export other scope": (lambda s, w, t: list(s.transfer.export(w, [OTHER])), READ_OTHER),
    "export every readable scope": (lambda s, w, t: list(s.transfer.export(w, None)), READ_OWN),
    "import into own scope": (lambda s, w, t: imported(s, w, OWN), WRITE_OWN),
    "import into other scope": (lambda s, w, t: imported(s, w, OTHER), WRITE_OTHER),
    # the change feed
    "changes of own scope": (lambda s, w, t: _changes(s).page(w, [OWN]), READ_OWN),
    "changes of other scope": (lambda s, w, t: _changes(s).page(w, [OTHER]), READ_OTHER),
    "changes of every readable scope": (lambda s, w, t: _changes(s).page(w, None), READ_OWN),
    "follow other scope": (lambda s, w, t: _changes(s).scopes(w, [OTHER]), READ_OTHER),
    # the audit trail: an admin or operator key its own tenant's, a deployment-wide
    # operator the one it names
    "audit own tenant": (
        lambda s, w, t: _audit(s).page(w),
        (RF, RF, OK, OK, OK),
    ),
    "audit other tenant": (
        lambda s, w, t: _audit(s).page(w, tenant=t.other),
        (RF, RF, "tenant_forbidden", "tenant_forbidden", OK),
    ),
    # usage: likewise; the answer for a tenant that does not exist is the answer for
    # one that does
    "usage of own tenant": (
        lambda s, w, t: _usage(s).usage(w),
        (RF, RF, OK, OK, OK),
    ),
    "usage of other tenant": (
        lambda s, w, t: _usage(s).usage(w, tenant=t.other),
        (RF, RF, "tenant_forbidden", "tenant_forbidden", OK),
    ),
    "usage of a tenant that never existed": (
        lambda s, w, t: _usage(s).usage(w, tenant="no-such-tenant"),
        (RF, RF, "tenant_forbidden", "tenant_forbidden", OK),
    ),
    "usage of own tenant named": (
        lambda s, w, t: _usage(s).usage(w, tenant=t.tenant),
        (RF, RF, OK, OK, OK),
    ),
    "usage of a malformed tenant": (
        lambda s, w, t: _usage(s).usage(w, tenant="Not A Tenant"),
        (RF, RF, "tenant_forbidden", "tenant_forbidden", "invalid_input"),
    ),
    # erasure: an owner of the tenant only
    "erase own scope": (
        lambda s, w, t: erasures(s).erase(
            w, erasures(s).parse({"scope": OWN, "reason": "asked"}), actor="t"
        ),
        ADMIN_ONLY,
    ),
    "erasure receipt of missing": (
        lambda s, w, t: erasures(s).receipt(w, "era-none"),
        (RF, RF, "erasure_not_found", RF, "erasure_not_found"),
    ),
    "forget missing interaction": (
        lambda s, w, t: erasures(s).forget_interaction(w, "turn-1", reason="r", actor="t"),
        (RF, RF, "interaction_not_found", RF, "interaction_not_found"),
    ),
    "receipt key": (lambda s, w, t: erasures(s).receipt_key(w), ADMIN_ONLY),
    # webhooks: an owner of the tenant only; another tenant's is one that never existed
    "create webhook": (lambda s, w, t: _webhooks(s).create(w, HOOK), ADMIN_ONLY),
    "list webhooks": (lambda s, w, t: _webhooks(s).list_of(w), ADMIN_ONLY),
    "get missing webhook": (lambda s, w, t: _webhooks(s).get(w, "wh_0000000000000000"), NO_HOOK),
    "get other tenant's webhook": (lambda s, w, t: _webhooks(s).get(w, _theirs(s, t)), NO_HOOK),
    "delete other tenant's webhook": (
        lambda s, w, t: _webhooks(s).delete(w, _theirs(s, t)),
        NO_HOOK,
    ),
    "resume other tenant's webhook": (
        lambda s, w, t: _webhooks(s).resume(w, _theirs(s, t)),
        NO_HOOK,
    ),
}


# What a deployment-wide operator is answered where it differs from a tenant's operator.
DEPLOYMENT_WIDE = {
    "audit own tenant": "invalid_input",  # it has no tenant of its own: it names one
    "audit other tenant": OK,
    "usage of own tenant": "invalid_input",
    "usage of other tenant": OK,
    "usage of a tenant that never existed": OK,
    "usage of a malformed tenant": "invalid_input",
}


def _changes(s: Services) -> Any:
    assert s.changes is not None
    return s.changes


def _audit(s: Services) -> Any:
    assert s.audit is not None
    return s.audit


def _usage(s: Services) -> Any:
    assert s.usage is not None
    return s.usage


def _webhooks(s: Services) -> Any:
    assert s.webhooks is not None
    return s.webhooks


def _theirs(s: Services, world: World) -> str:
    """A webhook only the other tenant holds."""
    return str(_webhooks(s).create(world.other, HOOK).id)


def answer(call: Callable[..., object], *args: object) -> tuple[str, str]:
    """``(code, message)`` of what a call answered (``ok`` when it did not refuse)."""
    try:
        call(*args)
    except AiMemoryError as e:
        return (GONE if e.code == "memory_forgotten" else e.code), e.message
    return OK, ""


def events(container: Container, tenant: str) -> int:
    log = container.log
    return sum(
        len(log.read_tenant(tenant, after=0, limit=100_000, scan=10**9, partition=p).events)
        for p in log.partitions()
    )


@pytest.fixture
def world(container: Container, request: pytest.FixtureRequest) -> World:
    """A tenant of this test alone (the test's name is too long to be one)."""
    name = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:20]
    return seed(container.services, f"acc-{name}")


@pytest.mark.parametrize("kind", [*CALLERS, EVERY_TENANT])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_use_case_answers_each_caller_exactly(
    container: Container, world: World, case: str, kind: str
) -> None:
    call, answers = CASES[case]
    if kind == EVERY_TENANT:
        expected = DEPLOYMENT_WIDE.get(case, answers[CALLERS.index("operator")])
    else:
        expected = answers[CALLERS.index(kind)]
    who = caller_of(kind, world.tenant)
    before = events(container, world.tenant), events(container, world.other)
    code, message = answer(call, container.services, who, world)
    assert code == expected, f"{case} as {kind}: {code} ({message})"
    if code != OK and case.startswith("import"):
        # The import ran; its refused line is in the report, and only the import's own
        # provenance (MemoriesImported, counting it rejected) was appended.
        assert answer(container.services.memory.get, world.tenant, "imp")[0] == NF
    elif code != OK:  # a refusal changes nothing, and names no scope the key may not reach
        assert (events(container, world.tenant), events(container, world.other)) == before
        if kind in LIMITED:
            assert OTHER not in message and "spy" not in message


@pytest.mark.parametrize("kind", LIMITED)
def test_a_forgotten_memory_elsewhere_answers_as_a_live_one(
    container: Container, world: World, kind: str
) -> None:
    """A key limited to some scopes cannot tell a live memory of another scope from a
    forgotten one: same code, same words, by every use case that takes an id."""
    s, who = container.services, caller_of(kind, world.tenant)
    uses: list[Callable[[str], object]] = [
        lambda i: s.memory.get(who, i),
        lambda i: s.governance.lineage(who, i),
        lambda i: s.memory.delete(who, i, actor="t"),
        lambda i: s.memory.write(who, body(OWN), memory_id=i),
        lambda i: s.memory.get(who, i, to="forget"),
    ]
    for use in uses:
        assert answer(use, "theirs") == answer(use, "gone-theirs")


@pytest.mark.parametrize("kind", ("reader", "writer", "admin", "open"))
def test_another_tenants_id_answers_as_one_that_never_existed(
    container: Container, world: World, kind: str
) -> None:
    s, who = container.services, caller_of(kind, world.tenant)
    uses: list[Callable[[str], object]] = [
        lambda i: s.memory.get(who, i),
        lambda i: s.governance.lineage(who, i),
        lambda i: s.memory.delete(who, i, actor="t"),
    ]
    for use in uses:
        elsewhere, never = answer(use, "elsewhere"), answer(use, "nowhere")
        assert elsewhere[0] == never[0] != OK
        assert elsewhere[1].replace("elsewhere", "?") == never[1].replace("nowhere", "?")


@pytest.mark.parametrize("kind", LIMITED)
def test_what_a_limited_key_reads_comes_only_from_its_scopes(
    container: Container, world: World, kind: str
) -> None:
    s, who = container.services, caller_of(kind, world.tenant)
    hits = s.memory.search(who, SearchRequest("says"))
    assert {h.stored.record.id for h in hits} == {"mine"}
    listed = s.memory.list_memories(who, {})
    assert {m.record.id for m in listed.items} == {"mine"}
    exported = "".join(s.transfer.export(who, None))
    assert '"mine"' in exported and "theirs" not in exported and "elsewhere" not in exported
    page = _changes(s).page(who, None)
    assert {c.id for c in page.changes} <= {"mine", "gone-mine"}


def test_every_facade_use_case_is_attacked() -> None:
    """A use case added to a service must be added here (a name of a case or below)."""
    attacked = (
        {
            ("MemoryService", n)
            for n in ("write", "write_many", "get", "delete", "search", "list_memories")
        }
        | {
            ("NotesService", "save"),
            ("NotesService", "recall"),
            ("GovernanceService", "record_interaction"),
            ("GovernanceService", "persona"),
            ("GovernanceService", "episodes"),
            ("GovernanceService", "govern"),
            ("GovernanceService", "lineage"),
            ("TransferService", "export"),
            ("TransferService", "begin_import"),
            ("ChangeFeed", "page"),
            ("ChangeFeed", "scopes"),
            ("AuditService", "page"),
            ("ErasureService", "erase"),
            ("ErasureService", "receipt"),
            ("ErasureService", "forget_interaction"),
            ("ErasureService", "receipt_key"),
            ("ErasureService", "owner"),
            ("UsageService", "usage"),
        }
        | {("WebhookService", n) for n in ("create", "list_of", "get", "delete", "resume")}
    )
    import inspect

    from ai_memory.service import (
        audit,
        changes,
        erasure,
        governance,
        memory_service,
        notes,
        transfer,
        usage,
        webhooks,
    )

    taking_a_caller = set()
    modules = (
        memory_service,
        notes,
        governance,
        transfer,
        changes,
        audit,
        erasure,
        usage,
        webhooks,
    )
    for module in modules:
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for name, fn in inspect.getmembers(cls, inspect.isfunction):
                params = list(inspect.signature(fn).parameters)
                if not name.startswith("_") and params[1:2] == ["who"]:
                    taking_a_caller.add((cls_name, name))
    assert taking_a_caller == attacked


def test_usage_of_another_tenant_says_nothing_of_whether_it_exists(
    container: Container, world: World
) -> None:
    """An admin naming another tenant hears the same refusal, word for word, whether
    that tenant holds memories or never existed."""
    usage, admin = _usage(container.services), caller_of("admin", world.tenant)
    assert container.services.memory.get(world.other, "elsewhere")  # it exists
    existing = answer(lambda: usage.usage(admin, tenant=world.other))
    never = answer(lambda: usage.usage(admin, tenant="no-such-tenant"))
    assert existing == never and existing[0] == "tenant_forbidden"
    assert world.other not in existing[1]


@pytest.mark.parametrize("state", ["revoked", "wrong secret"])
def test_a_key_that_is_not_valid_never_becomes_a_caller(container: Container, state: str) -> None:
    """Key states are settled before any use case runs: only a valid key is a caller
    (expiry and the key cache are attacked in test_keys.py)."""
    keys = container.services.keys
    assert keys is not None
    issued = keys.create(tenant="acme", role="admin", scopes=["*"], name=f"k-{state}")
    token = issued.token
    if state == "revoked":
        keys.revoke(issued.key.key_id)
    else:
        token = token[:-4] + ("aaaa" if not token.endswith("aaaa") else "bbbb")
    with pytest.raises(Unauthenticated):
        keys.authenticate(token)
