"""Noising protocols: realistic label errors from multi-annotator data (SPEC §3).

Each takes ``(ratings, reference, *, rate, rng=None, ...)``, changes exactly
``round(rate · n)`` items and returns NoisyLabels with the provenance of every change.

perturb_uniform            -- artificial perturbation: any other class, uniformly
perturb_class_conditional  -- flips by a class-to-class `transition` matrix
dissenting_label           -- one of the item's dissenting ratings (Chong et al. 2022)
dissenting_worker          -- one annotator at a time lends all their dissents (idem)
crowd_majority             -- a wrong label at least `threshold` of the item's ratings chose
mix_protocols              -- several at once, e.g. {"dissenting_worker": 0.8,
                              "dissenting_label": 0.2} (TweetNLP-5)
NoisyLabels                -- labels, changed, protocol, source_annotator, clean

Noise from the seed benchmarks (SPEC §9)
perturb_similar            -- NoisywikiHow: within each noise source the items most
                              similar (cosine) to another class take that neighbour's class,
                              with the neighbour and similarity of every change
voter_labels               -- CILN voter pools: votes drawn from several models'
                              distributions -> SoftLabels (δ, nth, TV, attractors apply)
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.noising._protocols import (
        NoisyLabels,
        crowd_majority,
        dissenting_label,
        dissenting_worker,
        mix_protocols,
        perturb_class_conditional,
        perturb_uniform,
    )
    from simulation.noising._similar import perturb_similar
    from simulation.noising._voters import voter_labels

__getattr__, __dir__, __all__ = lazy_package(__name__)
