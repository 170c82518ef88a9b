"""Each annotator's accuracy under a latent-class fit: P(their label is the true class).

One formula per annotator model, from the fitted parameters, over every item the model
describes (easy and hard):

- one-coin: ``1 − ε_j``;
- Dawid–Skene: ``Σ_c φ_c π_j[c, c]``;
- spam (MACE): ``θ_j + (1 − θ_j) Σ_c φ_c ξ_jc``;
- spam with item difficulty: the same with the competence the annotator has on an
  average item, ``θ̄_j = θ_j · ((1 − π) + π Σ_l ω_l a_l)`` (on an easy item they know the
  class with ``θ_j``, on a hard item of level ``a_l`` with ``θ_j a_l``; ``ω`` the levels'
  weights): their accuracy over easy and hard items together, the quantity MACE's
  formula gives for its own fit, not their accuracy on the easy items alone.

The perfect (easy/hard M1) model has no per-annotator accuracy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from noise_models.latent_class import _kernels as K

__all__ = ["accuracy_of", "annotator_accuracy"]


def accuracy_of(p: dict[str, Any]) -> np.ndarray | None:
    """The accuracy of every annotator from a fit's parameters (``refit_resamples``' dict:
    ``phi`` the model's class weights, ``pi``, ``level_weights``, ``error_rate``,
    ``competence``, ``spam_distribution``, ``confusion``); None for the perfect model."""
    phi = np.asarray(p["phi"], dtype=np.float64)
    if p.get("error_rate") is not None:
        return 1.0 - np.asarray(p["error_rate"], dtype=np.float64)
    if p.get("competence") is not None:
        theta = np.asarray(p["competence"], dtype=np.float64)
        levels = p.get("level_weights")
        if levels is not None:  # item difficulty: the competence on an average item
            pi = float(p["pi"])
            theta = theta * ((1.0 - pi) + pi * float(np.dot(levels, K.LEVELS)))
        return theta + (1.0 - theta) * (np.asarray(p["spam_distribution"]) @ phi)
    if p.get("confusion") is not None:
        return np.diagonal(np.asarray(p["confusion"]), axis1=1, axis2=2) @ phi
    return None


def annotator_accuracy(fit: Any) -> pd.DataFrame:
    """Each annotator's fitted parameters and accuracy, P(their label is the true class).

    The accuracy over every item the model describes, easy and hard: one-coin
    ``1 − ε_j``; Dawid–Skene ``Σ_c φ_c π_j[c, c]``; spam (MACE, Hovy et al. 2013)
    ``θ_j + (1 − θ_j) Σ_c φ_c ξ_jc``; spam with item difficulty the same with
    ``θ̄_j = θ_j ((1 − π) + π Σ_l ω_l a_l)``, the competence on an average item (on a
    hard item of accuracy level ``a_l``, weight ``ω_l``, annotator ``j`` knows the class
    with ``θ_j a_l``), so that the default model's accuracies mean what MACE's do, not
    the accuracy on the easy items alone. ``φ`` is the model's class weights
    (``fit.class_weights`` where the fit has them). :func:`annotator_intervals` adds a
    bootstrap interval to the same column.

    Parameters
    ----------
    fit : LatentClassFit
        A fit with annotator parameters (one-coin, confusion or spam annotators).

    Returns
    -------
    pandas.DataFrame
        ``fit.annotator_frame()`` with ``accuracy`` as its second column.

    Raises
    ------
    TypeError
        When ``fit`` is not a LatentClassFit.
    ValueError
        For the perfect (easy/hard M1) model, which has no annotator parameter.

    References
    ----------
    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A. & Hovy, E. (2013). Learning whom to
    trust with MACE. *Proceedings of NAACL-HLT*, 1120–1130.

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import LatentClassModel, annotator_accuracy
    >>> g = np.random.default_rng(0)
    >>> truth = g.integers(0, 2, 2000)
    >>> right = g.random((2000, 4)) < [0.95, 0.9, 0.8, 0.7]
    >>> x = np.where(right, truth[:, None], 1 - truth[:, None])
    >>> fit = LatentClassModel("spam", "difficulty", rng=0).fit(x)
    >>> annotator_accuracy(fit)["accuracy"].round(2).tolist()
    [0.95, 0.9, 0.8, 0.7]
    """
    from noise_models.latent_class._fit import LatentClassFit

    if not isinstance(fit, LatentClassFit):
        raise TypeError(f"`fit` must be a LatentClassFit; got {type(fit).__name__}.")
    phi = fit.phi if fit.class_weights is None else fit.class_weights
    acc = accuracy_of({"phi": phi, "pi": fit.pi, "level_weights": fit.level_weights,
                       "error_rate": fit.error_rate, "competence": fit.competence,
                       "spam_distribution": fit.spam_distribution,
                       "confusion": fit.confusion})
    if acc is None:
        raise ValueError(f"the {fit.model.name} model has no annotator parameter (every "
                         "annotator is right on the easy items); fit one-coin, spam or "
                         "confusion annotators.")
    frame = fit.annotator_frame()
    frame.insert(1, "accuracy", acc)
    return frame
