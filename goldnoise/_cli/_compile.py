"""A line on stderr while Numba compiles kernels (the first run only).

Kernels are compiled at first use and cached on disk; the first run of a verb
can spend tens of seconds compiling with nothing on screen. When compiling has
taken more than two seconds (one long compile, or several short ones), the
command says so, once.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TextIO

__all__ = ["MESSAGE", "compile_notice"]

MESSAGE = ("goldnoise: compiling kernels (first run only: they are cached for the next "
           "runs)...")


@contextlib.contextmanager
def compile_notice(stream: TextIO, after: float = 2.0) -> Iterator[None]:
    """Print :data:`MESSAGE` on ``stream`` once compiling has taken ``after`` seconds."""
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - numba is a dependency
        yield
        return
    lock = threading.Lock()
    state = {"spent": 0.0, "depth": 0, "start": 0.0, "timer": None, "said": False}

    def say() -> None:
        with lock:
            if state["said"]:
                return
            state["said"] = True
        print(MESSAGE, file=stream, flush=True)

    class _Listener(event.Listener):
        def on_start(self, ev: object) -> None:
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
