"""``goldnoise`` entry point: the parser built from the verb registry, and error handling."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

from goldnoise._cli._errors import CliError, DataError
from goldnoise._cli._output import add_output_arguments, check_outputs, emit

#: The verbs, in the order ``goldnoise --help`` lists them; each is ``goldnoise/_cli/<name>.py``.
VERBS: tuple[str, ...] = (
    "audit",
    "fit",
    "kappa",
    "bound",
    "plan",
    "study",
    "spans",
    "consistency",
    "detect",
    "crosscheck",
    "judge",
    "rank",
    "preferences",
    "next",
    "verify",
    "certify",
    "replay",
    "simulate",
    "examples",
)

__all__ = ["build_parser", "main"]


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Shows each option's default unless its help already does or it has none."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("%(default)" not in text and "Default" not in text and "default" not in text
                and action.default not in (None, False, argparse.SUPPRESS)
                and action.option_strings):
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error: the problem, then where the usage is."""

    def error(self, message: str) -> None:  # type: ignore[override]
        text = " ".join(message.split())
        self.exit(2, f"goldnoise: error: {text} (usage: {self.prog} --help)\n")


def verb_modules() -> dict[str, ModuleType]:
    """The registered verbs (:data:`VERBS`), imported, in order."""
    return {name: importlib.import_module(f"goldnoise._cli.{name}") for name in VERBS}


def build_parser() -> argparse.ArgumentParser:
    from _goldnoise_lib.version import __version__

    parser = _Parser(
        prog="goldnoise", formatter_class=_Formatter,
        description="How noisy is your gold standard? Agreement coefficients with intervals, "
                    "the easy/hard noise bound gamma, kappa audits, latent-class fits and "
                    "annotation planning.",
        epilog="Start with: goldnoise audit --example fleiss1971. Exit status: 0 done (sections "
               "the data do not allow say why), 1 the data could not be used, 2 usage error.",
    )
    parser.add_argument("--version", action="version", version=f"goldnoise {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in verb_modules().items():
        p = sub.add_parser(name, help=module.HELP, description=getattr(module, "DESCRIPTION",
                                                                          module.HELP),
                           formatter_class=_Formatter)
        module.add_arguments(p)
        add_output_arguments(p)
        p.set_defaults(_verb=module, _options=frozenset(
            o for action in p._actions for o in action.option_strings))
    return parser


def _warning_note(w: warnings.WarningMessage, options: frozenset[str] | None = None) -> str:
    from goldnoise._cli._common import in_cli_words

    return in_cli_words(str(w.message), options=options)


def _in_cli_words(exc: BaseException, *, one_line: bool = True,
                  options: frozenset[str] | None = None) -> str:
    from goldnoise._cli._common import in_cli_words

    return in_cli_words(str(exc), one_line=one_line, options=options)


def _notes_in_cli_words(report: object, options: frozenset[str] | None = None) -> None:
    from goldnoise._cli._common import in_cli_words

    for holder in (report, *getattr(report, "sections", ())):
        notes = getattr(holder, "notes", None)
        if notes:
            notes[:] = [in_cli_words(n, one_line=False, options=options) for n in notes]


def _quiet_stdout() -> None:
    """After a broken pipe, send what is left of stdout to /dev/null (no second error)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real fd
        pass


def _compile_notice(module: object):
    """Say so on stderr when the first run compiles kernels (not for `examples`)."""
    import contextlib

    if getattr(module, "COMPILES", True) is False:
        return contextlib.nullcontext()
    from goldnoise._cli._compile import compile_notice

    return compile_notice(sys.stderr)


@contextlib.contextmanager
def _progress_off(off: bool):
    """``--no-progress`` for this command only: the switch is restored afterwards, so a
    later ``main`` in the same process (a notebook, a script) draws its bars again."""
    if not off:
        yield
        return
    before = os.environ.get("GOLDNOISE_PROGRESS")
    os.environ["GOLDNOISE_PROGRESS"] = "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("GOLDNOISE_PROGRESS", None)
        else:
            os.environ["GOLDNOISE_PROGRESS"] = before


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``goldnoise`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    module = args._verb
    options = getattr(args, "_options", None)  # the verb's own: hints name no other
    try:
        check_outputs(args)
    except CliError as exc:
        print(f"goldnoise: error: {_in_cli_words(exc, one_line=False, options=options)}",
              file=sys.stderr)
        return exc.exit_status
    try:
        with warnings.catch_warnings(record=True) as caught, _compile_notice(module), \
                _progress_off(getattr(args, "no_progress", False)):
            warnings.simplefilter("always")
            report = module.run(args)
        # Warnings become one-line notes of the report, once each, never raw warnings;
        # every note names the command's options, not the library's parameters.
        report.notes.extend(_warning_note(w, options) for w in caught)
        _notes_in_cli_words(report, options)
        emit(report, args)
    except BrokenPipeError:
        # The reader (e.g. `head`) stopped reading: stop quietly, as `cat` would.
        _quiet_stdout()
        return 0
    except CliError as exc:
        text = _in_cli_words(exc, one_line=False, options=options)
        if isinstance(exc, DataError) and "--" not in text:
            text = _with_file(text, args)  # a data problem names its file
        print(f"goldnoise: error: {text}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("goldnoise: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print("goldnoise: error: out of memory", file=sys.stderr)
        return 1
    except (ValueError, TypeError) as exc:
        if os.environ.get("GOLDNOISE_TRACEBACK"):
            raise
        print(f"goldnoise: error: {_with_file(_in_cli_words(exc, options=options), args)}",
              file=sys.stderr)
        return 1
    return 0


def _with_file(message: str, args: argparse.Namespace) -> str:
    """A message that reached the top without naming a file gets the input file(s) named.

    The readers name the file, line and what they expected; this is the net under them, so
    that a library's own words (``invalid literal for int()``) never stand alone.
    """
    from goldnoise._cli._output import input_files

    files = [str(p) for p in input_files(args)]
    if not files or any(f in message for f in files) or any(
            os.path.basename(f) in message for f in files):
        return message
    if "no such file" in message or os.sep in message:
        return message  # it names a file of its own (perhaps one that does not exist)
    return f"{', '.join(files[:3])}: {message}"


