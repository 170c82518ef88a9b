"""Small helpers the verbs share: argument types (the formatting helpers live with the reports)."""

from __future__ import annotations

import argparse
import math
import re

from goldnoise._audit import capped_margin, capture_notes, p_text, pct, plural

__all__ = ["CLI_HINTS", "FIT_HINTS", "add_model_arguments", "as_option_message", "capped_margin",
           "capture_notes", "count", "gold_fit", "in_cli_words", "p_text", "pct", "plural",
           "probability", "real"]


def probability(name: str):
    """An argparse type: a number strictly between 0 and 1."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a number in (0, 1); got {text!r}") from None
        if not 0.0 < value < 1.0:
            raise argparse.ArgumentTypeError(f"{name} must be in (0, 1); got {text}")
        return value
    return parse


def real(name: str, low: float = -math.inf, high: float = math.inf):
    """An argparse type: a finite number in [low, high]."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number; got {text!r}") from None
        if not (math.isfinite(value) and low <= value <= high):
            if math.isinf(low) and math.isinf(high):
                raise argparse.ArgumentTypeError(f"{name} must be a finite number; got {text}")
            raise argparse.ArgumentTypeError(f"{name} must be in [{low:g}, {high:g}]; got {text}")
        return value
    return parse


def count(name: str, minimum: int = 0):
    """An argparse type: a whole number >= minimum (``1e6`` and ``1_000`` are accepted)."""
    def parse(text: str) -> int:
        from decimal import Decimal, InvalidOperation

        try:
            # Decimal, not float: 1e300 is 10**300 exactly, not the float's 301 digits
            value = Decimal(text.replace("_", "")) if re.search(r"[eE.]", text) else \
                int(text.replace("_", ""))
        except (ValueError, InvalidOperation):
            raise argparse.ArgumentTypeError(
                f"{name} must be a whole number; got {text!r}") from None
        if isinstance(value, Decimal):
            if not (value.is_finite() and value == value.to_integral_value()):
                raise argparse.ArgumentTypeError(f"{name} must be a whole number; got {text}")
            if value.adjusted() > 10_000:
                raise argparse.ArgumentTypeError(f"{name} must be below 1e10000; got {text}")
            value = int(value)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be at least {minimum}; got {text}")
        return value
    return parse


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The latent-class options of ``audit`` and ``fit``."""
    from goldnoise._audit import MODELS

    g = parser.add_argument_group("latent-class model")
    g.add_argument("--model", choices=MODELS, default="spam",
                   help="annotator model: spam (MACE: each annotator labels truly or spams), "
                        "confusion (Dawid-Skene: a confusion matrix per annotator), one-coin "
                        "(one error rate per annotator), easy-hard (the paper's M1: easy items "
                        "unanimous, hard ones coin-flips)")
    g.add_argument("--hard", choices=("auto", "none", "marginal", "uniform", "difficulty"),
                   default="auto",
                   help="hard component added to spam/confusion/one-coin: difficulty (spam "
                        "only: hard items whose difficulty is shared by every annotator; the "
                        "default with spam), marginal (a hard item gets each annotator's own "
                        "label shares), uniform, or none; auto: difficulty with spam, none "
                        "with the others")
    g.add_argument("--starts", type=count("--starts", 1), default=10,
                   help="EM starts (majority vote, then random); the best is kept")
    g.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="seed of the random starts (and of `audit --bootstrap`)")
    g.add_argument("--calibrate", choices=("none", "held-out"), default="none",
                   help="held-out: temper the posteriors by how well the fit predicts held-out "
                        "ratings (labels unchanged)")


def check_model_arguments(args: argparse.Namespace) -> None:
    """``--hard`` goes with spam, confusion or one-coin (a usage error, exit 2)."""
    from goldnoise._cli._errors import UsageError

    if args.model == "easy-hard" and args.hard not in ("none", "auto"):
        raise UsageError("--hard goes with spam, confusion or one-coin; easy-hard has its "
                         "own hard component")


#: The library's hints, which name Python parameters, in the command line's words.
CLI_HINTS: tuple[tuple[str, str], ...] = (
    ("`replicates='separate'`", "--replicates separate"),
    ("`normalize_labels=True`", "--normalize-labels"),
    ("`kind='logits'`", "--kind logits"),
    ("(or pass `kind=`)", "(or pass --kind)"),
    ("pass `ids=`", "pass --ids FILE"),
    ("or use `Ratings.from_long`", "or add --layout long (one row per rating)"),
    ("`level='nominal'`", "--level nominal"),
    ("`coefficient='percent_agreement'`", "--coefficient percent_agreement"),
    ("`level='ordinal'` or `level='interval'`", "--level ordinal or --level interval"),
    ("`scheme='BIOES'`", "--scheme BIOES"),
)


_UNSTABLE = ("Compare the starts with `fit.unstable_starts()` (their labels are in "
             "`fit.start_labels`), raise `n_starts` (`--starts` on the command line), or pin "
             "the optimum down with known labels (`gold=`).")
#: Hints of the latent-class fit whose options only some verbs have: (Python words, the
#: option they need, the words with it, the words without it). A verb with the option
#: keeps the library's words where they already name it (audit's report is its result's).
FIT_HINTS: tuple[tuple[str, str, str, str], ...] = (
    (_UNSTABLE, "--starts", _UNSTABLE,
     "Another --seed may end elsewhere; more starts and known labels pin the optimum down "
     "(goldnoise fit --starts N --gold GOLD)."),
    ("(e.g. annotators='spam' or 'one-coin') or a larger `prior_strength`", "--model",
     "(--model spam or one-coin)", "(goldnoise fit --model spam or one-coin)"),
    (" (`n_sims`)", "--sims", " (--sims)", ""),
)


def in_cli_words(text: str, *, one_line: bool = True,
                 options: frozenset[str] | None = None) -> str:
    """``text`` (on one line), each hint of :data:`CLI_HINTS` naming the command's option.

    With ``options`` (the verb's own), a fit's hint that names an option the verb lacks
    says which verb has it (:data:`FIT_HINTS`).
    """
    text = " ".join(str(text).split()) if one_line else str(text)
    for python, needs, with_it, without in FIT_HINTS:
        text = text.replace(python, with_it if options is None or needs in options
                            else without)
    for python, option in CLI_HINTS:
        text = text.replace(python, option)
    return text


def gold_fit(loaded, source: str):
    """With ``--gold``: the default model (MACE's spam model with item difficulty,
    ``LatentClassModel("spam", "difficulty")``, as ``next``, ``verify`` and ``certify`` fit
    without gold) fitted with the gold labels,
    so that the gold items are settled (never chosen, checked or drawn); None without
    gold. A gold label the ratings cannot take is a one-line DataError."""
    if loaded.gold is None:
        return None
    from goldnoise._cli._errors import DataError
    from noise_models import LatentClassModel

    gold = loaded.gold.dropna()
    by_text = {str(i): i for i in loaded.ratings.items}
    gold.index = [by_text.get(str(i), i) for i in gold.index]
    try:
        return LatentClassModel("spam", "difficulty", rng=0).fit(loaded.ratings, gold=gold)
    except ValueError as exc:
        raise DataError(f"{source}: {as_option_message(exc, {'gold': '--gold'})}") from None


def as_option_message(exc: BaseException, options: dict[str, str]) -> str:
    """The library's message on one line, its `parameter` names as the command's options."""
    text = in_cli_words(str(exc))
    for name, option in options.items():
        text = text.replace(f"`{name}`", option)
    return text
