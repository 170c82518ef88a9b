"""A line on stderr while Numba compiles kernels (the first run, or a new kind of data).

Kernels are compiled at first use and cached on disk; the first run of a verb
can spend tens of seconds compiling with nothing on screen. When compiling has
taken more than two seconds (one long compile, or several short ones), the
command says so, once. A kernel is compiled for the types of its arguments: data
of another kind (a code type, say, for more than 127 categories) compiles it again
although it is cached for the earlier kind; the line then says "for this kind of
data" rather than "first run".
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TextIO

__all__ = ["KIND_MESSAGE", "MESSAGE", "MESSAGES", "compile_notice"]

MESSAGE = ("goldnoise: compiling kernels (first run only: they are cached for the next "
           "runs)...")
#: Said instead when the kernel being compiled is cached already for other data.
KIND_MESSAGE = ("goldnoise: compiling kernels for this kind of data (cached for the next "
                "runs)...")
MESSAGES = (MESSAGE, KIND_MESSAGE)


def _cached_before(dispatcher: object = None) -> bool:
    """Whether goldnoise has run before with this kernel cache: the cache holds kernels
    (any index file where Numba keeps them, ``NUMBA_CACHE_DIR`` or the packages'
    ``__pycache__`` folders), or the kernel being compiled for other argument types.
    Then this compile is for a new kind of data, not a first run."""
    import glob
    import os
    from pathlib import Path

    try:
        if dispatcher is not None and dispatcher._cache._cache_file._load_index():
            return True
    except Exception:  # not a cached kernel, an unreadable index: look at the folders
        pass
    top = Path(__file__).resolve().parents[2]
    packages = [top / p for p in ("_goldnoise_lib", "agreement", "noise_models", "simulation",
                                  "goldnoise")]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:  # one folder per source folder, named by it and a hash of its path
        names = {d.name for p in packages for d in [p, *p.rglob("*")]
                 if d.is_dir() and d.name != "__pycache__"}
        return any(os.path.basename(os.path.dirname(f)).rsplit("_", 1)[0] in names
                   for f in glob.glob(os.path.join(root, "*", "*.nbi")))
    return any(glob.glob(str(p / "**" / "__pycache__" / "*.nbi"), recursive=True)
               for p in packages)


@contextlib.contextmanager
def compile_notice(stream: TextIO, after: float = 2.0) -> Iterator[None]:
    """Print :data:`MESSAGE` on ``stream`` once compiling has taken ``after`` seconds."""
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - numba is a dependency
        yield
        return
    lock = threading.Lock()
    state = {"spent": 0.0, "depth": 0, "start": 0.0, "timer": None, "said": False,
             "kind": None}

    def say() -> None:
        with lock:
            if state["said"]:
                return
            state["said"] = True
        print(KIND_MESSAGE if state["kind"] else MESSAGE, file=stream, flush=True)

    class _Listener(event.Listener):
        def on_start(self, ev: object) -> None:
            if state["kind"] is None:  # the first kernel compiled decides which line
                state["kind"] = _cached_before(ev.data.get("dispatcher"))
            with lock:
                state["depth"] += 1
                if state["depth"] > 1 or state["said"]:
                    return
                state["start"] = time.perf_counter()
                timer = threading.Timer(max(0.0, after - state["spent"]), say)
                timer.daemon = True
                state["timer"] = timer
            timer.start()

        def on_end(self, ev: object) -> None:
            with lock:
                state["depth"] -= 1
                if state["depth"] > 0:
                    return
                state["spent"] += time.perf_counter() - state["start"]
                if state["timer"] is not None:
                    state["timer"].cancel()
                    state["timer"] = None

    with event.install_listener("numba:compile", _Listener()):
        try:
            yield
        finally:
            with lock:
                if state["timer"] is not None:
                    state["timer"].cancel()
