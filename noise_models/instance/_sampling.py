"""Hard labels by the one-voter-per-instance protocol of CILN and PL-IDN (SPEC §2.8).

From voters' distributions (a voter drawn, its most probable class), from
ratings (one rating drawn) or from soft labels (a label drawn from p̄_i)
(CILN: Islam, Kristiadi & Milani 2026, arXiv:2606.14965, §III-A and §IV-A2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import Rng, check_params, check_rng, validate_params
from agreement import Ratings
from noise_models.instance._soft_labels import DEFAULT_ATOL, SoftLabels, voters_iv

# Imported at first use: Numba would double the time of `import goldnoise`.
_kernels = lazy_module("noise_models.instance._kernels")

__all__ = ["sample_hard_labels"]


@validate_params(rng=Rng())
def sample_hard_labels(soft_or_voters: Any, rng: Any = None) -> pd.Series:
    """Hard labels by the one-voter-per-instance protocol.

    Parameters
    ----------
    soft_or_voters : array_like of shape (n_voters, n_instances, n_classes), sequence of DataFrames, agreement.Ratings or SoftLabels
        * Voters' distributions (as for :meth:`SoftLabels.from_voters`): for
          each instance one voter is drawn uniformly and its prediction — the
          most probable class of its distribution, lowest class on a tie — is
          the label. This is the CILN / PL-IDN protocol (CILN §III-A, §IV-A2).
        * A :class:`agreement.Ratings`: one of the item's ratings is drawn
          uniformly (items without a rating are refused).
        * A :class:`SoftLabels`: only the averaged p̄_i is known, so a label is
          drawn from p̄_i itself.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed or generator (``numpy.random.default_rng(rng)``). The same seed
        gives the same labels whatever the number of threads.

    Returns
    -------
    pandas.Series
        Categorical Series of class names (``.cat.codes`` gives the codes),
        indexed by instance id, named ``"label"``.

    Raises
    ------
    TypeError
        If ``rng`` or the input is of the wrong kind.
    ValueError
        If a Ratings item has no rating or a voter's row is not a distribution.

    Notes
    -----
    The three inputs differ. Drawing a voter and taking its most probable
    class gives class c with probability (1/M) Σ_m [argmax p_i^(m) = c],
    which is not p̄_i(c) unless the voters' outputs are one-hot. Drawing from
    p̄_i (SoftLabels input) gives p̄_i(c): the distribution of the label when
    one voter is drawn and *then* its label is drawn from its distribution.
    For annotators' hard labels (Ratings, or SoftLabels built from them by
    :meth:`SoftLabels.from_ratings`) the two coincide: drawing one of the
    r_i ratings uniformly gives class c with probability a[i, c] / r_i.

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import sample_hard_labels
    >>> voters = np.array([[[0.9, 0.1], [0.2, 0.8]],
    ...                    [[0.6, 0.4], [0.4, 0.6]]])   # 2 voters × 2 instances
    >>> sample_hard_labels(voters, rng=0).tolist()   # both voters agree on each
    [0, 1]
    """
    check_params(sample_hard_labels, locals())
    gen = check_rng(rng)
    if isinstance(soft_or_voters, SoftLabels):
        soft = soft_or_voters
        codes = _kernels.sample_rows(soft.probs, gen.random(soft.n_instances))
        classes, instances = soft.classes, soft.instances
    elif isinstance(soft_or_voters, Ratings):
        ratings = soft_or_voters
        counts = ratings.counts
        r = counts.sum(axis=1, dtype=np.int64)
        if (r == 0).any():
            first = list(ratings.items[r == 0][:3])
            raise ValueError(
                f"{int((r == 0).sum())} item(s) of the ratings have no rating to draw from "
                f"(e.g. {first}); drop them first (e.g. `SoftLabels.from_ratings(r, "
                "empty='drop')`)."
            )
        codes = _kernels.sample_rows(counts, gen.random(len(r)))
        classes, instances = ratings.categories.rename("class"), ratings.items
    elif isinstance(soft_or_voters, (np.ndarray, list, tuple, dict)):
        arr, classes, instances = voters_iv(soft_or_voters, None, None, DEFAULT_ATOL)
        n_voters, n, _ = arr.shape
        pick = gen.integers(n_voters, size=n)
        codes = np.argmax(arr[pick, np.arange(n)], axis=1)
    else:
        raise TypeError(
            "`soft_or_voters` must be voters' distributions (voters × instances × classes), "
            f"a Ratings or a SoftLabels; got {type(soft_or_voters).__name__}."
        )
    cat = pd.Categorical.from_codes(np.asarray(codes, dtype=np.int64), categories=classes)
    return pd.Series(cat, index=instances, name="label")
