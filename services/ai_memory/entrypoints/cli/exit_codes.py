"""What an ``ai-memory`` exit code means: one table for every command (``docs/CLI.md``).

A script can tell "the server said no" from "the server is not there" from "my file is
wrong" without parsing stderr.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    #: The server (or the local store) refused the request: 4xx, unknown key, invalid
    #: receipt, a failed verification check.
    REFUSED = 1
    #: Bad usage or argument (Click's own code for usage errors).
    USAGE = 2
    #: The server cannot be reached, timed out, answered 5xx or is unavailable.
    UNREACHABLE = 3
    #: Bad local input: a file or data directory missing, unreadable, a directory
    #: instead of a file, a bundle that cannot be read.
    BAD_INPUT = 4
    #: A bad setting (an ``AIMEM_*`` variable or the option standing for it).
    BAD_SETTING = 5
    #: An import finished with lines rejected (the report says which); the others were
    #: imported.
    REJECTED = 6
    #: An unexpected failure: a bug (``--debug`` prints the traceback).
    INTERNAL = 70
    #: The data directory is held by another process; nothing was touched (EX_TEMPFAIL).
    IN_USE = 75
    #: Interrupted (Ctrl-C).
    INTERRUPTED = 130
