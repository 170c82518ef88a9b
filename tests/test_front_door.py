"""What a new user ran into at the front door: the command line and the Python API agree.

Each test here failed on the code before its fix (the defect is named in the docstring).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import special

from noise_models import chance_margin, noise_bound


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _one_line(err: str, *needles: str) -> None:
    # the notice that kernels are compiling (an empty cache) is not part of the message
    lines = [x for x in err.strip().splitlines()
             if x.strip() and not x.startswith("goldnoise: compiling kernels")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, (n, err)


# --------------------------------------------------------------- bound beyond 2**63
def test_bound_beyond_int64_is_exact_integers(capsys):
    """`goldnoise bound` with D beyond 2**63 failed: "Cannot cast ufunc 'subtract' input 0
    from dtype('O')"; and t0 came out of floats (…009472, a multiple of 2**11)."""
    n, d = 10 ** 20, 10 ** 19
    res = noise_bound(n, d, 0.5)
    assert isinstance(res.t0, int) and res.hidden_hard == res.t0 - d
    # H - d ~ NB(d + 1, 1/2): mean d + 1, sd sqrt(2(d + 1)) = 4.472e9; the 95% point is
    # mean + 1.6449 sd + (z^2 - 1)(1 + p)/(6 (1 - p)) ≈ 1e19 + 7,356,009,0xx.
    sd = math.sqrt(2.0 * (d + 1))
    assert abs((res.hidden_hard - d - 1) - special.ndtri(0.95) * sd) < 5
    assert res.gamma == res.hidden_hard / (n - d)
    status, out, err = _run(capsys, "bound", n, d, "0.5", "--json")
    assert status == 0, err
    rep = json.loads(out)
    nb = rep["sections"]["noise_bound"]["values"]
    assert nb["hidden_hard"] == res.hidden_hard and nb["t0"] == res.t0
    # the margin's R is the exact hidden_hard, not gamma * agreed through floats
    assert rep["sections"]["margin"]["values"]["hard_items"] == res.hidden_hard
    status, out, err = _run(capsys, "bound", 2 ** 64 + 1, 2 ** 63 + 1, "0.3")
    assert status == 0 and "gamma" in out, err
    # a tiny gamma is printed in significant digits, not as 0.0000: 125 / (1e20 - 100)
    status, out, err = _run(capsys, "bound", 10 ** 20, 100, "0.5")
    assert status == 0 and "gamma = 1.25e-18" in out, err


@pytest.mark.parametrize("n,d", [(10 ** 9, 10 ** 8), (10 ** 9, 17), (10 ** 12, 10 ** 11)])
def test_bound_at_a_billion_items(capsys, n, d):
    status, out, err = _run(capsys, "bound", n, d, "0.5", "--json")
    assert status == 0, err
    res = noise_bound(n, d, 0.5)
    assert json.loads(out)["sections"]["noise_bound"]["values"]["hidden_hard"] == \
        res.hidden_hard


def test_chance_margin_of_a_tiny_bound_applies_the_exact_rule(capsys):
    """chance_margin(noise_bound(10, 9, 0.5)) gave 316% of the agreed set without a word;
    the command line switched to the exact margin: both now apply the same rule."""
    m = chance_margin(noise_bound(10, 9, 0.5))
    assert m.method == "exact" and m.margin <= m.R and m.notes
    status, out, err = _run(capsys, "bound", 10, 9, "0.5", "--json")
    assert status == 0, err
    cli = json.loads(out)["sections"]["margin"]
    assert cli["values"]["margin"] == m.margin and cli["values"]["method"] == m.method


