"""``goldnoise fit FILE --model ... --out labels.csv``: a label per item, with its posterior."""

from __future__ import annotations

import argparse

from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise._cli._latent import (
    add_model_arguments,
    annotator_figure,
    annotator_table,
    fit_models,
    gold_section,
    hard_figure,
    items_table,
)
from goldnoise._cli._report import Report, Section

HELP = "fit a latent-class model: a label per item with its posterior and hard posterior"
DESCRIPTION = (
    "Fit a latent-class model to a file of ratings and write, per item, the fitted label, the "
    "probability that it is right, the probability that the item is hard (a coin-flip), and "
    "its number of ratings; the annotator table goes beside it.\n\n"
    "Examples:\n"
    "  goldnoise fit ratings.csv --item id --out labels.csv       # + labels.annotators.csv\n"
    "  goldnoise fit crowd.csv --layout long --model confusion --out labels.parquet")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser)
    add_model_arguments(parser)


def run(args: argparse.Namespace) -> Report:
    from goldnoise._cli._errors import DataError

    loaded = load_ratings(args)
    r = loaded.ratings
    if not r.has_raters:
        raise DataError("a latent-class model needs to know which annotator gave which label; "
                        "a count table does not say (use --layout wide or long)")
    try:
        fitted = fit_models(r, args)
    except ValueError as exc:
        raise DataError(f"{loaded.source}: {exc}") from None
    fit = fitted.fit
    report = Report("fit", f"goldnoise fit: {loaded.source}",
                    parameters={"source": loaded.source, "model": args.model, "hard": args.hard,
                                "starts": args.starts, "seed": args.seed},
                    primary="items/items", companions=["annotators/annotators"])
    s = report.add(Section("fit", f"Model: {fit.model.name}"))
    s.values.update({k: v for k, v in fit.to_dict().items() if k != "phi"})
    s.values["phi"] = {str(c): float(v) for c, v in zip(r.categories, fit.phi, strict=True)}
    state = "converged" if fit.converged else "NOT converged"
    s.lines += [
        f"{r.n_items} items, {r.n_raters} annotators, {r.n_categories} categories; "
        f"{fit.n_iter} EM iterations, {state}, log-likelihood {fit.log_likelihood:.3f}",
        "class shares " + ", ".join(f"{c} {v:.3f}" for c, v in
                                    zip(r.categories, fit.phi, strict=True)),
    ]
    if fit.posterior_hard is None:
        s.notes.append(f"P(hard) is the easy/hard model's ({fitted.hard_fit.model.name}): this "
                       "model has no hard component (add --hard marginal for one)")
    s.notes += fitted.notes + loaded.notes
    items = report.add(Section("items", "Per item"))
    items.tables.append(items_table(fitted, loaded.gold))
    items.figures.append(hard_figure(fitted))
    ann = report.add(Section("annotators", "Per annotator"))
    ann.tables.append(annotator_table(fitted, loaded.gold))
    ann.figures.append(annotator_figure(ann.tables[0]))
    if loaded.gold is not None:
        report.add(gold_section(fitted, r, loaded.gold))
    return report
