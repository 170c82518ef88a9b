"""Deprecated alias module: ``span_intervals`` lives in ``agreement.spans``, beside the span
statistics it resamples. ``from simulation.spans import span_intervals`` keeps working with
the same function; import it from ``agreement``.
"""

from agreement.spans import span_intervals

__all__ = ["span_intervals"]
