"""Model scores from files: per-item outputs of models trained elsewhere (SPEC §3).

load_scores  -- .npz/.npy/.csv/.tsv/.parquet/.jsonl, one file per model or a model
                column, aligned to items by id, never by position  -> ModelScores
ModelScores  -- values (models × items × classes, or models × items for losses),
                model_names, kind, classes, items
ensemble     -- average probabilities or logits of several models (FME)
item_loss    -- cross-entropy of the given label (stable log-softmax for logits)
ScorePrecisionWarning -- scores stored as float16: ties and rounding ahead
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.scores._ensemble import ensemble, item_loss
    from simulation.scores._load import load_scores
    from simulation.scores._model_scores import ModelScores, ScorePrecisionWarning

__getattr__, __dir__, __all__ = lazy_package(__name__)
