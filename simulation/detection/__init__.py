"""Finding label errors with model scores, and judging how well it works (SPEC §3).

label_error_ranking  -- items by loss (FML/FME), self-confidence, normalized margin or
                        confident learning (computed here)        -> Ranking
Ranking              -- item ids most suspicious first, scores, flagged set (CL)
detection_metrics    -- AP and AUROC (scikit-learn's, ties included), P/R/F1 at k, the
                        precision-at-k curve; stratified, paired bootstrap intervals and
                        Clopper–Pearson beside P@k                 -> DetectionResult
detection_replicates -- the metrics under given item multiplicities (bootstrap hook)
detected_error_rate  -- verified error share of the top q% (Chong et al.'s 5.33%)
                                                                   -> DetectedErrorRateResult
loss_separability    -- AUROC and overlap of the loss of noisy vs clean items, stratified
                        bootstrap intervals (NoisywikiHow Fig. 3)  -> SeparabilityResult
overlap_coefficient  -- Weitzman's overlap of two samples on a common histogram grid
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.detection._metrics import (
        DetectedErrorRateResult,
        DetectionResult,
        detected_error_rate,
        detection_metrics,
        detection_replicates,
    )
    from simulation.detection._ranking import Ranking, label_error_ranking
    from simulation.detection._separability import (
        SeparabilityResult,
        loss_separability,
        overlap_coefficient,
    )

__getattr__, __dir__, __all__ = lazy_package(__name__)