# --------------------------------------------------------------- one seed for audit
def test_audit_function_and_command_share_one_seed(capsys, tmp_path):
    """goldnoise.audit(ratings) defaulted to rng=None, the command to --seed 0: different
    latent-class numbers on the same data (Snow et al.'s RTE: -3689.46 vs -3689.22)."""
    import inspect

    import goldnoise
    from simulation import simulate_annotations

    assert inspect.signature(goldnoise.audit).parameters["rng"].default == 0
    sim = simulate_annotations(120, 5, model="M2", error_rates=0.3, rng=4)
    wide = pd.DataFrame(np.asarray(sim.ratings.to_wide()), columns=[f"a{k}" for k in range(5)])
    wide.insert(0, "item", [f"i{k}" for k in range(120)])
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    frame = wide.set_index("item")
    status, out, err = _run(capsys, "audit", path, "--item", "item", "--json")
    assert status == 0, err
    cli = json.loads(out)["sections"]["latent_class"]["values"]
    api = goldnoise.audit(frame).report.section("latent_class").values
    assert api["log_likelihood"] == cli["log_likelihood"]
    assert api["seed"] == cli["seed"] == 0
    status, out, err = _run(capsys, "audit", path, "--item", "item")
    assert "seed 0" in out


# --------------------------------------------------------------- next_batch size > n
def test_next_batch_warns_when_size_exceeds_the_items(capsys, tmp_path):
    """next_batch(ratings, size=N) with N above the items returned them all without a word
    (the command line added a note; the Python call did not)."""
    from agreement import GoldnoiseWarning
    from simulation import next_batch

    x = np.array([[0, 0, 0], [0, 1, 1], [1, 1, 1], [1, 0, 0]] * 3)
    with pytest.warns(GoldnoiseWarning, match=r"`size` = 50 asks for more items than there "
                                              r"are \(12\)") as rec:
        batch = next_batch(x, size=50, policy="uniform", rng=0)
    assert len(batch) == 12
    assert rec[0].filename == __file__  # stacklevel points at the caller
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(next_batch(x, size=12, policy="uniform", rng=0)) == 12
    path = tmp_path / "r.csv"
    pd.DataFrame(x, columns=["a", "b", "c"]).to_csv(path, index_label="item")
    status, out, err = _run(capsys, "next", path, "--item", "item", "--size", 50,
                            "--policy", "uniform")
    assert status == 0, err
    assert out.count("asked for more items than there are") == 1
    assert "asks for more items" not in out


# --------------------------------------------------------------- the study planner's options
def test_study_refuses_designs_it_cannot_simulate_in_reasonable_time(capsys):
    """`goldnoise study fleiss_kappa --raters 100000` (or --categories 100000) ran past two
    minutes without a word; now a timed pilot estimates the simulation first and a design
    beyond `max_seconds` (--max-minutes, default 30) or beyond memory is refused in one
    line that says how long it would take, and the closed form still answers."""
    from simulation import study_size_for_minimum, study_size_for_width

    # A budget of one minute: the estimate is about 25 min on a quiet 2-core machine (hours
    # under load), so the refusal does not depend on the machine's speed.
    status, _out, err = _run(capsys, "study", "fleiss_kappa", "--expected", "0.6",
                            "--half-width", "0.1", "--raters", 100000, "--max-minutes", 1)
    assert status == 2
    _one_line(err, "would take about")
    assert "timed pilot" in err and "--max-minutes" in err and "`" not in err
    status, _out, err = _run(capsys, "study", "fleiss_kappa", "--expected", "0.6",
                            "--half-width", "0.1", "--categories", 100000)
    assert status == 2
    _one_line(err, "100,000 categories")
    with pytest.raises(ValueError, match="categories x categories"):
        study_size_for_width("fleiss_kappa", expected=0.6, target=0.1, n_categories=100000)
    # a small design refused by a tiny budget, from the same estimate
    with pytest.raises(ValueError, match=r"would take about .*timed pilot.*`max_seconds`"):
        study_size_for_width("fleiss_kappa", expected=0.6, target=0.1, n_raters=3, max_seconds=1e-3)
    # Bloch & Kraemer's closed form has no such limit
    plan = study_size_for_minimum(0.8, n_raters=100000)
    assert plan.n_raters == 100000 and plan.n_items >= 2 and plan.method == "closed-form"


