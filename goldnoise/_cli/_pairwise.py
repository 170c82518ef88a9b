"""Pairwise votes for ``goldnoise rank`` and ``goldnoise preferences``: options and reading.

FILE is a table of votes (one row per vote: item, a, b, rater, winner, optionally
order and rater_kind), or -- with ``--items ITEMS`` -- a table of pair labels (item,
rater, label, rater_kind) whose ``ITEMS`` table names the two systems of each item
(PandaLM's layout: ``model_1``, ``model_2``; label 0 tie, 1 first better, 2 second
better).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from goldnoise._cli._errors import DataError, UsageError
from goldnoise._cli._reading import SUFFIXES, read_table

__all__ = ["add_comparison_arguments", "load_comparisons"]


def add_comparison_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("input")
    g.add_argument("file", metavar="FILE",
                   help=f"votes, one row per vote: {SUFFIXES}")
    g.add_argument("--items", metavar="ITEMS",
                   help="FILE holds pair labels (item, rater, label[, rater_kind]) and ITEMS "
                        "names each item's two systems (--first, --second columns)")
    g.add_argument("--first", metavar="COLUMN", default="model_1",
                   help="with --items: the column of the system shown first")
    g.add_argument("--second", metavar="COLUMN", default="model_2",
                   help="with --items: the column of the system shown second")
    g.add_argument("--codes", metavar="L=W", nargs="+", default=["0=tie", "1=a", "2=b"], dest="label_codes",
                   help="with --items: label=winner pairs (winner a, b or tie)")
    for name, default, what in (("item", "item", "the prompt"), ("a", "a", "system a"),
                                ("b", "b", "system b"), ("rater", "rater", "the rater"),
                                ("winner", "winner", "a, b, tie or a system's name"),
                                ("label", "label", "with --items: the pair label"),
                                ("order", "order", "ab or ba, where a judge saw both orders"),
                                ("kind-column", "rater_kind",
                                 "'human' for humans, anything else a judge")):
        g.add_argument(f"--{name}", metavar="COLUMN", default=default,
                       dest=name.replace("-", "_"),
                       help=f"column of {what}")
    g.add_argument("--sep", metavar="SEP", help="column separator of a text FILE")


def _codes(args: argparse.Namespace) -> dict:
    out: dict[Any, str] = {}
    for spec in args.label_codes:
        label, sep, winner = spec.partition("=")
        if not sep or winner not in ("a", "b", "tie"):
            raise UsageError(f"--codes {spec!r}: write LABEL=WINNER with WINNER a, b or tie")
        try:
            out[int(label)] = winner
        except ValueError:
            out[label] = winner
    return out


def _votes_without_ids(frame: Any, args: argparse.Namespace, notes: list[str]) -> Any:
    """A table of battles (a, b, winner) with neither an ``item`` nor a ``rater`` column
    under those default names: each vote its own comparison, all by one rater, in a note."""
    named_but_absent = [c for c, default in ((args.item, "item"), (args.rater, "rater"))
                        if c != default and c not in frame.columns]
    if named_but_absent:  # the reader's own message names them
        return frame
    add: dict[str, Any] = {}
    if args.item == "item" and "item" not in frame.columns:
        add["item"] = range(1, len(frame) + 1)
        notes.append("no 'item' column: each vote is read as a comparison of its own (name "
                     "the prompt's column with --item)")
    if args.rater == "rater" and "rater" not in frame.columns:
        add["rater"] = "rater"
        notes.append("no 'rater' column: every vote is read as one rater's (name the column "
                     "with --rater)")
    return frame.assign(**add) if add else frame


def load_comparisons(args: argparse.Namespace, judges: list[str] | None = None,
                     notes: list[str] | None = None) -> Any:
    """The votes as :class:`noise_models.Comparisons` (every bad vote a DataError).

    With ``notes`` (a verb that needs neither prompts nor raters to tell votes apart: rank),
    a table without ``item`` and ``rater`` columns reads each vote as its own comparison by
    one rater, and says so in ``notes``.
    """
    from noise_models import as_comparisons, comparisons_from_ratings

    frame = read_table(Path(args.file), sep=args.sep)
    if notes is not None and args.items is None:
        frame = _votes_without_ids(frame, args, notes)
    try:
        if args.items is not None:
            items = read_table(Path(args.items), sep=args.sep)
            c = comparisons_from_ratings(frame, items, first=args.first, second=args.second,
                                         codes=_codes(args), item=args.item, rater=args.rater,
                                         label=args.label, rater_kind=args.kind_column)
            return as_comparisons(c, judges=judges) if judges else c
        return as_comparisons(frame, judges=judges, item=args.item, a=args.a, b=args.b,
                              rater=args.rater, winner=args.winner, order=args.order,
                              rater_kind=args.kind_column)
    except (TypeError, ValueError) as exc:
        text = " ".join(str(exc).split()).replace(
            "name yours with item=, a=, b=, rater=, winner=.",
            "name yours with --item, --a, --b, --rater, --winner (or give pair labels with "
            "--items ITEMS)")
        raise DataError(text) from None
