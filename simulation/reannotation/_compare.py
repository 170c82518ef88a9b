"""Several re-annotation policies replayed on the same seeds, in one table (SPEC §6).

Each seed fixes the start and the order of every item's hidden ratings for all
policies alike (:func:`~simulation.reannotation.replay` draws them first), so
the policies are compared on paired replays; the spread over seeds is the
spread of the start and the order of the ratings, not of the policies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import Count, Option, check_params, validate_params
from noise_models import LatentClassModel
from simulation.reannotation._ensemble import POSTERIORS
from simulation.reannotation._policies import POLICIES
from simulation.reannotation._replay import _refit, _replay_iv, fractional_accuracy, replay

__all__ = ["PolicyComparisonResult", "compare_policies"]

DEFAULT_POLICIES = ("uniform", "random", "uncertainty", "expected-error-reduction")


@dataclass(frozen=True, eq=False, repr=False)
class PolicyComparisonResult(Result):
    """Policies replayed on the same seeds (see :func:`compare_policies`).

    Attributes
    ----------
    policies : tuple of str
    seeds : tuple of int
    full_accuracy : float
        The model's accuracy with every rating of the data (the most a replay can
        reach with this model; ties fractional).
    n_items, n_truth, ratings_available, start_ratings, batch_size : int
    table : pandas.DataFrame
        One row per policy, seed and round: ``policy``, ``seed`` and the columns of
        :meth:`ReplayResult.to_frame`.
    full_unstable_starts : int
        Near-best EM starts of the fit with every rating that label more than 1% of
        the items otherwise (``fit.unstable_starts()``): 0 when ``full_accuracy``
        does not depend on the seed.

    ``to_frame()``: that table. No headline value and no ``confidence_interval``:
    the comparison is a table; :meth:`final` gives each policy's median and range
    over seeds, :meth:`ratings_to_reach` the ratings each replay needed.
    """

    policies: tuple[str, ...]
    seeds: tuple[int, ...]
    full_accuracy: float
    n_items: int
    n_truth: int
    ratings_available: int
    start_ratings: int
    batch_size: int
    table: pd.DataFrame = field(default=None, repr=False)
    full_unstable_starts: int = 0

    _headline: ClassVar[str] = ""
    _records = _table = "table"
    _summary = (
        "{policies!n} policies × {seeds!n} seeds on {n_items} items ({start_ratings} ratings per "
        "item at the start, batches of {batch_size}); every rating: accuracy {full_accuracy:.4f}",
        ("final", "  {name}: accuracy {accuracy:.4f} [{accuracy_low:.4f}, {accuracy_high:.4f}] "
         "at {ratings_spent:.0f} ratings"))

    def final(self) -> pd.DataFrame:
        """Per policy: the last round's accuracy and ratings, median and range over seeds.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from simulation import compare_policies
        >>> g = np.random.default_rng(0)
        >>> truth = g.integers(0, 2, 80)
        >>> x = np.where(g.random((80, 5)) < 0.75, truth[:, None], 1 - truth[:, None])
        >>> cmp = compare_policies(x, truth=pd.Series(truth), policies=["uniform", "random"],
        ...                        seeds=2, batch_size=40, model=None)
        >>> cmp.final()["ratings_spent"].tolist()
        [400.0, 400.0]
        """
        last = self.table.groupby(["policy", "seed"], sort=False).tail(1)
        g = last.groupby("policy", sort=False)
        return pd.DataFrame({
            "accuracy": g["accuracy"].median(), "accuracy_low": g["accuracy"].min(),
            "accuracy_high": g["accuracy"].max(),
            "ratings_spent": g["ratings_spent"].median().astype(float)}).reindex(
                list(self.policies))

    def ratings_to_reach(self, accuracy: float | None = None, *,
                         baseline: str | None = "uniform") -> pd.DataFrame:
        """Ratings each replay spent when its accuracy first reached ``accuracy``.

        Parameters
        ----------
        accuracy : float, optional
            The goal (default: :attr:`full_accuracy` − 0.01, the accuracy with every
            rating less one point).
        baseline : str or None, default "uniform"
            The policy the others are set against, seed by seed (when it was run).

        Returns
        -------
        pandas.DataFrame
            One row per policy: ``reached`` (the seeds whose replay reached the goal)
            and ``seeds`` (all seeds); ``median``, ``low``, ``high``: the median and
            range of the ratings over the seeds that reached it (NaN when none did);
            the saving ``1 − policy / baseline`` on the same seed (``saving``,
            ``saving_low``, ``saving_high``: median and range over the seeds on which
            both reached the goal; NaN without the baseline or such a seed), and the
            ratings of each seed (``seed_<s>``, NaN where that replay never reached it).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from simulation import compare_policies
        >>> g = np.random.default_rng(0)
        >>> truth = g.integers(0, 2, 80)
        >>> x = np.where(g.random((80, 5)) < 0.75, truth[:, None], 1 - truth[:, None])
        >>> cmp = compare_policies(x, truth=pd.Series(truth), policies=["uniform"], seeds=2,
        ...                        batch_size=40)
        >>> cmp.ratings_to_reach(0.0)[["median", "reached", "seeds", "saving"]].values.tolist()
        [[240.0, 2.0, 2.0, 0.0]]
        """
        goal = self.full_accuracy - 0.01 if accuracy is None else float(accuracy)
        t = self.table
        ok = t[t["accuracy"] >= goal - 1e-12]
        first = ok.groupby(["policy", "seed"], sort=False)["ratings_spent"].min()
        wide = first.unstack("seed").reindex(index=list(self.policies),
                                             columns=list(self.seeds)).astype(float)
        out = pd.DataFrame({"median": wide.median(axis=1),
                            "low": wide.min(axis=1), "high": wide.max(axis=1),
                            "reached": wide.notna().sum(axis=1).astype(float),
                            "seeds": float(len(self.seeds))})
        if baseline is not None and baseline in self.policies:
            save = 1.0 - wide.div(wide.loc[baseline], axis=1)
            out["saving"] = save.median(axis=1)
            out["saving_low"] = save.min(axis=1)
            out["saving_high"] = save.max(axis=1)
        else:
            out["saving"] = out["saving_low"] = out["saving_high"] = math.nan
        out = pd.concat([out, wide.rename(columns=lambda s: f"seed_{s}")], axis=1)
        out.attrs["accuracy"] = goal
        return out

    def __repr__(self) -> str:
        return (f"PolicyComparisonResult(policies={list(self.policies)}, "
                f"seeds={len(self.seeds)}, n_items={self.n_items})")

    def plot(self, ax: Any = None) -> Any:
        """Accuracy against ratings spent: one line per policy (median over seeds) with
        the seeds' range as a band, and the accuracy with every rating dotted.

        Needs matplotlib (``pip install 'goldnoise[plot]'``).
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 4))
        for i, p in enumerate(self.policies):
            part = self.table[self.table["policy"] == p]
            g = part.groupby("round")
            x = g["ratings_spent"].median()
            ax.plot(x, g["accuracy"].median(), color=f"C{i}", lw=1.5, label=p)
            ax.fill_between(x, g["accuracy"].min(), g["accuracy"].max(), color=f"C{i}",
                            alpha=0.2, lw=0)
        if math.isfinite(self.full_accuracy):
            ax.axhline(self.full_accuracy, color="grey", ls=":", lw=1,
                       label=f"every rating ({self.full_accuracy:.3f})")
        ax.set_xlabel("ratings spent")
        ax.set_ylabel("accuracy against the truth")
        ax.set_title(f"{len(self.seeds)} seeds: median and range")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        return ax


