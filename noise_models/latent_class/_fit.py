"""A fitted latent-class model and the γ bound of the fit (SPEC §2.4).

:class:`LatentClassFit` holds the parameters and per-item posteriors of a fit;
:func:`fit_noise_bound` (as :meth:`LatentClassFit.noise_bound`) generalises the
γ bound to a fitted model with a hard component and to items with their own
annotators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    ConfidenceLevel,
    check_params,
    validate_params,
)
from agreement import Ratings
from noise_models.latent_class._accuracy import fit_accuracy

__all__ = ["UNSTABLE_SHARE", "UNSTABLE_WITHIN", "LatentClassFit"]

#: Starts within this many log-likelihood units of the best objective that label more than
#: this share of the items differently make the optimum unstable (SPEC §5, Starts): the fit
#: warns (UnstableStartsWarning) and LatentClassFit.unstable_starts lists them.
UNSTABLE_WITHIN = 1.0
UNSTABLE_SHARE = 0.01


# ------------------------------------------------------------------ the fit
def _readonly(a: np.ndarray | None) -> np.ndarray | None:
    if a is not None:
        a.setflags(write=False)
    return a


@dataclass(frozen=True, repr=False, eq=False)
class LatentClassFit(Result):
    """A fitted latent-class model: parameters, per-item posteriors, diagnostics.

    ``temperature`` is 1 for a plain fit; with ``calibrate="held-out"`` the
    posteriors are ``P(s | x)^(1/T)`` renormalised, ``T`` chosen by held-out
    ratings predicted by parameters refitted without them
    (``noise_models.posterior_check``). ``n_gold`` counts the items fitted with a
    known class (``fit(ratings, gold=...)``), and ``gold_codes`` holds that class.

    Attributes
    ----------
    model : LatentClassModel
        The model that was fitted.
    ratings : Ratings
        The data.
    phi : ndarray, shape (m,)
        Class shares among easy items. For ``hard="difficulty"`` the shares the
        posteriors give: the mean of ``class_posterior`` over the rated items (the
        labels are the stage-1 spam model's, the posteriors the whole model's; the
        model's own class weights are ``class_weights``).
    pi : float or None
        Hard share; ``None`` without a hard component. A model-dependent
        diagnostic, not a finding (see :class:`LatentClassModel`).
    q : ndarray, shape (k, m), or None
        Hard distributions ``q[j, c]`` (rater columns × categories); ``None`` without
        a hard component.
    error_rate : ndarray, shape (k,), or None
        One-coin error rates ``ε_j``.
    confusion : ndarray, shape (k, m, m), or None
        Confusion matrices ``confusion[j, c, x] = P(j says x | class c)``.
    competence : ndarray, shape (k,), or None
        Spam model: probability ``θ_j`` that annotator ``j`` labels truly.
    spam_distribution : ndarray, shape (k, m), or None
        Spam model: annotator ``j``'s spam label distribution ``ξ_j``.
    class_posterior : ndarray, shape (n, m)
        ``P(item easy and of class c | its labels)``. For ``hard="difficulty"``
        (every item has a class): ``P(class c | its labels) = P(easy | x)
        P(c | x, easy) + P(hard | x) v_c``, ``v`` the posterior mean of the
        hard item's own label distribution (its votes counted by the annotators'
        competences, Perks's Dirichlet(1/m) prior; see :class:`LatentClassModel`).
    posterior_hard : ndarray, shape (n,), or None
        ``P(item hard | its labels)``; ``None`` without a hard component.
    label_codes : ndarray of int, shape (n,)
        Codes of :attr:`labels`.
    label_posterior : ndarray, shape (n,)
        ``P(item easy and its class is the label | its labels)``: the
        probability that the reported label is right (0 for an item that is
        surely hard: a hard item has no true label). For ``hard="difficulty"``:
        ``class_posterior`` at the label.
    loglik : ndarray
        The EM objective — log-likelihood plus log prior density (pseudo-counts
        ``prior_strength``; the log-likelihood itself when it is 0) — at the
        start and after each iteration of the kept start. Never decreasing.
    log_likelihood : float
        Log-likelihood of the data at the final parameters.
    n_iter : int
        EM iterations of the kept start.
    converged : bool
        Whether the kept start met ``tol`` within ``max_iter``.
    start_objectives : ndarray, shape (n_starts,)
        Final objective of every start (the first is the majority-vote start, which is
        always among the starts).
    start_labels : ndarray of int, shape (n_starts, n)
        Every start's label codes of the items (classes matched to the kept start's for
        Dawid–Skene; gold items carry their gold class in every start). Empty (no rows)
        for ratings fitted in chunks, where items are not kept per start.
    start_disagreement : ndarray, shape (n_starts,)
        Share of items each start labels differently from the kept one (0 for the kept
        one; classes matched for Dawid–Skene). :meth:`unstable_starts` lists the starts
        within 1 log-likelihood unit of the best that disagree on more than 1% of labels,
        and the fit warns (:class:`~agreement.UnstableStartsWarning`) when there is one.
    temperature : float
        ``T`` of the posteriors (1: the plain fit).
    n_gold : int
        Items fitted with a known class (``fit(ratings, gold=...)``).
    gold_codes : ndarray of int, shape (n,), or None
        The code of each such item's known class, -1 for the others; ``None`` for a
        fit without gold. :func:`~noise_models.posterior_check` keeps these items
        known when it refits.
    level_weights : ndarray, shape (3,), or None
        ``hard="difficulty"``: the shares ``ω`` of hard items whose own accuracy is
        0.2, 0.4 and 0.6 (``None`` for the other models).
    class_weights : ndarray, shape (m,), or None
        ``hard="difficulty"``: the class weights of the model's states (stage 2's EM
        estimate, every state of class c, easy or hard), which its tables use; they
        can differ from ``phi`` where the hard items are many (``None`` for the other
        models, whose ``phi`` is the weight).

    Examples
    --------
    >>> import pandas as pd
    >>> from noise_models import LatentClassModel
    >>> x = pd.DataFrame({"ann1": ["pos", "neg", "pos", "neg"] * 25,
    ...                   "ann2": ["pos", "neg", "neg", "neg"] * 25,
    ...                   "ann3": ["pos", "pos", "pos", "neg"] * 25})
    >>> fit = LatentClassModel("spam", rng=0).fit(x)
    >>> fit.to_frame().head(3).round(3)
         label  label_posterior  n_ratings
    item
    0      pos            1.000          3
    1      neg            0.998          3
    2      pos            0.998          3

    ``to_frame()``: one row per item: ``label``, ``label_posterior``, ``posterior_hard``, ``n_ratings``.
    """
    #: ``to_dict()``: a scalar summary of the fit.
    _keys = ("model=model.name", "n_items=ratings.n_items", "n_raters=ratings.n_raters",
             "n_categories=ratings.n_categories", "pi", "phi", "log_likelihood",
             "objective=_objective", "n_iter", "converged", "temperature", "n_gold")
    _columns: ClassVar[dict[str, str]] = {
        "label": "labels", "label_posterior": "label_posterior", "posterior_hard": "posterior_hard",
        "n_ratings": "n_ratings"}
    _index = "ratings.items"

    model: Any  # the LatentClassModel that made the fit (its module imports this one)
    ratings: Ratings
    phi: np.ndarray
    pi: float | None
    q: np.ndarray | None
    error_rate: np.ndarray | None
    confusion: np.ndarray | None
    competence: np.ndarray | None
    spam_distribution: np.ndarray | None
    class_posterior: np.ndarray
    posterior_hard: np.ndarray | None
    label_codes: np.ndarray
    label_posterior: np.ndarray
    loglik: np.ndarray
    log_likelihood: float
    n_iter: int
    converged: bool
    start_objectives: np.ndarray = field(default_factory=lambda: np.empty(0))
    start_disagreement: np.ndarray = field(default_factory=lambda: np.empty(0))
    start_labels: np.ndarray = field(default_factory=lambda: np.empty((0, 0), dtype=np.int16))
    temperature: float = 1.0
    gold_codes: np.ndarray | None = None
    level_weights: np.ndarray | None = None
    class_weights: np.ndarray | None = None

    @property
    def n_gold(self) -> int:
        """Items fitted with a known class (``fit(ratings, gold=...)``)."""
        return 0 if self.gold_codes is None else int(np.count_nonzero(self.gold_codes >= 0))

    def unstable_starts(self, within: float = UNSTABLE_WITHIN,
                        share: float = UNSTABLE_SHARE) -> pd.DataFrame:
        """Starts that end near the best objective yet label items differently.

        A start within ``within`` log-likelihood units of the best whose labels differ
        from the kept ones on more than ``share`` of the items says the optimum is not
        well determined: raise ``n_starts`` and compare.

        Returns
        -------
        pandas.DataFrame
            ``start``, ``objective``, ``gap`` (to the best) and ``disagreement``.

        Examples
        --------
        >>> from goldnoise import Ratings, datasets
        >>> from noise_models import LatentClassModel
        >>> frame = datasets.load_dawid_skene1979()
        >>> r = Ratings.from_long(frame, item="patient", rater="observer", label="rating",
        ...                       replicates="separate")
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     fit = LatentClassModel("confusion", rng=0).fit(r)
        >>> [w.category.__name__ for w in caught]
        ['UnstableStartsWarning']
        >>> fit.unstable_starts().round(3).head(2)
           start  objective    gap  disagreement
        0      1   -218.571  0.486         0.044
        1      5   -218.571  0.486         0.044
        >>> kept = fit.start_objectives.argmax()
        >>> int((fit.start_labels[1] != fit.start_labels[kept]).sum())  # of 45 patients
        2
        """
        obj = np.asarray(self.start_objectives, dtype=np.float64)
        dis = np.asarray(self.start_disagreement, dtype=np.float64)
        if obj.size == 0 or dis.size != obj.size:
            return pd.DataFrame(columns=["start", "objective", "gap", "disagreement"])
        gap = obj.max() - obj
        keep = np.flatnonzero((gap <= within) & (dis > share))
        return pd.DataFrame({"start": keep, "objective": obj[keep], "gap": gap[keep],
                             "disagreement": dis[keep]})

    @property
    def labels(self) -> pd.Series:
        """The fitted label of each item, in the original category names."""
        return pd.Series(self.ratings.categories[self.label_codes], index=self.ratings.items,
                         name="label")

    @property
    def n_ratings(self) -> np.ndarray:
        """Ratings per item."""
        return self.ratings.ratings_per_item

    @property
    def _objective(self) -> float:
        return float(self.loglik[-1])

    @property
    def expected_wrong_labels(self) -> float:
        """The expected number of wrong fitted labels, ``Σ_i (1 − label_posterior[i])``.

        Under the fitted model (annotators err independently) a label is wrong with
        probability ``1 − label_posterior``; a surely hard item counts as wrong (it has
        no true label). Divide by ``ratings.n_items`` for the expected share.

        Examples
        --------
        >>> import pandas as pd
        >>> from noise_models import LatentClassModel
        >>> x = pd.DataFrame({"ann1": ["pos", "neg", "pos", "neg"] * 25,
        ...                   "ann2": ["pos", "neg", "neg", "neg"] * 25,
        ...                   "ann3": ["pos", "pos", "pos", "neg"] * 25})
        >>> fit = LatentClassModel("spam", rng=0).fit(x)
        >>> round(fit.expected_wrong_labels, 2)  # of 100 labels
        0.1
        """
        return float(np.sum(1.0 - self.label_posterior))

    @property
    def labels_likely_wrong(self) -> int:
        """Items whose fitted label is more likely wrong than right (``label_posterior < 0.5``).

        Examples
        --------
        >>> import pandas as pd
        >>> from noise_models import LatentClassModel
        >>> x = pd.DataFrame({"ann1": ["pos", "neg", "pos", "neg"] * 25,
        ...                   "ann2": ["pos", "neg", "neg", "neg"] * 25,
        ...                   "ann3": ["pos", "pos", "pos", "neg"] * 25})
        >>> fit = LatentClassModel("spam", rng=0).fit(x)
        >>> fit.labels_likely_wrong
        0
        """
        return int(np.count_nonzero(self.label_posterior < 0.5))

    @property
    def labels_differing_from_majority(self) -> int:
        """Rated items whose fitted label is not the majority vote (ties: first category).

        The majority vote is :meth:`~agreement.Ratings.majority_labels`.

        Examples
        --------
        >>> import pandas as pd
        >>> from noise_models import LatentClassModel
        >>> x = pd.DataFrame({"ann1": ["pos", "neg", "pos", "neg"] * 25,
        ...                   "ann2": ["pos", "neg", "neg", "neg"] * 25,
        ...                   "ann3": ["pos", "pos", "pos", "neg"] * 25})
        >>> fit = LatentClassModel("spam", rng=0).fit(x)
        >>> fit.labels_differing_from_majority  # 3 annotators: no tie, the fit follows them
        0
        """
        counts = self.ratings.counts
        rated = counts.sum(axis=1) > 0
        return int(np.count_nonzero((self.label_codes != counts.argmax(axis=1)) & rated))

    @property
    def expected_hard_items(self) -> float | None:
        """The expected number of hard items, ``Σ_i posterior_hard[i]`` (None without a hard
        component).

        Examples
        --------
        >>> import numpy as np
        >>> from noise_models import EasyHardModel
        >>> x = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]] * 50)
        >>> fit = EasyHardModel(rng=0).fit(x)
        >>> round(fit.expected_hard_items, 1)  # the 100 disagreed items and 99.8 unanimous ones
        199.8
        """
        if self.posterior_hard is None:
            return None
        return float(np.sum(self.posterior_hard))

    @property
    def expected_hidden_hard(self) -> float | None:
        """The expected number of hard items among the unanimous ones (hidden coin-flips),
        ``Σ_{i agreed} posterior_hard[i]`` (None without a hard component).

        Examples
        --------
        >>> import numpy as np
        >>> from noise_models import EasyHardModel
        >>> x = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]] * 50)
        >>> fit = EasyHardModel(rng=0).fit(x)
        >>> round(fit.expected_hidden_hard, 1)  # of the 200 unanimous items
        99.8
        """
        if self.posterior_hard is None:
            return None
        return float(np.sum(self.posterior_hard[self.ratings.agreed]))

    @property
    def label_agreement(self) -> pd.Series:
        """Each annotator's share of ratings that are the item's fitted label.

        The share of annotator ``j``'s ratings equal to :attr:`labels` (NaN for an
        annotator with no rating): observed agreement with the fit, not the model's
        accuracy estimate (``annotator_frame()["accuracy"]``).

        Examples
        --------
        >>> import pandas as pd
        >>> from noise_models import LatentClassModel
        >>> x = pd.DataFrame({"ann1": ["pos", "neg", "pos", "neg"] * 25,
        ...                   "ann2": ["pos", "neg", "neg", "neg"] * 25,
        ...                   "ann3": ["pos", "pos", "pos", "neg"] * 25})
        >>> fit = LatentClassModel("spam", rng=0).fit(x)
        >>> fit.label_agreement.tolist()
        [1.0, 0.75, 0.75]
        """
        codes = self.ratings.require_raters("`label_agreement`")
        rated = codes >= 0
        n = rated.sum(axis=0)
        same = ((codes == self.label_codes[:, None]) & rated).sum(axis=0)
        share = np.divide(same, n, out=np.full(codes.shape[1], np.nan), where=n > 0)
        return pd.Series(share, index=self.ratings.raters, name="label_agreement")

    def label_accuracy(self, gold: Any) -> float:
        """The share of the fitted labels that are the gold label, over the items with gold.

        Parameters
        ----------
        gold : pandas.Series or dict
            The true label by item id (all items or some); ids that are not items
            and labels that are none of the categories are left out.

        Returns
        -------
        float
            The accuracy of :attr:`labels` on the items with a known gold label (NaN
            when there is none).

        Examples
        --------
        >>> import pandas as pd
        >>> from noise_models import LatentClassModel
        >>> x = pd.DataFrame({"ann1": ["pos", "neg", "pos", "neg"] * 25,
        ...                   "ann2": ["pos", "neg", "neg", "neg"] * 25,
        ...                   "ann3": ["pos", "pos", "pos", "neg"] * 25})
        >>> fit = LatentClassModel("spam", rng=0).fit(x)
        >>> fit.labels.tolist()[:4]
        ['pos', 'neg', 'pos', 'neg']
        >>> fit.label_accuracy({0: "pos", 1: "pos", 2: "pos", 3: "neg"})
        0.75
        """
        from _goldnoise_lib.labels import match_labels

        g = pd.Series(gold).reindex(self.ratings.items)
        codes = match_labels(np.asarray(g.to_numpy(), dtype=object), self.ratings.categories)
        has = (codes >= 0) & g.notna().to_numpy()
        if not has.any():
            return math.nan
        return float(np.mean(self.label_codes[has] == codes[has]))

    def hard_items(self, top: int | None = None, *, unanimous: bool = False) -> pd.DataFrame:
        """The items most likely hard, most likely first.

        Parameters
        ----------
        top : int, optional
            Keep the first ``top`` items (all by default).
        unanimous : bool, default False
            Rank only the unanimous items (:attr:`~agreement.Ratings.agreed`): the hidden
            coin-flips a gold standard built from agreement would keep.

        Returns
        -------
        pandas.DataFrame
            Indexed by item: ``posterior_hard`` (descending; ties in item order) and
            ``label`` (the fitted label).

        Raises
        ------
        ValueError
            If the model has no hard component.

        Examples
        --------
        >>> import numpy as np
        >>> from noise_models import EasyHardModel
        >>> x = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]] * 50)
        >>> fit = EasyHardModel(rng=0).fit(x)
        >>> fit.hard_items(top=2, unanimous=True).round(3)
              posterior_hard  label
        item
        0              0.499      0
        1              0.499      1
        """
        if self.posterior_hard is None:
            raise ValueError(f"the {self.model.name} model has no hard component; fit one with "
                             "a hard component (e.g. hard='marginal') or EasyHardModel.")
        hard = np.asarray(self.posterior_hard)
        candidates = (np.flatnonzero(self.ratings.agreed) if unanimous
                      else np.arange(self.ratings.n_items))
        order = candidates[np.argsort(-hard[candidates], kind="stable")][:top]
        return pd.DataFrame({"posterior_hard": hard[order],
                             "label": self.ratings.categories[self.label_codes[order]]},
                            index=self.ratings.items[order])

    def annotator_frame(self, gold: Any = None, *,
                        confidence_level: float = 0.95) -> pd.DataFrame:
        """One row per annotator with the fitted annotator parameters.

        Parameters
        ----------
        gold : pandas.Series or dict, optional
            True labels by item id (all items or some). Adds each annotator's
            accuracy on the gold items they rated, with its exact
            (Clopper–Pearson) interval.
        confidence_level : float, default 0.95
            Level of those intervals.

        Returns
        -------
        pandas.DataFrame
            Indexed by annotator (rating column). Columns: ``n_ratings``;
            ``accuracy`` (every model: see Notes); ``error_rate`` (one-coin); ``competence`` and ``spam_<c>`` (spam);
            ``accuracy_<c>`` = ``confusion[j, c, c]`` (confusion); ``q_<c>``
            (hard component); with ``gold``: ``n_gold`` (gold items the
            annotator rated), ``gold_accuracy``, ``gold_accuracy_low`` and
            ``gold_accuracy_high`` (NaN without gold items).

        Notes
        -----
        ``accuracy`` is the probability that annotator ``j``'s label is the true class
        of an item drawn from the fit, the class-weighted diagonal of their emission
        ``E_j[c, x] = P(j says x | class c)``::

            accuracy_j = Σ_c w_c E_j[c, c]

        with ``w`` the class weights (``class_weights`` for ``hard="difficulty"``,
        else ``phi``). By annotator model: one-coin ``1 − ε_j``; spam (MACE)
        ``Σ_c w_c (θ_j + (1 − θ_j) ξ_jc) = θ_j + (1 − θ_j) Σ_c w_c ξ_jc``; confusion
        (Dawid–Skene) ``Σ_c w_c confusion[j, c, c]``; perfect (the easy/hard model)
        1. With ``hard="difficulty"`` the items are easy and hard alike: on a hard
        item of level ``a_l`` (weight ``ω_l``) annotator ``j`` knows the class with
        ``θ_j a_l``, so the spam formula takes the competence on an average item,
        ``θ̄_j = θ_j ((1 − π) + π Σ_l ω_l a_l)``. The hard items of the free,
        marginal and uniform components have no true class and are left out (the
        accuracy on the easy items). It is the ``accuracy`` of
        :func:`~noise_models.annotator_intervals`, which adds its interval.

        Examples
        --------
        >>> from goldnoise import LatentClassModel, simulate_annotations
        >>> sim = simulate_annotations(400, 4, model="M2", n_categories=2, hard_share=0.0,
        ...                            error_rates=[0.1, 0.2, 0.3, 0.4], rng=1)
        >>> fit = LatentClassModel("one-coin", rng=0).fit(sim.ratings)
        >>> table = fit.annotator_frame(gold=sim.true_labels)
        >>> table[["n_gold", "gold_accuracy", "gold_accuracy_low", "gold_accuracy_high"]].round(2)
               n_gold  gold_accuracy  gold_accuracy_low  gold_accuracy_high
        rater
        0         400           0.88               0.85                0.91
        1         400           0.77               0.72                0.81
        2         400           0.71               0.66                0.75
        3         400           0.64               0.59                0.68
        """
        check_params(LatentClassFit.annotator_frame, locals())
        codes = self.ratings.codes
        cols: dict[str, Any] = {"n_ratings": (codes >= 0).sum(axis=0),
                                "accuracy": fit_accuracy(self)}
        cats = [str(c) for c in self.ratings.categories]
        if self.error_rate is not None:
            cols["error_rate"] = self.error_rate
        if self.competence is not None:
            cols["competence"] = self.competence
            for i, c in enumerate(cats):
                cols[f"spam_{c}"] = self.spam_distribution[:, i]
        if self.confusion is not None:
            for i, c in enumerate(cats):
                cols[f"accuracy_{c}"] = self.confusion[:, i, i]
        if self.q is not None:
            for i, c in enumerate(cats):
                cols[f"q_{c}"] = self.q[:, i]
        if gold is not None:
            cols.update(_gold_accuracy(self.ratings, gold, float(confidence_level)))
        return pd.DataFrame(cols, index=self.ratings.raters)

    annotator_frame = validate_params(confidence_level=ConfidenceLevel())(annotator_frame)

    @validate_params(alpha=Alpha())
    def noise_bound(self, alpha: float = 0.95):
        """The γ bound of the agreed items under this fit (SPEC §2.4).

        Parameters
        ----------
        alpha : float, default 0.95
            The paper's confidence α in (0, 1).

        Returns
        -------
        FitNoiseBoundResult
            ``gamma``, ``hidden_hard`` (the bound on hard items among the
            agreed ones), the counts and the method used.

        Raises
        ------
        ValueError
            If the model has no hard component or no item is unanimous.

        Notes
        -----
        Category-blind, as the paper's bound: item ``i`` agrees with
        probability ``p_i = Σ_c Π_j q[j, c]`` (its own annotators, the fit's
        ``q``) if hard, and ``e_i`` if easy (1 for perfect annotators). With π
        uniform on (0, 1) the number of hard agreed items is a mixture over
        π's posterior of sums of independent Bernoullis; γ is its α-quantile
        over the number agreed. For M1 with every item rated by the same
        annotators this is exactly :func:`noise_bound` ``(n, d, p)`` with
        ``p = Σ_c Π_j q[j, c]``. Details in
        :func:`fit_noise_bound`.

        Examples
        --------
        >>> import numpy as np
        >>> from noise_models import EasyHardModel, noise_bound
        >>> x = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]] * 50)
        >>> fit = EasyHardModel(rng=0).fit(x)
        >>> res = fit.noise_bound()
        >>> p = float(np.sum(np.prod(fit.q, axis=0)))
        >>> res.hidden_hard == noise_bound(300, 100, p).hidden_hard
        True
        """
        from noise_models.latent_class._fit_bound import fit_noise_bound

        check_params(LatentClassFit.noise_bound, locals())
        return fit_noise_bound(self, alpha=alpha)

    def __repr__(self) -> str:
        phi = ", ".join(f"{c}: {v:.3f}" for c, v in zip(self.ratings.categories, self.phi, strict=True))
        pi = "" if self.pi is None else f", pi={self.pi:.4f}"
        state = "converged" if self.converged else "NOT converged"
        return (f"LatentClassFit({self.model.name}: {self.ratings.n_items} items, "
                f"{self.ratings.n_raters} raters; phi={{{phi}}}{pi}; log-likelihood "
                f"{self.log_likelihood:.3f}; {self.n_iter} iterations, {state})")


def _gold_accuracy(r: Ratings, gold: Any, level: float) -> dict[str, np.ndarray]:
    """Each annotator's accuracy on the gold items they rated, with its exact interval.

    The Clopper–Pearson interval as its beta quantiles, all annotators at once (what
    ``scipy.stats.binomtest(...).proportion_ci(method="exact")`` finds by root-finding,
    one annotator at a time).
    """
    from _goldnoise_lib.binomial import binomial_interval
    from _goldnoise_lib.labels import labels_by_item

    pos, true = labels_by_item(gold, r.items, r.categories, "gold")
    codes = r.codes[pos]
    rated = codes >= 0
    n = rated.sum(axis=0)
    right = (codes == true[:, None]).sum(axis=0)
    acc = np.full(len(n), np.nan)
    low = np.full(len(n), np.nan)
    high = np.full(len(n), np.nan)
    some = n > 0
    k, m = right[some].astype(float), n[some].astype(float)
    acc[some] = k / m
    low[some], high[some] = binomial_interval(k, m, level, method="exact")
    return {"n_gold": n, "gold_accuracy": acc, "gold_accuracy_low": low,
            "gold_accuracy_high": high}