def test_study_says_how_long_before_starting_and_shows_progress(capsys):
    """Asked for (progress=True; on a terminal by default), the plan says how long the
    simulation will take before starting, then draws a bar on stderr. Results do not
    change with it."""
    from simulation import simulate_study, study_size_for_width

    kw = dict(expected=0.6, target=0.15, n_raters=3, n_sims=40, n_bootstrap_sims=0, rng=2)
    quiet = study_size_for_width("fleiss_kappa", **kw)
    assert capsys.readouterr().err == ""  # no terminal under pytest: no bar, no estimate
    shown = study_size_for_width("fleiss_kappa", progress=True, **kw)
    err = capsys.readouterr().err
    first = err.lstrip().splitlines()[0]
    assert first.startswith("study_size_for_width (fleiss_kappa): about") and "estimated" in first
    assert "simulating fleiss_kappa studies" in err  # the tqdm bar
    assert shown.n_items == quiet.n_items and shown.table.equals(quiet.table)
    assert shown.notes == quiet.notes  # timings stay out of the plan: reports reproduce
    # the closed form simulates only its check: no pilot, no estimate
    closed = study_size_for_width("cohen_kappa", expected=0.6, target=0.1, n_sims=20,
                                  n_bootstrap_sims=0, rng=0)
    assert closed.method == "closed-form"
    assert not any("estimated" in n for n in closed.notes)
    simulate_study("fleiss_kappa", n_items=30, expected=0.6, n_raters=3, bootstrap=False,
                   n_sims=20, rng=0, progress=True)
    assert "simulate_study (fleiss_kappa): about 20 simulated studies" in capsys.readouterr().err
    with pytest.raises(ValueError, match="would take about"):
        simulate_study("fleiss_kappa", n_items=30, expected=0.6, n_sims=20, rng=0,
                       max_seconds=1e-4)


def test_study_explicit_options_win_or_conflict(capsys, tmp_path):
    """`--categories 3 --shares 0.5 0.5` planned for 2 categories without a word, and
    `--expected 0.3` with a pilot planned for the pilot's value although the help says
    --expected wins."""
    from simulation import study_size_for_width

    status, out, err = _run(capsys, "study", "fleiss_kappa", "--expected", "0.6",
                            "--half-width", "0.1", "--categories", 3, "--shares", "0.5", "0.5")
    assert status == 2
    _one_line(err, "--categories = 3", "2 shares")
    with pytest.raises(ValueError, match="`n_categories` = 3"):
        study_size_for_width("fleiss_kappa", expected=0.6, target=0.1, n_categories=3,
                             category_shares=[0.5, 0.5])
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 60)
    pilot = np.where(rng.random((60, 3)) < 0.8, truth[:, None], 1 - truth[:, None])
    kw = dict(target=0.15, n_sims=50, n_bootstrap_sims=0, rng=0, method="simulation")
    plan = study_size_for_width("fleiss_kappa", expected=0.3, pilot=pilot, **kw)
    assert plan.expected == 0.3
    assert any("0.3) is used, not the pilot's" in n for n in plan.notes)
    plan = study_size_for_width("fleiss_kappa", expected=0.3, pilot=pilot, n_raters=4, **kw)
    assert plan.n_raters == 4 and any("not the pilot's 3" in n for n in plan.notes)
    assert study_size_for_width("fleiss_kappa", pilot=pilot, **kw).n_raters == 3
    plan = study_size_for_width("fleiss_kappa", pilot=pilot, missing=0.2, **kw)
    assert any("20.0% missing ratings as given" in n for n in plan.notes)
    assert plan.n_ratings == pytest.approx(plan.n_items * 3 * 0.8)
    path = tmp_path / "pilot.csv"
    pd.DataFrame(pilot, columns=["a", "b", "c"]).to_csv(path, index_label="item")
    status, out, err = _run(capsys, "study", "fleiss_kappa", path, "--item", "item",
                            "--expected", "0.3", "--half-width", "0.15", "--sims", 50,
                            "--bootstrap-sims", 0, "--json")
    assert status == 0, err
    assert json.loads(out)["sections"]["plan"]["values"]["expected"] == 0.3


