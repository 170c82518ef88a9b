"""Replaying a re-annotation policy on real data with gold (SPEC §6, "Replay").

A data set whose items carry more ratings than a policy starts with can stand
for the annotators a team would hire next: :func:`replay` hides every item's
ratings in a seeded random order, reveals the first ``start_ratings`` of each,
and then, round by round, lets the policy choose ``batch_size`` items
(:func:`~simulation.reannotation.next_batch`), reveals the next hidden rating
of each chosen item and refits. An item whose ratings are all revealed cannot
be chosen again (it is passed to ``next_batch`` as ``exclude``).

Per round the replay records:

``ratings_spent``
    ratings revealed so far, the start included;
``accuracy``
    the fit's labels against the truth, over the items with a true label; an
    item whose class posterior ties between several classes counts ``1/t`` if the
    truth is among the ``t`` tied classes (the convention of the truth-inference
    literature, e.g. Zheng et al. 2017);
``claimed_accuracy``
    the accuracy the fit claims for the same items: the mean of its
    ``P(label right)`` (``label_posterior``);
``wrong_labels``
    the fit's published labels (``label_codes``) that differ from the truth, a
    count over the items with a true label (what the certificate bounds when
    the truth covers every item);
``unstable_starts``
    near-best EM starts of the round's fit that label more than 1% of the items
    otherwise (``fit.unstable_starts()``; recorded, not warned, every round);
``gamma``
    the noise bound γ of the agreed (unanimous) items of the ratings revealed so
    far (:func:`noise_models.noise_bound`, α = 0.95); NaN when no item is agreed
    or none is disagreed with fewer than two ratings;
``errors_upper``, ``errors_upper_share``, ``errors_found``
    with ``verify_per_round > 0``: a fresh expert-check design of that many items
    on the round's fit (:func:`~simulation.reannotation.verification_batch`,
    ranked + random halves, ranked by the round's fit: ``rank="fit"``), checked
    against the truth, and its certificate
    (:func:`~simulation.reannotation.residual_errors`, 95%, valid at every look:
    round ``t`` is look ``t + 1``, so "stop at the first round whose bound is below
    ε" is a valid rule). The checked items are known from then on: every later
    round's fit takes them as gold (``fit(ratings, gold=...)``), so they are not
    checked again nor given more ratings, and their labels are the true ones.

:func:`compare_policies` runs several policies on the same seeds: with one
seed, every policy starts from the same ratings and meets each item's hidden
ratings in the same order, so the comparison is paired.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import UnstableStartsWarning
from _goldnoise_lib.labels import labels_by_item
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Count,
    Option,
    Rng,
    check_params,
    check_rng,
    validate_params,
)
from noise_models import LatentClassModel, noise_bound
from simulation.reannotation._certify import residual_errors, verification_batch
from simulation.reannotation._ensemble import POSTERIORS
from simulation.reannotation._policies import POLICIES, next_batch

__all__ = ["ReplayResult", "fractional_accuracy", "replay"]

#: Columns of :meth:`ReplayResult.to_frame` (the certificate's only with verifications).
ROUND_COLUMNS = ("round", "ratings_spent", "accuracy", "claimed_accuracy", "gamma",
                 "wrong_labels", "batch", "unstable_starts")
CERTIFICATE_COLUMNS = ("errors_upper", "errors_upper_share", "errors_found")


def _refit(model: LatentClassModel, ratings: Any, gold: pd.Series | None = None) -> Any:
    """The round's fit (with the items checked so far as gold). A replay refits every
    round on a few ratings per item, where near-best EM starts often label some items
    otherwise: instead of a warning per round, the table's ``unstable_starts`` counts
    such starts (``fit.unstable_starts()``)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UnstableStartsWarning)
        return model.fit(ratings, gold=gold)


def fractional_accuracy(class_posterior: np.ndarray, truth_codes: np.ndarray) -> float:
    """Mean hit against ``truth_codes``; a tie among ``t`` top classes counts ``1/t``.

    Examples
    --------
    >>> import numpy as np
    >>> from simulation.reannotation._replay import fractional_accuracy
    >>> post = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
    >>> fractional_accuracy(post, np.array([0, 0, 0]))
    0.5
    """
    post = np.asarray(class_posterior, dtype=np.float64)
    if post.shape[0] == 0:
        return math.nan
    top = post.max(axis=1, keepdims=True)
    tied = np.isclose(post, top, rtol=0.0, atol=1e-12)
    hit = tied[np.arange(post.shape[0]), truth_codes]
    return float(np.mean(hit / tied.sum(axis=1)))


