"""``goldnoise rank FILE``: which system is best, and how sure is that? (SPEC §11)

Reads pairwise votes and renders :func:`noise_models.rank_systems`: Bradley–Terry
scores with intervals, simultaneous rank-sets, the drop-k count, and with
``--judges`` the prediction-powered ranking beside the humans' alone.
"""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count, probability
from goldnoise._cli._errors import DataError
from goldnoise._cli._pairwise import add_comparison_arguments, load_comparisons
from goldnoise.report import Column, Figure, Report

HELP = "rank systems from pairwise votes: Bradley-Terry scores, rank-sets, drop-k"
DESCRIPTION = (
    "Rank systems (models) from pairwise votes: Bradley-Terry scores with intervals, "
    "simultaneous rank-sets (every system's set of possible ranks, all holding at once with "
    "the confidence level), and drop-k: the fewest human votes whose removal changes the top "
    "system. With --judges, the judges' votes on every comparison and the humans' on a "
    "subset give a prediction-powered ranking, beside the humans' alone.\n\n"
    "Examples:\n"
    "  goldnoise rank votes.csv\n"
    "  goldnoise rank ratings.csv --items items.csv          # PandaLM's layout\n"
    "  goldnoise rank ratings.csv --items items.csv --judges gpt-3.5-turbo \\\n"
    "      --labelled-share 0.2 --seed 1\n"
    "  goldnoise rank ratings.csv --items items.csv --raters pandalm-7b   # by one judge")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_comparison_arguments(parser)
    a = parser.add_argument_group("ranking")
    a.add_argument("--judges", metavar="NAME", nargs="+",
                   help="judges whose votes power a prediction-powered ranking")
    a.add_argument("--raters", metavar="NAME", nargs="+",
                   help="rank from these raters' votes alone (e.g. one judge)")
    a.add_argument("--labelled-share", metavar="S", type=probability("--labelled-share"),
                   help="with --judges: use the human votes of a random share S of the "
                        "comparisons (drawn with --seed)")
    a.add_argument("--no-drop-k", action="store_true", help="skip the drop-k search")
    a.add_argument("--confidence-level", type=probability("--confidence-level"), default=0.95,
                   help="level of the score intervals and of the rank-sets together")
    a.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="seed of the --labelled-share draw")


_COLUMNS = [Column("system", "system", align="<"), Column("score", "score", "+.3f"),
            Column("low", "low", "+.3f"), Column("high", "high", "+.3f"),
            Column("rank", "rank", "d"), Column("rank_low", "rank low", "d"),
            Column("rank_high", "rank high", "d"), Column("votes", "votes", "d")]


def _rows(frame) -> list[dict]:
    cols = [c.key for c in _COLUMNS]
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in frame[cols].to_dict(orient="records")]


def _forest(res) -> Figure:
    def draw(fig) -> None:
        res.plot(ax=fig.add_subplot())

    return Figure("scores", "Bradley-Terry scores", draw,
                  size=(6.4, 1.4 + 0.45 * len(res.table)))


def run(args: argparse.Namespace) -> Report:
    from noise_models import rank_systems

    read_notes: list[str] = []
    c = load_comparisons(args, judges=args.judges, notes=read_notes)
    try:
        res = rank_systems(c, judges=args.judges, raters=args.raters,
                           labelled=args.labelled_share, drop_k=not args.no_drop_k,
                           confidence_level=args.confidence_level, rng=args.seed)
    except (TypeError, ValueError) as exc:
        raise DataError(" ".join(str(exc).split())) from None
    report = Report("rank", f"goldnoise rank: {len(res.table)} systems, {res.method}",
                    parameters={"file": args.file, "confidence_level": args.confidence_level,
                                "judges": " ".join(args.judges or []),
                                "labelled_share": args.labelled_share, "seed": args.seed})
    s = report.add(section_from_result(
        res, "ranking", f"Ranking ({res.method})",
        values=("top_system", "rank_set_size", "n_votes", "n_labelled", "n_unlabelled", "lam",
                "prior", "n_components", "drop_k", "drop_k_method")))
    s.lines.append(f"{res.n_votes} human votes on {res.n_labelled} comparisons"
                   + (f", {res.n_unlabelled} judge-only comparisons (lambda = {res.lam:.3g})"
                      if res.lam is not None else ""))
    s.lines.append(f"top system {res.top_system}; the {args.confidence_level:.0%} rank-sets "
                   f"total {res.rank_set_size} (each system's possible ranks, all at once)")
    if res.drop_k_method != "not computed":
        s.lines.append(f"drop-k ({res.drop_k_method}): {res.drop_k_text}")
    s.tables.append(report_table("systems", _COLUMNS, _rows(res.table)))
    s.figures.append(_forest(res))
    s.notes.extend([*read_notes, *res.notes])
    report.primary = "ranking/systems"
    if res.classical is not None:
        h = report.add(section_from_result(
            res, "humans_only", "The same humans alone (labelled comparisons)",
            values={"rank_set_size": res.classical_rank_set_size}))
        h.lines.append(f"rank-sets total {res.classical_rank_set_size} without the judges "
                       f"(with them: {res.rank_set_size})")
        h.tables.append(report_table("systems", _COLUMNS, _rows(res.classical)))
    return report
