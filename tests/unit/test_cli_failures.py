"""The command line's failure reporting (``entrypoints/cli/failures.py``): each expected
failure is one line on stderr and the exit code of its class; a bug is one line and 70;
``--debug`` / ``AIMEM_DEBUG=1`` bring the traceback back."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from ai_memory.core.errors import DataDirInUse, InvalidInput, NotFound, Unavailable
from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.failures import explain
from ai_memory.entrypoints.cli.main import app
from ai_memory.sdk import MemoryClient
from ai_memory.sdk.errors import (
    ConnectionFailedError,
    ForbiddenError,
    InvalidInputError,
    ServerError,
    UnauthenticatedError,
    UnavailableError,
)
from ai_memory.settings import SettingsError


def _refused_connection() -> ConnectionFailedError:
    request = httpx.Request("GET", "http://127.0.0.1:9/v1/memories/x")
    cause = httpx.ConnectError("[Errno 111] Connection refused", request=request)
    error = ConnectionFailedError("GET /v1/memories/x: ...", code="connection_failed")
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("error", "code", "says"),
    [
        (_refused_connection(), ExitCode.UNREACHABLE, "cannot reach http://127.0.0.1:9"),
        (
            UnauthenticatedError("no key", status=401, code="api_key_required"),
            ExitCode.REFUSED,
            "AIMEM_API_KEY",
        ),
        (
            ForbiddenError("readers cannot forget", status=403, code="role_forbidden"),
            ExitCode.REFUSED,
            "403 role_forbidden",
        ),
        (
            InvalidInputError("too big", status=422, code="invalid_input", field="limit"),
            ExitCode.REFUSED,
            "422 invalid_input [limit]",
        ),
        (ServerError("boom", status=500, code="internal"), ExitCode.UNREACHABLE, "500"),
        (UnavailableError("down", status=503, code="unavailable"), ExitCode.UNREACHABLE, "503"),
        (
            SettingsError("invalid settings: AIMEM_PORT: not a number (got 'x')"),
            ExitCode.BAD_SETTING,
            "bad setting AIMEM_PORT",
        ),
        (
            InvalidInput("AIMEM_INDEX", "scheme", "unknown scheme 'bogus'"),
            ExitCode.BAD_SETTING,
            "bad setting AIMEM_INDEX: unknown scheme",
        ),
        (InvalidInput("role", "one_of", "no such role"), ExitCode.REFUSED, "[role]"),
        (NotFound("no such key", code="key_not_found"), ExitCode.REFUSED, "key_not_found"),
        (Unavailable("cassandra is down"), ExitCode.UNREACHABLE, "cassandra is down"),
        (DataDirInUse("data is held by pid 1"), ExitCode.IN_USE, "held"),
        (FileNotFoundError(2, "No such file", "/nope"), ExitCode.BAD_INPUT, "/nope"),
        (IsADirectoryError(21, "Is a directory", "/tmp"), ExitCode.BAD_INPUT, "a directory"),
        (PermissionError(13, "Permission denied", "/root/x"), ExitCode.BAD_INPUT, "permission"),
        (RuntimeError("unexpected"), ExitCode.INTERNAL, "internal error"),
        (ModuleNotFoundError("no uvicorn", name="uvicorn"), ExitCode.USAGE, "ai-memory[server]"),
        (ModuleNotFoundError("a bug", name="ai_memory.nope"), ExitCode.INTERNAL, "internal"),
        (KeyboardInterrupt(), ExitCode.INTERRUPTED, "interrupted"),
    ],
)
def test_each_failure_class_has_its_line_and_code(
    error: BaseException, code: ExitCode, says: str
) -> None:
    message, exit_code = explain(error)
    assert exit_code == code
    assert says in message
    assert not message.startswith("ai-memory:")  # the reporter adds the program's name
    # One line; the missing extra's message adds the command to run on a second.
    assert message.count("\n") == (1 if isinstance(error, ModuleNotFoundError) and code == 2 else 0)


def test_a_server_that_does_not_answer_in_time_is_not_unreachable() -> None:
    request = httpx.Request("GET", "http://10.0.0.1:8080/v1/memories/x")
    for cause, says in (
        (httpx.ConnectTimeout("timed out", request=request), "cannot reach http://10.0.0.1:8080"),
        (httpx.ReadTimeout("timed out", request=request), "did not answer in time"),
    ):
        error = ConnectionFailedError("GET /v1/memories/x: ...", code="connection_failed")
        error.__cause__ = cause
        message, code = explain(error)
        assert code == ExitCode.UNREACHABLE and says in message, message


def test_the_version_comes_from_the_package() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"ai-memory {version('ai-memory')}"


def test_a_bug_is_one_line_and_70_and_debug_shows_the_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(self: MemoryClient, memory_id: str) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(MemoryClient, "get", broken)
    result = CliRunner().invoke(app, ["get", "x", "--url", "http://127.0.0.1:9"])
    assert result.exit_code == ExitCode.INTERNAL
    assert result.stderr.strip().splitlines() == [
        "ai-memory: internal error: ZeroDivisionError: a bug — run with --debug "
        "(or AIMEM_DEBUG=1) for the traceback"
    ]
    assert result.exception is None or isinstance(result.exception, SystemExit)

    debug = CliRunner().invoke(app, ["--debug", "get", "x", "--url", "http://127.0.0.1:9"])
    assert isinstance(debug.exception, ZeroDivisionError)  # raised on: the traceback
    monkeypatch.setenv("AIMEM_DEBUG", "1")
    by_env = CliRunner().invoke(app, ["get", "x", "--url", "http://127.0.0.1:9"])
    assert isinstance(by_env.exception, ZeroDivisionError)


def test_usage_errors_keep_the_parsers_code() -> None:
    result = CliRunner().invoke(app, ["search"])
    assert result.exit_code == ExitCode.USAGE


def test_a_bad_argument_value_names_it_and_exits_2() -> None:
    result = CliRunner().invoke(
        app, ["search", "q", "--mode", "sideways", "--url", "http://127.0.0.1:9"]
    )
    assert result.exit_code == ExitCode.USAGE
    assert result.stderr.strip().startswith("ai-memory: invalid mode:")


@pytest.mark.parametrize(
    "args",
    [
        ["keys", "list", "--tenant", "acme"],
        ["keys", "revoke", "0123456789abcdef"],
        ["receipt-public-key"],
        ["dead-letters", "list"],
        ["vault", "reconcile"],
    ],
)
def test_commands_that_read_a_data_dir_refuse_a_missing_one(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AIMEM_DATA_DIR", raising=False)
    monkeypatch.delenv("AIMEM_RECEIPT_KEY", raising=False)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "no data directory at data" in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing created


def test_keys_list_prints_whole_ids_in_a_narrow_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = str(tmp_path / "data")
    runner = CliRunner()
    create = ["keys", "create", "--tenant", "acme", "--role", "reader", "--data-dir", data]
    created = runner.invoke(app, [*create, "--name", "a-rather-long-key-name", "--json"])
    assert created.exit_code == 0, created.output
    issued = json.loads(created.stdout)
    key_id = issued["key_id"]
    assert issued["key"].startswith("aimem_") and key_id in issued["key"]

    monkeypatch.setenv("COLUMNS", "50")
    table = runner.invoke(app, ["keys", "list", "--tenant", "acme", "--data-dir", data])
    assert table.exit_code == 0
    assert key_id in table.stdout  # not cut: it is what `keys revoke` takes
    lines = runner.invoke(app, ["keys", "list", "--tenant", "acme", "--json", "--data-dir", data])
    assert [json.loads(line)["key_id"] for line in lines.stdout.splitlines()] == [key_id]

    revoked = runner.invoke(app, ["keys", "revoke", key_id, "--json", "--data-dir", data])
    assert revoked.exit_code == 0
    assert json.loads(revoked.stdout)["status"] == "revoked"


def test_a_bad_setting_stops_serve_before_anything_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("AIMEM_INDEX", "bogus://x")
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(data)])
    assert result.exit_code == ExitCode.BAD_SETTING
    assert result.stderr.strip().splitlines() == [
        "ai-memory: bad setting AIMEM_INDEX: unknown scheme 'bogus' (expected qdrant-edge, "
        "qdrant+http, qdrant+https, qdrant+local, qdrant+memory, memory)"
    ]
    assert not data.exists()


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        (
            {
                "AIMEM_EVENT_LOG": "kafka://127.0.0.1:1/t",
                "AIMEM_RECORD_STORE": "cassandra://127.0.0.1:1/ks",
            },
            "AIMEM_ROOT_KEY",
        ),
        ({"AIMEM_ROOT_KEY": "too-short"}, "AIMEM_ROOT_KEY"),
        ({"AIMEM_EVENT_LOG": "sqlite://relative.db"}, "AIMEM_EVENT_LOG"),
        ({"AIMEM_RECORD_STORE": "postgres://x/y"}, "AIMEM_RECORD_STORE"),
        ({"AIMEM_EMBEDDER": "word2vec"}, "AIMEM_EMBEDDER"),
        ({"AIMEM_RECEIPT_KEY": "not a key"}, "AIMEM_RECEIPT_KEY"),
        ({"AIMEM_WAIT_TIMEOUT": "soon"}, "AIMEM_WAIT_TIMEOUT"),
        ({"AIMEM_PORT": "eighty"}, "AIMEM_PORT"),
        ({"AIMEM_INSECURE_OPEN": "maybe"}, "AIMEM_INSECURE_OPEN"),
    ],
)
def test_serve_names_the_bad_variable(
    env: dict[str, str], variable: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(data)])
    assert result.exit_code == ExitCode.BAD_SETTING, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"ai-memory: bad setting {variable}"), line
    assert not data.exists()


def test_replay_json_summarises_each_projection(tmp_path: Path) -> None:
    from ai_memory.bootstrap import build
    from ai_memory.settings import Settings

    data = tmp_path / "data"
    build(Settings(data_dir=data, embedder="static")).close()  # an empty deployment
    result = CliRunner().invoke(app, ["replay", "--json", "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [row["projection"] for row in summary] == ["records", "index"]
    assert all(row["events"] == 0 and row["dead_lettered"] == 0 for row in summary)
