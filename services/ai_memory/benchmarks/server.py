"""A real ``ai-memory serve`` process on a data directory, as a user starts it.

The server runs as a child process (not in the benchmark's process), so its memory,
start-up and shutdown are its own and nothing the benchmark loads is counted. It binds
loopback on a free port in open mode (no key). The child inherits the environment minus
the variables that would point it at other stores, another address, or close it with a
key: a benchmark must never write into a deployment the user configured for real work.
Tuning variables (the embedder, the projector batch, rates) pass through, so a user can
measure their own settings.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import httpx

CLI = (sys.executable, "-m", "ai_memory.entrypoints.cli")
NOT_INHERITED = frozenset(
    {
        "AIMEM_DATA_DIR",
        "AIMEM_HOST",
        "AIMEM_PORT",
        "AIMEM_EVENT_LOG",
        "AIMEM_RECORD_STORE",
        "AIMEM_INDEX",
        "AIMEM_ADMIN_KEY",
        "AIMEM_API_KEY",
        "AIMEM_INSECURE_OPEN",
        "AIMEM_METRICS_PORT",
        "AIMEM_URL",
    }
)
START_TIMEOUT = 300.0
STOP_TIMEOUT = 300.0


class BenchError(RuntimeError):
    """An expected failure of a run (the server would not start, a request was refused),
    said in a sentence instead of a traceback."""


def child_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def log_tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no server log)"
    return "\n".join(text.splitlines()[-lines:])


class ServerProcess:
    """One ``ai-memory serve`` child; ``start`` and ``stop`` may alternate (a restart keeps
    the port and the data directory)."""

    def __init__(
        self, data_dir: Path, log_path: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.data_dir = data_dir
        self.log_path = log_path
        # Settings this run asks for (the embedder of a recall profile), over the inherited.
        self.env = {**child_env(), **(env or {})}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0  # perf_counter() when the latest start spawned the process
        self._log: IO[bytes] | None = None

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise BenchError("the server is not running")
        return self.proc.pid

    def start(self) -> float:
        """Start and wait until ``/healthz`` answers 200; seconds it took."""
        args = ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        args += ["--data-dir", str(self.data_dir)]
        # Appended, not truncated: a restart's log follows the first run's.
        self._log = self.log_path.open("ab")
        began = self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            [*CLI, *args], env=self.env, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = began + START_TIMEOUT
        with httpx.Client(base_url=self.url, timeout=2.0) as http:
            while time.perf_counter() < deadline:
                if self.proc.poll() is not None:
                    self._closed()
                    raise BenchError(
                        f"the server exited with code {self.proc.returncode} while starting; "
                        f"the end of its log ({self.log_path}):\n{log_tail(self.log_path)}"
                    )
                try:
                    if http.get("/healthz").status_code == 200:
                        return time.perf_counter() - began
                except httpx.TransportError:
                    pass
                time.sleep(0.02)
        self.stop()
        raise BenchError(
            f"the server did not answer /healthz within {START_TIMEOUT:.0f}s; the end of its "
            f"log ({self.log_path}):\n{log_tail(self.log_path)}"
        )

    def stop(self) -> float:
        """SIGTERM (the clean stop a user's service manager sends) and wait for the exit;
        seconds it took. Killed when it does not exit in time."""
        if self.proc is None:
            return 0.0
        began = time.perf_counter()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self._closed()
                raise BenchError(
                    f"the server did not exit within {STOP_TIMEOUT:.0f}s of SIGTERM (killed)"
                ) from None
        self._closed()
        return time.perf_counter() - began

    def _closed(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def check_alive(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise BenchError(
                f"the server exited during the run; the end of its log ({self.log_path}):\n"
                f"{log_tail(self.log_path)}"
            )


def replay_index(data_dir: Path) -> str:
    """``ai-memory replay --projection index`` on a stopped server's data; its stderr (the
    summary line with events/s and CPU per event is parsed by the caller)."""
    done = subprocess.run(
        [*CLI, "replay", "--projection", "index", "--data-dir", str(data_dir)],
        env=child_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).splitlines()[-25:])
        raise BenchError(f"ai-memory replay exited with code {done.returncode}:\n{tail}")
    return done.stderr
