"""Sustained single writes through the gateway, every outcome logged (fault suite).

Each client thread owns a disjoint set of memory ids and rewrites them round-robin, so
every id gets a sequence of versions; content carries a token per id (``zq<n>x``) and one
per version (``vq<n>x<k>z``) so that search can tell which version a view holds. Every
request is recorded with its start and end time and, when acknowledged, the version and
log position the gateway returned.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx


def memory_id(n: int) -> str:
    return f"f-{n:05d}"


def id_token(n: int) -> str:
    return f"zq{n}x"


def version_token(n: int, revision: int) -> str:
    return f"vq{n}x{revision}z"


@dataclass(frozen=True)
class Outcome:
    n: int
    revision: int  # the client's attempt counter for this id (in the content)
    started: float
    ended: float
    ok: bool
    version: int = 0
    position: int = 0
    error: str = ""


@dataclass
class Load:
    """``clients`` threads writing ``ids`` memories through ``url`` until ``stop``."""

    url: str
    ids: int
    clients: int = 4
    timeout: float = 15.0
    headers: dict[str, str] = field(default_factory=dict)  # the API key, when in force
    outcomes: list[Outcome] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        for c in range(self.clients):
            mine = list(range(c, self.ids, self.clients))
            t = threading.Thread(target=self._client, args=(mine,), daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(self.timeout + 5)

    def acked(self) -> list[Outcome]:
        with self._lock:
            return [o for o in self.outcomes if o.ok]

    def snapshot(self) -> list[Outcome]:
        with self._lock:
            return list(self.outcomes)

    def _client(self, mine: list[int]) -> None:
        """A failed write is sent again, same content, on the id's next turn — what a
        client does after a timeout or a refused connection."""
        revisions = dict.fromkeys(mine, 1)
        with httpx.Client(base_url=self.url, headers=self.headers, timeout=self.timeout) as http:
            i = 0
            while not self._stop.is_set():
                n = mine[i % len(mine)]
                i += 1
                outcome = self._write(http, n, revisions[n])
                self._record(outcome)
                if outcome.ok:
                    revisions[n] += 1

    def _write(self, http: httpx.Client, n: int, revision: int) -> Outcome:
        body = {
            "type": "fact",
            "scope": f"user:u{n % 13}",
            "source_agent": "faults",
            "content": f"Fault memory {n}: {id_token(n)} at {version_token(n, revision)}.",
        }
        started = time.monotonic()
        try:
            r = http.put(f"/v1/memories/{memory_id(n)}", json=body)
        except httpx.HTTPError as e:
            time.sleep(0.2)  # the gateway is down: do not spin
            return Outcome(n, revision, started, time.monotonic(), False, error=type(e).__name__)
        ended = time.monotonic()
        if r.status_code in (200, 201):
            out = r.json()
            return Outcome(
                n, revision, started, ended, True, out["record"]["version"], out["position"]
            )
        time.sleep(0.1)
        return Outcome(n, revision, started, ended, False, error=f"HTTP {r.status_code}")

    def _record(self, outcome: Outcome) -> None:
        with self._lock:
            self.outcomes.append(outcome)
