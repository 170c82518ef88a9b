"""Label consistency across subsets of a span-annotated corpus (SPEC §7; Zeng et al. 2021).

subset_consistency       -- span F1 on a probe set of models trained under several
                            conditions (e.g. training data only, with the test set added
                            first or last), paired bootstrap intervals of every difference
                            (documents resampled jointly), and a verdict naming the
                            condition whose labels are less consistent with the rest
                                                               -> SubsetConsistencyResult
SubsetConsistencyResult  -- f1, differences, least_consistent, verdict, bootstrap

Predictions are read through :func:`simulation.load_scores` (per-token scores by
``(document, token)`` id) or given as per-span outputs (:class:`agreement.spans.Spans`).
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.consistency._consistency import SubsetConsistencyResult, subset_consistency

__getattr__, __dir__, __all__ = lazy_package(__name__)
