"""``goldnoise audit PATH --engine dask``: the audit over partitioned Parquet, run on Dask.

Starts (or reaches) the Dask cluster, reads the ratings into the workers
(``goldnoise.dask.read_ratings``: each item's ratings brought into one partition,
coded, persisted) and renders :func:`goldnoise.audit` of them: every statistic
runs as partial -> combine -> finalize and equals the in-memory audit's.
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from goldnoise._cli._errors import DataError, UsageError
from goldnoise.report import Report

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


def run_dask(args: argparse.Namespace) -> Report:
    """The audit of ``args.file`` on Dask: :func:`goldnoise.audit` of the workers' ratings."""
    if args.example or not args.file:
        raise UsageError("--engine dask reads long-format Parquet: give FILE (a file, folder "
                         "or glob), not --example")
    if args.layout not in ("long", "wide") or args.transpose or getattr(args, "gold", None):
        raise UsageError("--engine dask reads long-format Parquet (one row per rating): "
                         "--layout counts, --transpose and --gold are not supported")
    if getattr(args, "verified", None) or getattr(args, "calibrate", "none") != "none":
        raise UsageError("--verified and --calibrate need the ratings in memory: drop "
                         "--engine dask")
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
        from goldnoise import audit

        result = audit(lazy, model=args.model, hard=args.hard, alpha=args.alpha,
                       confidence_level=args.confidence_level, threshold=args.threshold,
                       level=args.level, latent=not args.no_latent, n_starts=args.starts,
                       rng=args.seed, source=args.file,
                       coefficients=getattr(args, "coefficients", None))
        report = result.report
        report.parameters["scheduler"] = args.scheduler or "local cluster"
        return report
