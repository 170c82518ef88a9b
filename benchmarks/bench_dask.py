"""Benchmark: goldnoise over partitioned Parquet on a Dask LocalCluster (``goldnoise[dask]``).

Data: ``n_items`` items × 10 annotators, long format (item, rater, label; one
row per rating), written as 64 Parquet files with every item's 10 ratings
scattered over the files (each block of items is shuffled and dealt to the
files, one row group per block per file), as a distributed job writes them.
Labels: simulate_annotations, model M2, 3 categories, 10% hard items.

Timed through a ``distributed.LocalCluster`` (2 worker processes, 1 thread
each, this machine's 2 cores), step by step: ``read_ratings`` (schema pass,
grouping check, the rows cut by a hash of the item id where they are read, the
per-item category counts summed up a tree and persisted), the count-table rows
of ``agreement_table`` (from the counts: no rating moves),
``partition_by_item`` (each item's ratings brought together once, coded,
persisted), the annotator-identity rows (Conger, Light), ``noise_bound`` (γ)
and ``LatentClassModel("confusion").fit`` (both on the item chunks), with the
peak resident memory of every process (client, scheduler, each worker; sampled every
0.2 s). At 1e7 ratings the in-memory path (``pd.read_parquet`` of the same
files, ``Ratings.from_long``, the same calls) is timed beside it.

Run: ``python benchmarks/bench_dask.py [--ratings 1e7] [--ratings 1e8]``
(data are generated once into ``$GOLDNOISE_BENCH_DIR``, default
``/tmp/goldnoise-bench``). Writes the ``dask`` section of RESULTS.md with the
runs recorded so far (``dask_runs.json`` beside the data). Never part of the
test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section

N_FILES = 64
K = 10
BLOCK_ITEMS = 1_000_000
FIT = 'LatentClassModel("confusion").fit (Dawid–Skene, 10 starts)'
READ = ("read_ratings (read once, cut by a hash of the item id, per-item category counts "
        "summed up a tree, persist)")
COUNT_TABLE = ["percent_agreement", "fleiss_kappa", "brennan_prediger", "gwet_ac1",
               "krippendorff_alpha"]
COUNTS = ("count-table statistics from the counts (percent agreement, Fleiss, "
          "Brennan–Prediger, Gwet, α; no rating moves)")
BY_ITEM = "partition_by_item (each item's ratings brought together, coded, persisted: once)"
IDENTITY_TABLE = ["cohen_kappa", "conger_kappa", "light_kappa"]
IDENTITY = "annotator-identity statistics (Conger, Light) on the item chunks"
ROOT = Path(os.environ.get("GOLDNOISE_BENCH_DIR", "/tmp/goldnoise-bench"))


def generate(n_items: int, path: Path, seed: int = 0) -> None:
    """64 files; each block of items is shuffled and dealt to the files."""
    from simulation import simulate_annotations

    if (path / "_done").exists():
        return
    path.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([("item", pa.int64()), ("rater", pa.int16()), ("label", pa.int8())])
    writers = [pq.ParquetWriter(path / f"part-{f:02d}.parquet", schema) for f in range(N_FILES)]
    rng = np.random.default_rng(seed)
    errors = np.resize([0.1, 0.15, 0.2, 0.25, 0.3], K)
    for start in range(0, n_items, BLOCK_ITEMS):
        size = min(BLOCK_ITEMS, n_items - start)
        sim = simulate_annotations(size, K, model="M2", n_categories=3, error_rates=errors,
                                   class_shares=[0.5, 0.3, 0.2], hard_share=0.1,
                                   rng=int(rng.integers(2**31)))
        codes = sim.ratings.codes
        ii, jj = np.nonzero(codes >= 0)
        order = rng.permutation(ii.size)
        item = (start + ii[order]).astype(np.int64)
        rater = jj[order].astype(np.int16)
        label = codes[ii[order], jj[order]].astype(np.int8)
        bounds = np.linspace(0, ii.size, N_FILES + 1).astype(np.int64)
        for f, w in enumerate(writers):
            sl = slice(bounds[f], bounds[f + 1])
            w.write_table(pa.table({"item": item[sl], "rater": rater[sl], "label": label[sl]},
                                   schema=schema))
    for w in writers:
        w.close()
    (path / "_done").write_text("ok")


class PeakMemory:
    """Peak RSS of this process and every descendant (workers, nanny, scheduler)."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.peaks: dict[int, tuple[str, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _name(self, p: psutil.Process) -> str:
        try:
            cmd = " ".join(p.cmdline())
        except psutil.Error:
            return "?"
        if "resource_tracker" in cmd:
            return "multiprocessing resource tracker"
        if "spawn_main" in cmd or "multiprocessing" in cmd or "forkserver" in cmd:
            return "dask process"  # a worker (named from the cluster's pids)
        return "client" if p.pid == os.getpid() else cmd[:40]

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            for p in [me, *me.children(recursive=True)]:
                try:
                    rss = p.memory_info().rss
                except psutil.Error:
                    continue
                name, old = self.peaks.get(p.pid, (None, 0))
                if rss > old:
                    self.peaks[p.pid] = (name or self._name(p), rss)
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        return False


