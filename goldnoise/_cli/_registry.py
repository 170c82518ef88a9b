"""The verbs of the ``goldnoise`` command: a new verb is a module plus one line here."""

from __future__ import annotations

__all__ = ["VERBS"]

#: The verbs, in the order ``goldnoise --help`` lists them; each is ``goldnoise/_cli/<name>.py``.
VERBS: tuple[str, ...] = (
    "audit",
    "fit",
    "kappa",
    "bound",
    "plan",
    "examples",
)
