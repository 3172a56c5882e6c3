"""A deterministic synthetic corpus of agent memories for benchmarks.

Sentences are assembled from small vocabularies so that 100k memories are distinct,
realistic in length (60–160 chars) and searchable by both meaning and keywords.

``memories(count)`` is the stream the loadtest benchmarks import (its output must not
change: their recorded figures were taken on it). ``scale_records(start, stop)`` is the
scale profile's: record ``n`` is the same whichever range asks for it, so a growing run
imports only the records a step adds, and most of them sit in one big scope.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from ai_memory.benchmarks.layout import scope_of

SUBJECTS = [
    "Alice",
    "Bob",
    "Chen Wei",
    "Priya",
    "Tomás",
    "the data team",
    "the on-call engineer",
    "Mara",
    "Kenji",
    "the billing service owner",
    "Olu",
    "the support lead",
]
PREFS = ["prefers", "dislikes", "always asks for", "avoids", "is happy with", "wants"]
OBJECTS = [
    "short bullet-point answers",
    "tables in reports",
    "green tea in the afternoon",
    "meetings before 10am",
    "Rust for new services",
    "dark mode dashboards",
    "weekly summaries on Friday",
    "Python type hints",
    "async standups",
    "detailed incident timelines",
    "code reviews within a day",
    "metric units",
]
TASKS = [
    "migrate the nightly billing job to Airflow",
    "rotate the staging database password",
    "write the Q3 roadmap draft",
    "upgrade Kafka brokers to 4.1",
    "book the Kyoto offsite",
    "review the Cassandra compaction settings",
    "ship the export API",
    "fix flaky CI on main",
    "prepare the onboarding checklist",
    "benchmark the search endpoint",
]
STATUSES = [
    "is blocked on credentials",
    "is due on Friday",
    "is half done",
    "waits for a design review",
    "was reassigned to the platform team",
    "needs a rollback plan",
]
SKILLS = [
    "When consumers lag, check max.poll.records before adding partitions",
    "Pin the Rust toolchain in rust-toolchain.toml to stop flaky builds",
    "Use USING TIMESTAMP so replayed writes never overwrite newer rows",
    "Set acks=all and enable idempotence on Kafka producers",
    "Warm the HNSW index after bulk loads before measuring latency",
    "Keep SQLite in WAL mode when readers and a writer share a file",
]
PLACES = ["Tokyo", "Auckland", "Sydney", "Berlin", "Lisbon", "Toronto", "Nairobi", "Seoul"]
TYPES = ["preference", "task", "skill", "fact", "interaction"]


def sentence(rng: random.Random, kind: str, n: int) -> str:
    who = rng.choice(SUBJECTS)
    if kind == "preference":
        return f"{who} {rng.choice(PREFS)} {rng.choice(OBJECTS)} (noted in session {n})."
    if kind == "task":
        return f"Task #{n}: {rng.choice(TASKS)} for {who}; it {rng.choice(STATUSES)}."
    if kind == "skill":
        return f"Lesson {n}: {rng.choice(SKILLS)} — learned by {who}."
    if kind == "fact":
        return (
            f"{who} moved to {rng.choice(PLACES)} in {2015 + n % 10} and works remotely (ref {n})."
        )
    return f"{who} asked about {rng.choice(OBJECTS)} and {rng.choice(TASKS)} in chat {n}."


def memories(count: int, *, scopes: int = 20, seed: int = 7) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for n in range(count):
        kind = TYPES[n % len(TYPES)]
        yield {
            "id": f"bench-{n}",
            "type": kind,
            "content": sentence(rng, kind, n),
            "scope": f"user:u{n % scopes}",
            "source_agent": f"agent-{n % 3}",
            "tags": [kind, f"tag{n % 11}"],
            "created_at": 1_700_000_000 + n * 37,
        }


QUERIES = [
    "what does Alice prefer for answers",
    "kafka consumer lag",
    "who moved to Tokyo",
    "billing job migration status",
    "rust toolchain flaky builds",
    "green tea",
    "password rotation for staging",
    "dark mode",
    "Kyoto offsite booking",
    "WAL mode sqlite",
]

# The scale profile searches these too: the first ten are the loadtest's, the rest reach
# other words of the vocabularies so that a run does not measure ten cached queries.
SCALE_QUERIES = [
    *QUERIES,
    "who avoids meetings before 10am",
    "Cassandra compaction review",
    "export API shipping date",
    "onboarding checklist owner",
    "idempotent Kafka producers",
    "who works remotely from Lisbon",
    "weekly summary on Friday",
    "incident timeline detail",
    "HNSW warm-up after bulk load",
    "tasks reassigned to the platform team",
]


def scale_records(start: int, stop: int, *, seed: int = 11) -> Iterator[dict[str, Any]]:
    """Records ``start`` .. ``stop - 1`` of the scale corpus (ids ``scale-<n>``)."""
    for n in range(start, stop):
        # One generator per record (about 5 µs): record n never depends on the ones
        # before it, so the next step of a run generates only what it adds.
        rng = random.Random(seed * 1_000_003 + n)
        kind = TYPES[n % len(TYPES)]
        yield {
            "id": f"scale-{n}",
            "type": kind,
            "content": sentence(rng, kind, n),
            "scope": scope_of(n),
            "source_agent": f"agent-{n % 3}",
            "tags": [kind, f"tag{n % 11}"],
            "created_at": 1_700_000_000 + n * 37,
        }


class Corpus(Protocol):
    """What the scale runner imports and searches: records by position, and queries."""

    @property
    def name(self) -> str: ...
    @property
    def queries(self) -> Sequence[str]: ...
    def records(self, start: int, stop: int) -> Iterator[dict[str, Any]]: ...


class SyntheticCorpus:
    name = "synthetic"
    queries: Sequence[str] = SCALE_QUERIES

    def records(self, start: int, stop: int) -> Iterator[dict[str, Any]]:
        return scale_records(start, stop)