def _gamma(ratings: Any) -> float:
    """γ of the agreed items of ``ratings``, NaN where the bound is not defined."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "no disagreed item": γ is then still a bound
            return float(noise_bound(ratings).gamma)
    except ValueError:  # no agreed item, or fewer than two items with two ratings
        return math.nan


@dataclass(frozen=True, eq=False, repr=False)
class ReplayResult(Result):
    """One policy replayed on real data with known truth (see :func:`replay`).

    Attributes
    ----------
    policy : str
    accuracy : float
        Accuracy against the truth after the last round (headline; ties fractional).
    claimed_accuracy : float
        The last fit's mean ``P(label right)`` over the same items.
    ratings_spent : int
        Ratings revealed in all, the start included.
    ratings_available : int
        Ratings in the data (the most a replay can spend).
    n_rounds : int
        Batches revealed (round 0 is the start).
    n_items, n_truth : int
        Items, and items with a true label (those the accuracy is over).
    start_ratings, batch_size, verify_per_round : int
    rounds : pandas.DataFrame
        One row per round (see ``to_frame``).
    final_fit : LatentClassFit
        The last round's fit (its labels are the ones a team would publish); not
        part of ``to_dict``.

    ``to_frame()``: one row per round, with the columns ``round``, ``ratings_spent``,
    ``accuracy``, ``claimed_accuracy``, ``gamma``, ``wrong_labels``, ``batch``
    (items revealed that round), ``unstable_starts`` and, with verifications, ``errors_upper``, ``errors_upper_share`` and
    ``errors_found``.

    There is no ``confidence_interval``: one replay is one draw of the start and
    of the order of the hidden ratings; :func:`compare_policies` shows the spread
    over seeds.
    """

    policy: str
    accuracy: float
    claimed_accuracy: float
    ratings_spent: int
    ratings_available: int
    n_rounds: int
    n_items: int
    n_truth: int
    start_ratings: int
    batch_size: int
    verify_per_round: int
    rounds: pd.DataFrame = field(default=None, repr=False)
    final_fit: Any = field(default=None, repr=False)

    _headline: ClassVar[str] = "accuracy"
    _records = _table = "rounds"

    def ratings_to_reach(self, accuracy: float) -> float:
        """Ratings spent when the accuracy first reaches ``accuracy`` (NaN: never).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from simulation import replay
        >>> g = np.random.default_rng(0)
        >>> truth = g.integers(0, 2, 60)
        >>> x = np.where(g.random((60, 6)) < 0.75, truth[:, None], 1 - truth[:, None])
        >>> res = replay(x, truth=pd.Series(truth), policy="uniform", batch_size=30, rng=0)
        >>> res.ratings_to_reach(0.0)
        180.0
        """
        t = self.rounds
        hit = t.loc[t["accuracy"] >= accuracy - 1e-12, "ratings_spent"]
        return float(hit.iloc[0]) if len(hit) else math.nan

    _summary = ("Replay of {policy!r}: {n_rounds} rounds of {batch_size} items after "
                "{start_ratings} ratings per item ({n_items} items)",
                "  accuracy {rounds.iloc[0][accuracy]:.4f} at {rounds.iloc[0][ratings_spent]:d} "
                "ratings -> {accuracy:.4f} at {ratings_spent} of {ratings_available} (claimed "
                "{claimed_accuracy:.4f}; against {n_truth} true labels)",
                ("verify_per_round", "  last certificate: at most "
                 "{rounds.iloc[-1][errors_upper]:d} wrong labels ({rounds.iloc[-1][errors_upper_share]:.2%}) from {verify_per_round} "
                 "checks (95%, valid at every look)"))

    def __repr__(self) -> str:
        return (f"ReplayResult(policy={self.policy!r}, accuracy={self.accuracy:.4f}, "
                f"ratings_spent={self.ratings_spent}, n_rounds={self.n_rounds})")


def _replay_iv(pool: Any, truth: Any, verify_per_round: int, start_ratings: int,
               model: Any) -> tuple[Any, np.ndarray, np.ndarray, LatentClassModel]:
    from agreement import as_ratings

    r = as_ratings(pool)
    codes = r.require_raters("`replay`")
    if r.has_replicates:
        raise ValueError("`pool` keeps replicated ratings of one annotator in several columns; "
                         "replay needs one column per annotator (from_long with "
                         "replicates='first' or 'separate' off).")
    if isinstance(truth, (np.ndarray, list, tuple)):
        truth = pd.Series(truth, index=r.items) if len(truth) == r.n_items else truth
    pos, true = labels_by_item(truth, r.items, r.categories, "truth")
    if verify_per_round and len(pos) < r.n_items:
        raise ValueError(f"`verify_per_round` needs the true label of every item (a drawn "
                         f"item must be checkable); `truth` has {len(pos)} of {r.n_items}.")
    if verify_per_round > r.n_items:
        raise ValueError(f"`verify_per_round` ({verify_per_round}) exceeds the {r.n_items} "
                         "items.")
    if model is None:
        model = LatentClassModel("spam", "difficulty", rng=0)
    elif not isinstance(model, LatentClassModel):
        raise TypeError(f"`model` must be a LatentClassModel; got {type(model).__name__}.")
    per_item = (codes >= 0).sum(axis=1)
    if not np.any(per_item > start_ratings):
        raise ValueError(f"no item of `pool` has more than `start_ratings` ({start_ratings}) "
                         "ratings: nothing is held out to replay.")
    return r, pos, true, model


def _reveal_order(codes: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """``rank[i, j]``: when item i's rating by j is revealed (0 first); -1 where missing."""
    ii, jj = np.nonzero(codes >= 0)
    order = np.lexsort((gen.random(ii.size), ii))  # by item, random within the item
    ii, jj = ii[order], jj[order]
    first = np.searchsorted(ii, ii, side="left")
    rank = np.full(codes.shape, -1, dtype=np.int32)
    rank[ii, jj] = np.arange(ii.size) - first
    return rank


