"""The shared private layer of goldnoise: plumbing that every package uses.

Nothing here is public API. It sits below ``agreement`` (the order is
``_goldnoise_lib`` <- ``agreement`` <- ``noise_models`` <- ``simulation`` <- ``goldnoise``),
imports none of the four packages, and is the only private code one package may
import from outside itself (the role ``scipy._lib`` plays for scipy).

Modules
-------
errors      -- the exceptions and warnings (re-exported publicly by ``agreement``
               and ``goldnoise``) and ``plain`` (NumPy scalars as plain values in messages)
binomial    -- ``binomial_interval(k, n, level, method)``: the one interval of a binomial
               share (exact Clopper–Pearson, Wilson) for every package
labels      -- ``label_key``, ``match_labels``: 2, 2.0 and "2" are one label
lazy        -- ``lazy_module``: kernel modules imported on first attribute access
patterns    -- the keys of rating patterns (whole rows; counts per category), their
               histograms and decoding: one implementation for every package
               (kernels in ``_pattern_kernels``, inline-callable from other kernels)
threads     -- ``PARALLEL_THRESHOLD`` and ``use_parallel``: when a kernel's parallel
               build pays, the same size for every package; ``serial_and_parallel``:
               the two builds of a kernel, each with cache files of its own
progress    -- ``progress``: tqdm bars on stderr, one switch (``GOLDNOISE_PROGRESS=0``)
html        -- ``result_html``: the ``_repr_html_`` of every result object
results     -- ``Result``: the one protocol of result objects (to_dict, to_frame, summary,
               _repr_html_, confidence_interval)
validation  -- the checks of shared options (counts, integers, numbers, probabilities,
               the paper's α, shares, random generators)
messages    -- ``few``, ``json_shape``, ``utf8_text``: how a reader's message names the
               offending values, a JSON value, a file that is not UTF-8
resampling  -- the one bootstrap below every package: ``bootstrap_sums`` (resample
               per-item sums, finalize), ``bootstrap_refit`` (recompute per resample's
               counts), ``BootstrapResult``; weights, kernels and intervals (its index)
"""
