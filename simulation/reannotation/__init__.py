"""Which items get the next label or an expert check, and when to stop (SPEC §6).

next_batch          -- the items for one more rating under a policy: uniform, random,
                       uncertainty, margin, expected-error-reduction, hard  -> DataFrame
verification_batch  -- items for expert checks: a ranked stratum (most likely wrong) and
                       a random stratum, with inclusion probabilities      -> DataFrame
residual_errors     -- an upper confidence bound on the wrong labels left, from the
                       checked items and the design                 -> ResidualErrorResult
ResidualErrorResult -- ``upper``, ``upper_share``, ``upper_left``, ``estimate``, ``stop``
replay              -- a policy replayed on real data with more ratings than it starts
                       with: per round ratings spent, accuracy against the truth, the
                       fit's claimed accuracy, γ, the certificate       -> ReplayResult
compare_policies    -- several policies replayed on the same seeds: one table, a plot
                                                            -> PolicyComparisonResult
POLICIES            -- the names of next_batch's policies, in that order

Modules: ``_policies`` (the scores of the policies), ``_certify`` (the design and the
bound; formulas in its docstring), ``_replay`` (one replay and what it records),
``_compare`` (policies on the same seeds).
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.reannotation._certify import (
        ResidualErrorResult,
        residual_errors,
        verification_batch,
    )
    from simulation.reannotation._compare import PolicyComparisonResult, compare_policies
    from simulation.reannotation._policies import POLICIES, next_batch
    from simulation.reannotation._replay import ReplayResult, replay

__getattr__, __dir__, __all__ = lazy_package(__name__)