@validate_params(policy=Option(POLICIES), start_ratings=Count(1), batch_size=Count(1),
                 budget=Count(0, optional=True), rounds=Count(0, optional=True),
                 verify_per_round=Count(0), posterior=Option(POSTERIORS), rng=Rng())
def replay(pool: Any, *, truth: Any, policy: str, start_ratings: int = 3, batch_size: int,
           budget: int | None = None, rounds: int | None = None, verify_per_round: int = 0,
           model: LatentClassModel | None = None, posterior: str = "ensemble",
           rng: Any = None) -> ReplayResult:
    """Replay a re-annotation policy on real ratings, against known truth.

    Parameters
    ----------
    pool : Ratings or array-like
        Items × annotators ratings with more ratings per item than the policy
        starts with: the hidden ones stand for the annotators hired next.
    truth : pandas.Series or dict
        True labels by item id (some items or all; the accuracy is over those).
        An array of one label per item is taken in the items' order.
    policy : str
        One of :data:`~simulation.reannotation.POLICIES` (see :func:`next_batch`).
    start_ratings : int, default 3
        Ratings revealed per item before the first round (all of an item's when it
        has fewer), drawn at random.
    batch_size : int
        Items that get one more rating per round (fewer when fewer have a hidden
        rating left, or the budget runs out).
    budget : int, optional
        Ratings to reveal after the start; default: until no hidden rating is left.
    rounds : int, optional
        At most this many rounds after the start.
    verify_per_round : int, default 0
        Expert checks per round: with ``> 0``, each round's fit gets a fresh
        verification design of that many items (half ranked, half random) among the
        items not checked yet, checked against ``truth`` (which must then cover every
        item), and its 95% bound on the wrong labels, valid at every look
        (:func:`residual_errors`, look ``t + 1`` in round ``t``); the checked items
        are gold in every later round's fit.
    model : LatentClassModel, optional
        The model refitted every round (default: as :func:`next_batch`, MACE's spam
        model with item difficulty, ``LatentClassModel("spam", "difficulty", rng=0)``).
    posterior : {"ensemble", "fit"}, default "ensemble"
        The posterior the policy reads (see :func:`next_batch`; the ensemble fits the
        other annotator model each round).
    rng : int or numpy.random.Generator, optional
        The start, the order of each item's hidden ratings (drawn first, so one seed
        gives every policy the same start and order), then the policy's ties and
        draws.

    Returns
    -------
    ReplayResult
        ``to_frame()``: one row per round (``round``, ``ratings_spent``,
        ``accuracy``, ``claimed_accuracy``, ``gamma``, ``wrong_labels``, ``batch``,
        ``unstable_starts`` and, with verifications, ``errors_upper``, ``errors_upper_share``, ``errors_found``).

    Raises
    ------
    ValueError
        If no item has more than ``start_ratings`` ratings, ``truth`` names unknown
        items or labels outside the categories, or verifications are asked for
        without the truth of every item.

    Notes
    -----
    Module docstring of ``simulation.reannotation._replay``: the quantities
    recorded per round. Round ``t`` spends ``s_0 + Σ_{u ≤ t} b_u`` ratings, ``s_0 =
    Σ_i min(start_ratings, r_i)`` and ``b_u`` the items chosen in round ``u``.

    Examples
    --------
    Six noisy annotators per item, three revealed at the start, 40 items per round:

    >>> import numpy as np, pandas as pd
    >>> from simulation import replay
    >>> g = np.random.default_rng(0)
    >>> truth = g.integers(0, 2, 200)
    >>> x = np.where(g.random((200, 6)) < 0.75, truth[:, None], 1 - truth[:, None])
    >>> res = replay(x, truth=pd.Series(truth), policy="uncertainty", batch_size=40,
    ...              rounds=3, rng=0)
    >>> res.to_frame()[["round", "ratings_spent", "batch"]].values.tolist()
    [[0, 600, 0], [1, 640, 40], [2, 680, 40], [3, 720, 40]]
    >>> bool(res.accuracy >= res.rounds["accuracy"].iloc[0])
    True
    """
    check_params(replay, locals())
    r, truth_pos, truth_codes, model = _replay_iv(pool, truth, verify_per_round,
                                                  start_ratings, model)
    from agreement import Ratings

    gen = check_rng(rng)
    codes = r.codes
    rank = _reveal_order(codes, gen)
    available = (codes >= 0).sum(axis=1).astype(np.int64)
    level = np.minimum(available, start_ratings)
    spent = int(level.sum())
    left = None if budget is None else int(budget)
    truth_by_pos = pd.Series(r.categories[truth_codes], index=r.items[truth_pos])
    rows = []
    t = 0
    batch_n = 0
    checked: list[pd.Series] = []  # the items verified in earlier rounds: gold
    while True:
        shown = np.where(rank < level[:, None], codes, -1).astype(codes.dtype)
        current = Ratings(shown, r.categories, items=r.items, raters=r.raters,
                          ordered=r.ordered, category_values=r.category_values)
        fit = _refit(model, current, pd.concat(checked) if checked else None)
        post = np.nan_to_num(np.asarray(fit.class_posterior, dtype=np.float64), nan=0.0)
        label_post = np.nan_to_num(np.asarray(fit.label_posterior, dtype=np.float64), nan=0.0)
        row = {"round": t, "ratings_spent": spent,
               "accuracy": fractional_accuracy(post[truth_pos], truth_codes),
               "claimed_accuracy": float(label_post[truth_pos].mean()),
               "gamma": _gamma(current),
               "wrong_labels": int((np.asarray(fit.label_codes)[truth_pos] != truth_codes).sum()),
               "batch": batch_n, "unstable_starts": len(fit.unstable_starts())}
        if verify_per_round:
            size_v = min(verify_per_round, r.n_items - sum(map(len, checked)))
            if size_v:
                design = verification_batch(fit, size=size_v, rank="fit", rng=gen)
                checks = truth_by_pos.loc[design["item"]]
                cert = residual_errors(fit, checks, design=design, look=t + 1)
                checked.append(checks)
                row.update(errors_upper=cert.upper, errors_upper_share=cert.upper_share,
                           errors_found=cert.errors_found)
            else:  # every item checked: the labels are the truth
                row.update(errors_upper=row["wrong_labels"],
                           errors_upper_share=row["wrong_labels"] / r.n_items,
                           errors_found=0)
        rows.append(row)
        open_items = level < available
        size = min(batch_size, int(open_items.sum()))
        if left is not None:
            size = min(size, left)
        if size == 0 or (rounds is not None and t >= rounds):
            break
        done = r.items[~open_items]
        batch = next_batch(current, size=size, policy=policy, fit=fit, posterior=posterior,
                           exclude=done if len(done) else None, rng=gen)
        chosen = r.items.get_indexer(batch["item"])
        level[chosen] += 1  # the next hidden rating of each chosen item
        batch_n = len(chosen)
        spent += batch_n
        if left is not None:
            left -= batch_n
        t += 1
    table = pd.DataFrame(rows, columns=[*ROUND_COLUMNS,
                                        *(CERTIFICATE_COLUMNS if verify_per_round else ())])
    last = table.iloc[-1]
    return ReplayResult(
        policy=policy, accuracy=float(last["accuracy"]),
        claimed_accuracy=float(last["claimed_accuracy"]), ratings_spent=spent,
        ratings_available=int(available.sum()), n_rounds=t, n_items=r.n_items,
        n_truth=len(truth_pos), start_ratings=start_ratings, batch_size=batch_size,
        verify_per_round=verify_per_round, rounds=table, final_fit=fit)
