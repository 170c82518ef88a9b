"""Which items get the next label or an expert check, and when to stop (SPEC §6).

next_batch          -- the items for one more rating under a policy: uniform, random,
                       uncertainty, margin, expected-error-reduction, hard  -> DataFrame
verification_batch  -- items for expert checks: a ranked stratum (most likely wrong) and
                       a random stratum, with inclusion probabilities      -> DataFrame
residual_errors     -- an upper confidence bound on the wrong labels left, from the
                       checked items and the design                 -> ResidualErrorResult
ResidualErrorResult -- ``upper``, ``upper_share``, ``upper_left``, ``estimate``, ``stop``
POLICIES            -- the names of next_batch's policies, in that order

Modules: ``_policies`` (the scores of the policies), ``_certify`` (the design and the
bound; formulas in its docstring).
"""

from simulation.reannotation._certify import (
    ResidualErrorResult,
    residual_errors,
    verification_batch,
)
from simulation.reannotation._policies import POLICIES, next_batch

__all__ = ["POLICIES", "ResidualErrorResult", "next_batch", "residual_errors",
           "verification_batch"]
