"""Models of label noise: the easy/hard bound, the latent-class family, instance dependence (SPEC §2).

Four topics, one public subpackage each; every public name is also importable from here:

* ``noise_models.easy_hard`` -- closed-form answers of the easy/hard model from counts
  of items and disagreements: chance agreement p, the posterior of the number of hard
  items, the noise bound γ and its inverse, κ audits, planning, margins;
* ``noise_models.latent_class`` -- models fitted to the ratings themselves by one EM
  engine: the latent-class family, the paper's easy/hard model M1 among them
  (``EasyHardModel``), their checks, the agreed-error bracket, verified samples;
* ``noise_models.instance`` -- instance dependence of noise, read from soft labels;
* ``noise_models.judge`` -- a judge beside the annotators: its audit (may it replace or join
  them), prediction-powered estimates, which items humans should label (active sampling);
* ``noise_models.preferences`` -- pairwise preferences: Bradley–Terry rankings with
  rank-sets (humans alone or with judges), drop-k, position bias, the preference audit.

``EasyHardModel`` lives in ``latent_class``, not ``easy_hard``: it is
``LatentClassModel("perfect", "free")``, fitted by the same EM as every other member,
and its fit is a ``LatentClassFit``. ``easy_hard`` needs no fit (γ comes from n, d and
p), while a fit's ``.noise_bound`` uses ``easy_hard.noise_bound``: imports run
``easy_hard`` <- ``latent_class``, and the model in ``easy_hard`` would close a cycle.

The noise bound, κ audits, planning and margins: easy_hard (SPEC §2.1–2.3, 2.5–2.7)
-----------------------------------------------------------------------------------
chance_agreement      -- p, chance agreement on a hard item (from ratings, q or shares)
                                                                   -> ChanceAgreementResult
hard_count_posterior  -- posterior of the number of hard items     -> HardCountPosterior
noise_bound           -- γ of the agreed subset at confidence α    -> NoiseBoundResult
max_disagreements     -- most disagreements that keep γ <= target  -> int
annotators_needed     -- smallest k meeting a target γ, per-k table -> AnnotatorsNeededResult
audit_kappa           -- what a κ claim implies (easy items, noise, γ, κ's interval)
                                                                   -> KappaAuditResult
kappa_range           -- lowest / most likely / highest Fleiss κ for n items, `agreed` unanimous
                                                                   -> KappaRangeResult
chance_margin         -- difference two systems need to beat coin-flip noise
                                                                   -> ChanceMarginResult

Which items are hard, which labels are wrong: latent_class (SPEC §2.4, §5)
-------------------------------------------------------------------------
LatentClassModel      -- the latent-class family, one EM engine: annotators "perfect" |
                         "one-coin" | "confusion" (Dawid–Skene) | "spam" (MACE), hard
                         "free" | "marginal" | "uniform" | None    -> LatentClassFit
EasyHardModel         -- the paper's M1, LatentClassModel("perfect", "free") (why here: above)
LatentClassFit        -- labels, per-item posteriors, parameters; .noise_bound(alpha)
                                                                   -> FitNoiseBoundResult
annotator_accuracy    -- each annotator's parameters and accuracy, P(label = true class)
                         over easy and hard items                  -> DataFrame
annotator_intervals   -- each annotator's accuracy and reliability parameters with a
                         bootstrap interval over items (the fit refitted per resample)
                                                                   -> DataFrame
posterior_check       -- the fit predicts held-out ratings: log score, reliability, ECE,
                         against two baselines (SPEC §5)           -> PosteriorCheckResult
calibration           -- the fit against verified labels: ECE, claimed vs verified accuracy,
                         recalibrated posteriors (SPEC §5)         -> CalibrationResult
agreed_error_bracket  -- optimistic (labels-only model) to pessimistic (γ) error of the
                         unanimous labels                          -> ErrorBracketResult
verified_sample_bound -- exact hypergeometric bound from a verified sample
                                                                   -> VerifiedSampleBoundResult
sample_size_needed    -- verified sample that can support a target error share -> int
span_noise            -- candidate spans (named entities) as items: γ of the agreed spans,
                         the spans most likely wrong                -> SpanNoiseResult

Instance dependence of label noise, from soft labels: instance (SPEC §2.8)
---------------------------------------------------------------------------
SoftLabels                      -- per-instance label distributions + reference labels
                                   (from an array, voters' distributions, or Ratings)
noise_rate                      -- δ, mean of 1 − p̄_i(y_i)             -> NoiseRateResult
noise_transition_heterogeneity  -- nth and the class-mean transition rows
                                                                   -> TransitionHeterogeneityResult
tv_distance                     -- total-variation distance to reference distributions
                                                                   -> TVDistanceResult
attractor_class                 -- class with the largest gain in label share, its purity
                                                                   -> AttractorResult
label_entropy                   -- entropy of the class shares      -> LabelEntropyResult
sample_hard_labels              -- one voter per instance, uniformly (the CILN protocol)
instance_dependence_report      -- all of the above in one DataFrame

A judge beside the annotators: judge (SPEC §10)
-----------------------------------------------
judge_audit     -- may a judge replace or join the humans: swap and join tests, the judge
                   against each human, the majority and the latent labels, the Alt-Test,
                   a verdict                                       -> JudgeAuditResult
swap_test       -- the swap and join tests alone (paired bootstrap over the items each
                   candidate rated)                                -> SwapTestResult
ppi_mean        -- prediction-powered estimate of a mean: PPI, PPI++ (tuned λ), stratified
                                                                   -> PPIResult
judge_estimate  -- a class's prevalence or the mean rating over all items: the judge on
                   every item, humans (mean, majority or posterior) on some
                                                                   -> JudgeEstimateResult
labelled_sample -- a random share of the human-rated items, to count as labelled -> list
active_sample   -- which items humans should label: inclusion probabilities from the
                   judge's uncertainty, mixed with uniform (never worse than it)
                                                                   -> ActiveSampleResult
judge_estimate(..., inclusion=) weights the labelled items by 1/π (active inference);
judge_estimate(..., scores=) takes the judge's probabilities instead of its labels.

Pairwise preferences and rankings: preferences (SPEC §11)
----------------------------------------------------------
Comparisons               -- pairwise votes, coded (one row per vote)
as_comparisons            -- check and code a long table of votes      -> Comparisons
comparisons_from_ratings  -- votes from pair labels + an items table naming the systems
                                                                   -> Comparisons
rank_systems              -- Bradley–Terry scores with intervals, simultaneous rank-sets,
                             humans alone or + judges (PPI), drop-k -> RankingResult
position_bias             -- each judge's order bias with an interval -> DataFrame
preference_audit          -- agreement, noise against latent truth, judges in the model,
                             position bias                          -> PreferenceAuditResult

Larger than memory (SPEC §3): each statistic as partial -> combine -> finalize
------------------------------------------------------------------------------
chance_partial, chance_combine, chance_finalize, chance_items, ChanceSums
                                -- the inputs of γ (n, d, q, per-item p_i)
em_partial, em_combine, em_finalize, EMState, EStepSums
                                -- the latent-class EM, one map-reduce per iteration
soft_partial, soft_combine, soft_finalize, SoftLabelSums
                                -- δ, nth and TV of soft labels
noise_bound and LatentClassModel.fit accept a chunked ratings object
(agreement.ChunkedRatings, e.g. goldnoise.dask.read_ratings) and run them.
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from noise_models.easy_hard import *  # noqa: F403
    from noise_models.instance import *  # noqa: F403
    from noise_models.judge import *  # noqa: F403
    from noise_models.latent_class import *  # noqa: F403
    from noise_models.preferences import *  # noqa: F403

__getattr__, __dir__, __all__ = lazy_package(__name__)
