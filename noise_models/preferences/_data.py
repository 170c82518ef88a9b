"""Pairwise comparison data: one row per vote, validated once (SPEC §11).

A vote is (prompt, system ``a``, system ``b``, rater, winner, order shown, rater
kind). :func:`as_comparisons` checks a long table and codes it: the winner as
+1 (``a``), -1 (``b``) or 0 (tie), and whether ``a`` was shown first. The unit of
every statistic of this subpackage is a *comparison*: one prompt and one
unordered pair of systems, whatever the number of votes on it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.results import plain_value

__all__ = ["Comparisons", "as_comparisons", "comparisons_from_ratings"]

_WINNER_WORDS = {"a": 1, "b": -1, "tie": 0}


@dataclasses.dataclass(frozen=True, repr=False)
class Comparisons:
    """Pairwise votes, coded: one row per vote.

    Attributes
    ----------
    frame : pandas.DataFrame
        Columns ``item``, ``a``, ``b``, ``rater``, ``winner`` (``"a"``, ``"b"`` or
        ``"tie"``), ``order`` (``"ab"``: ``a`` shown first, ``"ba"``), ``rater_kind``
        (``"human"`` or ``"judge"``), ``unit`` (the comparison's number: one per
        prompt and unordered pair), ``i``, ``j`` (the systems' positions in
        ``systems``, ``i`` for ``a``), ``outcome`` (+1 ``a`` won, -1 ``b`` won, 0 tie) and
        ``a_score`` (the vote's score for ``a``: 1, 1/2 for a tie, 0 -- or the rater's
        probability that ``a`` is better, where a ``probability`` column gives one).
    systems : tuple of str
        The systems, sorted.
    """

    frame: pd.DataFrame
    systems: tuple[str, ...]

    @property
    def n_units(self) -> int:
        """The number of comparisons (prompt, unordered pair)."""
        return int(self.frame["unit"].max()) + 1 if len(self.frame) else 0

    def raters(self, kind: str | None = None) -> list[str]:
        """The raters (of one kind, ``"human"`` or ``"judge"``), in order of appearance."""
        f = self.frame if kind is None else self.frame[self.frame["rater_kind"] == kind]
        return list(pd.unique(f["rater"]))

    def subset(self, mask: Any) -> Comparisons:
        """The votes where ``mask`` is true (units and systems kept)."""
        return Comparisons(self.frame[np.asarray(mask, dtype=bool)].reset_index(drop=True),
                           self.systems)

    def __repr__(self) -> str:
        return (f"Comparisons({len(self.frame)} votes on {self.n_units} comparisons of "
                f"{len(self.systems)} systems by {len(self.raters())} raters)")


def _kind(values: pd.Series) -> np.ndarray:
    """``rater_kind`` values as "human" or "judge" (anything not a human word is a judge)."""
    text = values.astype(str).str.lower()
    return np.where(text.isin(["human", "humans", "annotator", "crowd", "expert"]), "human",
                    "judge")


def as_comparisons(data: Any, *, judges: Any = None, item: str = "item", a: str = "a",
                   b: str = "b", rater: str = "rater", winner: str = "winner",
                   order: str = "order", rater_kind: str = "rater_kind",
                   probability: str = "probability") -> Comparisons:
    """Check and code a long table of pairwise votes.

    Parameters
    ----------
    data : pandas.DataFrame or Comparisons
        One row per vote. Columns (names through the keyword arguments): ``item``
        (the prompt), ``a`` and ``b`` (the two systems; ``a`` shown first unless
        ``order`` says otherwise), ``rater``, ``winner`` (``"a"``, ``"b"``,
        ``"tie"``, or the winning system's name), optionally ``order`` (``"ab"`` or
        ``"ba"``) and ``rater_kind`` (``"human"``; anything else, e.g. ``"llm"``,
        is a judge), and ``probability``: a soft vote, the rater's probability that ``a``
        is better (a judge's soft output; the winner may then be missing, and is read
        as the side above 1/2, a tie at 1/2, where a verdict is needed).
    judges : str or sequence of str, optional
        Raters that are judges (overrides ``rater_kind``); without both, every
        rater is human.
    item, a, b, rater, winner, order, rater_kind, probability : str
        Column names.

    Returns
    -------
    Comparisons
        Bradley–Terry fits (:func:`rank_systems`) use a soft vote's probability itself,
        never its top class; the three-way label of :func:`preference_audit` and the
        verdicts of :func:`position_bias` use the winner.

    Raises
    ------
    ValueError
        A missing column, a comparison of a system with itself, a winner that is
        neither system (nor ``tie``), an ``order`` other than ``ab``/``ba``, missing
        values, a judge that is not a rater.

    Examples
    --------
    >>> import pandas as pd
    >>> from noise_models.preferences import as_comparisons
    >>> votes = pd.DataFrame({"item": [1, 1, 2], "a": ["x", "x", "y"],
    ...                       "b": ["y", "y", "z"], "rater": ["h1", "h2", "h1"],
    ...                       "winner": ["a", "y", "tie"]})
    >>> c = as_comparisons(votes)
    >>> c
    Comparisons(3 votes on 2 comparisons of 3 systems by 2 raters)
    >>> c.frame["outcome"].tolist()
    [1, -1, 0]
    """
    if isinstance(data, Comparisons):
        if judges is None:
            return data
        data = data.frame[["item", "a", "b", "rater", "winner", "order", "rater_kind"]].assign(
            probability=data.frame["a_score"])
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"`comparisons` must be a pandas DataFrame of votes (one row per vote); "
                        f"got {type(data).__name__}.")
    names = {"item": item, "a": a, "b": b, "rater": rater, "winner": winner}
    missing = [f"{k!r} (column {v!r})" for k, v in names.items() if v not in data.columns]
    if missing:
        raise ValueError(f"the comparisons lack {', '.join(missing)}; the columns are "
                         f"{list(data.columns)[:10]} -- name yours with item=, a=, b=, rater=, "
                         "winner=.")
    df = pd.DataFrame({k: data[v].to_numpy() for k, v in names.items()})
    soft = _soft_winners(data, probability, df)
    if df.isna().any().any():
        col = df.columns[df.isna().any()][0]
        raise ValueError(f"the comparisons' {col!r} column has {int(df[col].isna().sum())} "
                         "missing value(s); drop those votes first.")
    if len(df) == 0:
        raise ValueError("the comparisons hold no votes.")
    for c in ("a", "b", "rater"):
        df[c] = df[c].astype(str)
    same = df["a"] == df["b"]
    if same.any():
        r = df[same].iloc[0]
        raise ValueError(f"{int(same.sum())} vote(s) compare a system with itself (e.g. item "
                         f"{plain_value(r['item'])!r}: {r['a']!r} vs {r['a']!r}); drop them.")
    outcome = _outcomes(df)
    df["order"] = _orders(data, order)
    df["rater_kind"] = _rater_kinds(data, df, judges, rater_kind)
    systems = tuple(sorted(set(df["a"]) | set(df["b"])))
    pos = {s: k for k, s in enumerate(systems)}
    df["i"] = df["a"].map(pos).astype(np.int64)
    df["j"] = df["b"].map(pos).astype(np.int64)
    lo, hi = np.minimum(df["i"], df["j"]), np.maximum(df["i"], df["j"])
    df["unit"] = pd.factorize(pd.MultiIndex.from_arrays([df["item"], lo, hi]))[0]
    df["outcome"] = outcome.astype(np.int64).to_numpy()
    score = (df["outcome"].to_numpy() + 1) / 2.0
    if soft is not None:
        score = np.where(np.isnan(soft), score, soft)
    df["a_score"] = score
    return Comparisons(df, systems)


def _soft_winners(data: pd.DataFrame, probability: Any, df: pd.DataFrame) -> np.ndarray | None:
    """The votes' probabilities that ``a`` is better (column ``probability``; NaN where not
    given), or None; a vote without a winner takes the side its probability favours."""
    soft = None
    if probability in data.columns:
        soft = pd.to_numeric(data[probability], errors="coerce").to_numpy(dtype=np.float64)
        given = ~np.isnan(soft)
        if ((soft[given] < 0) | (soft[given] > 1)).any():
            raise ValueError(f"the `probability` column {probability!r} must hold "
                             "probabilities in [0, 1] that `a` is better.")
        fill = df["winner"].isna().to_numpy() & given
        df.loc[fill, "winner"] = np.where(soft[fill] > 0.5, "a",
                                          np.where(soft[fill] < 0.5, "b", "tie"))
    return soft


def _outcomes(df: pd.DataFrame) -> pd.Series:
    """Each vote's outcome, 1 (``a`` won), -1 (``b``) or 0 (tie), from its winner: a word
    (``"a"``, ``"tie"``, ...) or one of the two systems; the winners rewritten as a/b/tie."""
    w = df["winner"].astype(str)
    outcome = w.str.lower().map(_WINNER_WORDS)
    by_name = outcome.isna()
    outcome[by_name & (w == df["a"])] = 1
    outcome[by_name & (w == df["b"])] = -1
    bad = outcome.isna()
    if bad.any():
        r = df[bad].iloc[0]
        raise ValueError(f"{int(bad.sum())} vote(s) name a winner that is neither system (e.g. "
                         f"item {plain_value(r['item'])!r}: winner {r['winner']!r} of {r['a']!r} vs "
                         f"{r['b']!r}); use 'a', 'b', 'tie' or one of the two systems.")
    df["winner"] = np.where(outcome == 1, "a", np.where(outcome == -1, "b", "tie"))
    return outcome


def _orders(data: pd.DataFrame, order: Any) -> np.ndarray | str:
    """Which system each vote showed first, ``"ab"`` or ``"ba"`` (column ``order``; default
    ``"ab"``)."""
    if order not in data.columns:
        return "ab"
    o = data[order].astype(str).str.lower().to_numpy()
    if not np.isin(o, ["ab", "ba"]).all():
        raise ValueError(f"`order` column {order!r} holds {sorted(set(o) - {'ab', 'ba'})[:3]}"
                         "; use 'ab' (a shown first) or 'ba'.")
    return o


def _rater_kinds(data: pd.DataFrame, df: pd.DataFrame, judges: Any, rater_kind: Any
                 ) -> np.ndarray | str:
    """Each vote's rater kind, ``"judge"`` or ``"human"``: the raters named in ``judges``,
    else the ``rater_kind`` column, else human."""
    if judges is not None:
        js = {str(judges)} if isinstance(judges, (str, bytes)) else {str(x) for x in judges}
        unknown = js - set(df["rater"])
        if unknown:
            raise ValueError(f"`judges` names {sorted(unknown)[:3]}, not raters of the "
                             f"comparisons; the raters are {sorted(set(df['rater']))[:10]}.")
        kind = (_kind(data[rater_kind]) if rater_kind in data.columns
                else np.full(len(df), "human"))
        return np.where(df["rater"].isin(js), "judge", kind)
    if rater_kind in data.columns:
        return _kind(data[rater_kind])
    return "human"


def comparisons_from_ratings(ratings: pd.DataFrame, items: pd.DataFrame, *,
                             first: str = "model_1", second: str = "model_2",
                             codes: Any = None, item: str = "item", rater: str = "rater",
                             label: str = "label", rater_kind: str = "rater_kind"
                             ) -> Comparisons:
    """Comparisons from a ratings table of pair labels and an items table naming the systems.

    The layout of ``shared/data/judges/pandalm2023``: ``ratings`` has one row per
    label (``item``, ``rater``, ``label``, ``rater_kind``), ``items`` names the system
    behind response 1 (``first``) and response 2 (``second``) of each item;
    response 1 was shown first.

    Parameters
    ----------
    ratings, items : pandas.DataFrame
    first, second : str
        The items' columns of the first- and second-shown systems.
    codes : dict, optional
        Label to winner; default ``{0: "tie", 1: "a", 2: "b"}`` (PandaLM).
    item, rater, label, rater_kind : str
        Column names.

    Returns
    -------
    Comparisons

    Examples
    --------
    >>> import pandas as pd
    >>> from noise_models.preferences import comparisons_from_ratings
    >>> r = pd.DataFrame({"item": [0, 0], "rater": ["h", "gpt"], "label": [2, 0],
    ...                   "rater_kind": ["human", "llm"]})
    >>> it = pd.DataFrame({"item": [0], "model_1": ["x"], "model_2": ["y"]})
    >>> comparisons_from_ratings(r, it).frame[["a", "b", "winner", "rater_kind"]].values.tolist()
    [['x', 'y', 'b', 'human'], ['x', 'y', 'tie', 'judge']]
    """
    codes = {0: "tie", 1: "a", 2: "b"} if codes is None else dict(codes)
    for frame, cols, what in ((ratings, (item, rater, label), "ratings"),
                              (items, (item, first, second), "items")):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"`{what}` must be a pandas DataFrame; got {type(frame).__name__}.")
        lack = [c for c in cols if c not in frame.columns]
        if lack:
            raise ValueError(f"`{what}` lacks the column(s) {lack}; its columns are "
                             f"{list(frame.columns)[:10]}.")
    merged = ratings.merge(items[[item, first, second]], on=item, how="left")
    if merged[first].isna().any():
        n = int(merged[first].isna().sum())
        raise ValueError(f"{n} rating(s) name items that `items` does not list; give every item "
                         "its two systems.")
    unknown = set(merged[label]) - set(codes)
    if unknown:
        raise ValueError(f"labels {sorted(unknown, key=str)[:5]} are not in `codes` "
                         f"{codes}; pass the coding.")
    votes = pd.DataFrame({"item": merged[item], "a": merged[first], "b": merged[second],
                          "rater": merged[rater], "winner": merged[label].map(codes)})
    if rater_kind in merged.columns:
        votes["rater_kind"] = merged[rater_kind].to_numpy()
    return as_comparisons(votes)
