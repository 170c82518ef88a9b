"""The latent-class family: the paper's easy/hard model and its relatives (SPEC §2.4).

One class, :class:`LatentClassModel`, names a member of the family by its
annotator model (the *easy emission*) and its hard component; one EM engine
(:mod:`noise_models.latent_class._kernels`) fits them all. :class:`EasyHardModel` is
the paper's model M1. :meth:`LatentClassModel.fit` chooses between the EM in
memory (:mod:`noise_models.latent_class._em`) and over chunks
(:mod:`noise_models.latent_class._partial`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from _goldnoise_lib.validation import (
    Integer,
    Option,
    Rng,
    check_integer,
    check_number,
    check_params,
    validate_params,
)
from agreement import ChunkedRatings, Ratings, as_ratings
from noise_models.latent_class._em import (
    _ANNOTATORS,
    _HARD,
    _calibrate_held_out,
    _clamp_known,
    _fit,
    _gold_codes,
)
from noise_models.latent_class._fit import LatentClassFit
from noise_models.latent_class._partial import fit_chunked

__all__ = ["EasyHardModel", "LatentClassModel"]

_NAMES = {
    ("confusion", None): "Dawid–Skene",
    ("spam", None): "MACE (spam)",
    ("one-coin", None): "one-coin Dawid–Skene",
    ("perfect", "free"): "easy/hard M1",
    ("spam", "difficulty"): "spam with item difficulty",
}
#: ``calibrate=``: how the posteriors' sharpness is set (None: the plain fit).
_CALIBRATE = ("held-out",)


class LatentClassModel:
    """A member of the latent-class family, fitted by one EM engine.

    Each item is *easy* — it has a true class ``c`` (shares ``phi``) and every
    annotator reports through the easy emission — or *hard* (probability
    ``pi``), when each annotator ``j`` draws a label from their own hard
    distribution ``q[j, ·]`` (SPEC §2.4).

    Parameters
    ----------
    annotators : {"perfect", "one-coin", "confusion", "spam"}
        The easy emission. ``"perfect"``: every annotator reports the true
        class (the paper's model). ``"one-coin"``: annotator ``j`` is right
        with probability ``1 - ε_j``, else picks one of the other labels
        uniformly; ``ε_j`` is capped at ``(m - 1)/m`` (an annotator no better
        than chance), without which the best-likelihood fit is degenerate
        (every item one class). ``"confusion"``: a confusion matrix per
        annotator (Dawid & Skene 1979). ``"spam"``: annotator ``j`` labels
        truly with probability ``θ_j`` (their *competence*), else draws from
        their own spam distribution ``ξ_j`` (MACE, Hovy et al. 2013).
    hard : {"free", "marginal", "uniform", "difficulty", None}, default None
        The hard component. ``"free"``: ``q`` estimated per annotator — only
        with ``annotators="perfect"`` (the paper's M1, also
        :class:`EasyHardModel`). ``"marginal"``: ``q[j]`` fixed to annotator
        ``j``'s own label shares (the paper's annotator bias). ``"uniform"``:
        ``q[j, c] = 1/m``. ``"difficulty"`` (only with ``annotators="spam"``;
        the package's default crowd model, that of ``goldnoise fit``/``audit``/
        ``next``/``verify``): a hard item has a class too, and annotator ``j``
        knows it with probability ``θ_j · a`` -- their competence times the
        item's own accuracy level ``a`` ∈ {0.2, 0.4, 0.6}, whose shares are
        estimated by EM from how the vote splits spread across items -- else
        draws from ``ξ_j``. Fitted in two stages: MACE (its labels are the
        fit's labels), then the whole model from MACE's parameters;
        ``class_posterior`` is ``P(easy | x) P(c | x, easy) + P(hard | x) v_c``
        with ``v`` the posterior mean of the hard item's own label
        distribution ``p``: ``p`` ~ Dirichlet(1/m, ..., 1/m) (Perks), each
        rating a draw from ``p`` with the annotator's competence ``θ_j``, else
        from ``ξ_j``, and the item's true label one more draw from ``p``. A
        hard item is then about as sure as its vote split, counted by
        competence (a spammer's vote counts for little; with every
        ``θ_j = 1``, ``v`` is the vote shares plus Perks's prior; SPEC §2.9).
        ``None``: no hard component (then ``"confusion"`` is Dawid–Skene and
        ``"spam"`` is MACE's annotator model).
    prior_strength : float, default 0.1
        Dirichlet pseudo-count added to every expected count in the M-step
        (MAP estimation; ``0`` is maximum likelihood).
    max_iter : int, default 1000
        EM iterations per start.
    tol : float, default 1e-7
        A start has converged when an iteration raises the objective by at
        most ``tol`` times its absolute value.
    n_starts : int, default 10
        Starts: the first from majority vote (always, whatever ``n_starts``),
        the others from random parameters; the fit with the highest objective
        is kept, and every start's objective and labels are recorded on it.
    rng : None, int, numpy.random.Generator, optional
        Seed for the random starts (``numpy.random.default_rng(rng)``).
    calibrate : {"held-out", None}, default None
        ``"held-out"``: temper the posteriors, ``P(s | x)^(1/T)`` renormalised,
        with the temperature ``T ≥ 1`` that best predicts held-out ratings: each
        rating of an item is held out in turn and predicted from the item's
        other ratings, by the parameters refitted without the item (five seeded
        folds of items; EM from this fit's parameters) — the formulas are in
        :func:`~noise_models.posterior_check`. The labels do not change.
        ``None``: the plain fit (``T = 1``).

    Raises
    ------
    ValueError
        If an option is not among the allowed values, or ``hard="free"`` is
        combined with a fallible easy emission (see Notes), or
        ``annotators="perfect"`` has no hard component (a single
        disagreement would be impossible).

    Notes
    -----
    Why ``hard="free"`` only with perfect annotators: once annotators may err
    on easy items, a free per-annotator hard distribution is one more latent
    class, and it swallows one of the true classes (on Snow et al.'s RTE data
    the accuracy falls from 0.93 to 0.80, below majority vote). Only in M1,
    where easy items are unanimous by definition, is ``q`` identified.

    The hard share ``pi`` is a diagnostic of the model, not a finding about
    the data: with a flexible easy emission it is not identified (it ranges
    from 0 to 0.98 across reasonable models of the same data).

    The EM objective is the log-likelihood plus the log of the Dirichlet
    prior densities (pseudo-counts ``prior_strength``); EM never lowers it,
    and :attr:`LatentClassFit.loglik` records it after every iteration.

    References
    ----------
    Beigman Klebanov, B. & Beigman, E. (2009). From annotator agreement to
    noise models. *Computational Linguistics* 35(4), 495–503.
    doi:10.1162/coli.2009.35.4.35402

    Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of
    observer error-rates using the EM algorithm. *Applied Statistics* 28(1),
    20–28. doi:10.2307/2346806

    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A. & Hovy, E. (2013). Learning
    whom to trust with MACE. *NAACL-HLT*, 1120–1130.

    Examples
    --------
    Dawid & Skene's (1979) anaesthesia data: observer 1 examined every patient
    three times. Kept as replicates of one annotator, the three ratings share
    one confusion matrix, which is Dawid & Skene's own model; maximum
    likelihood from the majority-vote start reproduces their class shares
    .40/.42/.11/.07 (log-likelihood −192.89):

    >>> from goldnoise.datasets import load_dawid_skene1979
    >>> from agreement import Ratings
    >>> from noise_models import LatentClassModel
    >>> long = load_dawid_skene1979()
    >>> r = Ratings.from_long(long, item="patient", rater="observer", label="rating",
    ...                       replicates="separate")
    >>> ml = LatentClassModel("confusion", prior_strength=0, n_starts=1, tol=1e-12).fit(r)
    >>> ml.phi.round(4), round(ml.log_likelihood, 2)
    (array([0.3996, 0.422 , 0.1118, 0.0667]), -192.89)

    Treating each replicate as a separate annotator (seven confusion
    matrices) is another model, with another fit:

    >>> long["rater"] = long["observer"].astype(str) + "." + long["replicate"].astype(str)
    >>> r7 = Ratings.from_long(long, item="patient", label="rating")
    >>> LatentClassModel("confusion", prior_strength=0, n_starts=1).fit(r7).phi.round(2)
    array([0.42, 0.4 , 0.11, 0.07])

    MAP from 10 starts: several of them end within one log-likelihood unit of the
    best yet label a few of the 45 patients differently, so the fit says so
    (:class:`~agreement.UnstableStartsWarning`; the starts are in
    ``fit.unstable_starts()``):

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     map7 = LatentClassModel("confusion", rng=0).fit(r7)
    >>> map7.phi.round(2), [w.category.__name__ for w in caught]
    (array([0.42, 0.44, 0.07, 0.07]), ['UnstableStartsWarning'])

    Item difficulty: 400 items, 8 annotators each, right 90% of the time on easy
    items and 60% on the 30% hard ones. The labels are MACE's; on the items that
    split 5–3 or 4–4 MACE claims 0.89 of its labels right, the difficulty model
    0.67, and 0.69 are:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> hard = rng.random(400) < 0.3
    >>> x = np.where(rng.random((400, 8)) < np.where(hard, 0.6, 0.9)[:, None],
    ...              y[:, None], 1 - y[:, None])
    >>> fit = LatentClassModel("spam", "difficulty", rng=0).fit(x)
    >>> mace = LatentClassModel("spam", rng=0).fit(x)
    >>> bool((fit.label_codes == mace.label_codes).all()), round(fit.pi, 2)
    (True, 0.31)
    >>> split = np.abs(x.sum(axis=1) - 4) <= 1
    >>> [round(float(f.label_posterior[split].mean()), 2) for f in (mace, fit)]
    [0.89, 0.67]
    >>> round(float((fit.label_codes == y)[split].mean()), 2)
    0.69
    >>> round(float(fit.posterior_hard[hard].mean()), 2), round(float(fit.posterior_hard[~hard].mean()), 2)
    (0.66, 0.19)
    """

    # Merge identical rows before EM (exact; off only to time the per-item engine).
    _merge_rows = True

    @validate_params(max_iter=Integer(1), n_starts=Integer(1), rng=Rng(),
                     calibrate=Option(_CALIBRATE, optional=True))
    def __init__(
        self,
        annotators: str,
        hard: str | None = None,
        *,
        prior_strength: float = 0.1,
        max_iter: int = 1000,
        tol: float = 1e-7,
        n_starts: int = 10,
        rng: Any = None,
        calibrate: str | None = None,
    ) -> None:
        check_params(LatentClassModel.__init__, locals())
        if not isinstance(annotators, str) or annotators not in _ANNOTATORS:
            raise ValueError(
                f"`annotators` must be one of {sorted(_ANNOTATORS)}; got {annotators!r}."
            )
        if hard is not None and (not isinstance(hard, str) or hard not in _HARD):
            raise ValueError(
                f"`hard` must be one of 'free', 'marginal', 'uniform', 'difficulty' or None; "
                f"got {hard!r}."
            )
        if hard == "difficulty" and annotators != "spam":
            raise ValueError(
                f"`hard='difficulty'` goes with `annotators='spam'` (a hard item's ratings "
                f"are its own accuracy or the annotator's spam draw); got "
                f"`annotators={annotators!r}`."
            )
        if hard == "free" and annotators != "perfect":
            raise ValueError(
                f"`hard='free'` needs `annotators='perfect'` (the paper's M1); got "
                f"`annotators={annotators!r}`. Once annotators can err on easy items, a "
                "free per-annotator hard distribution is just one more latent class and "
                "swallows one of the true classes (the model is not identified). Use "
                "`hard='marginal'` (each annotator's own label shares) or `hard='uniform'`."
            )
        if annotators == "perfect" and hard is None:
            raise ValueError(
                "`annotators='perfect'` needs a hard component (`hard='free'`, 'marginal' "
                "or 'uniform'): without one, a single disagreement is impossible."
            )
        self.annotators = annotators
        self.hard = hard
        self.prior_strength = check_number(prior_strength, "prior_strength", positive=False)
        self.max_iter = check_integer(max_iter, "max_iter", 1)
        self.tol = check_number(tol, "tol", positive=False)
        self.n_starts = check_integer(n_starts, "n_starts", 1)
        self.rng = rng
        self.calibrate = calibrate

    @property
    def name(self) -> str:
        """A readable name (``"Dawid–Skene"``, ``"easy/hard M1"``, …)."""
        return _NAMES.get((self.annotators, self.hard),
                          f"{self.annotators} annotators, hard={self.hard}")

    def __repr__(self) -> str:
        cal = "" if self.calibrate is None else f", calibrate={self.calibrate!r}"
        return (f"{type(self).__name__}(annotators={self.annotators!r}, hard={self.hard!r}, "
                f"prior_strength={self.prior_strength}, max_iter={self.max_iter}, "
                f"tol={self.tol}, n_starts={self.n_starts}, rng={self.rng!r}{cal})")

    # ------------------------------------------------------------------ fitting
    def fit(self, ratings: Any, gold: Any = None) -> LatentClassFit:
        """Fit the model by EM (MAP) from several starts; keep the best.

        Parameters
        ----------
        ratings : Ratings or array_like or pandas.DataFrame
            Items × annotators labels (anything :func:`agreement.as_ratings`
            accepts). Annotator identity is needed: count tables are refused.
            Items without a rating are kept in the output with the prior
            class shares as their posterior.
        gold : pandas.Series or dict, optional
            Known true labels by item id (some items or all). Those items
            enter the EM as observed: their class is not a latent variable
            but given (semi-supervised EM), so their ratings inform the
            annotator parameters and the class shares with full weight, and
            their posterior is the gold class with probability 1 (an easy
            item). The objective adds their complete-data log-likelihood.
            Class names are then fixed by the gold labels (no relabelling).

        Returns
        -------
        LatentClassFit

        Raises
        ------
        ValueError
            If the data come from a count table, have one category, one
            annotator, or no item with two ratings.

        Warns
        -----
        ConvergenceWarning
            If the kept start did not converge in ``max_iter`` iterations, or
            a class that majority vote gives to at least 1% of the items is
            (almost) never the fitted label.
        UnstableStartsWarning
            (a ConvergenceWarning) If a start ending within 1 log-likelihood
            unit of the best objective labels more than 1% of the items
            differently from the kept start: the optimum reported depends on
            the seed. :meth:`LatentClassFit.unstable_starts` lists those
            starts and :attr:`LatentClassFit.start_labels` holds every
            start's labels.

        Notes
        -----
        Data without a single disagreement are not an error: every model
        returns the unanimous labels with posteriors near 1, and a hard
        share ``pi`` near 0 (pulled off 0 by the prior pseudo-counts).

        Rater columns that are replicates of one annotator
        (:attr:`agreement.Ratings.annotator_of`, from
        ``Ratings.from_long(..., replicates="separate")``) share one set of
        annotator parameters (confusion matrix, error rate, competence, hard
        distribution): their expected counts are pooled in every M-step and
        the prior counts once per annotator. The fitted per-column arrays
        repeat the shared values.

        The engine is parallel over items for large data; its sums are taken
        in a fixed order, so a fit is bit-identical whatever the thread count.
        Items with identical rows of labels are visited once, weighted by
        their number (exact: they share their posterior).
        """
        if isinstance(ratings, ChunkedRatings) and not isinstance(ratings, Ratings):
            # one map-reduce per EM iteration over the chunks (noise_models.latent_class._partial)
            if self.calibrate is not None or gold is not None:
                raise ValueError("`calibrate='held-out'` and `gold=` need the ratings in memory; "
                                 "fit the chunked ratings without them, or read them into "
                                 "memory.")
            return fit_chunked(self, ratings)
        r = as_ratings(ratings)
        codes = r.require_raters(f"`{type(self).__name__}.fit`")
        known = None if gold is None else _gold_codes(r, gold)
        fit = _fit(self, r, codes, known)
        if self.calibrate == "held-out":
            fit = _calibrate_held_out(fit, codes, known)
        if known is not None:
            fit = _clamp_known(fit, known)
        return fit

    def refit_resamples(self, ratings: Any, item_counts: Any,
                        seeds: Any, *, start: Any = None) -> Iterator[dict[str, Any]]:
        """The parameters of refitting the model on resamples of the items.

        For each vector of item counts ``c`` (how often each item of ``ratings`` is
        drawn) and its seed, the parameters of ``self`` with ``rng=seed`` fitted to
        ``ratings.take(np.repeat(np.arange(n_items), c))``. The rows are not built:
        the EM runs over the distinct rows of labels of ``ratings``, each weighted by
        the sum of its items' counts -- exactly what the fit of the resampled rows
        gives its engine after merging identical rows, so the parameters (and
        warnings) are the same, bit for bit. Where that fit would not merge rows
        (nearly every row distinct) the rows are refitted.

        Parameters
        ----------
        ratings : Ratings
            The items resampled (annotator identity needed).
        item_counts : iterable of array_like of int
            One count per item for each resample (the bootstrap engine's multinomial
            counts, for instance).
        seeds : iterable of int or Generator
            The ``rng`` of each refit (it draws the random starts).
        start : LatentClassFit, optional
            A fit of this model to ``ratings``: every refit's EM runs once from its
            parameters (a warm start; no random starts; for ``hard="difficulty"`` stage 2
            alone) instead of from the model's starts. Used where the rows are merged;
            a resample whose rows are refitted as rows starts as without it. The
            warm-started refits are taken in blocks (``item_counts`` read ahead, up to
            2**23 counts at a time) and run side by side on Numba's threads; each is
            the same EM as alone, so the parameters do not depend on the threads.

        Yields
        ------
        dict
            ``phi``, ``pi``, ``q``, ``error_rate``, ``confusion``, ``competence``,
            ``spam_distribution``, ``level_weights`` (None where the model has no such
            parameter, as on :class:`LatentClassFit`; ``phi`` is the model's class
            weights) and ``converged``.

        Examples
        --------
        >>> import numpy as np
        >>> from noise_models import LatentClassModel
        >>> x = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [0, 0, 0]] * 30)
        >>> model = LatentClassModel("one-coin", n_starts=1)
        >>> counts = np.random.default_rng(0).multinomial(120, np.full(120, 1 / 120))
        >>> (rep,) = model.refit_resamples(x, [counts], [0])
        >>> refit = LatentClassModel("one-coin", n_starts=1, rng=0).fit(
        ...     x[np.repeat(np.arange(120), counts)])
        >>> bool(np.array_equal(rep["error_rate"], refit.error_rate))
        True
        """
        refits = self._pattern_refits(ratings, start)
        pairs = zip(item_counts, seeds, strict=False)
        size = 1 if start is None else max(1, 2**23 // max(refits.r.n_items, 1))
        while block := list(itertools.islice(pairs, size)):
            yield from refits.block([c for c, _ in block], [s for _, s in block])

    def _pattern_refits(self, ratings: Any, start: Any = None) -> Any:
        """The refits of :meth:`refit_resamples` on ``ratings`` (``_em._PatternRefits``: its
        ``block`` refits a block of resamples at once)."""
        import copy

        from noise_models.latent_class._em import _PatternRefits

        model = copy.copy(self)
        model.calibrate = None
        return _PatternRefits(model, as_ratings(ratings), start)


class EasyHardModel(LatentClassModel):
    """The paper's easy/hard model M1: ``LatentClassModel("perfect", "free", **kw)``.

    Easy items are unanimous (every annotator reports the true class);
    on a hard item annotator ``j`` draws from their own ``q[j, ·]``. So every
    disagreed item is hard, and an item on which its annotators all said
    ``c`` is hard with posterior probability
    ``π Π_j q[j,c] / (π Π_j q[j,c] + (1 − π) φ_c)`` (SPEC §2.4). M1's labels
    are majority vote by construction.

    Parameters
    ----------
    **kw
        The keyword options of :class:`LatentClassModel` (``prior_strength``,
        ``max_iter``, ``tol``, ``n_starts``, ``rng``).

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import EasyHardModel
    >>> x = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]] * 50)
    >>> fit = EasyHardModel(rng=0).fit(x)
    >>> float(fit.posterior_hard[2])  # a disagreed item is hard
    1.0
    >>> round(fit.pi, 2)
    0.67
    """

    def __init__(self, **kw: Any) -> None:
        for bad in ("annotators", "hard"):
            if bad in kw:
                raise TypeError(
                    f"EasyHardModel fixes `{bad}` (it is LatentClassModel('perfect', 'free')); "
                    "use LatentClassModel for other members of the family."
                )
        super().__init__("perfect", "free", **kw)

    def __repr__(self) -> str:
        return (f"EasyHardModel(prior_strength={self.prior_strength}, max_iter={self.max_iter}, "
                f"tol={self.tol}, n_starts={self.n_starts}, rng={self.rng!r})")