def _roles(client) -> dict[int, str]:
    """pid → role: client, scheduler, worker i."""
    workers = client.run(os.getpid)  # {address: pid}
    roles = {pid: f"worker {i + 1}" for i, (_, pid) in enumerate(sorted(workers.items()))}
    scheduler = client.run_on_scheduler(os.getpid)
    roles[scheduler] = "scheduler"
    roles[os.getpid()] = "client + scheduler" if scheduler == os.getpid() else "client"
    return roles


def run_dask(path: Path, n_ratings: int) -> dict:
    import distributed

    from agreement import agreement_table
    from goldnoise.dask import read_ratings
    from noise_models import LatentClassModel, noise_bound

    out: dict = {"n_ratings": n_ratings, "steps": {}}
    with PeakMemory() as mem, distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
            memory_limit="6GiB", silence_logs=50) as cluster, distributed.Client(cluster) as client:
        roles = _roles(client)
        lazy = None

        def read():
            nonlocal lazy
            lazy = read_ratings(str(path / "*.parquet"))
            return lazy

        for name, fn in [
            (READ, read),
            (COUNTS, lambda: agreement_table(lazy, coefficients=COUNT_TABLE)),
            (BY_ITEM, lambda: lazy.partition_by_item()),
            (IDENTITY, lambda: agreement_table(lazy, coefficients=IDENTITY_TABLE)),
            ("noise_bound (γ, per-annotator q: on the item chunks)", lambda: noise_bound(lazy)),
            (FIT, lambda: LatentClassModel("confusion", rng=0).fit(lazy)),
        ]:
            t0 = time.perf_counter()
            res = fn()
            out["steps"][name] = time.perf_counter() - t0
            out.setdefault("load", {})[name] = os.getloadavg()[0]
            if name == COUNTS:
                out["fleiss"] = float(res.loc["Fleiss' kappa", "value"])
                out["counts_without_shuffle"] = not lazy.partitioned_by_item
            elif name.startswith("noise_bound"):
                out["gamma"] = float(res.gamma)
        out["shuffle"] = lazy.shuffle_report.to_dict()
        out["partitions"] = lazy.npartitions
        pids = roles
    out["peak_rss"] = {}
    for pid, (name, rss) in sorted(mem.peaks.items()):
        role = pids.get(pid, name)
        out["peak_rss"][f"{role} (pid {pid})"] = rss
    return out


def run_memory(path: Path, n_ratings: int) -> dict:
    from agreement import Ratings, agreement_table
    from noise_models import LatentClassModel, noise_bound

    out: dict = {"n_ratings": n_ratings, "steps": {}}
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        frame = pd.read_parquet(path)
        out["steps"]["pd.read_parquet"] = time.perf_counter() - t0
        out.setdefault("load", {})["pd.read_parquet"] = os.getloadavg()[0]
        t0 = time.perf_counter()
        r = Ratings.from_long(frame)
        out["steps"]["Ratings.from_long"] = time.perf_counter() - t0
        out["load"]["Ratings.from_long"] = os.getloadavg()[0]
        del frame
        for name, fn in [("agreement_table", lambda: agreement_table(r)),
                         ("noise_bound (γ)", lambda: noise_bound(r)),
                         (FIT, lambda: LatentClassModel("confusion", rng=0).fit(r))]:
            t0 = time.perf_counter()
            res = fn()
            out["steps"][name] = time.perf_counter() - t0
            out["load"][name] = os.getloadavg()[0]
            if name == "agreement_table":
                out["fleiss"] = float(res.loc["Fleiss' kappa", "value"])
            elif name.startswith("noise_bound"):
                out["gamma"] = float(res.gamma)
    out["peak_rss"] = {f"in-memory process (pid {pid})": rss
                       for pid, (_, rss) in mem.peaks.items() if pid == os.getpid()}
    return out


def _fmt_t(v) -> str:
    return f"{v:.1f} s" if isinstance(v, float) else str(v)


