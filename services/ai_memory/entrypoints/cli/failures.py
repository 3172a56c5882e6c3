"""Every expected failure of a command as one line on stderr and an exit code.

Commands do not catch errors to print them: they raise, and ``ReportingGroup`` (the
root command's class) turns the exception into ``ai-memory: <what happened> — <what to
do>`` and the exit code of its class (``exit_codes.ExitCode``). The Python traceback is
printed only with ``--debug`` (``AIMEM_DEBUG=1``); an exception nobody expected is one
line saying so, and exit 70.
"""

from __future__ import annotations

import errno
import gzip
from typing import Any

import httpx
import typer
from pydantic import ValidationError
from typer._click.core import Context  # Typer's bundled Click: the type invoke takes
from typer.core import TyperGroup

from ai_memory.core.errors import AiMemoryError, DataDirInUse, InvalidInput, RetryableError
from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.launcher import explain as needs_extra
from ai_memory.entrypoints.cli.launcher import missing_extra
from ai_memory.sdk import ApiError
from ai_memory.sdk.errors import ConnectionFailedError, ForbiddenError, UnauthenticatedError
from ai_memory.settings import SettingsError

PROG = "ai-memory"


class CommandFailure(Exception):
    """A command's own refusal: its message is the whole line, ``code`` the exit code."""

    def __init__(self, message: str, code: ExitCode) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def explain(error: BaseException) -> tuple[str, ExitCode]:
    """The line naming the problem (and the fix) and the exit code of ``error``."""
    if isinstance(error, CommandFailure):
        return error.message, error.code
    if isinstance(error, KeyboardInterrupt):
        return "interrupted", ExitCode.INTERRUPTED
    if isinstance(error, ModuleNotFoundError) and (extra := missing_extra(error)) is not None:
        # A command of an extra this install lacks (serve on a client-only install).
        return needs_extra(error, extra).removeprefix(f"{PROG}: "), ExitCode.USAGE
    if isinstance(error, ApiError):
        return _api_error(error)
    if isinstance(error, SettingsError):
        return "bad setting " + str(error).removeprefix("invalid settings: "), ExitCode.BAD_SETTING
    if isinstance(error, DataDirInUse):
        return str(error), ExitCode.IN_USE
    if isinstance(error, InvalidInput) and error.field.startswith("AIMEM_"):
        return f"bad setting {error.field}: {error.message}", ExitCode.BAD_SETTING
    if isinstance(error, RetryableError):
        return f"unavailable: {error.message} — try again", ExitCode.UNREACHABLE
    if isinstance(error, InvalidInput):
        return f"{error.code} [{error.field}]: {error.message}", ExitCode.REFUSED
    if isinstance(error, AiMemoryError):
        return f"{error.code}: {error.message}", ExitCode.REFUSED
    if isinstance(error, ValidationError):
        problem = error.errors()[0]
        where = ".".join(str(p) for p in problem["loc"]) or "input"
        return f"invalid {where}: {problem['msg']}", ExitCode.USAGE
    if isinstance(error, gzip.BadGzipFile | EOFError):
        return f"cannot read the bundle: {error or 'it ends too early'}", ExitCode.BAD_INPUT
    if isinstance(error, OSError) and error.filename is not None:
        return _file_error(error), ExitCode.BAD_INPUT
    return (
        f"internal error: {type(error).__name__}: {error} — run with --debug "
        "(or AIMEM_DEBUG=1) for the traceback",
        ExitCode.INTERNAL,
    )


def _api_error(error: ApiError) -> tuple[str, ExitCode]:
    if isinstance(error, ConnectionFailedError):
        return _unreachable(error), ExitCode.UNREACHABLE
    where = f" [{error.field}]" if error.field else ""
    said = f"({error.status or '-'} {error.code}{where}): {error.detail}"
    if error.status is None or error.status >= 500 or isinstance(error, RetryableError):
        return (
            f"the server could not answer {said} — try again; its log says more",
            ExitCode.UNREACHABLE,
        )
    hint = ""
    if isinstance(error, UnauthenticatedError):
        hint = " — set AIMEM_API_KEY to a valid key of this deployment"
    elif isinstance(error, ForbiddenError):
        hint = " — this key's role, scopes or tenant do not allow it; use a key that does"
    return f"the server refused the request {said}{hint}", ExitCode.REFUSED


def _unreachable(error: ConnectionFailedError) -> str:
    cause = error.__cause__
    base = "the server"
    if isinstance(cause, httpx.TransportError):
        try:
            url = cause.request.url
            base = f"{url.scheme}://{url.netloc.decode('ascii', 'replace')}"
        except RuntimeError:  # no request attached
            pass
    if isinstance(cause, httpx.TimeoutException) and not isinstance(cause, httpx.ConnectTimeout):
        # Connected, but no answer in time: the server is there and too slow.
        return f"{base} did not answer in time — it may be overloaded; try again"
    if isinstance(cause, httpx.ConnectTimeout):
        why = "timed out"
    elif isinstance(cause, httpx.TransportError):
        text = str(cause)
        why = "connection refused" if "refused" in text.lower() else (text or type(cause).__name__)
    else:
        why = error.detail
    return (
        f"cannot reach {base} ({why}) — is the server running? (ai-memory serve, or set AIMEM_URL)"
    )


def _file_error(error: OSError) -> str:
    name = error.filename
    if isinstance(error, FileNotFoundError):
        return f"no such file or directory: {name}"
    if isinstance(error, IsADirectoryError):
        return f"{name} is a directory, not a file"
    if isinstance(error, NotADirectoryError):
        return f"{name}: a part of the path is not a directory"
    if isinstance(error, PermissionError):
        return f"permission denied: {name}"
    reason = error.strerror or errno.errorcode.get(error.errno or 0, "error")
    return f"cannot use {name}: {reason}"


class ReportingGroup(TyperGroup):
    """The root command: runs the command, and reports what it raised (see module doc)."""

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.TyperException, typer.Exit, typer.Abort):
            raise  # the parser's own: usage errors (2), explicit exits
        except (Exception, KeyboardInterrupt) as e:
            message, code = explain(e)
            typer.echo(f"{PROG}: {message}", err=True)
            if ctx.params.get("debug"):
                raise
            raise typer.Exit(int(code)) from None