# --------------------------------------------------------------- inputs never overwritten
def test_output_through_a_hard_link_or_a_side_file_is_refused(capsys, tmp_path):
    """`--out r_hardlink.csv` of `r.csv` overwrote the input (resolved paths differ), and
    `fit lab.annotators.csv --out lab.csv` wrote its annotator table over its own input."""
    import os

    x = np.random.default_rng(0).integers(0, 2, (30, 3))
    src = tmp_path / "r.csv"
    pd.DataFrame(x, columns=["a", "b", "c"]).to_csv(src, index_label="item")
    before = src.read_bytes()
    link = tmp_path / "r_hardlink.csv"
    os.link(src, link)
    status, _out, err = _run(capsys, "audit", src, "--item", "item", "--out", link)
    assert status == 2
    _one_line(err, "is one of the input files")
    assert src.read_bytes() == before
    side = tmp_path / "lab.annotators.csv"
    side.write_bytes(before)
    status, _out, err = _run(capsys, "fit", side, "--item", "item", "--out",
                            tmp_path / "lab.csv")
    assert status == 2
    _one_line(err, "lab.annotators.csv", "one of the input files")
    assert side.read_bytes() == before and not (tmp_path / "lab.csv").exists()


# --------------------------------------------------------------- metadata is not an annotator
def test_a_column_sharing_no_value_with_the_others_is_not_an_annotator(capsys, tmp_path):
    """Following the tool's own hints, a group column became an annotator (categories
    FEMALE, MALE, a, b, c). A column whose values no other column uses is named, with
    --drop."""
    frame = pd.DataFrame({"site": ["north", "south"] * 5,
                          "r1": list("aabbaabbab"), "r2": list("abbbaabbab"),
                          "r3": list("aabbabbbab")})
    path = tmp_path / "grouped.csv"
    frame.to_csv(path, index_label="item")
    status, _out, err = _run(capsys, "audit", path, "--item", "item")
    assert status == 1
    _one_line(err, "column 'site' shares no value", "--drop site", str(path))
    status, _out, err = _run(capsys, "audit", path, "--item", "item", "--drop", "site",
                            "--json")
    assert status == 0, err
    # numeric codes that overlap are annotators as usual
    codes = pd.DataFrame({"r1": [1, 2, 3, 1, 2], "r2": [1, 2, 3, 3, 2], "r3": [1.0, 2, 3, 1, 2]})
    codes.to_csv(tmp_path / "codes.csv", index_label="item")
    status, _out, err = _run(capsys, "audit", tmp_path / "codes.csv", "--item", "item")
    assert status == 0, err


def test_shared_files_after_the_hints_give_the_published_coefficients(capsys, shared_data):
    """gwet_cac_raw_gender.csv and vcd_MSPatients_long.csv: the hints lead to --drop, and the
    audit then gives the coefficients of the annotators alone. References: scikit-learn's
    cohen_kappa_score on the Freq-expanded vcd table (0.256958, the SAS/FCE value printed to
    four decimals: 0.2570); statsmodels' fleiss_kappa on Gwet's raters A-D (0.128889)."""
    gender = shared_data / "gwet_cac_raw_gender.csv"
    status, out, err = _run(capsys, "audit", gender, "--item", "Unnamed: 0")
    assert status == 1
    _one_line(err, "column 'Group'", "--drop Group")
    ms = shared_data / "vcd_MSPatients_long.csv"
    status, out, err = _run(capsys, "audit", ms, "--weight", "Freq")
    assert status == 1
    _one_line(err, "column 'Patients'", "--drop Patients")
    status, out, err = _run(capsys, "audit", ms, "--weight", "Freq", "--drop", "Patients")
    assert status == 0, err
    assert re.search(r"Cohen's kappa\s+0\.2570\b", out)
    status, out, err = _run(capsys, "audit", gender, "--item", "Unnamed: 0", "--drop", "Group")
    assert status == 0, err
    assert re.search(r"Fleiss' kappa\s+0\.1289\b", out)


