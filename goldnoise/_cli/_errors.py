"""The two kinds of failure of a ``goldnoise`` command, and their exit statuses."""

from __future__ import annotations

__all__ = ["CliError", "DataError", "UsageError"]


class CliError(Exception):
    """A failure printed as one line ``goldnoise: error: ...`` without a traceback."""

    exit_status = 1


class UsageError(CliError):
    """The command line itself is wrong (exit status 2, as for argparse's own errors)."""

    exit_status = 2


class DataError(CliError):
    """A file is missing, unreadable, or holds nothing the command can use (exit status 1)."""

    exit_status = 1