def _seeds(seeds: Any) -> tuple[int, ...]:
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ValueError(f"`seeds` must be at least 1 (a number of seeds) or a list of "
                             f"seeds; got {seeds}.")
        return tuple(range(int(seeds)))
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence | np.ndarray):
        raise TypeError(f"`seeds` must be a number of seeds or a list of int seeds; got "
                        f"{type(seeds).__name__}.")
    out = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"`seeds` must hold non-negative int seeds; got {s!r}.")
        out.append(int(s))
    if not out or len(set(out)) != len(out):
        raise ValueError(f"`seeds` must be distinct and not empty; got {list(seeds)}.")
    return tuple(out)


def _policies(policies: Any) -> tuple[str, ...]:
    if isinstance(policies, str):
        policies = [policies]
    out = tuple(policies)
    bad = [p for p in out if p not in POLICIES]
    if bad:
        raise ValueError(f"`policies` must be among {', '.join(POLICIES)}; got "
                         f"{', '.join(map(repr, bad))}.")
    if not out or len(set(out)) != len(out):
        raise ValueError(f"`policies` must be distinct and not empty; got {list(out)}.")
    return out


@validate_params(start_ratings=Count(1), batch_size=Count(1), budget=Count(0, optional=True),
                 rounds=Count(0, optional=True), verify_per_round=Count(0),
                 posterior=Option(POSTERIORS))
