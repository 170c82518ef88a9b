"""Spans and sequences: who marked which stretch of text, and how well annotators agree (SPEC §7).

Spans            -- document, start, end, label, annotator; nested and overlapping spans
                    kept; which documents each annotator annotated is explicit
span_agreement   -- pairwise and pooled F1 (= positive specific agreement) per label and
                    per document, exact / overlap / IoU matching -> SpanAgreementResult
MATCHES          -- those matchings' names: "exact", "overlap", "iou"
token_agreement  -- every §1 coefficient over tokens as items (BIO tags)  -> DataFrame
token_ratings    -- the tokens × annotators table of BIO tags             -> Ratings
decode_tags      -- token spans from BIO, BIOES/BILOU or IO tags
unitizing_alpha  -- Krippendorff's α_u and its split: |u|α (where the units are), cuα
                    (which label), 1 − α_u as boundary + label disagreement
                                                                   -> UnitizingAlphaResult
document_statistics -- per-document rows and finalize of every span statistic (span F1,
                    per label, α_u, token coefficients): the bootstrap over documents
                                                                   -> DocumentStatistics
span_intervals   -- span F1 (pooled, per label), α_u, |u|α, cuα and token coefficients
                    with intervals from the same resamples of documents
                                                                   -> BootstrapResult

Noise (SPEC §7: candidate spans as the items of every label-noise model)
-----
candidate_ratings -- the annotators' spans merged into candidates under the matching rule,
                     rated with the labels plus "no entity"             -> SpanRatings
SpanRatings       -- .ratings (candidates × annotators), .candidates (document, start,
                     end), .likely_wrong(fit): the spans most likely wrong

Readers (each refuses malformed input naming file, line and problem)
-------
read_conll       -- CoNLL columns: one file per annotator or one tag column per annotator
read_brat        -- brat standoff .ann files (with .txt beside)
read_labelstudio -- Label Studio JSON export (several annotators' annotations per task)
read_jsonl       -- doccano or Prodigy JSONL

Modules: ``_spans`` (the container), ``_readers``, ``_agreement``, ``_unitizing`` (α_u),
``_documents`` (per-document rows), ``_intervals`` (span_intervals: those rows resampled by
the resampling core, ``_goldnoise_lib.resampling``), ``_candidates``.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from agreement.spans._agreement import (
        MATCHES,
        SpanAgreementResult,
        span_agreement,
        token_agreement,
        token_ratings,
    )
    from agreement.spans._candidates import SpanRatings, candidate_ratings
    from agreement.spans._documents import DocumentStatistics, document_statistics
    from agreement.spans._intervals import span_intervals
    from agreement.spans._readers import (
        decode_tags,
        read_brat,
        read_conll,
        read_jsonl,
        read_labelstudio,
    )
    from agreement.spans._spans import Spans
    from agreement.spans._unitizing import UnitizingAlphaResult, unitizing_alpha

__getattr__, __dir__, __all__ = lazy_package(__name__)
