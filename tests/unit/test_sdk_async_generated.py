"""``AsyncMemoryClient`` is generated from ``MemoryClient``: the committed module is what
the generator writes today, and the twin has every public method, awaited."""

from __future__ import annotations

import inspect

from ai_memory.sdk import AsyncMemoryClient, MemoryClient, _generate_async


def test_the_committed_async_client_is_the_generators_output() -> None:
    source = _generate_async.SOURCE.read_text(encoding="utf-8")
    committed = _generate_async.TARGET.read_text(encoding="utf-8")
    assert committed == _generate_async.generate(source), (
        "async_client.py is stale: run python services/ai_memory/sdk/_generate_async.py"
    )


def test_every_method_has_an_async_twin() -> None:
    renamed = {"close": "aclose", "__enter__": "__aenter__", "__exit__": "__aexit__"}
    for name, method in vars(MemoryClient).items():
        if not callable(method) or name == "__init__":
            continue
        twin = getattr(AsyncMemoryClient, renamed.get(name, name))
        generator = inspect.isgeneratorfunction(method)
        assert (inspect.isasyncgenfunction if generator else inspect.iscoroutinefunction)(twin)
        assert (
            inspect.signature(twin).parameters.keys() == inspect.signature(method).parameters.keys()
        )
        assert twin.__doc__ == method.__doc__, name


def test_the_generator_awaits_calls_and_loops_over_async_generators() -> None:
    source = '''"""A client."""
from collections.abc import Iterator


class MemoryClient:
    def _call(self, n: int) -> list[int]:
        return self._http.send(n)

    def close(self) -> None:
        self._http.close()

    def page(self) -> list[int]:
        return self._call(1)

    def items(self) -> Iterator[int]:
        yield from self.page()

    def first(self) -> int:
        for item in self.items():
            return item
        return 0
'''
    out = _generate_async.generate(source)
    assert "class AsyncMemoryClient:" in out and "AsyncIterator[int]" in out
    assert "async def aclose(self) -> None:\n        await self._http.aclose()" in out
    assert "return await self._http.send(n)" in out and "return await self._call(1)" in out
    assert "for item in await self.page():\n            yield item" in out
    assert "async for item in self.items():" in out
