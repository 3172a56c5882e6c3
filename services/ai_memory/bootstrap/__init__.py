"""The composition root: settings/URLs → adapters → service + projection drivers.

Every entry point (HTTP server, projector workers, CLI, tests, benchmarks) builds its
object graph here and nowhere else.

* ``AIMEM_EVENT_LOG``: ``sqlite:///data/events.db`` (default) or
  ``kafka://h:9092/aimem.events?partitions=6&replication_factor=1``
* ``AIMEM_RECORD_STORE``: ``sqlite:///data/records.db`` (default) or
  ``cassandra://h:9042/aimem?replication_factor=1``
* ``AIMEM_INDEX``: ``qdrant-edge:///data/index`` (default), ``qdrant+http://h:6333``, or
  ``qdrant+local:///path`` (Qdrant's local mode, one process)
* ``memory://`` for any of the three: the in-memory adapters (tests, embedded tools);
  nothing survives the process

Where projections run: a projection whose view can only be opened by one process (SQLite
record store, Qdrant Edge, Qdrant local mode) — or any projection of the embedded log —
is driven in this process by tailers. Otherwise it is driven by `ai-memory project`
workers and this process only reads its checkpoints (read-your-writes).

SQLite paths follow the SQLAlchemy convention: `sqlite:///rel/path` is relative,
`sqlite:////abs/path` absolute.

The modules: ``assemble`` (``build``: one process's ``container``), ``storage`` over the
adapters chosen ``by_url``, ``projections``, the ``write_path``, the ``facade``; and what
is built without a container: ``security`` (keys, vault, erasures), ``webhooks``,
``usage``, ``policy``, ``workers`` (``ai-memory project``) and ``maintenance`` (replay,
dead letters). Outside the composition root only this face is imported
(``tests/architecture/test_import_graph.py``).
"""

from __future__ import annotations

from ai_memory.projector.replay import Replay

from .assemble import build
from .by_url import build_dead_letters as build_dead_letters
from .by_url import build_event_log, build_index, build_record_store
from .by_url import compaction_policy as compaction_policy
from .by_url import seals_view_at_rest as seals_view_at_rest
from .container import Container
from .maintenance import build_dead_letter_service, open_replay
from .policy import governance_params
from .projections import PROJECTIONS, build_sink
from .projections import raw_frames as raw_frames
from .projections import single_process as single_process
from .security import build_key_service, receipt_signing_key, run_vault_reconcile, run_vault_rotate
from .settings_check import check_settings
from .urls import scheme_of, url_path
from .usage import build_usage_source
from .workers import WORKERS, build_projector_worker, run_projector_worker

# The composition root's face: what entry points (the command line) and tests may use.
# (The ``as`` imports above are kept importable from here for code written against the
# single module this package once was; they are not part of the face.)
__all__ = [
    "PROJECTIONS",
    "WORKERS",
    "Container",
    "Replay",
    "build",
    "build_dead_letter_service",
    "build_event_log",
    "build_index",
    "build_key_service",
    "build_projector_worker",
    "build_record_store",
    "build_sink",
    "build_usage_source",
    "check_settings",
    "governance_params",
    "open_replay",
    "receipt_signing_key",
    "run_projector_worker",
    "run_vault_reconcile",
    "run_vault_rotate",
    "scheme_of",
    "url_path",
]
