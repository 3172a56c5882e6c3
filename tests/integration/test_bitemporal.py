"""Two kinds of time over HTTP (docs/design/TIME.md): a user tells, in dated interactions, that
they live in Auckland (2025-01-10), moved to Sydney (2025-06-01), then to Tokyo
(2026-02-01); the three arrive in one burst today, in every order. ``as_of`` (valid time)
answers where they lived at a date between the moves; ``known_at`` (recorded time) answers
what the system believed before the Tokyo interaction was recorded."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai_memory.bootstrap import Container
from ai_memory.core.timeparse import format_timestamp
from ai_memory.migration.importers import ImportOptions
from ai_memory.migration.migrate import convert_source, import_lines
from ai_memory.sdk.in_process import InProcessClient
from tests.factories import FixedClock

TODAY = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TOLD = {
    "auckland": ("I live in Auckland.", "2025-01-10"),
    "sydney": ("I moved to Sydney.", "2025-06-01"),
    "tokyo": ("Now I live in Tokyo.", "2026-02-01"),
}
CITY = {text: city for city, (text, _) in TOLD.items()}
SCOPE = "user:alice"


def tell(client: TestClient, clock: FixedClock, city: str) -> str:
    """Record ``city``'s interaction a second after the previous one; returns the recorded
    time just before it."""
    before = format_timestamp(clock.now())
    clock.advance(1)
    text, at = TOLD[city]
    r = client.post(
        "/v1/interactions?wait=true",
        json={"scope": SCOPE, "source_agent": "chat", "text": text, "at": at},
    )
    assert r.status_code == 201, r.text
    return before


def lives(client: TestClient, **at: str) -> list[str]:
    r = client.post(
        "/v1/memories/search",
        json={"query": "where does alice live", "scope": SCOPE, "top_k": 10, **at},
    )
    assert r.status_code == 200, r.text
    return [CITY[h["record"]["content"]] for h in r.json()["results"]]


def persona(client: TestClient, **at: str) -> list[str]:
    r = client.get("/v1/persona", params={"scope": SCOPE, **at})
    assert r.status_code == 200, r.text
    return [CITY[f["content"]] for f in r.json()["facts"]]


ORDERS = list(itertools.permutations(TOLD))


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_as_of_answers_where_the_user_lived_whatever_the_arrival_order(
    client: TestClient, clock: FixedClock, order: tuple[str, ...]
) -> None:
    clock.current = TODAY
    known_before = {city: tell(client, clock, city) for city in order}
    for as_of, city in [
        ("2025-03-01", "auckland"),
        ("2025-09-01", "sydney"),
        ("2026-05-01", "tokyo"),
    ]:
        assert lives(client, as_of=as_of) == [city], (order, as_of)
        assert persona(client, as_of=as_of) == [city], (order, as_of)
    assert lives(client, as_of="2024-12-31") == []
    assert lives(client) == ["tokyo"]
    assert persona(client) == ["tokyo"]
    # What the system believed before the Tokyo interaction was recorded: the latest
    # statement it knew of was current.
    k = known_before["tokyo"]
    known = order[: order.index("tokyo")]
    expected = [max(known, key=lambda c: TOLD[c][1])] if known else []
    assert lives(client, known_at=k) == expected
    assert persona(client, known_at=k) == expected
    # Both times: as true in September 2025, as known before Tokyo was told.
    then = [c for c in known if TOLD[c][1] <= "2025-09-01"]
    assert lives(client, as_of="2025-09-01", known_at=k) == (
        [max(then, key=lambda c: TOLD[c][1])] if then else []
    )


def test_in_order_arrival_known_at_sees_sydney_current(
    client: TestClient, clock: FixedClock
) -> None:
    clock.current = TODAY
    tell(client, clock, "auckland")
    tell(client, clock, "sydney")
    before_tokyo = tell(client, clock, "tokyo")
    assert lives(client, known_at=before_tokyo) == ["sydney"]
    assert lives(client, known_at=before_tokyo, as_of="2025-03-01") == ["auckland"]


def lineage_of(client: TestClient, text: str, **at: str) -> dict[str, Any]:
    r = client.post(
        "/v1/memories/search",
        json={"query": text, "scope": SCOPE, "states": ["active", "historical", "archived"]},
    )
    (hit,) = [h for h in r.json()["results"] if h["record"]["content"] == text]
    out = client.get(f"/v1/memories/{hit['record']['id']}/lineage", params=at)
    assert out.status_code == 200, out.text
    return out.json()  # type: ignore[no-any-return]


def test_lineage_tells_the_validity_window_and_the_state_then(
    client: TestClient, clock: FixedClock
) -> None:
    clock.current = TODAY
    tell(client, clock, "tokyo")
    tell(client, clock, "auckland")  # late: an earlier state, it supersedes nothing
    before_sydney = tell(client, clock, "sydney")
    auckland = lineage_of(client, TOLD["auckland"][0])
    assert auckland["valid_from"] == "2025-01-10T00:00:00Z"
    assert auckland["valid_to"] == "2025-06-01T00:00:00Z"
    assert auckland["state"] == "historical"
    assert lineage_of(client, TOLD["auckland"][0], as_of="2025-03-01")["state"] == "active"
    earlier = lineage_of(client, TOLD["auckland"][0], known_at=before_sydney)
    assert earlier["valid_to"] == "2026-02-01T00:00:00Z"  # Sydney was not known yet
    tokyo = lineage_of(client, TOLD["tokyo"][0])
    assert tokyo["state"] == "active" and tokyo["valid_to"] is None


@pytest.mark.parametrize(
    ("where", "field"),
    [
        ("search", "as_of"),
        ("search", "known_at"),
        ("persona", "as_of"),
        ("persona", "known_at"),
        ("lineage", "known_at"),
    ],
)
def test_a_bad_time_is_a_problem_naming_its_field(
    client: TestClient, where: str, field: str
) -> None:
    bad = "last tuesday"
    if where == "search":
        r = client.post("/v1/memories/search", json={"query": "x", field: bad})
    elif where == "persona":
        r = client.get("/v1/persona", params={"scope": SCOPE, field: bad})
    else:
        client.post(
            "/v1/memories?wait=true",
            json={"id": "m1", "type": "fact", "content": "x", "scope": SCOPE,
                  "source_agent": "a"},
        )  # fmt: skip
        r = client.get("/v1/memories/m1/lineage", params={field: bad})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["field"] == field


def test_a_migrated_zep_edge_is_true_in_its_own_window(container: Container) -> None:
    """Graphiti's LIVES_IN edges: Berlin valid 2019-06-01 … 2025-03-01, then Lisbon;
    both recorded at import time, answered by their validity."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "migration" / "zep" / "graph.json"
    _, _, lines, _ = convert_source(fixture, "auto", ImportOptions())
    import_lines(InProcessClient(container, actor="migrate"), lines, "bundle", None)
    client = InProcessClient(container)

    def lives(as_of: str) -> list[str]:
        found = client.search("where does Alice live", scope="group:alice", as_of=as_of)
        return [h.record.content for h in found.results if "lives" in h.record.content]

    assert lives("2022-01-01") == ["Alice lives in Berlin."]
    assert lives("2025-06-01") == ["Alice lives in Lisbon."]
    assert lives("2019-01-01") == []
    berlin = client.lineage("edge-0001")
    assert (berlin.valid_from, berlin.valid_to) == ("2019-06-01T00:00:00Z", "2025-03-01T00:00:00Z")
    assert client.lineage("edge-0001", as_of="2022-01-01").state == "active"
    assert client.lineage("edge-0001", known_at="2020-01-01").state == "unknown"
    assert client.persona("group:alice", as_of="2026-01-01", known_at="2020-01-01").facts == []


