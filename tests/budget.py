"""How many examples a property test that sets its own number tries.

The default run caps every property at the default profile's 20 examples (``conftest.py``);
``pytest --slow`` gives each test the number it names. The properties are the same in both
runs: the default run tries fewer random cases of each.
"""

from __future__ import annotations

from hypothesis import settings


def examples(full: int) -> int:
    """``full`` under ``pytest --slow``, at most the default profile's number otherwise."""
    base = settings.default.max_examples
    return full if base >= settings.get_profile("goldnoise-slow").max_examples else min(full, base)
