"""Retries of the SDK against ``httpx.MockTransport``: 429/503 with ``Retry-After`` then
success, giving up after N, backoff growth, and never repeating a non-idempotent write."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator

import httpx
import pytest

from ai_memory.core.errors import RetryableError
from ai_memory.sdk import (
    AsyncMemoryClient,
    ConnectionFailedError,
    MemoryClient,
    MemoryIn,
    RateLimitedError,
    RetryPolicy,
    UnavailableError,
    WaitTimeoutError,
)
from ai_memory.sdk.errors import parse_retry_after

RECORD: dict[str, object] = {
    "id": "m1",
    "type": "fact",
    "content": "c",
    "scope": "user:a",
    "source_agent": "x",
    "created_at": "2024-01-01T00:00:00Z",
    "ttl": None,
    "tags": [],
    "meta": {},
    "schema_version": 1,
    "version": 1,
    "state": "active",
}
WRITE = {"record": RECORD, "position": 1, "created": True, "changed": True}


def problem(status: int, code: str, retry_after: str | None = None) -> httpx.Response:
    headers = {"content-type": "application/problem+json"}
    if retry_after is not None:
        headers["retry-after"] = retry_after
    body = {"status": status, "code": code, "detail": f"{code} happened"}
    return httpx.Response(status, json=body, headers=headers)


class Script:
    """A transport handler answering from a list and recording every request."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []
        self.bodies: list[bytes] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.bodies.append(request.read())
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def policy(sleeps: list[float], retries: int = 3, **kw: float) -> RetryPolicy:
    return RetryPolicy(
        max_retries=retries,
        sleep=sleeps.append,
        uniform=lambda a, b: b,
        **kw,  # type: ignore[arg-type]
    )


def client(script: Callable[[httpx.Request], httpx.Response], p: RetryPolicy) -> MemoryClient:
    return MemoryClient("http://memory.test", retries=p, transport=httpx.MockTransport(script))


def test_429_with_retry_after_then_success() -> None:
    sleeps: list[float] = []
    script = Script(problem(429, "rate_limited", "2"), httpx.Response(200, json=RECORD))
    assert client(script, policy(sleeps)).get("m1").id == "m1"
    assert len(script.requests) == 2
    assert sleeps == [pytest.approx(2.2)]  # Retry-After plus at most 10 % jitter


def test_503_projection_lag_then_success_and_retry_after_is_capped() -> None:
    sleeps: list[float] = []
    script = Script(problem(503, "projection_lag", "3600"), httpx.Response(200, json=WRITE))
    memory = client(script, policy(sleeps, retry_after_cap=5.0))
    assert (
        memory.upsert(
            "m1",
            MemoryIn.model_validate(
                {"type": "fact", "content": "c", "scope": "user:a", "source_agent": "x"}
            ),
        ).record.id
        == "m1"
    )
    assert sleeps == [pytest.approx(5.5)]
    assert [r.method for r in script.requests] == ["PUT", "PUT"]


def test_gives_up_after_n_retries_with_exponential_backoff() -> None:
    sleeps: list[float] = []
    script = Script(problem(503, "unavailable"))
    with pytest.raises(UnavailableError) as raised:
        client(script, policy(sleeps, retries=4)).get("m1")
    assert len(script.requests) == 5
    assert sleeps == [0.25, 0.5, 1.0, 2.0]  # uniform(0, ceiling) pinned to the ceiling
    assert raised.value.status == 503 and raised.value.code == "unavailable"
    assert isinstance(raised.value, RetryableError)


def test_backoff_ceiling_and_zero_retries() -> None:
    sleeps: list[float] = []
    p = policy(sleeps, retries=10, backoff_max=1.0)
    assert [p.backoff(n) for n in range(5)] == [0.25, 0.5, 1.0, 1.0, 1.0]
    script = Script(problem(429, "rate_limited", "1"))
    with pytest.raises(RateLimitedError) as raised:
        client(script, RetryPolicy(max_retries=0)).get("m1")
    assert len(script.requests) == 1 and raised.value.retry_after == 1.0


