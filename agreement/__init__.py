"""Agreement among annotators: rating data, every agreement coefficient, spans, chunked sums.

The word for the people who label is "annotator" everywhere in prose; ``rater``
survives only in names kept for compatibility (e.g. ``Ratings.raters`` and
``n_raters``, the ``rater=`` column of ``Ratings.from_long``, the CLI options
``--rater`` and ``--raters``) and in "rater column", one column of a
:class:`Ratings` (an annotator, or one replicate of an annotator's ratings).

The container
-------------
Ratings          -- labels coded once; wide, long or count-table input
as_ratings       -- wrap an array or DataFrame as Ratings
Ratings.from_export -- an annotation tool's item-level export: Label Studio (JSON),
                    Prodigy (db-out JSONL), Amazon Mechanical Turk (batch results CSV)
Ratings.select   -- the same items rated by some rater columns only (categories kept)
Ratings.describe -- counts: ratings per item, agreed and disagreed items -> Series
Ratings.gold_accuracy -- how often the majority vote and the unanimous labels are
                    the gold labels                                  -> Series

Coefficients (each returns an AgreementResult with an analytic SE)
------------
percent_agreement   -- observed agreement PA (weighted with `weights=`)
fleiss_kappa        -- Fleiss' κ (Siegel & Castellan's K); works on count tables
scott_pi            -- Scott's π, at most two ratings per item
cohen_kappa         -- Cohen's κ and weighted κ, two annotators (Fleiss-Cohen-Everitt SE)
conger_kappa        -- Conger's κ, Cohen's κ for many annotators
light_kappa         -- Light's κ, the mean of the pairwise Cohen κ's
brennan_prediger    -- Brennan-Prediger / Bennett's S, chance agreement 1/m
gwet_ac1            -- Gwet's AC1, AC2 when weighted
krippendorff_alpha  -- Krippendorff's α: nominal, ordinal, interval, ratio or Gwet's weights
agreement_table     -- all of them side by side, with SEs and intervals
category_kappas     -- κ of each category against the rest, SE under H0 and z (Fleiss 1971)

Rating scales (numbers; listwise deletion of items with a missing rating)
-------------
icc                 -- the intraclass correlations ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k
                       (Shrout & Fleiss 1979; McGraw & Wong 1996) with F tests and exact
                       F-based intervals; to_frame() gives all six         -> ICCResult
lin_ccc             -- Lin's concordance correlation, the overall CCC of several annotators
                       (Barnhart, Haber & Song 2002), Fisher-z interval -> ConcordanceResult
kendall_w           -- Kendall's W, tie-corrected, with its χ² test      -> KendallWResult

Bootstrap over items (SPEC §3; resampled by the core below every package,
``_goldnoise_lib.resampling``)
----------------------------------------------------------------------------
bootstrap        -- percentile, basic and BCa intervals of one or several coefficients from
                    the same resamples (paired); multinomial or Poisson weights keyed by
                    item id                                        -> BootstrapResult
bootstrap_rows   -- the same for statistics finalized from per-item rows the caller
                    built (e.g. a coefficient of a subset of the annotators)
                                                                   -> BootstrapResult
BootstrapResult  -- estimate, standard_error, interval, bootstrap_distribution,
                    n_degenerate, .difference(a, b), .with_method(m), .to_frame()
poisson_partial, poisson_combine, poisson_finalize, PoissonParts
                 -- the Poisson bootstrap over chunks of items (larger than memory;
                    bootstrap(..., scheme="poisson") runs them over a chunked ratings object)

Judges (may a model replace a human annotator?)
------
alt_test            -- the Alternative Annotator Test (Calderon, Reichart & Dror 2025):
                       winning rate ω, advantage probability ρ, per-human t-tests with
                       Benjamini–Yekutieli                       -> AltTestResult

Spans (named entities, segments: agreement.spans)
-----
Spans               -- spans of several annotators (document, start, end, label, annotator)
span_agreement      -- pairwise and pooled span F1 per label and document -> SpanAgreementResult
MATCHES             -- span_agreement's matchings: "exact", "overlap", "iou"
token_agreement     -- every coefficient above over tokens as items (BIO tags) -> DataFrame
token_ratings       -- the tokens × annotators table of BIO tags              -> Ratings
candidate_ratings   -- candidate spans as items, labels plus "no entity"     -> SpanRatings
unitizing_alpha     -- Krippendorff's α_u with |u|α, cuα and its boundary/label split
                                                                   -> UnitizingAlphaResult
document_statistics -- per-document rows of every span statistic (bootstrap over documents)
                                                                   -> DocumentStatistics
span_intervals      -- those statistics with intervals from the same resamples of documents
                                                                   -> BootstrapResult
read_conll, read_brat, read_labelstudio, read_jsonl, decode_tags -- the readers

Weights
-------
named_weights       -- Gwet's (irrCAC) weights: identity, linear, quadratic, ordinal,
                       radical, ratio, circular, bipolar; every `weights=` takes these names

Per-item statistics (for resampling and chunked input)
------------------------------------------------------
item_statistics       -- per-item rows of a coefficient (α included); finalize(sums)
                         gives it back
ItemStatistics        -- those rows, .sums(multiplicity) and .finalize(sums)
FinalizedCoefficient  -- (value, observed, expected, n_items, n_pairable)
SCALE_STATISTICS      -- the rating-scale coefficients with per-item rows: icc1, icc2, icc3,
                         icc1k, icc2k, icc3k, lin_ccc (item_statistics, bootstrap and the
                         swap test take them by name)
coefficient_info      -- a coefficient's kind (name, label, family of rows, chance model)
CoefficientInfo       -- what coefficient_info returns

Larger than memory (partial -> combine -> finalize; any engine)
---------------------------------------------------------------
partial_sums     -- sums (and second moments) of a statistic over a chunk of items
combine_sums     -- add the sums of two chunks
finalize_sums    -- the AgreementResult from the sums of all chunks (SE included)
PartialSums      -- what partial_sums returns
STATISTICS       -- the statistics covered: every coefficient and Krippendorff's α
ratings_schema   -- the categories and annotators shared by every chunk
ratings_chunk    -- code a long DataFrame chunk with that schema
ChunkedRatings   -- the protocol of a lazy ratings object (schema, map_reduce) that
                    every coefficient and agreement_table accept

Results
-------
AgreementResult     -- a coefficient, its parts, SE, .confidence_interval() and .test()
ConfidenceInterval  -- (low, high)
TestResult          -- z, p-value and the SE used by AgreementResult.test(null=...)

Errors and warnings
-------------------
ShapeError, GoldnoiseWarning, DegenerateDataWarning, ConvergenceWarning, EstimationWarning,
LabelWarning (labels that print alike are separate categories), UnstableStartsWarning
(near-best starts of a latent-class fit label items differently)
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from _goldnoise_lib.errors import (
        ConvergenceWarning,
        DegenerateDataWarning,
        EstimationWarning,
        GoldnoiseWarning,
        LabelWarning,
        ShapeError,
        UnstableStartsWarning,
    )
    from _goldnoise_lib.resampling import BootstrapResult
    from agreement._alt_test import AltTestResult, alt_test
    from agreement._api import (
        brennan_prediger,
        cohen_kappa,
        conger_kappa,
        fleiss_kappa,
        gwet_ac1,
        krippendorff_alpha,
        light_kappa,
        percent_agreement,
        scott_pi,
    )
    from agreement._bootstrap import bootstrap, bootstrap_rows
    from agreement._bootstrap_chunks import (
        PoissonParts,
        poisson_combine,
        poisson_finalize,
        poisson_partial,
    )
    from agreement._category import category_kappas
    from agreement._chunked import ChunkedRatings
    from agreement._concordance import ConcordanceResult, KendallWResult, kendall_w, lin_ccc
    from agreement._icc import ICCResult, icc
    from agreement._item_stats import (
        SCALE_STATISTICS,
        CoefficientInfo,
        FinalizedCoefficient,
        ItemStatistics,
        coefficient_info,
        item_statistics,
    )
    from agreement._partial import (
        STATISTICS,
        PartialSums,
        combine_sums,
        finalize_sums,
        partial_sums,
        ratings_chunk,
        ratings_schema,
    )
    from agreement._ratings import Ratings, as_ratings
    from agreement._result import AgreementResult, ConfidenceInterval, TestResult
    from agreement._table import agreement_table
    from agreement._weights import named_weights
    from agreement.spans import *  # noqa: F403

__getattr__, __dir__, __all__ = lazy_package(__name__)
