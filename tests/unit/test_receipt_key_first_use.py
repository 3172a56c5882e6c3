"""The embedded receipt key made on first use by several threads at once: one key, no
error (two first requests of one server, e.g. the console asking for the public key
twice, once collided on a temporary file named by the pid alone)."""

from __future__ import annotations

import threading
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from ai_memory.adapters.receipt_key import load_receipt_key


def _raw(key: object) -> bytes:
    public = key.public_key()  # type: ignore[attr-defined]
    raw: bytes = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw


def _made_at_once(data: Path, threads: int) -> tuple[list[bytes], list[BaseException]]:
    start = threading.Barrier(threads)
    keys: list[bytes] = []
    errors: list[BaseException] = []

    def make() -> None:
        start.wait()
        try:
            keys.append(_raw(load_receipt_key("", data, embedded=True)))
        except BaseException as e:  # collected and asserted by the test
            errors.append(e)

    workers = [threading.Thread(target=make) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return keys, errors


def test_threads_making_the_key_at_once_all_get_the_same_key(tmp_path: Path) -> None:
    for attempt in range(5):
        data = tmp_path / f"data{attempt}"
        keys, errors = _made_at_once(data, 8)
        assert errors == []
        assert len(keys) == 8 and len(set(keys)) == 1
        assert [p.name for p in data.iterdir()] == ["receipt.key"]  # no temporary left