def test_create_without_id_is_never_repeated_after_it_may_have_arrived() -> None:
    sleeps: list[float] = []
    script = Script(problem(503, "projection_lag", "1"), httpx.Response(201, json=WRITE))
    record = MemoryIn.model_validate(
        {"type": "fact", "content": "c", "scope": "user:a", "source_agent": "x"}
    )
    with pytest.raises(WaitTimeoutError):
        client(script, policy(sleeps)).create(record, wait=True)
    assert len(script.requests) == 1 and sleeps == []

    # ...but a connection that was never established sent nothing: safe to retry.
    script = Script(httpx.ConnectError("refused"), httpx.Response(201, json=WRITE))
    assert client(script, policy(sleeps)).create(record).created
    assert len(script.requests) == 2

    # A read timeout may have delivered it: not repeated.
    script = Script(httpx.ReadTimeout("slow"), httpx.Response(201, json=WRITE))
    with pytest.raises(ConnectionFailedError):
        client(script, policy(sleeps)).create(record)
    assert len(script.requests) == 1


def test_create_with_an_id_and_write_are_idempotent_so_retried() -> None:
    sleeps: list[float] = []
    script = Script(problem(503, "projection_lag", "1"), httpx.Response(201, json=WRITE))
    record = MemoryIn.model_validate(
        {"id": "m1", "type": "fact", "content": "c", "scope": "user:a", "source_agent": "x"}
    )
    assert client(script, policy(sleeps)).create(record).created
    assert len(script.requests) == 2

    script = Script(httpx.ReadTimeout("slow"), httpx.Response(201, json=WRITE))
    client(script, policy(sleeps)).write("c", scope="user:a", source_agent="x")
    first, second = script.requests
    assert first.method == second.method == "PUT" and first.url == second.url


def test_connection_errors_retry_then_give_up() -> None:
    sleeps: list[float] = []
    script = Script(httpx.ConnectError("refused"))
    with pytest.raises(ConnectionFailedError) as raised:
        client(script, policy(sleeps, retries=2)).health()
    assert len(script.requests) == 3 and raised.value.status is None


def test_import_replays_a_list_but_never_a_one_shot_iterator() -> None:
    sleeps: list[float] = []
    report = {
        "batch_id": "b",
        "received": 1,
        "written": 1,
        "unchanged": 0,
        "skipped_tombstoned": 0,
        "tombstones_applied": 0,
        "rejected": 0,
        "errors": [],
        "errors_truncated": False,
        "position": 3,
    }
    lines = [json.dumps({"type": "fact", "content": "c", "scope": "user:a", "source_agent": "x"})]
    script = Script(problem(503, "unavailable", "1"), httpx.Response(200, json=report))
    assert client(script, policy(sleeps)).import_bundle(lines).written == 1
    assert script.bodies[0] == script.bodies[1] == lines[0].encode() + b"\n"

    def one_shot() -> Iterator[str]:
        yield from lines

    script = Script(problem(503, "unavailable", "1"), httpx.Response(200, json=report))
    with pytest.raises(UnavailableError):
        client(script, policy(sleeps)).import_bundle(one_shot())
    assert len(script.requests) == 1
    with pytest.raises(TypeError):
        client(script, policy(sleeps)).import_bundle("bundle.ndjson")


def test_async_client_retries_with_its_own_sleep() -> None:
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    script = Script(problem(429, "rate_limited", "1"), httpx.Response(200, json=RECORD))
    p = RetryPolicy(async_sleep=fake_sleep, uniform=lambda a, b: a)

    async def go() -> str:
        async with AsyncMemoryClient(
            "http://memory.test", retries=p, transport=httpx.MockTransport(script)
        ) as c:
            return (await c.get("m1")).id

    assert asyncio.run(go()) == "m1" and slept == [1.0]


def test_retry_after_formats() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    with pytest.raises(ValueError):
        RetryPolicy(max_retries=-1)