# --------------------------------------------------------------- simulate noise: the files
def test_simulate_noise_checks_the_embeddings_file_and_applies_the_id_column(capsys,
                                                                            tmp_path):
    """All-zero embeddings from a file changed labels by undefined similarities (the array
    was refused, the file was not); --id-column was not applied to the embeddings file, and a
    wrong name fell back to the first column without a word."""
    from simulation import perturb_similar

    labels = pd.DataFrame({"doc": [f"d{k}" for k in range(6)], "label": list("aaabbb")})
    labels.to_csv(tmp_path / "labels.csv", index=False)
    zero = pd.DataFrame({"doc": labels["doc"], "x": 0.0, "y": 0.0})
    zero.to_csv(tmp_path / "zero.csv", index=False)
    status, out, err = _run(capsys, "simulate", "noise", tmp_path / "labels.csv",
                            tmp_path / "zero.csv", "--rate", "0.5", "--id-column", "doc")
    assert status == 1
    _one_line(err, "all-zero rows")
    # the Python function with the path refuses them too
    zero.rename(columns={"doc": "id"}).to_csv(tmp_path / "zero_id.csv", index=False)
    with pytest.raises(ValueError, match="all-zero rows"):
        perturb_similar(pd.Series(list("aaabbb"), index=labels["doc"].rename("id")),
                        tmp_path / "zero_id.csv", rate=0.5)
    # vectors keyed by --id-column, in another order than the labels
    rng = np.random.default_rng(0)
    emb = pd.DataFrame(rng.normal(size=(6, 3)), columns=["x", "y", "z"])
    emb.insert(0, "doc", labels["doc"])
    shuffled = emb.sample(frac=1.0, random_state=1)
    shuffled.to_csv(tmp_path / "emb.csv", index=False)
    status, out, err = _run(capsys, "simulate", "noise", tmp_path / "labels.csv",
                            tmp_path / "emb.csv", "--rate", "0.5", "--id-column", "doc",
                            "--json")
    assert status == 0, err
    api = perturb_similar(labels.set_index("doc")["label"], emb.set_index("doc"), rate=0.5,
                          rng=0)
    rows = json.loads(out)["sections"]["noise"]["tables"]["items"]["rows"]
    assert [r["label"] for r in rows] == api.labels.tolist()
    # a wrong --id-column is an error, not the first column
    status, out, err = _run(capsys, "simulate", "noise", tmp_path / "labels.csv",
                            tmp_path / "emb.csv", "--rate", "0.5", "--id-column", "nope")
    assert status == 1
    _one_line(err, "no id column 'nope'")


# --------------------------------------------------------------- consistency: a missing document
def test_consistency_refuses_predictions_lacking_a_document(capsys, tmp_path):
    """A predictions file lacking a probe document was scored (its gold spans counted as
    misses, no note), while a score file lacking tokens was refused."""
    doc = "-DOCSTART- O\n\n{} B-PER\nlives O\n\n"
    (tmp_path / "gold.conll").write_text("".join(doc.format(n) for n in ("Jo", "Al", "Bo")))
    (tmp_path / "a.conll").write_text("".join(doc.format(n) for n in ("Jo", "Al", "Bo")))
    (tmp_path / "b.conll").write_text("".join(doc.format(n) for n in ("Jo", "Al")))
    status, _out, err = _run(capsys, "consistency", tmp_path / "a.conll", tmp_path / "b.conll",
                            "--predictions", "conll", "--gold", tmp_path / "gold.conll",
                            "--resamples", 50)
    assert status == 1
    _one_line(err, "b.conll lacks 1 of the 3 documents", "document 3")


