"""Auditing a judge (SPEC §10): may a candidate annotator replace or join the humans?

judge_audit       -- the humans' own agreement, the swap and join tests with paired
                     bootstrap intervals, the candidate against each human, the majority
                     and the latent labels, the candidate inside the latent-class fit
                     (easy and hard items), the Alt-Test beside the swap, a verdict
                                                               -> JudgeAuditResult
JudgeAuditResult  -- the result (tables swap, join, agreement, confusion, latent,
                     alt_test, verdicts)

For the command line (``goldnoise._cli``): ``judge_report`` (the audit's report) and
``estimate_section`` (judge_estimate's section).
"""

from goldnoise._judge._audit import judge_audit
from goldnoise._judge._report import estimate_section, judge_report
from goldnoise._judge._result import JudgeAuditResult

__all__ = ["JudgeAuditResult", "estimate_section", "judge_audit", "judge_report"]