_CITIES = ["Auckland", "Sydney", "Tokyo", "Lisbon", "Berlin"]
_scopes = itertools.count()


@given(
    told=st.lists(
        st.tuples(st.sampled_from(_CITIES), st.integers(min_value=0, max_value=900)),
        min_size=1,
        max_size=4,
        unique_by=(lambda t: t[0], lambda t: t[1]),
    ),
    probes=st.lists(st.integers(min_value=-10, max_value=1000), min_size=1, max_size=4),
)
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_as_of_answers_the_latest_statement_dated_by_then_in_any_arrival_order(
    client: TestClient, clock: FixedClock, told: list[tuple[str, int]], probes: list[int]
) -> None:
    """Any moves, told in any order (the list order is the arrival order): as_of a day
    answers the city of the latest move dated on or before it; known_at before an
    arrival answers the latest-dated move of those recorded by then."""
    scope = f"user:p{next(_scopes)}"
    start = datetime(2024, 1, 1, tzinfo=UTC)
    recorded_before: list[str] = []
    for city_name, day in told:
        recorded_before.append(format_timestamp(clock.now()))
        clock.advance(1)
        r = client.post(
            "/v1/interactions?wait=true",
            json={
                "scope": scope,
                "source_agent": "chat",
                "text": f"I live in {city_name}.",
                "at": format_timestamp(start + timedelta(days=day)),
            },
        )
        assert r.status_code == 201, r.text
    for probe in probes:
        as_of = format_timestamp(start + timedelta(days=probe, hours=12))
        r = client.post(
            "/v1/memories/search",
            json={"query": "where do I live", "scope": scope, "top_k": 10, "as_of": as_of},
        )
        got = [h["record"]["content"] for h in r.json()["results"]]
        dated = [(day, c) for c, day in told if day <= probe]
        expected = [f"I live in {max(dated)[1]}."] if dated else []
        assert got == expected, (told, probe)
    for i, known_at in enumerate(recorded_before):
        r = client.post(
            "/v1/memories/search",
            json={"query": "where do I live", "scope": scope, "known_at": known_at},
        )
        got = [h["record"]["content"] for h in r.json()["results"]]
        known = [(day, c) for c, day in told[:i]]
        assert got == ([f"I live in {max(known)[1]}."] if known else []), (told, i)
