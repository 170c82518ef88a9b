"""Held-out public crowd sets with gold, read from ``$GOLDNOISE_HELDOUT_SETS`` (research
data, never committed): a directory of ``<name>/answer.csv`` (question, worker, answer) and
``<name>/truth.csv`` (question, truth), as distributed with Zheng et al. (2017)'s
truth-inference code. Shared by the benchmarks that measure on them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

#: The environment variable naming the directory.
HELDOUT_ENV = "GOLDNOISE_HELDOUT_SETS"


def heldout_answer_sets(skip: tuple[str, ...] = ()) -> Iterator[tuple[str, pd.DataFrame,
                                                                       pd.Series]]:
    """``(name, long ratings with item/worker/label columns, truth by item)`` for every set
    under ``$GOLDNOISE_HELDOUT_SETS`` (none when it is unset), a worker's repeated answer
    to an item kept once; ``skip``: set names left out."""
    root = os.environ.get(HELDOUT_ENV)
    if not root or not Path(root).is_dir():
        return
    for d in sorted(Path(root).iterdir()):
        if d.name in skip or not (d / "answer.csv").is_file() \
                or not (d / "truth.csv").is_file():
            continue
        lab = (pd.read_csv(d / "answer.csv")
               .rename(columns={"question": "item", "answer": "label"})
               .drop_duplicates(subset=["item", "worker"]))
        truth = (pd.read_csv(d / "truth.csv").rename(columns={"question": "item"})
                 .set_index("item")["truth"])
        yield d.name, lab, truth