def report(runs: dict) -> str:
    lines = ["## Larger than memory: Dask LocalCluster over partitioned Parquet "
             "(`benchmarks/bench_dask.py`)", "",
             f"Long format, {K} annotators per item, {N_FILES} Parquet files, each item's "
             "ratings scattered over the files; LocalCluster of 2 worker processes × 1 thread "
             "(memory limit 6 GiB each) on this machine's 2 cores, which other jobs share "
             "(figures are noisy: the load column is the 1-minute load average read after "
             "each step; 2.0 is a fully used, unshared machine). Peak = largest resident set "
             "sampled every 0.2 s. Target (issue 34): 1e8 ratings end to end ≤ 5 minutes, "
             "≤ 4 GB per process.", ""]
    for key in sorted(runs, key=lambda s: (float(s.split()[0]), s)):
        run = runs[key]
        loads = run.get("load", {})
        lines += [f"### {key}", "", "| step | wall time | load (1 min) after it |",
                  "|---|---:|---:|"]
        lines += [f"| {k} | {_fmt_t(v)} | "
                  f"{loads[k]:.1f} |" if k in loads else f"| {k} | {_fmt_t(v)} | — |"
                  for k, v in run["steps"].items()]
        total = sum(v for v in run["steps"].values() if isinstance(v, float))
        lines += [f"| **total** | **{total:.1f} s** | |", ""]
        lines += ["| process | peak RSS |", "|---|---:|"]
        for k, v in run["peak_rss"].items():
            # LocalCluster runs its scheduler in the client's process
            if "Dask" in key and k.startswith("client (pid"):
                k = k.replace("client (pid", "client + scheduler (pid")
            k = k.replace("dask process", "multiprocessing resource tracker")
            lines.append(f"| {k} | {v / 2**30:.2f} GiB |")
        extra = []
        if "shuffle" in run:
            s = run["shuffle"]
            extra.append(f"Shuffle: {s['rows_moved']:,} of {s['rows']:,} ratings moved "
                         f"({s['share_moved']:.1%}, ≈{s['bytes_moved'] / 2**20:,.0f} MiB); "
                         f"{s['items_split']:,} of {s['items']:,} items had ratings in several "
                         f"files; {run['partitions']} partitions.")
        if "note" in run:
            extra.append(run["note"])
        if "counts_without_shuffle" in run:
            extra.append("The count-table statistics ran before any rating was brought "
                         "together by item: " + ("yes." if run["counts_without_shuffle"]
                                                 else "no."))
        if "fleiss" in run:
            extra.append(f"Fleiss' κ = {run['fleiss']:.12f}"
                         + (f", γ = {run['gamma']:.12f}" if "gamma" in run else "") + ".")
        lines += ["", *extra, ""]
    for key, run in runs.items():
        total = sum(v for v in run["steps"].values() if isinstance(v, float))
        if key.startswith("1e8") and "Dask" in key:
            lines.append(f"{key}: {total:.0f} s end to end — target ≤ 300 s "
                         f"{'met' if total <= 300 else 'missed'}.")
        if key.startswith("1e7") and "in memory" in key:
            lines.append(f"{key}: the audit (read, code, table, γ, fit) {total:.1f} s — target "
                         f"≤ 15 s {'met' if total <= 15 else 'missed'}.")
    for key, run in runs.items():
        if "Dask" in key:
            peak = max(run["peak_rss"].values()) / 2**30
            lines.append(f"{key}: largest process {peak:.2f} GiB — target ≤ 4 GB "
                         f"{'met' if peak * 2**30 <= 4e9 else 'missed'}.")
    mem = {k: v for k, v in runs.items() if "in memory" in k}
    if mem:
        key, run = next(iter(mem.items()))
        lines.append(f"{key}: {max(run['peak_rss'].values()) / 2**30:.2f} GiB in one "
                     "process (pandas frame, then the coded Ratings); the in-memory path grows "
                     "with the data, the Dask workers' with their partitions.")
    lines.append("")
    lines.append("What moves: `read_ratings` reads the files once and cuts the rows by a hash "
                 "of the item id where they are read; each piece is summed by item there "
                 "(category counts, and which annotators rated the item) and the sums are "
                 "added up a tree of fan-in 8 per output partition, so the count-table "
                 "statistics move no rating. With every item's ratings scattered over the "
                 "files, as here, each piece holds about one rating per item, so the count "
                 "tree handles about as many rows as the ratings: most of the read step's "
                 "time at 1e8. The ratings themselves move once, at `partition_by_item` (the "
                 "first statistic that needs who rated what: Conger, Light, γ with each "
                 "annotator's own label shares, the EM), and every later statistic and EM "
                 "iteration reuses the persisted item chunks.")
    lines.append("")
    lines.append("The results equal the in-memory ones (the tests check every statistic to "
                 "1e-12); Fleiss' κ above differs from the in-memory value in the 14th digit "
                 "(order of the floating-point sums).")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ratings", action="append", default=None,
                    help="1e7 and/or 1e8 (repeatable; default 1e7)")
    ap.add_argument("--memory", action="store_true", help="also the in-memory path")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the RESULTS.md section from the runs recorded so far")
    args = ap.parse_args()
    store = ROOT / "dask_runs.json"
    runs = json.loads(store.read_text()) if store.exists() else {}
    if args.report_only:
        write_section("dask", report(runs))
        return
    for spec in args.ratings or ["1e7"]:
        n_ratings = int(float(spec))
        path = ROOT / f"long_{spec}"
        t0 = time.perf_counter()
        generate(n_ratings // K, path)
        print(f"data {spec}: {time.perf_counter() - t0:.0f} s", flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs[f"{spec} ratings, Dask"] = run_dask(path, n_ratings)
            print(json.dumps(runs[f"{spec} ratings, Dask"], indent=1), flush=True)
            if args.memory:
                runs[f"{spec} ratings, in memory"] = run_memory(path, n_ratings)
                print(json.dumps(runs[f"{spec} ratings, in memory"], indent=1), flush=True)
        store.write_text(json.dumps(runs, indent=1))
        write_section("dask", report(runs))


if __name__ == "__main__":
    main()
