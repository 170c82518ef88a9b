"""Every instance-dependence statistic of a set of soft labels in one table (SPEC §2.8)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from noise_models.instance._attractor import attractor_class
from noise_models.instance._label_entropy import label_entropy
from noise_models.instance._noise_rate import noise_rate
from noise_models.instance._nth import noise_transition_heterogeneity
from noise_models.instance._soft_labels import SoftLabels, soft_iv
from noise_models.instance._tv_distance import tv_distance

__all__ = ["instance_dependence_report"]


def instance_dependence_report(
    soft: SoftLabels, *, reference: Any = None, clean: Any = None
) -> pd.DataFrame:
    """Every instance-dependence statistic of a set of soft labels, in one table.

    Parameters
    ----------
    soft : SoftLabels
        Label distributions with their true labels.
    reference : SoftLabels, DataFrame or array_like, optional
        Reference distributions (e.g. human soft labels); adds the TV rows.
    clean : optional
        Clean class distribution for the attractor class, as in
        :func:`attractor_class` (default: shares of the true labels).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``statistic``, with columns ``value`` and ``description``.
        Rows: n_instances, n_classes, noise_rate, nth, attractor,
        attractor_gain_pp, attractor_purity, label_entropy,
        label_entropy_max, instance_entropy_mean, and with a reference
        tv_mean, tv_std, tv_sem. To set several data sets side by side:
        ``pd.concat({name: report(s)["value"] for ...}, axis=1)``.

    Examples
    --------
    >>> from noise_models import SoftLabels, instance_dependence_report
    >>> soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1])
    >>> instance_dependence_report(soft).loc[["noise_rate", "nth"], "value"].round(6).tolist()
    [0.25, 0.02]
    """
    soft = soft_iv(soft)
    delta = noise_rate(soft)
    het = noise_transition_heterogeneity(soft)
    att = attractor_class(soft, clean)
    ent = label_entropy(soft)
    rows: list[tuple[str, Any, str]] = [
        ("n_instances", soft.n_instances, "instances N"),
        ("n_classes", soft.n_classes, "classes K"),
        ("noise_rate", delta.rate, "δ = mean of 1 − p̄_i(y_i)"),
        ("nth", het.nth, "(1/N) Σ_k Σ_{i∈I_k} ‖p̄_i − p̄_k‖² (0 = class-conditional)"),
        ("attractor", att.attractor, "class with the largest gain in label share"),
        ("attractor_gain_pp", att.gain_pp, "its gain over the clean share, percentage points"),
        ("attractor_purity", att.purity, "share of its labels whose true label is it"),
        ("label_entropy", ent.entropy, "entropy of the class shares (nats)"),
        ("label_entropy_max", ent.max_entropy, "log K (nats)"),
        ("instance_entropy_mean", ent.instance_mean, "mean entropy of p̄_i (nats)"),
    ]
    if reference is not None:
        tv = tv_distance(soft, reference)
        rows += [
            ("tv_mean", tv.mean, "mean TV distance to the reference"),
            ("tv_std", tv.std, "standard deviation of the per-instance TV"),
            ("tv_sem", tv.sem, "standard error of the mean TV"),
        ]
    frame = pd.DataFrame(rows, columns=["statistic", "value", "description"])
    frame["value"] = frame["value"].astype(object)
    return frame.set_index("statistic")
