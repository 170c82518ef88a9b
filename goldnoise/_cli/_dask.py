"""``goldnoise audit PATH --engine dask``: the audit over partitioned Parquet, run on Dask.

The ratings stay in the Dask workers (``goldnoise.dask.read_ratings``: each item's
ratings brought into one partition, coded, persisted); every statistic runs as
partial -> combine -> finalize over them and equals the in-memory audit's. Sections:
the data (with what the shuffle moved), every coefficient, the noise bound γ, the
chance-difference margin and the latent-class fit. The κ audit and the agreed-error
bracket need the labels in memory and say so.
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from goldnoise._cli._errors import DataError, UsageError
from goldnoise._cli._report import Report, Section

ENGINES = ("memory", "dask")


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("engine (larger than memory)")
    g.add_argument("--engine", choices=ENGINES, default="memory",
                   help="memory: read FILE into memory; dask: FILE is long-format Parquet (a "
                        "file, a folder or a glob, e.g. 'ratings/*.parquet'), read lazily and "
                        "audited on Dask with the same numbers (needs the dask extra: pip "
                        "install 'goldnoise[dask]') (default: %(default)s)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="--engine dask: address of a running Dask scheduler (e.g. "
                        "tcp://10.0.0.5:8786); default: a local cluster of this machine's "
                        "cores")


@contextlib.contextmanager
def _client(address: str | None):
    try:
        import distributed
    except ImportError:
        raise UsageError("--engine dask needs Dask: pip install 'goldnoise[dask]'") from None
    if address:
        try:
            client = distributed.Client(address, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        with client:
            yield client
        return
    with distributed.LocalCluster(threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def _column(value: Any, default: str, what: str) -> str:
    if value is None:
        return default
    if isinstance(value, list):
        if len(value) != 1:
            raise UsageError(f"--engine dask takes one {what} column; got {value}")
        return value[0]
    return value


def run_dask(args: argparse.Namespace, sections: Any) -> Report:
    """The audit of ``args.file`` on Dask; ``sections`` is the audit module (its builders)."""
    if args.example or not args.file:
        raise UsageError("--engine dask reads long-format Parquet: give FILE (a file, folder "
                         "or glob), not --example")
    if args.layout not in ("long", "wide") or args.transpose or getattr(args, "gold", None):
        raise UsageError("--engine dask reads long-format Parquet (one row per rating): "
                         "--layout counts, --transpose and --gold are not supported")
    if args.scheduler and args.engine != "dask":
        raise UsageError("--scheduler goes with --engine dask")
    item = _column(args.item, "item", "item")
    rater = _column(args.rater, "rater", "annotator")
    label = _column(args.label, "label", "label")
    try:
        from goldnoise.dask import read_ratings
    except ImportError:
        raise UsageError("--engine dask needs Dask: pip install 'goldnoise[dask]'") from None
    with _client(args.scheduler):
        try:
            lazy = read_ratings(args.file, item=item, rater=rater, label=label)
        except (KeyError, FileNotFoundError, ValueError, OSError) as exc:
            raise DataError(f"could not read {args.file} with Dask: "
                            f"{' '.join(str(exc).split())[:300]}") from None
        return _report(lazy, args, sections)


def _data_section(lazy: Any) -> Section:
    s = Section("data", "Data")
    rep = lazy.shuffle_report
    s.values.update({"n_items": lazy.n_items, "n_raters": lazy.n_raters,
                     "n_categories": lazy.n_categories, "n_ratings": lazy.n_ratings,
                     "categories": [str(c) for c in lazy.schema.categories],
                     "partitions": lazy.npartitions, "shuffle": rep.to_dict()})
    s.lines.append(f"{lazy.n_items} items, {lazy.n_raters} annotators, {lazy.n_categories} "
                   f"categories, {lazy.n_ratings} ratings, in {lazy.npartitions} Dask "
                   "partitions")
    s.lines.append(str(rep))
    shown = ", ".join(str(c) for c in list(lazy.schema.categories)[:12])
    more = f", ... ({lazy.n_categories} in all)" if lazy.n_categories > 12 else ""
    s.lines.append(f"categories: {shown}{more}")
    return s


class _Loaded:  # what the audit's agreement section reads of loaded ratings
    def __init__(self, lazy: Any) -> None:
        self.ratings = lazy
        self.declared_order = False
        self.notes: list[str] = []


def _report(lazy: Any, args: argparse.Namespace, sections: Any) -> Report:
    report = Report("audit", f"goldnoise audit: {args.file} (Dask)",
                    parameters={"source": args.file, "engine": "dask",
                                "scheduler": args.scheduler or "local cluster",
                                "alpha": args.alpha, "confidence_level": args.confidence_level,
                                "threshold": args.threshold, "level": args.level},
                    primary="agreement/coefficients")
    report.add(_data_section(lazy))
    report.add(sections.agreement_section(_Loaded(lazy), level=args.level,
                                          confidence_level=args.confidence_level))
    bound = _bound(lazy, args, report)
    report.add(Section("kappa_audit", "The kappa claim, read through the model").undefined(
        "not computed with --engine dask (it reads the labels in memory)"))
    report.add(sections.margin_section(bound, alpha=args.alpha))
    if not args.no_latent:
        from goldnoise._cli._latent import fit_models, latent_sections

        try:
            fitted = fit_models(lazy, args)
        except ValueError as exc:
            report.add(Section("latent_class", "Latent-class fit").undefined(str(exc)))
        else:
            for section in latent_sections(
                    fitted, gold=None, alpha=args.alpha, bracket=None,
                    bracket_reason="the agreed-error bracket is not computed with --engine "
                                   "dask"):
                report.add(section)
    return report


def _bound(lazy: Any, args: argparse.Namespace, report: Report) -> Any:
    from goldnoise._cli._common import capture_notes, p_text, pct
    from noise_models import noise_bound

    s = report.add(Section("noise_bound", f"Noise bound of the gold standard (easy/hard "
                                          f"model, confidence alpha = {args.alpha:g})"))
    try:
        with capture_notes(s.notes):
            bound = noise_bound(lazy, alpha=args.alpha)
    except ValueError as exc:
        s.undefined(f"the bound is not defined here: {exc}")
        return None
    s.values.update({"n": bound.n, "d": bound.d, "agreed": bound.agreed, "p": bound.p,
                     "t0": bound.t0, "hidden_hard": bound.hidden_hard, "gamma": bound.gamma,
                     "alpha": args.alpha, "method": bound.method})
    s.lines += [
        f"{bound.agreed} items agreed unanimously, {bound.d} disagreed; chance that a hard item "
        f"comes out unanimous p = {p_text(bound.p)}",
        f"with confidence {args.alpha:g}, at most {bound.hidden_hard} of the {bound.agreed} "
        f"agreed items are hidden coin-flips: gamma = {bound.gamma:.4f} ({pct(bound.gamma)} "
        "of the agreed subset)",
    ]
    s.notes += list(bound.notes)
    if bound.chance is not None:
        s.notes += [n for n in bound.chance.notes if n not in s.notes]
    return bound
