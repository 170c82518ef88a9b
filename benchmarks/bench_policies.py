"""Which re-annotation defaults generalise: policies, posteriors and check rankings
replayed on every public crowd set with gold at hand, ActiveLab beside them (SPEC §6).

Run: ``python benchmarks/bench_policies.py [--seeds 3] [--sets ...] [--write]
[--data DIR] [--collection PATH] [--gal PATH] [--batch-share 0.05 [NAME=SHARE ...]]
[--cache DIR [--first-seed K]]``. Prints Markdown; ``--write`` puts it into
benchmarks/RESULTS.md (section ``policies``). Research data, read where it lies and
never copied into the repository:

- ``--data DIR`` (default ``$GOLDNOISE_SHARED_DATA/crowd_gold``): one folder per set
  with ``label.csv`` (item, worker, label) and ``truth.csv`` (item, truth): rte, dog,
  web, bluebird, sentiment (as gathered by Li, Rubinstein & Cohn 2019);
- ``--collection PATH`` (default ``$GOLDNOISE_TRUTH_INFER``): the truth-inference
  benchmark collection of Zheng, Li, Li, Shan & Cheng (2017, PVLDB 10(5), "Truth
  inference in crowdsourcing: is the problem solved?"; github.com/zhydhkcws/
  crowd_truth_infer), a checkout or its bare git directory. Of its sets, face
  (s4_Face Sentiment Identification: 584 items, 4 classes) and product (d_jn-product:
  8,315 items, 2 classes, 3 ratings each) are new here; its duck set is bluebird
  (the same 4,212 ratings and 108 gold labels, items and workers matched in the order
  of their ids: ``duck_against_bluebird``, printed with the tables), its dog set the
  dog above, and emotion is a 0–100 score (not categorical);
- ``--gal PATH`` (default ``$GOLDNOISE_GAL``): the data folder of Get-Another-Label
  (Ipeirotis, Provost & Wang 2010; github.com/ipeirotis/Get-Another-Label), a checkout
  or its bare git directory, for two sets, each restricted to its items with a gold
  label (the replays measure accuracy there, and the full sets cost too much to replay
  here): adult (AdultContent2: websites rated G, P, R or X by Mechanical Turk workers;
  333 of its 11,040 items have gold, 3,317 ratings by 269 workers once a worker's
  repeated labels of an item are dropped) and trec (the TREC 2011 Crowdsourcing
  track's task 1 as gathered by J. Vuurens: binary relevance judgments of every team;
  the 395 query–document pairs NIST graded, relevant = graded 1 or 2; 9,126 ratings
  by 657 workers).

A set that is absent is skipped with a note. What is measured, on each set:

1. **Labels saved** (``replays``): every configuration replayed with ``replay`` on
   the same seeds (one start and one order of the hidden ratings per seed, shared by
   all): 3 ratings per item at the start (2 on product, which has 3: the policy
   chooses which items get the third), batches of a share of the items
   (``--batch-share``, per set), Dawid–Skene refitted every round (one start,
   ``calibrate="held-out"``, as the labels part of ``bench_reannotation.py``).
   Configurations: uniform; random; margin and uncertainty reading the two-model mean
   (``posterior="ensemble"``, the default) and the fit's own posterior
   (``posterior="fit"``); expected-error-reduction (the mean); hard; and cleanlab's
   ActiveLab (``get_active_learning_scores``, a benchmark reference; its
   ``pred_probs`` are the items' vote shares smoothed by ½ a vote, as there is no
   classifier; lowest score first). The goal: the refitted model's accuracy with every
   rating − 1 point; per seed, the ratings each configuration had spent when its
   accuracy first reached it; saving = 1 − configuration / uniform on the same seed.
   To keep the compute modest, every replay stops at the first round that reaches the
   goal (``_stop_at``: the same ratings ``ReplayResult.ratings_to_reach`` gives for the
   whole replay), and every configuration but uniform at 1.25 × what uniform needed on
   that seed (a saving below −25% shows as such).
   Beside: the share of the items the start leaves in doubt (P(label right) < 0.9
   under the start's fit).
2. **Expert-check yield** (``checks``): errors among the top 5% of
   ``verification_batch(..., random_share=0)`` against what a random 5% finds in
   expectation, for the default fit (spam, ``calibrate="held-out"``, one start) ranked
   by ``rank="ensemble"`` and by ``rank="fit"``, with every rating and at 3 random
   ratings per item (the same seeds).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: The crowd_gold sets (``--data``) and the collection's new ones (folder in ``datasets/``).
GOLD_SETS = ("rte", "dog", "web", "bluebird", "sentiment")
COLLECTION_SETS = {"face": "s4_Face Sentiment Identification", "product": "d_jn-product"}
#: The sets of Get-Another-Label's data folder (``--gal``), their items with gold only.
GAL_SETS = ("adult", "trec")
SETS = (*GOLD_SETS, *COLLECTION_SETS, *GAL_SETS)

#: name -> (policy given to ``replay``, posterior); ActiveLab is run as "random" with
#: cleanlab's choice standing in for the draw (``_stand_in``). "hard" reads the easy/hard
#: model's posterior and "random" none (their posterior option is not used).
CONFIGS = {
    "uniform": ("uniform", "ensemble"),
    "margin": ("margin", "ensemble"),
    "margin, fit's own": ("margin", "fit"),
    "uncertainty": ("uncertainty", "ensemble"),
    "uncertainty, fit's own": ("uncertainty", "fit"),
    "expected-error-reduction": ("expected-error-reduction", "ensemble"),
    "hard": ("hard", "ensemble"),
    "random": ("random", "fit"),
    "ActiveLab": ("random", "fit"),
}
#: Stop a configuration at this multiple of uniform's ratings to the goal.
OVER = 1.25
DOUBT = 0.9


def refit_model():
    from noise_models import LatentClassModel

    return LatentClassModel("confusion", n_starts=1, rng=0, calibrate="held-out")


def default_refit_model():
    """The default fit of ``next`` (MACE's spam model with item difficulty), one start: what
    the ``default`` part refits every round."""
    from noise_models import LatentClassModel

    return LatentClassModel("spam", "difficulty", n_starts=1, rng=0)


# ---------------------------------------------------------------- data
def _default_data() -> Path:
    root = Path(os.environ.get("GOLDNOISE_SHARED_DATA",
                               Path(__file__).resolve().parents[2] / "shared" / "data"))
    return root / "crowd_gold"


def _default_collection() -> Path | None:
    p = os.environ.get("GOLDNOISE_TRUTH_INFER")
    return Path(p) if p else None


def _default_gal() -> Path | None:
    p = os.environ.get("GOLDNOISE_GAL")
    return Path(p) if p else None


def _read_bytes(root: Path, rel: str) -> bytes | None:
    """``rel`` in a checkout, or in a (bare) git directory's HEAD; None when absent."""
    f = root / rel
    if f.is_file():
        return f.read_bytes()
    if (root / "HEAD").is_file() or (root / ".git").exists():
        git = root if (root / "HEAD").is_file() else root / ".git"
        out = subprocess.run(["git", f"--git-dir={git}", "show", f"HEAD:{rel}"],
                             capture_output=True)
        if out.returncode == 0:
            return out.stdout
    return None


def _read_collection(root: Path, rel: str) -> pd.DataFrame | None:
    """``datasets/<rel>`` of the collection: a checkout, or a (bare) git directory."""
    raw = _read_bytes(root, f"datasets/{rel}")
    return None if raw is None else pd.read_csv(io.BytesIO(raw))


def _read_gal(root: Path, name: str) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """``(ratings (item, worker, label), truth (item, truth))`` of a Get-Another-Label set,
    restricted to the items with a gold label; None when absent."""
    import bz2

    def tsv(rel, names, header=None, **kw):
        raw = _read_bytes(root, rel)
        if raw is None:
            return None
        if rel.endswith(".bz2"):
            raw = bz2.decompress(raw)
        return pd.read_csv(io.BytesIO(raw), sep="\t", header=header, names=names,
                           **kw)

    if name == "adult":
        lab = tsv("data/AdultContent2/labels.txt", ["worker", "item", "label"])
        gold = tsv("data/AdultContent2/gold.txt", ["item", "truth"])
        if lab is None or gold is None:
            return None
    else:  # trec: TREC 2011 Crowdsourcing track, task 1, every team's binary judgments
        d = "data/JeroenVuurens/"
        own = tsv(d + "votes", ["seq", "item", "worker", "label"])
        other = tsv(d + "otherparticipantsvotes", ["item", "worker", "label"])
        gold = tsv(d + "task1_unlabeled_g_truth_cons_public.txt.bz2", None, header=0,
                   usecols=[1, 2, 3])
        if own is None or other is None or gold is None:
            return None
        own["worker"] = "team-" + own["worker"].astype(str)
        other["worker"] = other["worker"].astype(str).str.strip()
        lab = pd.concat([own[["item", "worker", "label"]], other], ignore_index=True)
        gold.columns = ["topic", "doc", "grade"]
        gold = gold[gold["grade"] >= 0]  # -1: not judged by NIST
        gold = pd.DataFrame({"item": gold["topic"].astype(str) + "_" + gold["doc"],
                             "truth": (gold["grade"] >= 1).astype(int)})
    lab = lab[lab["item"].isin(gold["item"])]
    lab = lab.drop_duplicates(["item", "worker"])  # a worker's first label of an item
    return lab, gold[gold["item"].isin(lab["item"])]


def load(name: str, data: Path | None, collection: Path | None, gal: Path | None = None):
    """``(ratings, truth, start_ratings)`` of one set, or None when it is absent."""
    from agreement import Ratings

    if name in GOLD_SETS:
        d = None if data is None else data / name
        if d is None or not (d / "label.csv").is_file():
            return None
        lab = pd.read_csv(d / "label.csv").drop_duplicates()
        truth = pd.read_csv(d / "truth.csv")
        item, worker, label = "item", "worker", "label"
    elif name in GAL_SETS:
        got = None if gal is None else _read_gal(gal, name)
        if got is None:
            return None
        lab, truth = got
        item, worker, label = "item", "worker", "label"
    else:
        if collection is None:
            return None
        lab = _read_collection(collection, f"{COLLECTION_SETS[name]}/answer.csv")
        truth = _read_collection(collection, f"{COLLECTION_SETS[name]}/truth.csv")
        if lab is None or truth is None:
            return None
        lab = lab.drop_duplicates()
        truth = truth.rename(columns={"question": "item"})
        item, worker, label = "question", "worker", "answer"
    r = Ratings.from_long(lab, item=item, rater=worker, label=label)
    truth = truth.set_index("item")["truth"]
    truth = truth[truth.index.isin(r.items)]
    per_item = int(np.median((r.codes >= 0).sum(axis=1)))
    return r, truth, 3 if per_item > 4 else max(2, per_item - 1)


def duck_against_bluebird(data: Path | None, collection: Path | None) -> str | None:
    """Whether the collection's duck set is bluebird, rating by rating: items and workers
    of each matched in the order of their ids, every (item, worker, label) and every gold
    label compared. A sentence, or None when either set is absent."""
    d = _read_collection(collection, "d_Duck Identification/answer.csv") if collection else None
    dt = _read_collection(collection, "d_Duck Identification/truth.csv") if collection else None
    f = None if data is None else data / "bluebird"
    if d is None or dt is None or f is None or not (f / "label.csv").is_file():
        return None
    b = pd.read_csv(f / "label.csv").drop_duplicates()
    bt = pd.read_csv(f / "truth.csv")
    d = d.drop_duplicates()
    wide_d = d.pivot(index="question", columns="worker", values="answer")
    wide_b = b.pivot(index="item", columns="worker", values="label")
    if wide_d.shape != wide_b.shape:
        return (f"The collection's duck set ({len(d):,} ratings, {wide_d.shape[0]} items) is "
                f"not bluebird ({len(b):,} ratings, {wide_b.shape[0]} items).")
    x, y = wide_d.to_numpy(dtype=float), wide_b.to_numpy(dtype=float)
    same = np.isnan(x) == np.isnan(y)
    agree = int((same & ((x == y) | np.isnan(x))).sum() - np.isnan(x).sum())
    truth_d = dt.set_index("question")["truth"].reindex(wide_d.index).to_numpy()
    truth_b = bt.set_index("item")["truth"].reindex(wide_b.index).to_numpy()
    gold = int((truth_d == truth_b).sum())
    verdict = ("the same set" if agree == len(d) == len(b) and gold == len(truth_b)
               and same.all() else "not the same set")
    return (f"The collection's duck set against bluebird, items and workers matched in the "
            f"order of their ids: {agree:,} of {len(d):,} ratings and {gold} of "
            f"{len(truth_b)} gold labels agree ({wide_d.shape[0]} items × "
            f"{wide_d.shape[1]} workers each): {verdict}, counted once (as bluebird).")


# ---------------------------------------------------------------- ActiveLab
def _activelab_scores(current) -> np.ndarray:
    """cleanlab's ActiveLab scores of the items (lower: asked first), from the ratings
    alone: ``pred_probs`` are the vote shares smoothed by ½ a vote per class."""
    from cleanlab.multiannotator import get_active_learning_scores

    codes = current.codes
    has = codes >= 0
    cols = has.any(axis=0)
    labels = pd.DataFrame(np.where(has[:, cols], codes[:, cols], np.nan))
    counts = np.stack([(codes == c).sum(axis=1) for c in range(current.n_categories)], 1) + 0.5
    pred = counts / counts.sum(axis=1, keepdims=True)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        scores, _ = get_active_learning_scores(labels, pred)
    return np.asarray(scores, dtype=np.float64)


def _activelab(current, fit, ok, size, rng):
    score = -_activelab_scores(current)
    order = np.lexsort((rng.random(score.size), -np.where(ok, score, -np.inf)))
    return order[ok[order]][:size]


# ---------------------------------------------------------------- 1. replays
def _stand_in_for(cfg: str):
    """The context a configuration is replayed in: ActiveLab's choice standing in for the
    replay's "random" policy, or none."""
    from bench_reannotation import _stand_in

    return _stand_in(_activelab) if cfg == "ActiveLab" else contextlib.nullcontext()


class _Reached(Exception):
    """Raised by :func:`_stop_at` when a round's fit reaches the goal."""

    def __init__(self, spent: int):
        super().__init__(spent)
        self.spent = spent


@contextlib.contextmanager
def _stop_at(goal: float, pos: np.ndarray, codes: np.ndarray):
    """While active, the replay stops at the first round whose fit reaches ``goal``:
    ``next_batch`` (called after the round's accuracy is recorded, with that round's fit
    and ratings) raises :class:`_Reached` with the ratings shown. The ratings to the goal
    are those ``ReplayResult.ratings_to_reach(goal)`` gives for the full replay (the
    rounds before are the same draws); the rounds after it are not run."""
    from simulation.reannotation import _replay

    inner = _replay.next_batch

    def stop(current, *, fit, **kw):
        post = np.nan_to_num(np.asarray(fit.class_posterior, dtype=np.float64), nan=0.0)
        if _replay.fractional_accuracy(post[pos], codes) >= goal - 1e-12:
            raise _Reached(int((current.codes >= 0).sum()))
        return inner(current, fit=fit, **kw)

    _replay.next_batch = stop
    try:
        yield
    finally:
        _replay.next_batch = inner


def _run(r, truth, cfg, seed, start, batch, budget, model, goal=None) -> float:
    """Ratings ``cfg`` spent when its accuracy first reached ``goal`` (NaN: not within
    ``budget``); stops there."""
    from simulation import replay

    policy, posterior = CONFIGS[cfg]
    pos = r.items.get_indexer(truth.index)
    codes = r.categories.get_indexer(truth.to_numpy())
    ctx = _stand_in_for(cfg)
    try:
        with ctx, _stop_at(goal, pos, codes), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = replay(r, truth=truth, policy=policy, posterior=posterior,
                         start_ratings=start, batch_size=batch, budget=budget, model=model,
                         rng=seed)
    except _Reached as hit:
        return float(hit.spent)
    return res.ratings_to_reach(goal)


def replay_set(r, truth, start: int, seeds: int, configs=tuple(CONFIGS),
               batch_share: float = 0.1, log=print, first_seed: int = 0,
               model=None) -> dict:
    """Per seed, the ratings to the goal of each configuration (NaN: not within
    ``OVER`` × uniform's), the doubt share of the start, and the goal (``model``: the
    model refitted every round, default :func:`refit_model`)."""
    from simulation import replay
    from simulation.reannotation._replay import fractional_accuracy

    model = refit_model() if model is None else model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = model.fit(r)
    pos = r.items.get_indexer(truth.index)
    codes = r.categories.get_indexer(truth.to_numpy())
    post = np.nan_to_num(np.asarray(full.class_posterior, dtype=np.float64))
    full_acc = fractional_accuracy(post[pos], codes)
    goal = full_acc - 0.01
    batch = max(1, round(batch_share * r.n_items))
    need = {c: [] for c in configs}
    doubt, first_acc = [], []
    began = time.perf_counter()
    for seed in range(first_seed, first_seed + seeds):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            zero = replay(r, truth=truth, policy="uniform", start_ratings=start,
                          batch_size=batch, rounds=0, model=model, rng=seed)
        doubt.append(float(np.mean(np.asarray(zero.final_fit.label_posterior) < DOUBT)))
        first_acc.append(zero.accuracy)
        begun = zero.ratings_spent
        uni = _run(r, truth, "uniform", seed, start, batch, None, model, goal)
        for c in configs:
            if c == "uniform":
                need[c].append(uni)
                continue
            cap = max(batch, math.ceil(OVER * uni) - begun)
            need[c].append(_run(r, truth, c, seed, start, batch, cap, model, goal))
        log(f"#   seed {seed}: {time.perf_counter() - t0:.0f} s; "
            + ", ".join(f"{c} {need[c][-1]:.0f}" for c in configs))
    return {"minutes": (time.perf_counter() - began) / 60, "load": os.getloadavg()[0],
            "seeds": seeds, "goal": goal, "full_accuracy": full_acc, "need": need, "doubt": doubt,
            "start_accuracy": first_acc, "start": start, "batch": batch,
            "n_items": r.n_items, "ratings": int((r.codes >= 0).sum())}


def savings(res: dict) -> dict[str, np.ndarray]:
    """1 − configuration / uniform per seed (−inf where not reached within ``OVER``)."""
    uni = np.asarray(res["need"]["uniform"], dtype=float)
    out = {}
    for c, v in res["need"].items():
        v = np.asarray(v, dtype=float)
        out[c] = np.where(np.isnan(v), -np.inf, 1.0 - v / uni)
    return out


def _pct(x: float) -> str:
    return f"< {1 - OVER:.0%}" if x == -np.inf else f"{x:.1%}"


def replay_table(results: dict[str, dict]) -> str:
    out = ["### Labels saved, per set", "",
           "Ratings: median [seed range] of the ratings spent when the accuracy first reached "
           "the goal (Dawid–Skene with every rating − 1 point), the start included; saving: "
           "median [range] over seeds of 1 − configuration / uniform on the same seed "
           f"(\"< {1 - OVER:.0%}\": not reached within {OVER} × uniform's ratings). Doubt: "
           f"share of the items whose label the start's fit gives P(right) < {DOUBT} "
           "(median over seeds).", ""]
    for name, res in results.items():
        sv = savings(res)
        uni = np.asarray(res["need"]["uniform"], dtype=float)
        out += [f"**{name}** ({res['n_items']:,} items, {res['ratings']:,} ratings; "
                + ("seed 0; " if res["seeds"] == 1 else f"seeds 0 – {res['seeds'] - 1}; ")
                + f"{res['start']} per item at the start, batches of {res['batch']:,}"
                + (f" ({res['share']:.0%} of the items)" if "share" in res else "") + "; goal "
                f"{res['goal']:.4f}, every rating {res['full_accuracy']:.4f}; start accuracy "
                f"{np.median(res['start_accuracy']):.4f}; doubt "
                f"{np.median(res['doubt']):.1%}"
                + (f"; {res['minutes']:.0f} min at load {res['load']:.0f}"
                   if "minutes" in res else "") + ")", "",
                "| configuration | ratings to goal | saving vs uniform |", "|---|---|---|"]
        for c in res["need"]:
            v = np.asarray(res["need"][c], dtype=float)
            s = sv[c]
            rat = (f"{np.nanmedian(v):,.0f} [{np.nanmin(v):,.0f} – {np.nanmax(v):,.0f}]"
                   if np.isfinite(v).any() else "—")
            if np.isnan(v).any():
                rat += f" ({int(np.isnan(v).sum())} of {v.size} not reached)"
            cell = "—" if c == "uniform" else (f"{_pct(np.median(s))} [{_pct(s.min())} – "
                                              f"{_pct(s.max())}]")
            out.append(f"| {c} | {rat} | {cell} |")
        del uni
        out.append("")
    return "\n".join(out)


def design_of(r) -> tuple[float, float]:
    """How dense the design is: the mean share of the items an annotator rates, and the
    median number of ratings per annotator."""
    per_rater = (r.codes >= 0).sum(axis=0)
    return float(per_rater.mean() / r.n_items), float(np.median(per_rater))


def summary_table(results: dict[str, dict], designs: dict | None = None) -> str:
    """One row per set: the median saving of each configuration and the doubt share."""
    designs = designs or {}
    configs = [c for c in CONFIGS if c != "uniform"
               and any(c in res["need"] for res in results.values())]
    out = ["### Median saving against uniform, all sets", "",
           "| set | items an annotator rates | ratings per annotator | seeds | batch share | "
           "doubt at the start | " + " | ".join(configs) + " | best |",
           "|---|---|---|---|---|---|" + "---|" * len(configs) + "---|"]
    wins = {c: 0 for c in configs}
    order = sorted(results, key=lambda n: -designs.get(n, (0.0, 0.0))[0])
    for name in order:
        res = results[name]
        share, per = designs.get(name, (math.nan, math.nan))
        sv = savings(res)
        med = {c: float(np.median(sv[c])) for c in configs if c in sv}
        top = max(med.values())
        best = [c for c in med if med[c] >= top - 0.01]
        for c in best:
            wins[c] += 1
        def cell(c, med=med, sv=sv, best=best):
            if c not in med:
                return "not run"
            text = _pct(med[c])
            if med[c] == -np.inf and np.isfinite(sv[c]).any():  # a mixed median: the seeds
                text = " / ".join(_pct(x) for x in sv[c])
            return f"**{text}**" if c in best else text

        bshare = f"{res['share']:.0%}" if "share" in res else "—"
        out.append(f"| {name} | {share:.1%} | {per:.0f} | {res['seeds']} | {bshare} | "
                   f"{np.median(res['doubt']):.1%} | "
                   + " | ".join(cell(c) for c in configs) + f" | {'; '.join(best)} |")
    out += ["", "Items an annotator rates: the mean share of the items each annotator rated; "
            "ratings per annotator: the median; batch share: the items rated per round, as a "
            "share of the set's items; doubt: as below. \"margin\", \"uncertainty\" and "
            "expected-error-reduction read the default posterior, the mean of the spam "
            "model's and Dawid–Skene's; \"fit's own\" the refitted Dawid–Skene's; \"hard\" "
            "the easy/hard model's posterior that the item is hard; \"random\" draws the "
            "items at random. A mixed median (some seeds not reaching the goal within "
            f"{OVER} × uniform's ratings) shows every seed's saving. Bold: the best median "
            "saving of the row, or within one point of it. Rows (a set run at two batch "
            "shares has two) where each configuration is best or within a point: "
            + "; ".join(f"{c} {k} of {sum(c in res['need'] for res in results.values())}"
                        for c, k in wins.items()) + "."]
    return "\n".join(out)


# ---------------------------------------------------------------- 2. expert checks
def _subsample(r, per_item: int, seed: int):
    from bench_reannotation import _subsample as sub

    return sub(r, per_item, seed)


def _yield(fit, pos, codes, rank: str) -> tuple[int, float]:
    from simulation import verification_batch

    n = fit.ratings.n_items
    wrong = np.zeros(n, dtype=bool)
    known = np.zeros(n, dtype=bool)
    wrong[pos] = np.asarray(fit.label_codes)[pos] != codes
    known[pos] = True
    k = int(np.ceil(0.05 * len(pos)))
    design = verification_batch(fit, size=n, random_share=0.0, rank=rank, rng=0)
    order = fit.ratings.items.get_indexer(design["item"])
    top = order[known[order]][:k]
    return int(wrong[top].sum()), k * wrong[known].mean()


def checks_set(r, truth, seeds: int) -> dict:
    from noise_models import LatentClassModel

    model = LatentClassModel("spam", n_starts=1, rng=0, calibrate="held-out")
    pos = r.items.get_indexer(truth.index)
    codes = r.categories.get_indexer(truth.to_numpy())
    per_item = int(np.median((r.codes >= 0).sum(axis=1)))
    states = {"all": [r]}
    if per_item > 3:
        states["3 per item"] = [_subsample(r, 3, s) for s in range(seeds)]
    out = {}
    for state, rs in states.items():
        for x in rs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = model.fit(x)
                for rank in ("ensemble", "fit"):
                    found, exp = _yield(fit, pos, codes, rank)
                    out.setdefault((state, rank), []).append(
                        (found, exp, found / exp if exp > 0 else math.nan))
    return out


def checks_table(results: dict[str, dict]) -> str:
    out = ["### Expert-check yield: errors in the ranked top 5% against a random 5%", "",
           "The default fit (MACE's spam model, `calibrate=\"held-out\"`, one start) and "
           "`verification_batch(fit, random_share=0)`: errors among the top 5% of the items "
           "with a true label, against 5% × the error rate (what a random 5% finds in "
           "expectation). With every rating (one fit) and at 3 random ratings per item (the "
           "seeds of the set: errors found, median, and the ratio, median [range]; product "
           "has 3 per item).", "",
           "| set | all ratings, rank=\"ensemble\" | all ratings, rank=\"fit\" | 3 per item, "
           "\"ensemble\" | 3 per item, \"fit\" |", "|---|---|---|---|---|"]
    tally = {"ensemble": 0, "fit": 0, "tie": 0}
    for name, res in results.items():
        cells = []
        for state in ("all", "3 per item"):
            for rank in ("ensemble", "fit"):
                v = res.get((state, rank))
                if v is None:
                    cells.append("—")
                elif len(v) == 1:
                    f, e, x = v[0]
                    cells.append(f"{f} / {e:.1f} ({x:.1f}×)")
                else:
                    x = np.array([t[2] for t in v])
                    f = np.array([t[0] for t in v])
                    cells.append(f"{np.median(f):g} found, {np.median(x):.1f}× "
                                 f"[{x.min():.1f} – {x.max():.1f}] ({len(v)} seeds)")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
        for state in ("all", "3 per item"):
            if (state, "ensemble") in res:
                a = np.median([t[0] for t in res[(state, "ensemble")]])
                b = np.median([t[0] for t in res[(state, "fit")]])
                tally["ensemble" if a > b else "fit" if b > a else "tie"] += 1
    out += ["", f"Errors found (median over seeds), set by set and state by state: the "
            f"ensemble ranking finds more in {tally['ensemble']}, the fit's own in "
            f"{tally['fit']}, as many in {tally['tie']}."]
    return "\n".join(out)


def default_table(results: dict[str, dict]) -> str:
    """The ``default`` part: labels saved when the default fit is refitted every round."""
    out = ["### Labels saved with the default fit refitted every round (`--part default`)", "",
           "The replays above refit Dawid–Skene every round. Here every round refits the "
           "default fit of `next` (`LatentClassModel(\"spam\", \"difficulty\", n_starts=1, "
           "rng=0)`: MACE's labels, item difficulty), the goal is its accuracy with every "
           "rating − 1 point (posterior-weighted, as `replay` records it: with this model's "
           "posteriors, which spread over the classes on hard items, it is below the "
           "argmax accuracy, e.g. bluebird 0.787 against 0.898); margin (`next`'s default "
           "policy) and uncertainty read the two-model mean (`next`'s default posterior: "
           "MACE's and Dawid–Skene's, both fitted beside the default fit, which is a member "
           "of neither) or, \"fit's own\", the default fit's posterior. Ratings: median [seed range] to "
           "the goal, the start included; saving: median [range] over seeds of 1 − "
           f"configuration / uniform (\"< {1 - OVER:.0%}\": not reached within {OVER} × "
           "uniform's ratings).", "",
           "| set | seeds | batch share | goal (every rating) | configuration | ratings to goal "
           "| saving vs uniform |", "|---|---|---|---|---|---|---|"]
    best = []
    for name, res in results.items():
        sv = savings(res)
        for c in res["need"]:
            v = np.asarray(res["need"][c], dtype=float)
            rat = (f"{np.nanmedian(v):,.0f} [{np.nanmin(v):,.0f} – {np.nanmax(v):,.0f}]"
                   if np.isfinite(v).any() else "not reached")
            sav = "—" if c == "uniform" else (
                f"{_pct(float(np.median(sv[c])))} [{_pct(float(sv[c].min()))} – "
                f"{_pct(float(sv[c].max()))}]")
            out.append(f"| {name} | {res['seeds']} | {res['share']:.0%} | {res['goal']:.4f} "
                       f"({res['full_accuracy']:.4f}) | {c} | {rat} | {sav} |")
        med = {c: float(np.median(sv[c])) for c in res["need"] if c != "uniform"}
        best.append(f"{name}: " + ", ".join(
            f"{c} {_pct(x)}" for c, x in sorted(med.items(), key=lambda t: -t[1])))
    out += ["", "Median saving per set (best first): " + "; ".join(best) + "."]
    return "\n".join(out)


def _merge(base: dict, more: dict) -> dict:
    """One set's replays with the seeds of a later run (same configurations and batches)."""
    if (set(base["need"]) != set(more["need"]) or base["batch"] != more["batch"]
            or base["start"] != more["start"]):
        raise ValueError("the later seeds were run with other configurations or batches")
    out = dict(base)
    out["need"] = {c: [*base["need"][c], *more["need"][c]] for c in base["need"]}
    for k in ("doubt", "start_accuracy"):
        out[k] = [*base[k], *more[k]]
    out["seeds"] = base["seeds"] + more["seeds"]
    out["minutes"] = base.get("minutes", 0.0) + more.get("minutes", 0.0)
    return out


def _shares(values: list[str]) -> dict:
    """``--batch-share`` values: ``{None: [every set's share], name: [a set's own, ...]}``
    (a set named twice gets a table per share)."""
    out: dict = {}
    for v in values:
        name, _, share = v.rpartition("=")
        if not 0 < float(share) <= 1:
            raise SystemExit(f"--batch-share {v}: a share must lie in (0, 1]")
        out.setdefault(name or None, []).append(float(share))
    out.setdefault(None, [0.1])
    return out


def _cached(folder: Path | None, key: str, compute, log):
    import pickle

    f = None if folder is None else folder / f"{key}.pkl"
    if f is not None and f.is_file():
        log(f"# {key}: from {f}")
        return pickle.loads(f.read_bytes())
    log(f"# {key}")
    out = compute()
    if f is not None:
        folder.mkdir(parents=True, exist_ok=True)
        f.write_bytes(pickle.dumps(out))
    return out


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=0,
                    help="run seeds FIRST .. FIRST+SEEDS-1 (with --cache: kept apart and "
                         "merged into the set's table, to add seeds to a finished run)")
    ap.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    ap.add_argument("--configs", nargs="+", choices=list(CONFIGS), default=list(CONFIGS))
    ap.add_argument("--part", choices=("replays", "checks", "default"), action="append",
                    help="default: the replays with the default fit refitted every round "
                         "(its own section; not in the default run)")
    ap.add_argument("--data", type=Path, default=_default_data())
    ap.add_argument("--collection", type=Path, default=_default_collection())
    ap.add_argument("--gal", type=Path, default=_default_gal(),
                    help="Get-Another-Label (github.com/ipeirotis/Get-Another-Label): a "
                         "checkout or its bare git directory (adult, trec)")
    ap.add_argument("--batch-share", nargs="+", default=["0.1"], metavar="SHARE",
                    help="batches as a share of the items: one share for every set, and "
                         "NAME=SHARE for a set of its own (e.g. 0.05 rte=0.2); the share "
                         "is part of the cache key")
    ap.add_argument("--cache", type=Path, default=None,
                    help="a folder keeping each set's results (a pickle per set and part): "
                         "sets found there are not rerun, so runs of a few sets at a time "
                         "add up to one table")
    ap.add_argument("--cached-only", action="store_true",
                    help="render what --cache holds; leave the other sets out")
    ap.add_argument("--note", default="", help="a paragraph put under the heading (e.g. "
                    "how the cached sets were run)")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args(argv)
    parts = a.part or ["replays", "checks"]
    shares = _shares(a.batch_share)
    configs = ["uniform", *[c for c in a.configs if c != "uniform"]]

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    loaded, missing = {}, []
    for name in a.sets:
        got = load(name, a.data if a.data.is_dir() else None, a.collection, a.gal)
        if got is None:
            missing.append(name)
        else:
            loaded[name] = got
    if not loaded:
        log(f"(no crowd set found: --data {a.data}, --collection {a.collection}; skipped)")
        return ""
    if parts == ["default"]:
        return _default_main(a, loaded, shares, configs, log)
    reps, checks = {}, {}
    for name, (r, truth, start) in loaded.items():
        if "checks" in parts:
            checks[name] = _cached(a.cache, f"checks-{name}",
                                   lambda r=r, truth=truth: checks_set(r, truth, a.seeds), log)
        if "replays" not in parts:
            continue
        own = shares.get(name, shares[None])
        for share in own:
            label = name if len(own) == 1 else f"{name}, {share:.0%} batches"
            base = f"replays-{name}-b{share:g}"
            key = base + (f"-from{a.first_seed}" if a.first_seed else "")
            if a.cached_only and (a.cache is None or not (a.cache / f"{key}.pkl").is_file()):
                log(f"# {key}: not in the cache, left out (--cached-only)")
                continue
            reps[label] = _cached(a.cache, key, lambda r=r, truth=truth, start=start,
                                  share=share: replay_set(r, truth, start, a.seeds,
                                                          tuple(configs), share, log,
                                                          a.first_seed), log)
            reps[label]["share"] = share
            reps[label]["set"] = name
            if a.cache is not None and not a.first_seed:  # later seeds run apart, merged
                for extra in sorted(a.cache.glob(f"{base}-from*.pkl")):
                    reps[label] = _merge(reps[label], _cached(a.cache, extra.stem, None, log))
    text = ["## Re-annotation defaults across crowd sets (`benchmarks/bench_policies.py`)", "",
            f"Sets: {', '.join(loaded)}" + (f" (absent, skipped: {', '.join(missing)})"
                                             if missing else "")
            + ". The same seeds for every configuration of a set; each set's seeds, "
            "batches, time and the machine's load are given with its table (a busy "
            f"{os.cpu_count()}-core machine: times are wall times under load).", ""]
    if a.note:
        text += [a.note, ""]
    duck = duck_against_bluebird(a.data if a.data.is_dir() else None, a.collection)
    if duck:
        text += [duck, ""]
    if reps:
        designs = {n: design_of(loaded[reps[n]["set"]][0]) for n in reps}
        text += [summary_table(reps, designs), "", replay_table(reps)]
    if checks:
        text += [checks_table(checks)]
    body = "\n".join(text)
    print(body, flush=True)
    if a.write:
        from _results import write_section

        write_section("policies", body)
    return body


def _default_main(a, loaded, shares, configs, log) -> str:
    """``--part default``: the replays with the default fit, into section policies-default."""
    reps = {}
    for name, (r, truth, start) in loaded.items():
        for share in shares.get(name, shares[None]):
            key = f"default-{name}-b{share:g}"
            reps[name] = _cached(a.cache, key, lambda r=r, truth=truth, start=start,
                                 share=share: replay_set(r, truth, start, a.seeds,
                                                         tuple(configs), share, log,
                                                         a.first_seed,
                                                         model=default_refit_model()), log)
            reps[name]["share"] = share
    body = default_table(reps)
    if a.note:
        body = body.replace("\n\n", f"\n\n{a.note}\n\n", 1)
    print(body, flush=True)
    if a.write:
        from _results import write_section

        write_section("policies-default", body)
    return body


if __name__ == "__main__":
    main()
