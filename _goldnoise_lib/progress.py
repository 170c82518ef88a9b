"""Progress bars for work that runs long: tqdm, on stderr, only on a terminal.

Every package draws its bars through :func:`progress`, so one switch turns them
all off: the environment variable ``GOLDNOISE_PROGRESS=0`` (the command line's
``--no-progress`` sets it). A bar appears only when stderr is a terminal, tqdm
is installed, and the work is still running after ``delay`` seconds, so quick
calls, pipes, logs and notebooks stay clean.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["progress", "progress_bar", "progress_enabled", "progress_silenced"]

T = TypeVar("T")


def progress_silenced() -> bool:
    """Whether ``GOLDNOISE_PROGRESS`` (``--no-progress``) turns progress reports off."""
    return os.environ.get("GOLDNOISE_PROGRESS", "").strip().lower() in ("0", "false", "no",
                                                                        "off")


def progress_enabled() -> bool:
    """Whether bars may be drawn: stderr is a terminal and ``GOLDNOISE_PROGRESS`` is not 0."""
    if progress_silenced():
        return False
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # closed or replaced stderr
        return False


def progress(iterable: Iterable[T], *, total: int | None = None, desc: str = "",
             delay: float = 1.0, **kwargs: Any) -> Iterator[T] | Iterable[T]:
    """``iterable``, wrapped in a tqdm bar on stderr when :func:`progress_enabled`.

    Parameters
    ----------
    iterable : iterable
        The steps of the work.
    total : int, optional
        Number of steps (default ``len(iterable)`` when it has one).
    desc : str
        What is being done, shown left of the bar.
    delay : float, default 1.0
        Seconds before the bar appears: work that ends sooner shows nothing.

    Examples
    --------
    >>> from _goldnoise_lib.progress import progress
    >>> sum(progress(range(4), desc="adding"))   # no terminal under pytest: no bar
    6
    """
    if not progress_enabled():
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=desc, delay=delay, file=sys.stderr, leave=False,
                dynamic_ncols=True, **kwargs)


@contextlib.contextmanager
def progress_bar(total: float, *, desc: str = "", unit: str = "it", enabled: bool | None = None,
                 delay: float | None = None) -> Iterator[Callable[[float], None]]:
    """A bar for work counted by hand: yields ``update(amount)``.

    ``enabled=None`` draws it when :func:`progress_enabled` (a terminal, and
    ``GOLDNOISE_PROGRESS`` not 0), once the work has run ``delay`` seconds (default 1);
    ``True`` draws it anyway and at once (asked for: a log, a notebook); ``False``
    never. Without tqdm, ``update`` does nothing.

    Examples
    --------
    >>> from _goldnoise_lib.progress import progress_bar
    >>> with progress_bar(10, desc="work", enabled=False) as update:
    ...     update(4)
    """
    bar = None
    if enabled or (enabled is None and progress_enabled()):
        try:
            from tqdm.auto import tqdm

            if delay is None:
                delay = 0.0 if enabled else 1.0
            bar = tqdm(total=total, desc=desc, unit=unit, delay=delay, file=sys.stderr,
                       leave=False, dynamic_ncols=True)
        except ImportError:
            bar = None
    try:
        yield (bar.update if bar is not None else (lambda amount: None))
    finally:
        if bar is not None:
            bar.close()
