"""Agreement among annotators: rating data and every chance-corrected coefficient.

The container
-------------
Ratings          -- labels coded once; wide, long or count-table input
as_ratings       -- wrap an array or DataFrame as Ratings

Coefficients
------------
krippendorff_alpha  -- Krippendorff's α: nominal, ordinal, interval, ratio; missing data

Results
-------
AgreementResult     -- a coefficient, its parts, SE and .confidence_interval()
ConfidenceInterval  -- (low, high)

Errors and warnings
-------------------
ShapeError, GoldnoiseWarning, DegenerateDataWarning, ConvergenceWarning, EstimationWarning
"""

from agreement._errors import (
    ConvergenceWarning,
    DegenerateDataWarning,
    EstimationWarning,
    GoldnoiseWarning,
    ShapeError,
)
from agreement._krippendorff import krippendorff_alpha
from agreement._ratings import Ratings, as_ratings
from agreement._result import AgreementResult, ConfidenceInterval

__all__ = [
    "AgreementResult",
    "ConfidenceInterval",
    "ConvergenceWarning",
    "DegenerateDataWarning",
    "EstimationWarning",
    "GoldnoiseWarning",
    "Ratings",
    "ShapeError",
    "as_ratings",
    "krippendorff_alpha",
]
