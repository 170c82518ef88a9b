"""Pairwise preferences and rankings: votes, Bradley–Terry, rank-sets, position bias (SPEC §11).

Comparisons                -- pairwise votes, coded (one row per vote; the comparison, a
                              prompt and an unordered pair, is the unit)
as_comparisons             -- check and code a long table of votes        -> Comparisons
comparisons_from_ratings   -- votes from pair labels (0 tie, 1, 2) and an items table
                              naming the two systems (PandaLM's layout)   -> Comparisons
rank_systems               -- Bradley–Terry scores with intervals, simultaneous rank-sets,
                              humans alone or humans + judges through PPI, drop-k
                                                                          -> RankingResult
position_bias              -- each judge's order bias: consistency and first-shown share
                              − 0.5 (both orders), or first-position rate against the
                              humans' (one order)                         -> DataFrame
preference_audit           -- humans' agreement on the three-way label, the labels' noise
                              against latent truth, judges inside the annotation model,
                              position bias                               -> PreferenceAuditResult
RankingResult, PreferenceAuditResult -- the results

Modules: ``_data`` (votes), ``_bt`` (the Bradley–Terry estimating equations, MLE,
sandwich, PPI, rank-sets), ``_dropk``, ``_rank``, ``_position``, ``_audit``.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from noise_models.preferences._audit import PreferenceAuditResult, preference_audit
    from noise_models.preferences._data import (
        Comparisons,
        as_comparisons,
        comparisons_from_ratings,
    )
    from noise_models.preferences._position import position_bias
    from noise_models.preferences._rank import RankingResult, rank_systems

__getattr__, __dir__, __all__ = lazy_package(__name__)