# --------------------------------------------------------------- planner: assurance
def test_every_width_plan_says_whether_it_is_the_mean_or_an_assurance(capsys):
    """Width plans gave a *mean* half-width: about half of the planned studies miss it,
    and neither the plan nor the command said so."""
    from simulation import study_size_for_power, study_size_for_width

    kw = dict(expected=0.6, target=0.1, n_raters=3, n_sims=40, n_bootstrap_sims=0, rng=0)
    mean = study_size_for_width("fleiss_kappa", **kw)
    assert mean.assurance is None and 0.0 <= mean.reach_share <= 1.0
    assert "mean 95% interval half-width" in mean.summary()
    assert "about half of the studies" in mean.summary()
    sure = study_size_for_width("fleiss_kappa", assurance=0.8, **kw)
    assert sure.assurance == 0.8 and sure.reach_share >= 0.8
    assert sure.n_items > mean.n_items
    assert "in 80% of studies (assurance 0.8" in sure.summary()
    assert sure.to_dict()["assurance"] == 0.8
    for bad, exc, match in [(dict(assurance=1.0), ValueError, "`assurance`"),
                            (dict(assurance="0.8"), TypeError, "`assurance`")]:
        with pytest.raises(exc, match=match):
            study_size_for_width("fleiss_kappa", **kw, **bad)
    with pytest.raises(TypeError, match="assurance"):  # a width goal's option only
        study_size_for_power("fleiss_kappa", expected=0.6, null=0.4, power=0.8, assurance=0.8)
    with pytest.raises(ValueError, match="found by simulation"):
        study_size_for_width("cohen_kappa", expected=0.6, target=0.1, method="closed-form",
                             assurance=0.8)
    status, out, err = _run(capsys, "study", "fleiss_kappa", "--expected", "0.6",
                            "--half-width", "0.1", "--raters", 3, "--sims", 60,
                            "--bootstrap-sims", 0, "--assurance", "0.8")
    assert status == 0, err
    assert "in 80% of studies (assurance 0.8" in out and "reach target" in out
    status, out, err = _run(capsys, "study", "cohen_kappa", "--expected", "0.6",
                            "--half-width", "0.1", "--sims", 20, "--bootstrap-sims", 0)
    assert status == 0, err
    assert "mean 95% interval half-width" in out and "set --assurance" in out


def _fleiss_half_widths(n_items, n_sims, seed):
    """Half-widths of Fleiss' κ's 95% interval over studies drawn here, not by the planner:
    3 annotators, two equally likely classes, an item "easy" (all three give its class)
    with probability 0.6, else each annotator draws a class at random: κ = 0.6."""
    from agreement import fleiss_kappa

    g = np.random.default_rng(seed)
    out = np.empty(n_sims)
    for s in range(n_sims):
        truth = g.integers(0, 2, n_items)
        easy = g.random(n_items) < 0.6
        x = np.where(easy[:, None], truth[:, None], g.integers(0, 2, (n_items, 3)))
        ci = fleiss_kappa(x).confidence_interval(0.95)
        out[s] = (ci.high - ci.low) / 2
    return out


@pytest.mark.parametrize("n_check", [pytest.param(400, marks=pytest.mark.slow), 200])
def test_assurance_is_met_by_independently_simulated_studies(n_check):
    """Check by simulation: at the size planned with assurance 0.8, studies drawn outside
    the planner reach the half-width about 80% of the time (binomtest: not below 0.8);
    at the mean plan's size about half do (significantly fewer than 80%)."""
    from scipy.stats import binomtest

    from simulation import study_size_for_width

    kw = dict(expected=0.6, target=0.1, n_raters=3, n_sims=300, n_bootstrap_sims=0, rng=1)
    sure = study_size_for_width("fleiss_kappa", assurance=0.8, **kw)
    mean = study_size_for_width("fleiss_kappa", **kw)
    k = int((_fleiss_half_widths(sure.n_items, n_check, 11) <= 0.1).sum())
    assert binomtest(k, n_check, 0.8, alternative="less").pvalue > 0.01, k
    k_mean = int((_fleiss_half_widths(mean.n_items, n_check, 12) <= 0.1).sum())
    assert binomtest(k_mean, n_check, 0.8, alternative="less").pvalue < 1e-6, k_mean
    assert 0.3 < k_mean / n_check < 0.7
