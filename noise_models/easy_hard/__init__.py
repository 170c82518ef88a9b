"""The easy/hard model's answers from counts: γ, κ audits, planning, margins (SPEC §2.1–2.3, 2.5–2.7).

Everything here is closed form (or a posterior over counts) in the numbers of
items and disagreements and the chance agreement p; nothing is fitted. The
easy/hard model fitted to the ratings, ``EasyHardModel``, is in
:mod:`noise_models.latent_class`: it is ``LatentClassModel("perfect", "free")``,
run by that package's EM, and its fit's ``.noise_bound`` uses :func:`noise_bound`
from here (imports run easy_hard <- latent_class, never back).

Chance agreement and the posterior over hard items
--------------------------------------------------
chance_agreement      -- p, chance agreement on a hard item (from ratings, q or shares)
                                                                   -> ChanceAgreementResult
hard_count_posterior  -- posterior of the number of hard items     -> HardCountPosterior

The noise bound γ and its inverse
---------------------------------
noise_bound           -- γ of the agreed subset at confidence α    -> NoiseBoundResult
max_disagreements     -- most disagreements that keep γ <= target  -> int

Reading a κ claim, planning, comparing systems
----------------------------------------------
audit_kappa           -- what a κ claim implies (easy items, noise, γ, κ's interval)
                                                                   -> KappaAuditResult
kappa_range           -- lowest / most likely / highest Fleiss κ for n items, `agreed` unanimous
                                                                   -> KappaRangeResult
annotators_needed     -- smallest k meeting a target γ, per-k table -> AnnotatorsNeededResult
chance_margin         -- difference two systems need to beat coin-flip noise
                                                                   -> ChanceMarginResult

Larger than memory: γ's inputs as partial -> combine -> finalize
----------------------------------------------------------------
chance_partial, chance_combine  -- items, disagreed items and label counts per annotator
chance_finalize                 -- q from the sums of all chunks
chance_items                    -- a chunk's per-item chance agreement p_i under q
ChanceSums                      -- what chance_partial returns
(noise_bound accepts a chunked ratings object and runs them: two passes)

Modules: ``_chance`` (p), ``_partial`` (p over chunks), ``_posterior`` (P(H | d)
for every prior), ``_bound`` (γ and its inverse, from ``_chance`` or ``_partial``),
``_audit``, ``_planning``, ``_margins``; ``_kernels`` holds the Numba kernels of
the log-space posterior pass and of per-item chance agreement.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from noise_models.easy_hard._audit import (
        KappaAuditResult,
        KappaRangeResult,
        audit_kappa,
        kappa_range,
    )
    from noise_models.easy_hard._bound import NoiseBoundResult, max_disagreements, noise_bound
    from noise_models.easy_hard._chance import ChanceAgreementResult, chance_agreement
    from noise_models.easy_hard._margins import ChanceMarginResult, chance_margin
    from noise_models.easy_hard._partial import (
        ChanceSums,
        chance_combine,
        chance_finalize,
        chance_items,
        chance_partial,
    )
    from noise_models.easy_hard._planning import AnnotatorsNeededResult, annotators_needed
    from noise_models.easy_hard._posterior import HardCountPosterior, hard_count_posterior

__getattr__, __dir__, __all__ = lazy_package(__name__)
