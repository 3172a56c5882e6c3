"""The console with a large scope: how long its pages take in a real browser.

    python -m loadtest.bench_console --memories 100000 --rounds 5

Starts ``ai-memory serve`` (open development mode, loopback) on a fresh data directory,
imports ``--memories`` synthetic memories into ONE scope, waits until every projection
has them, then drives Debian's headless chromium (Playwright, no browser download)
through the console: the memories page of that scope (first page, then next pages by
cursor), a memory's page with its lineage, and a search in the scope. Each time is from
the click to the moment the page shows the answer (a DOM condition), so it includes the
API call, the rendering and the browser. Prints the median and the worst of the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from ai_memory.benchmarks.corpus import memories
from ai_memory.benchmarks.load import import_records
from ai_memory.benchmarks.probes import wait_projected
from ai_memory.benchmarks.server import ServerProcess

CHROMIUM = "/usr/bin/chromium"
SCOPE = "user:u0"  # corpus.memories(…, scopes=1) puts every memory here
NEXT_PAGES = 5


def one_scope(count: int) -> Iterator[dict[str, Any]]:
    return memories(count, scopes=1)


def timed(action: Callable[[], None], done: Callable[[], None]) -> float:
    began = time.perf_counter()
    action()
    done()
    return (time.perf_counter() - began) * 1000


def round_of(page: Any, url: str) -> dict[str, float]:
    from playwright.sync_api import expect

    took: dict[str, float] = {}
    page.goto(f"{url}/console")
    page.get_by_label("API key").fill("")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("navigation", name="Pages")).to_be_visible()

    page.goto(f"{url}/console#/memories")
    page.get_by_label("Scope", exact=True).fill(SCOPE)
    summary = page.get_by_text("Page 1:")
    took["memories: first page"] = timed(
        lambda: page.get_by_role("button", name="Apply filters").click(),
        lambda: expect(summary).to_be_visible(timeout=60_000),
    )
    pages = []
    for n in range(2, NEXT_PAGES + 2):

        def shown(n: int = n) -> None:
            expect(page.get_by_text(f"Page {n}:")).to_be_visible(timeout=60_000)

        pages.append(timed(lambda: page.get_by_role("button", name="Next page").click(), shown))
    took["memories: next page (median of 5)"] = statistics.median(pages)

    first = page.locator("table.list tbody a").first
    took["a memory with its lineage"] = timed(
        lambda: first.click(),
        lambda: expect(page.get_by_role("heading", name="Lineage")).to_be_visible(timeout=60_000),
    )

    page.goto(f"{url}/console#/search")
    page.get_by_label("Query").fill("kafka consumer lag")
    page.get_by_label("Scope").fill(SCOPE)
    took["search in the scope"] = timed(
        lambda: page.get_by_role("button", name="Search", exact=True).click(),
        lambda: expect(page.get_by_text("results.")).to_be_visible(timeout=60_000),
    )
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="aimem-console-bench-") as scratch:
        root = Path(scratch)
        server = ServerProcess(root / "data", root / "server.log")
        server.start()
        try:
            with httpx.Client(base_url=server.url, timeout=600) as http:
                began = time.perf_counter()
                written = import_records(http, one_scope(args.memories))
                wait_projected(http, lambda: None)
                loaded = time.perf_counter() - began
            print(f"{written} memories in {SCOPE}, imported and projected in {loaded:.0f} s")
            rounds: list[dict[str, float]] = []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                try:
                    for _ in range(args.rounds):
                        page = browser.new_page()
                        rounds.append(round_of(page, server.url))
                        page.close()
                finally:
                    browser.close()
        finally:
            server.stop()
    print(f"\n| step ({args.rounds} rounds, ms) | median | worst |\n|---|---|---|")
    for step in rounds[0]:
        values = [r[step] for r in rounds]
        print(f"| {step} | {statistics.median(values):.0f} | {max(values):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
