"""A progress bar for long runs: tqdm on stderr, only when stderr is a terminal."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

__all__ = ["progress"]

# A run shows its bar only once it has taken this long (short runs stay silent).
DELAY = 2.0


@contextlib.contextmanager
def progress(total: int, desc: str) -> Iterator[Callable[[int], None] | None]:
    """Yield ``update(k)`` for a bar of ``total`` steps, or None when stderr is not a terminal."""
    from _goldnoise_lib.progress import progress_enabled

    stream = sys.stderr
    # One switch for every bar: a terminal, and not GOLDNOISE_PROGRESS=0 (--no-progress).
    if not progress_enabled():
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=desc, file=stream, delay=DELAY, leave=False,
              dynamic_ncols=True) as bar:
        yield bar.update
