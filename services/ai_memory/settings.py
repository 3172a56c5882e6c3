"""Settings from the environment (``AIMEM_*``), with embedded defaults.

Adapters are chosen by URL in ``bootstrap``:

* ``AIMEM_EVENT_LOG``     ``sqlite:///<path>`` (default ``<data>/events.db``)
* ``AIMEM_RECORD_STORE``  ``sqlite:///<path>`` (default ``<data>/records.db``)
* ``AIMEM_INDEX``         ``qdrant-edge:///<path>`` (default ``<data>/index``)
* ``AIMEM_EMBEDDER``      ``static`` (default) | ``minilm``
* ``AIMEM_GOVERN_INTERVAL`` seconds between governor passes in ``serve`` (3600; 0 = off)
* ``AIMEM_GOVERN_TENANTS``  comma-separated tenants the governor passes over (``default``)
* ``AIMEM_LLM_URL`` / ``AIMEM_LLM_MODEL`` / ``AIMEM_LLM_API_KEY`` / ``AIMEM_LLM_ROLES``:
  an OpenAI-compatible endpoint as conflict ``judge`` and/or ``extract`` (decisions are
  recorded in the events; replays never call it)
* ``AIMEM_GOVERNANCE``      JSON object overriding governance parameters, e.g.
  ``{"alpha": 0.4, "beta": 0.3, "gamma": 0.2, "delta": 0.1, "theta": 0.15}``
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ai_memory.core.record import Limits


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw in (None, "") else int(raw)


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return default if raw in (None, "") else float(raw)


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("data")
    host: str = "127.0.0.1"
    port: int = 8080
    event_log_url: str = ""
    record_store_url: str = ""
    index_url: str = ""
    embedder: str = "static"
    limits: Limits = field(default_factory=Limits)
    wait_timeout: float = 10.0
    projector_batch: int = 500
    govern_interval: float = 3600.0  # seconds between governor passes; 0 = off
    govern_tenants: tuple[str, ...] = ("default",)
    governance: str = ""  # JSON object of GovernanceParams overrides (AIMEM_GOVERNANCE)
    llm_url: str = ""  # OpenAI-compatible endpoint for the conflict judge / extractor
    llm_model: str = ""
    llm_api_key: str = ""
    llm_roles: tuple[str, ...] = ("judge",)

    @staticmethod
    def from_env(**overrides: object) -> Settings:
        data_dir = Path(os.environ.get("AIMEM_DATA_DIR", "data"))
        values: dict[str, object] = {
            "data_dir": data_dir,
            "host": os.environ.get("AIMEM_HOST", "127.0.0.1"),
            "port": _int("AIMEM_PORT", 8080),
            "event_log_url": os.environ.get("AIMEM_EVENT_LOG", ""),
            "record_store_url": os.environ.get("AIMEM_RECORD_STORE", ""),
            "index_url": os.environ.get("AIMEM_INDEX", ""),
            "embedder": os.environ.get("AIMEM_EMBEDDER", "static"),
            "limits": Limits(max_content_bytes=_int("AIMEM_MAX_CONTENT_BYTES", 16_384)),
            "wait_timeout": _float("AIMEM_WAIT_TIMEOUT", 10.0),
            "govern_interval": _float("AIMEM_GOVERN_INTERVAL", 3600.0),
            "governance": os.environ.get("AIMEM_GOVERNANCE", ""),
            "llm_url": os.environ.get("AIMEM_LLM_URL", ""),
            "llm_model": os.environ.get("AIMEM_LLM_MODEL", ""),
            "llm_api_key": os.environ.get("AIMEM_LLM_API_KEY", ""),
            "llm_roles": tuple(
                r.strip()
                for r in os.environ.get("AIMEM_LLM_ROLES", "judge").split(",")
                if r.strip()
            ),
            "govern_tenants": tuple(
                t.strip()
                for t in os.environ.get("AIMEM_GOVERN_TENANTS", "default").split(",")
                if t.strip()
            ),
        }
        values.update(overrides)
        return Settings(**values)  # type: ignore[arg-type]

    def resolved(self) -> Settings:
        """Fill embedded defaults under ``data_dir``."""
        d = self.data_dir
        return Settings(
            data_dir=d,
            host=self.host,
            port=self.port,
            event_log_url=self.event_log_url or f"sqlite:///{d / 'events.db'}",
            record_store_url=self.record_store_url or f"sqlite:///{d / 'records.db'}",
            index_url=self.index_url or f"qdrant-edge:///{d / 'index'}",
            embedder=self.embedder,
            limits=self.limits,
            wait_timeout=self.wait_timeout,
            projector_batch=self.projector_batch,
            govern_interval=self.govern_interval,
            govern_tenants=self.govern_tenants,
            governance=self.governance,
            llm_url=self.llm_url,
            llm_model=self.llm_model,
            llm_api_key=self.llm_api_key,
            llm_roles=self.llm_roles,
        )
