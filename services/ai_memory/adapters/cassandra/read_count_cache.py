"""What the records projection last counted of each recalled memory, per log partition.

A memory's ``read_count`` is a fold of its partition's recall events (record_store.py):
the projector reads ``(read_count, last_read_position)``, adds the recalls above that
position and writes the result: a partition read per recalled memory per batch, ≈ 10
per search on questions asked once (``loadtest/RESULTS.md``, "Read counts the projector
remembers"). This cache keeps, for the partitions this process projects, the value it
last read or wrote — and zero for a memory whose first version it put (the record store
decides that: every recall of a memory comes after its first version in its partition)
— and answers instead of the row while no one else can have changed it.

Why a remembered value is still the stored one:

* **Only this partition's events change a read count**, and they reach the row only
  through the records projection; all of a memory's events share a log partition.
* **Anything else this partition's events do to the memory drops it**: a put, a state
  change or a removal in a batch drops the memories it touches before their recalls are
  counted (whether a memory is live is read from the row again).
* **Another worker may have projected the partition meanwhile** (a rebalance took it
  away and gave it back). Every worker reads the partition's checkpoint before it
  projects it again (``ProjectorWorker.resume_offset``); when the checkpoint read is not
  the one this process last wrote, someone else moved it, and the partition's values
  are dropped. A checkpoint equal to this process's own means the log resumes right
  after what the values hold: a worker that wrote counts and died before its checkpoint
  wrote the very values this process is about to write again (a count at position p is
  a function of the events up to p).
* **A failed batch drops the partition** (its writes may have landed in part), and so
  does truncating the view.

Bounded: least recently used values go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping

Key = tuple[str, str]  # (tenant, memory_id)
Count = tuple[int, int]  # (read_count, last_read_position)

DEFAULT_ENTRIES = 100_000  # ≈ 20 MB at worst; a value is a tuple and two short strings


class ReadCountCache:
    def __init__(self, entries: int = DEFAULT_ENTRIES) -> None:
        self._entries = entries
        self._values: OrderedDict[tuple[int, str, str], Count] = OrderedDict()
        self._written: dict[int, int] = {}  # partition -> the checkpoint this process wrote
        self._filled: set[int] = set()  # partitions that may have values (a drop scans)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def known(self, partition: int, keys: Iterable[Key]) -> dict[Key, Count]:
        found: dict[Key, Count] = {}
        with self._lock:
            for tenant, mid in keys:
                value = self._values.get((partition, tenant, mid))
                if value is None:
                    self.misses += 1
                    continue
                self.hits += 1
                self._values.move_to_end((partition, tenant, mid))
                found[(tenant, mid)] = value
        return found

    def remember(self, partition: int, values: Mapping[Key, Count]) -> None:
        with self._lock:
            if values:
                self._filled.add(partition)
            for (tenant, mid), value in values.items():
                self._values[(partition, tenant, mid)] = value
                self._values.move_to_end((partition, tenant, mid))
            while len(self._values) > self._entries:
                self._values.popitem(last=False)

    def drop(self, partition: int, keys: Iterable[Key]) -> None:
        with self._lock:
            for tenant, mid in keys:
                self._values.pop((partition, tenant, mid), None)

    def wrote(self, partition: int, checkpoint: int) -> None:
        """This process advanced ``partition``'s checkpoint to ``checkpoint``."""
        with self._lock:
            self._written[partition] = checkpoint

    def read(self, partition: int, checkpoint: int) -> None:
        """``partition``'s stored checkpoint is ``checkpoint``: not the one this process
        wrote last means another worker projected it meanwhile."""
        with self._lock:
            if self._written.get(partition) != checkpoint:
                self._drop_partition(partition)

    def forget_partition(self, partition: int) -> None:
        with self._lock:
            self._drop_partition(partition)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._written.clear()
            self._filled.clear()

    def __len__(self) -> int:
        return len(self._values)

    def _drop_partition(self, partition: int) -> None:
        self._written.pop(partition, None)
        if partition not in self._filled:
            return
        self._filled.discard(partition)
        for key in [k for k in self._values if k[0] == partition]:
            del self._values[key]
