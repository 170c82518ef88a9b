"""The resampling core: one bootstrap below every package (SPEC §3, "Bootstrap engine").

Private, like all of ``_goldnoise_lib``: the public faces are
``agreement.bootstrap`` / ``agreement.bootstrap_rows`` (coefficients, any summed
rows), ``agreement.span_intervals`` (documents), ``noise_models.annotator_intervals``
(a latent-class fit refitted per resample) and the detection, separability and
consistency functions of ``simulation``; each resamples through one of the two
entry points here.

Entry points
------------
bootstrap_sums   -- resample per-item sums and finalize: statistics that are
                    functions of summed rows (multinomial over distinct rows, or
                    Poisson weights keyed by item id), with the leave-one-item-out
                    jackknife (BCa)                                -> BootstrapResult
bootstrap_refit  -- refit per resample: the caller's statistics recomputed from each
                    resample's item counts (plain or stratified)   -> BootstrapResult
BootstrapResult  -- estimate, standard_error, interval, bootstrap_distribution,
                    n_degenerate, .difference(a, b), .with_method(m), .to_frame()

Modules
-------
weights    -- the resample weights: ``replicate_seeds``, ``multinomial_counts`` (plain or
              stratified), ``multinomial_sums`` (never stores the counts), ``poisson_seed``,
              ``item_keys``, ``item_hashes``, ``poisson_weights``, ``poisson_counts``;
              partitions: ``poisson_pattern_counts``, ``combine_pattern_counts``,
              ``replicate_sums`` (bit-identical to the whole data in one piece). The same
              seeds give the same weights whatever the block of replicates or the threads.
intervals  -- ``confidence_intervals(estimate (S,), distribution (B, S), method=,
              confidence_level=, jackknife=, jackknife_weights=, bounds=)`` for any
              statistic (percentile, basic, BCa as ``scipy.stats.bootstrap``); NaN
              replicates left out; ``METHODS``
result     -- ``BootstrapResult``; ``result_from_sums`` (summed rows) and
              ``result_from_replicates`` (replicates computed by the caller)
sums       -- ``bootstrap_sums``, ``replicate_sums``
refit      -- ``bootstrap_refit``
_kernels   -- the Numba kernels (multinomial draws, keyed Poisson weights, replicate sums;
              ``keyed_poisson`` and ``POISSON_CDF`` inline-callable from other kernels)

Imports run ``_kernels`` <- ``weights`` <- ``intervals`` <- ``result`` <- ``sums``, ``refit``.
The core knows no statistic: it imports only ``_goldnoise_lib``.
"""

from _goldnoise_lib.resampling.refit import bootstrap_refit
from _goldnoise_lib.resampling.result import BootstrapResult
from _goldnoise_lib.resampling.sums import bootstrap_sums

__all__ = ["BootstrapResult", "bootstrap_refit", "bootstrap_sums"]
