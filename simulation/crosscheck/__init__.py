"""The cross-check: a model's label-error ranking beside the annotation model (SPEC §3).

crosscheck        -- AUROC/AP of the model's loss for annotator disagreement and for the
                     latent-class posterior of a wrong label, their Spearman correlation,
                     the share of agreed items the model flags beside the agreed-error
                     bracket (optimistic share, γ), a combined ranking, detection metrics
                     against a truth, and a verdict in plain words  -> CrosscheckResult
CrosscheckResult  -- .to_frame(), .summary(), .frame (per item), .combined (Ranking)
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.crosscheck._crosscheck import CrosscheckResult, crosscheck

__getattr__, __dir__, __all__ = lazy_package(__name__)
