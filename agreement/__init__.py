"""Agreement among annotators: rating data and every chance-corrected coefficient.

The container
-------------
Ratings          -- labels coded once; wide, long or count-table input
as_ratings       -- wrap an array or DataFrame as Ratings

Errors and warnings
-------------------
ShapeError, GoldnoiseWarning, DegenerateDataWarning
"""

from agreement._errors import DegenerateDataWarning, GoldnoiseWarning, ShapeError
from agreement._ratings import Ratings, as_ratings

__all__ = [
    "DegenerateDataWarning",
    "GoldnoiseWarning",
    "Ratings",
    "ShapeError",
    "as_ratings",
]
