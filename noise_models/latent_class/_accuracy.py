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

The perfect (easy/hard M1) model's annotators are right on every easy item: 1 (its
hard items have no class).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from noise_models.latent_class import _kernels as K

__all__ = ["accuracy_of", "fit_accuracy"]


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


def fit_accuracy(fit: Any) -> np.ndarray:
    """:func:`accuracy_of` a fit (the ``accuracy`` column of
    :meth:`LatentClassFit.annotator_frame`); 1 for every annotator of the perfect model."""
    phi = fit.phi if fit.class_weights is None else fit.class_weights
    acc = accuracy_of({"phi": phi, "pi": fit.pi, "level_weights": fit.level_weights,
                       "error_rate": fit.error_rate, "competence": fit.competence,
                       "spam_distribution": fit.spam_distribution,
                       "confusion": fit.confusion})
    return np.ones(fit.ratings.n_raters) if acc is None else acc