def compare_policies(pool: Any, *, truth: Any, policies: Sequence[str] = DEFAULT_POLICIES,
                     seeds: Any = 10, start_ratings: int = 3, batch_size: int,
                     budget: int | None = None, rounds: int | None = None,
                     verify_per_round: int = 0, model: LatentClassModel | None = None,
                     posterior: str = "ensemble") -> PolicyComparisonResult:
    """Replay several policies on the same seeds; one table, one plot.

    Parameters
    ----------
    pool, truth, start_ratings, batch_size, budget, rounds, verify_per_round, model, posterior
        As in :func:`replay`.
    policies : sequence of str, default ("uniform", "random", "uncertainty", \
"expected-error-reduction")
        Names among :data:`~simulation.reannotation.POLICIES`.
    seeds : int or sequence of int, default 10
        The replays' seeds (an int ``s`` means ``0 .. s-1``); each seed is one
        start and one order of the hidden ratings, shared by every policy.

    Returns
    -------
    PolicyComparisonResult
        ``to_frame()``: one row per policy, seed and round; ``final()``,
        ``ratings_to_reach(accuracy)`` and ``plot()``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from simulation import compare_policies
    >>> g = np.random.default_rng(1)
    >>> truth = g.integers(0, 2, 150)
    >>> hard = g.random(150) < 0.3
    >>> acc = np.where(hard, 0.6, 0.9)[:, None]
    >>> x = np.where(g.random((150, 7)) < acc, truth[:, None], 1 - truth[:, None])
    >>> cmp = compare_policies(x, truth=pd.Series(truth), policies=["uniform", "uncertainty"],
    ...                        seeds=3, batch_size=15, budget=150)
    >>> cmp.to_frame().groupby("policy").size().to_dict()
    {'uncertainty': 33, 'uniform': 33}
    >>> cmp.final().index.tolist()
    ['uniform', 'uncertainty']
    """
    check_params(compare_policies, locals())
    pols = _policies(policies)
    seed_list = _seeds(seeds)
    r, truth_pos, truth_codes, model = _replay_iv(pool, truth, verify_per_round,
                                                  start_ratings, model)
    full = _refit(model, r)
    post = np.nan_to_num(np.asarray(full.class_posterior, dtype=np.float64), nan=0.0)
    parts = []
    for p in pols:
        for s in seed_list:
            res = replay(r, truth=pd.Series(r.categories[truth_codes],
                                            index=r.items[truth_pos]),
                         policy=p, start_ratings=start_ratings, batch_size=batch_size,
                         budget=budget, rounds=rounds, verify_per_round=verify_per_round,
                         model=model, posterior=posterior, rng=s)
            t = res.to_frame()
            t.insert(0, "seed", s)
            t.insert(0, "policy", p)
            parts.append(t)
    table = pd.concat(parts, ignore_index=True)
    return PolicyComparisonResult(
        policies=pols, seeds=seed_list,
        full_accuracy=fractional_accuracy(post[truth_pos], truth_codes),
        n_items=r.n_items, n_truth=len(truth_pos),
        ratings_available=int((r.codes >= 0).sum()), start_ratings=start_ratings,
        batch_size=batch_size, table=table,
        full_unstable_starts=len(full.unstable_starts()))
