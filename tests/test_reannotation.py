"""Re-annotation policies, expert-check designs and the certificate of the errors left (SPEC §6)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from agreement import Ratings
from noise_models import EasyHardModel, LatentClassModel, verified_sample_bound
from simulation import next_batch, residual_errors, simulate_annotations, verification_batch


def _data(n=400, k=3, acc=0.75, m=2, seed=0, hard_share=0.0):
    g = np.random.default_rng(seed)
    truth = g.integers(0, m, n)
    a = np.where(g.random(n) < hard_share, 1.0 / m, acc)[:, None]
    wrong = (truth[:, None] + g.integers(1, m, (n, k))) % m
    x = np.where(g.random((n, k)) < a, truth[:, None], wrong)
    return Ratings.from_wide(x), truth


def _fit(r):
    return LatentClassModel("one-coin", rng=0, n_starts=2).fit(r)


def test_simple_random_sample_is_the_hypergeometric_bound():
    r, truth = _data(500, seed=1)
    fit = _fit(r)
    g = np.random.default_rng(0)
    for _ in range(25):
        s = int(g.integers(1, 200))
        sample = np.sort(g.choice(500, s, replace=False))
        ver = pd.Series(truth[sample], index=r.items[sample])
        level = float(g.choice([0.8, 0.9, 0.95, 0.99]))
        # the level of look t: 1 - α/(t(t+1)) for any number of looks, 1 - α/L for L
        # declared looks, the level itself for the one-look bound
        looks, look = [("any", 1), ("any", 7), (1, 1), (5, 3)][int(g.integers(4))]
        res = residual_errors(fit, ver, confidence_level=level, looks=looks, look=look)
        a = 1 - level
        spent = a / (look * (look + 1)) if looks == "any" else a / looks
        e = int((fit.label_codes[sample] != truth[sample]).sum())
        assert res.errors_found == e
        assert res.look_level == pytest.approx(1 - spent)
        assert res.upper == verified_sample_bound(500, s, e, alpha=1 - spent).max_errors
        assert res.method == "exact"
        assert res.estimate == pytest.approx(e * 500 / s)
        assert res.upper_left == res.upper - e


def test_ranked_and_random_design():
    r, truth = _data(600, seed=2)
    fit = _fit(r)
    design = verification_batch(fit, size=60, random_share=0.5, rank="fit", rng=3)
    ranked = design[design.stratum == "ranked"]
    random = design[design.stratum == "random"]
    assert len(ranked) == 30 and len(random) == 30
    # the ranked stratum is the 30 highest P(label wrong)
    p_wrong = 1 - fit.label_posterior
    assert ranked.p_wrong.min() >= np.sort(p_wrong)[-30] - 1e-12
    assert set(random.item).isdisjoint(set(ranked.item))
    assert np.allclose(random.inclusion_probability, 30 / 570)
    pos = r.items.get_indexer(design.item)
    ver = pd.Series(truth[pos], index=design.item.to_numpy())
    res = residual_errors(fit, ver, design=design)
    wrong = fit.label_codes[pos] != truth[pos]
    e_ranked, e_random = int(wrong[:30].sum()), int(wrong[30:].sum())
    # the first look of a bound valid at every look spends half of α = 0.05
    assert res.upper == e_ranked + verified_sample_bound(570, 30, e_random,
                                                         alpha=0.975).max_errors
    assert res.estimate == pytest.approx(e_ranked + e_random * 570 / 30)
    assert res.strata.loc["ranked", "upper"] == e_ranked
    assert res.to_dict()["strata"][0]["stratum"] == "ranked"
    assert residual_errors(fit, ver, design=design, epsilon=0.9).stop is True


@pytest.mark.parametrize("runs", [pytest.param(300, marks=pytest.mark.slow), 100])
@pytest.mark.parametrize("scenario", ["independent", "mixed", "correlated"])
def test_certificate_covers_in_simulation(scenario, runs):
    covered = 0
    for seed in range(runs):
        g = np.random.default_rng(seed)
        n = 300
        truth = g.integers(0, 2, n)
        if scenario == "correlated":  # two annotators copy one noisy label
            shared = np.where(g.random(n) < 0.7, truth, 1 - truth)
            own = np.where(g.random(n) < 0.7, truth, 1 - truth)
            x = np.column_stack([shared, shared, own])
        else:
            acc = np.where(g.random(n) < (0.3 if scenario == "mixed" else 0.0), 0.5, 0.8)
            x = np.where(g.random((n, 3)) < acc[:, None], truth[:, None], 1 - truth[:, None])
        fit = LatentClassModel("one-coin", rng=0, n_starts=1).fit(x)
        design = verification_batch(fit, size=40, random_share=0.5, rng=seed)
        pos = fit.ratings.items.get_indexer(design.item)
        ver = pd.Series(truth[pos], index=design.item.to_numpy())
        res = residual_errors(fit, ver, design=design)
        true_wrong = int((fit.label_codes != truth).sum())
        covered += true_wrong <= res.upper
    # coverage at least 95%: not rejected by a one-sided binomial test
    assert binomtest(covered, runs, 0.95, alternative="less").pvalue > 0.01, covered


def _slow_eer(pi, a):
    """Brute force: enumerate the next rating y, update by Bayes, expected error."""
    before = 1 - max(pi)
    after = 0.0
    for y in range(a.shape[1]):
        py = sum(pi[c] * a[c, y] for c in range(len(pi)))
        if py == 0:
            continue
        post = [pi[c] * a[c, y] / py for c in range(len(pi))]
        after += py * (1 - max(post))
    return max(before - after, 0.0)


def _slow_ensemble_posterior(r, fit, **options):
    """Mean over spam and Dawid-Skene of the class posterior, item by item from the
    fitted parameters (the definition of the ensemble): the member of ``fit``'s own
    model is ``fit``; the other is fitted with ``options`` (no calibration) and tempered
    by ``fit``'s temperature."""
    out = np.zeros((r.n_items, r.n_categories))
    codes = r.codes
    for annotators in ("spam", "confusion"):
        own = fit.model.annotators == annotators and fit.model.hard is None
        f = fit if own else LatentClassModel(annotators, **options).fit(r)
        for i in range(r.n_items):
            logp = np.log(f.phi).copy()
            for j in range(codes.shape[1]):
                x = codes[i, j]
                if x < 0:
                    continue
                for c in range(r.n_categories):
                    if f.confusion is not None:
                        p = f.confusion[j, c, x]
                    else:
                        p = f.competence[j] * (x == c) + (1 - f.competence[j]) \
                            * f.spam_distribution[j, x]
                    logp[c] += np.log(p)
            logp /= fit.temperature
            post = np.exp(logp - logp.max())
            out[i] += post / post.sum() / 2
    return out


def _slow_ensemble_p_wrong(r, fit, **options):
    labels = np.asarray(fit.label_codes)
    return 1 - _slow_ensemble_posterior(r, fit, **options)[np.arange(r.n_items), labels]


def test_ensemble_ranking_against_slow_reference():
    r, truth = _data(120, k=4, m=3, seed=11)
    x = np.array(r.to_wide().to_numpy(dtype=float))
    x[::5, 1] = np.nan  # some items have fewer ratings
    r = Ratings.from_wide(x)
    fit = _fit(r)  # published labels from another model (one-coin)
    design = verification_batch(fit, size=r.n_items, random_share=0.0, rng=0)
    pos = r.items.get_indexer(design["item"])
    # the other members: the fit's prior and seed, one start (majority vote), no
    # calibration, tempered by the fit's temperature
    slow = _slow_ensemble_p_wrong(r, fit, rng=0, n_starts=1)
    np.testing.assert_allclose(design["p_wrong"], slow[pos], atol=1e-9)
    assert (np.diff(design["p_wrong"]) <= 1e-12).all()  # ranked by it, highest first
    # the default fit (spam with item difficulty) is reused, not refitted: same ranking
    default = verification_batch(r, size=30, random_share=0.0, rng=0)
    spam = LatentClassModel("spam", "difficulty", rng=0).fit(r)
    np.testing.assert_allclose(
        default["p_wrong"],
        verification_batch(spam, size=30, random_share=0.0, rng=0)["p_wrong"])
    np.testing.assert_allclose(
        default["p_wrong"],
        _slow_ensemble_p_wrong(r, spam, rng=0, n_starts=1)[
            r.items.get_indexer(default["item"])], atol=1e-9)
    # rank="fit": the fit's own 1 - label_posterior
    own = verification_batch(fit, size=20, random_share=0.0, rank="fit", rng=0)
    np.testing.assert_allclose(own["p_wrong"], np.sort(1 - fit.label_posterior)[::-1][:20])
    # the certificate is valid with either ranking: the ranked stratum is take-all
    mixed = verification_batch(fit, size=40, rng=1)
    assert (mixed.loc[mixed.stratum == "ranked", "inclusion_probability"] == 1).all()
    ver = pd.Series(truth[r.items.get_indexer(mixed.item)], index=mixed.item.to_numpy())
    res = residual_errors(fit, ver, design=mixed)
    wrong = fit.label_codes[r.items.get_indexer(mixed.item)] != truth[r.items.get_indexer(mixed.item)]
    assert res.strata.loc["ranked", "upper"] == int(wrong[:20].sum())
    assert res.errors_found == int(wrong.sum())


def _typical_emission(fit):
    """``A[c][y]``: each annotator's chance of rating y on an item of class c, from the
    fit's parameters, averaged over annotators weighted by their numbers of ratings."""
    codes = np.asarray(fit.ratings.codes)
    m = fit.ratings.n_categories
    counts = [int((codes[:, j] >= 0).sum()) for j in range(codes.shape[1])]
    total = sum(counts)
    out = [[0.0] * m for _ in range(m)]
    for j, count in enumerate(counts):
        for c in range(m):
            for y in range(m):
                if fit.confusion is not None:
                    e = float(np.asarray(fit.confusion)[j, c, y])
                elif fit.competence is not None:  # spam: right, or a draw from xi_j
                    theta = float(np.asarray(fit.competence)[j])
                    e = theta * (c == y) + (1 - theta) * float(
                        np.asarray(fit.spam_distribution)[j, y])
                else:  # one coin: the error spread evenly over the other classes
                    eps = float(np.asarray(fit.error_rate)[j])
                    e = 1 - eps if c == y else eps / (m - 1)
                out[c][y] += count / total * e
    return np.array(out)


@pytest.mark.parametrize("annotators", ["one-coin", "spam", "confusion"])
def test_expected_error_reduction_by_enumeration(annotators):
    # next_batch(policy="expected-error-reduction") scores every item by the expected drop
    # of its error after one more rating, over its ratings + 1: each item's score against
    # the enumeration over the next rating (Bayes' rule on the fit's posterior), for 2, 3
    # and 4 classes and the three kinds of annotator parameters.
    g = np.random.default_rng(5)
    for m in (2, 3, 4):
        n, k = 150, 4
        truth = g.integers(0, m, n)
        wrong = (truth[:, None] + g.integers(1, m, (n, k))) % m
        x = np.where(g.random((n, k)) < 0.7, truth[:, None], wrong).astype(float)
        x[g.random((n, k)) < 0.2] = np.nan
        r = Ratings.from_wide(x)
        fit = LatentClassModel(annotators, rng=0, n_starts=1).fit(r)
        b = next_batch(r, size=r.n_items, policy="expected-error-reduction", fit=fit,
                       posterior="fit", rng=0)
        assert len(b) == r.n_items
        a = _typical_emission(fit)
        pos = r.items.get_indexer(b["item"])
        n_r = r.ratings_per_item[pos]
        slow = [_slow_eer(fit.class_posterior[i], a) for i in pos]
        np.testing.assert_allclose(b["score"] * (n_r + 1), slow, rtol=0, atol=1e-12)
        assert 0 < np.count_nonzero(b["score"] > 1e-9) < n  # zero and positive reductions


def test_policies_against_slow_references():
    r, _ = _data(200, k=4, seed=6)
    x = np.array(r.to_wide().to_numpy(dtype=float))
    x[::7, 3] = np.nan  # some items have fewer ratings
    r = Ratings.from_wide(x)
    fit = _fit(r)
    n_r = r.ratings_per_item
    # uniform: the items with the fewest ratings
    b = next_batch(r, size=10, policy="uniform", fit=fit, rng=0)
    assert set(b["n_ratings"]) == {3} and len(b) == 10
    # uncertainty and margin, from their definitions, shared among the item's ratings:
    # on the fit's own posterior, and on the mean of spam's and Dawid-Skene's (fitted
    # with the fit's options: seed 0, 2 starts), the default
    labels = np.asarray(fit.label_codes)
    ens = _slow_ensemble_posterior(r, fit, rng=0, n_starts=1)
    for posterior, post, right in (("fit", fit.class_posterior, fit.label_posterior),
                                   ("ensemble", ens, ens[np.arange(r.n_items), labels])):
        slow = {"uncertainty": [], "margin": []}
        for i in range(r.n_items):
            pi = sorted(post[i], reverse=True)
            slow["uncertainty"].append((1 - right[i]) / (n_r[i] + 1))
            slow["margin"].append((1 - (pi[0] - pi[1])) / (n_r[i] + 1))
        for policy, ref in slow.items():
            b = next_batch(r, size=10, policy=policy, fit=fit, posterior=posterior, rng=0)
            np.testing.assert_allclose(b["score"], np.sort(ref)[::-1][:10], atol=1e-9)
            pos = r.items.get_indexer(b["item"])
            np.testing.assert_allclose(b["score"], np.asarray(ref)[pos], atol=1e-9)
            np.testing.assert_allclose(b["p_wrong"], 1 - np.asarray(right)[pos], atol=1e-9)
    # expected error reduction: the slow formula, divided by ratings + 1
    b = next_batch(r, size=5, policy="expected-error-reduction", fit=fit, posterior="fit",
                   rng=0)
    a = _typical_emission(fit)
    slow = np.array([_slow_eer(fit.class_posterior[i], a) / (n_r[i] + 1)
                     for i in range(r.n_items)])
    np.testing.assert_allclose(b["score"], np.sort(slow)[::-1][:5], atol=1e-12)
    # excluded items are never chosen; same seed, same batch
    ex = b["item"].tolist()
    b2 = next_batch(r, size=5, policy="expected-error-reduction", fit=fit, exclude=ex,
                    rng=0)
    assert set(b2["item"]).isdisjoint(ex)
    pd.testing.assert_frame_equal(next_batch(r, size=7, policy="random", fit=fit, rng=4),
                                  next_batch(r, size=7, policy="random", fit=fit, rng=4))
    hard = next_batch(r, size=5, policy="hard", fit=fit, rng=0)
    assert (hard["score"].diff().dropna() <= 1e-12).all()
    p_hard = EasyHardModel(rng=0).fit(r).posterior_hard
    pos = r.items.get_indexer(hard["item"])
    np.testing.assert_allclose(hard["score"], p_hard[pos] / (n_r[pos] + 1), atol=1e-12)


def test_bad_input_is_refused():
    r, truth = _data(100, seed=8)
    fit = _fit(r)
    design = verification_batch(fit, size=10, rng=0)
    pos = r.items.get_indexer(design.item)
    ver = pd.Series(truth[pos], index=design.item.to_numpy())
    with pytest.raises(ValueError, match="exceeds the 100 items"):
        verification_batch(fit, size=101)
    with pytest.raises(ValueError, match="`rank` must be one of"):
        verification_batch(fit, size=10, rank="spam")
    with pytest.raises(ValueError, match="not in the ratings: 999"):
        residual_errors(fit, pd.Series({999: 0}))
    with pytest.raises(ValueError, match="not categories of the ratings: 7"):
        residual_errors(fit, pd.Series({0: 7}))
    with pytest.raises(ValueError, match="were not verified"):
        residual_errors(fit, ver.iloc[1:], design=design)
    bad = design.copy()
    bad.loc[bad.stratum == "random", "inclusion_probability"] = 0.0
    with pytest.raises(ValueError, match="inclusion probability outside"):
        residual_errors(fit, ver, design=bad)
    with pytest.raises(ValueError, match="`verified` is empty"):
        residual_errors(fit, pd.Series([], dtype=object))
    with pytest.raises(ValueError, match="`policy` must be one of"):
        next_batch(r, size=3, policy="greedy", fit=fit)
    with pytest.raises(ValueError, match="`cost` must be positive"):
        next_batch(r, size=3, fit=fit, cost=np.zeros(100), policy="expected-error-reduction")
    with pytest.raises(ValueError, match="not used by policy='margin'"):
        next_batch(r, size=3, fit=fit, cost=np.ones(100))


def test_command_line_next_verify_certify(tmp_path, capsys):
    import json

    from goldnoise._cli import main

    r, truth = _data(300, k=3, seed=9)
    frame = pd.DataFrame(r.codes, index=pd.Index(r.items, name="id"))
    frame.to_csv(tmp_path / "r.csv")
    assert main(["next", str(tmp_path / "r.csv"), "--item", "id", "--size", "7",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["sections"]["batch"]["tables"]["batch"]["rows"]
    assert len(rows) == 7
    # the text's score column has one number of decimals (".4g" gave 0.0831 beside 0.08241)
    sim = simulate_annotations(300, 10, model="M2", error_rates=np.linspace(0.1, 0.35, 10),
                               hard_share=0.3, rng=4)
    pd.DataFrame(np.asarray(sim.ratings.codes), index=pd.Index(range(300), name="id")).to_csv(
        tmp_path / "s.csv")
    assert main(["next", str(tmp_path / "s.csv"), "--item", "id", "--size", "20"]) == 0
    text = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(text) if line.split()[:2] == ["item", "score"])
    scores = [line.split()[1] for line in text[head + 1:head + 21]]
    assert {len(s.split(".")[1]) for s in scores} == {5}, scores
    # more than there are: every item, and a note that says so
    assert main(["next", str(tmp_path / "r.csv"), "--item", "id", "--size", "500",
                 "--format", "json"]) == 0
    section = json.loads(capsys.readouterr().out)["sections"]["batch"]
    assert len(section["tables"]["batch"]["rows"]) == 300
    assert any("--size 500 asked for more items than there are" in n
               for n in section["notes"])
    assert main(["verify", str(tmp_path / "r.csv"), "--item", "id", "--size", "30",
                 "--out", str(tmp_path / "checks.csv"), "--quiet"]) == 0
    checks = pd.read_csv(tmp_path / "checks.csv")
    assert len(checks) == 30 and set(checks.stratum) == {"ranked", "random"}
    pd.DataFrame({"item": checks["item"], "label": truth[checks["item"]]}).to_csv(
        tmp_path / "done.csv", index=False)
    capsys.readouterr()
    assert main(["certify", str(tmp_path / "r.csv"), "--item", "id", "--verified",
                 str(tmp_path / "done.csv"), "--design", str(tmp_path / "checks.csv"),
                 "--format", "json"]) == 0
    cert = json.loads(capsys.readouterr().out)["sections"]["certificate"]["values"]
    design = verification_batch(r, size=30, rng=0)
    direct = residual_errors(r, pd.Series(truth[design["item"]], index=design["item"]),
                             design=design)
    assert cert["upper"] == direct.upper and cert["estimate"] == pytest.approx(direct.estimate)
    assert cert["looks"] == "any" and cert["look"] == 1
    # the text says which bound it prints; --looks 1 is the one-look bound, --look counts
    base = ["certify", str(tmp_path / "r.csv"), "--item", "id", "--verified",
            str(tmp_path / "done.csv"), "--design", str(tmp_path / "checks.csv")]
    assert main(base) == 0
    assert "valid at every look (look 1 at 97.5%" in capsys.readouterr().out
    verified = pd.Series(truth[design["item"]], index=design["item"])
    for extra, kw in ((["--looks", "1"], {"looks": 1}), (["--look", "4"], {"look": 4}),
                      (["--looks", "5", "--look", "2"], {"looks": 5, "look": 2})):
        assert main([*base, *extra, "--format", "json"]) == 0
        got = json.loads(capsys.readouterr().out)["sections"]["certificate"]["values"]
        assert got["upper"] == residual_errors(r, verified, design=design, **kw).upper
    assert main([*base, "--looks", "1"]) == 0
    assert "one-look bound, valid for a single look" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([*base, "--looks", "many"])
    assert "--looks must be 'any' or a whole number of looks" in capsys.readouterr().err
    assert main([*base, "--looks", "3", "--look", "4"]) == 1
    assert "past the 3 look(s) declared in --looks" in capsys.readouterr().err
    # a checked item missing from the verified file: one line, exit 1
    pd.read_csv(tmp_path / "done.csv").iloc[1:].to_csv(tmp_path / "short.csv", index=False)
    assert main(["certify", str(tmp_path / "r.csv"), "--item", "id", "--verified",
                 str(tmp_path / "short.csv"), "--design", str(tmp_path / "checks.csv")]) == 1
    assert "were not verified" in capsys.readouterr().err


def test_command_line_messages_name_the_options(tmp_path, capsys):
    from goldnoise._cli import main

    r, _ = _data(50, k=3, seed=10)
    pd.DataFrame(r.codes, index=pd.Index(r.items, name="id")).to_csv(tmp_path / "r.csv")
    assert main(["verify", str(tmp_path / "r.csv"), "--item", "id", "--size", "60"]) == 1
    assert "--size (60) exceeds the 50 items" in capsys.readouterr().err
    pd.DataFrame({"item": [999], "label": [0]}).to_csv(tmp_path / "v.csv", index=False)
    assert main(["certify", str(tmp_path / "r.csv"), "--item", "id", "--verified",
                 str(tmp_path / "v.csv")]) == 1
    err = capsys.readouterr().err
    assert "--verified names 1 item(s) that are not in the ratings: 999" in err


def _split_item(pairs: int, n_other: int = 120, seed: int = 0) -> Ratings:
    """Item 0 rated by ``2 * pairs`` annotators who split evenly on it; elsewhere the two
    annotators of a pair rate alike, and a quarter of the other items split 2–2."""
    g = np.random.default_rng(seed)
    truth = g.integers(0, 2, n_other)
    x = np.full((1 + n_other, 2 * pairs), np.nan)
    x[0] = np.tile([0, 1], pairs)
    for i in range(n_other):
        for p, label in zip(g.choice(pairs, 2, replace=False),
                            (truth[i], truth[i] if i % 4 else 1 - truth[i]), strict=True):
            x[1 + i, 2 * p] = x[1 + i, 2 * p + 1] = label
    return Ratings.from_wide(x)


@pytest.mark.parametrize("policy", ["uncertainty", "margin", "expected-error-reduction", "hard"])
@pytest.mark.parametrize("pairs", [10, 20])
def test_no_policy_asks_an_item_whose_ratings_keep_splitting_for_ever(policy, pairs):
    # Under a model with a hard component, an item whose ratings keep splitting is hard:
    # its label stays as unsure however many ratings it has, so a score that ignores the
    # ratings it already has (plain uncertainty or margin sampling) asks it again and
    # again (Lin, Mausam & Weld 2016). Shared among its ratings, its score falls below
    # that of the items rated 4 times whose ratings split 2–2.
    r = _split_item(pairs)
    fit = LatentClassModel("one-coin", "uniform", n_starts=1).fit(r)
    assert r.ratings_per_item[0] == 2 * pairs
    batch = next_batch(r, size=5, policy=policy, fit=fit, rng=0)
    assert 0 not in set(batch["item"])
    score = next_batch(r, size=r.n_items, policy=policy, fit=fit, rng=0).set_index("item")
    assert score.loc[0, "score"] <= 1.0 / (2 * pairs + 1) + 1e-12


def _gold_case():
    """1,000 items, 3 noisy ratings each; gold on the 300 items a first ranking would
    check (as after a first round of expert checks refitted as gold)."""
    r, truth = _data(1000, k=3, acc=0.7, m=3, seed=21)
    model = LatentClassModel("spam", rng=0, n_starts=2, calibrate="held-out")
    first = model.fit(r)
    checked = np.argsort(first.label_posterior, kind="stable")[:300]
    gold = pd.Series(truth[checked], index=r.items[checked])
    return r, truth, model.fit(r, gold=gold), set(gold.index)


def test_gold_items_get_no_check_and_no_rating():
    # Issue: the default two-model posterior refitted both members without the gold,
    # so checks and ratings went back to the items the gold had settled.
    r, _truth, fit, gold = _gold_case()
    assert fit.n_gold == 300
    for rank in ("ensemble", "fit"):
        for share in (0.0, 0.5):
            batch = verification_batch(fit, size=100, random_share=share, rank=rank, rng=0)
            assert gold.isdisjoint(batch["item"]), (rank, share)
            if share:  # the design covers the other 700 items; the gold is a stratum apart
                assert batch.groupby("stratum")["stratum_size"].first().sum() == 700
    for posterior in ("ensemble", "fit"):
        for policy in ("uniform", "random", "uncertainty", "margin",
                       "expected-error-reduction", "hard"):
            batch = next_batch(r, size=100, policy=policy, fit=fit, posterior=posterior, rng=0)
            assert gold.isdisjoint(batch["item"]), (policy, posterior)
    # the members of the ensemble keep the gold: P(label wrong) is 0 on every gold item
    design = verification_batch(fit, size=700, random_share=0.0, rng=0)
    assert len(design) == 700 and gold.isdisjoint(design["item"])
    with pytest.raises(ValueError, match="without gold"):
        verification_batch(fit, size=701, rng=0)


def test_command_line_gold_items_get_no_rating_and_no_check(tmp_path, capsys):
    # `goldnoise next` and `goldnoise verify` read --gold as `audit` does (a file of item
    # and gold label, or a column): gold items are settled, as with fit(..., gold=...)
    import json

    from goldnoise._cli import main

    r, truth, fit, gold = _gold_case()
    items = [f"q{i}" for i in r.items]
    frame = pd.DataFrame(r.codes, index=pd.Index(items, name="id"))
    frame.to_csv(tmp_path / "r.csv")
    ids = sorted(gold)
    pd.DataFrame({"item": [f"q{i}" for i in ids], "gold": truth[ids]}).to_csv(
        tmp_path / "gold.csv", index=False)
    gold_q = {f"q{i}" for i in ids}
    for policy in ("margin", "uniform"):
        assert main(["next", str(tmp_path / "r.csv"), "--item", "id", "--size", "400",
                     "--policy", policy, "--gold", str(tmp_path / "gold.csv"),
                     "--out", str(tmp_path / "b.csv"), "--quiet"]) == 0
        batch = pd.read_csv(tmp_path / "b.csv")
        assert len(batch) == 400 and gold_q.isdisjoint(batch["item"]), policy
    # without --gold the same command sends gold items new ratings (the test can fail)
    assert main(["next", str(tmp_path / "r.csv"), "--item", "id", "--size", "400",
                 "--out", str(tmp_path / "b0.csv"), "--quiet"]) == 0
    assert not gold_q.isdisjoint(pd.read_csv(tmp_path / "b0.csv")["item"])
    assert main(["verify", str(tmp_path / "r.csv"), "--item", "id", "--size", "700",
                 "--random-share", "0.3", "--gold", str(tmp_path / "gold.csv"),
                 "--out", str(tmp_path / "c.csv"), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)["sections"]["checks"]["values"]
    assert out["n_gold"] == 300
    checks = pd.read_csv(tmp_path / "c.csv")
    assert len(checks) == 700 and gold_q.isdisjoint(checks["item"])
    # certify with the same --gold counts the gold as a stratum of its own
    small = ["verify", str(tmp_path / "r.csv"), "--item", "id", "--size", "60", "--gold",
             str(tmp_path / "gold.csv"), "--seed", "3", "--out", str(tmp_path / "c60.csv"),
             "--quiet"]
    assert main(small) == 0
    design = pd.read_csv(tmp_path / "c60.csv")
    pos = [items.index(i) for i in design["item"]]
    pd.DataFrame({"item": design["item"], "label": truth[pos]}).to_csv(
        tmp_path / "done.csv", index=False)
    capsys.readouterr()
    assert main(["certify", str(tmp_path / "r.csv"), "--item", "id", "--gold",
                 str(tmp_path / "gold.csv"), "--verified", str(tmp_path / "done.csv"),
                 "--design", str(tmp_path / "c60.csv"), "--format", "json"]) == 0
    cert = json.loads(capsys.readouterr().out)["sections"]["certificate"]["values"]
    direct = verification_batch(fit, size=60, rng=3)
    assert direct["item"].map(lambda i: f"q{i}").tolist() == design["item"].tolist()
    ver = pd.Series(truth[r.items.get_indexer(direct["item"])], index=direct["item"])
    assert cert["upper"] == residual_errors(fit, ver, design=direct).upper
    # a gold label on an item the ratings do not have: one line naming --gold
    pd.DataFrame({"item": ["q1", "nope"], "gold": [0, 1]}).to_csv(tmp_path / "bad.csv",
                                                                  index=False)
    assert main(["next", str(tmp_path / "r.csv"), "--item", "id", "--size", "5", "--gold",
                 str(tmp_path / "bad.csv")]) == 1
    err = capsys.readouterr().err
    assert "--gold names 1 item(s) that are not in the ratings: nope" in err
    assert "Traceback" not in err


def test_certificate_counts_the_gold_as_a_stratum():
    r, truth, fit, gold = _gold_case()
    design = verification_batch(fit, size=60, rng=3)
    pos = r.items.get_indexer(design["item"])
    ver = pd.Series(truth[pos], index=design["item"].to_numpy())
    res = residual_errors(fit, ver, design=design)
    assert res.strata.loc["gold", ["size", "checked", "errors", "upper"]].tolist() == [
        300, 300, 0, 0]
    wrong = fit.label_codes[pos] != truth[pos]
    e_ranked = int(wrong[:30].sum())
    e_random = int(wrong[30:].sum())
    assert res.upper == e_ranked + verified_sample_bound(670, 30, e_random,
                                                         alpha=0.975).max_errors
    # checks of gold items passed again are counted once, in the gold stratum
    g_items = list(gold)[:5]
    again = pd.concat([ver, pd.Series(truth[r.items.get_indexer(g_items)], index=g_items)])
    assert residual_errors(fit, again, design=design).upper == res.upper


@pytest.mark.parametrize("runs", [pytest.param(2000, marks=pytest.mark.slow), 500])
def test_every_look_bound_covers_at_every_look_count(runs):
    """The stopping rule checked after every round: a fresh simple random sample of
    n = 40 of N = 400 items each look, the wrong labels K_t changing from look to look
    (corrections, new ratings). A run fails by look L when some look t ≤ L had a bound
    below its K_t. The bound valid at every look must keep P(fail by L) ≤ 5% for every
    L ≤ 20; the one-look bound does not (which shows the check can fail)."""
    n_items, n_checked, looks = 400, 40, 20
    r, _ = _data(n_items, seed=31)
    fit = _fit(r)
    labels = np.asarray(fit.label_codes)
    sample = np.arange(n_checked)
    memo = {}

    def bound(errors, look, kind):
        # the bound depends on the sample only through its errors: one call per value
        key = (errors, look, kind)
        if key not in memo:
            true = labels[sample].copy()
            true[:errors] = 1 - true[:errors]
            ver = pd.Series(true, index=r.items[sample])
            memo[key] = residual_errors(fit, ver, looks=kind, look=look if kind == "any"
                                        else 1).upper
        return memo[key]

    g = np.random.default_rng(0)
    failed = {"any": np.zeros(looks, dtype=int), 1: np.zeros(looks, dtype=int)}
    for _ in range(runs):
        k = int(g.integers(30, 80))
        gone = {"any": False, 1: False}
        for t in range(looks):
            k = max(k + int(g.integers(-6, 3)), 5)  # mostly fewer wrong labels each round
            e = int(g.hypergeometric(k, n_items - k, n_checked))
            for kind in gone:
                gone[kind] |= bound(e, t + 1, kind) < k
                failed[kind][t] += gone[kind]
    for t in range(looks):
        covered = runs - int(failed["any"][t])
        assert binomtest(covered, runs, 0.95, alternative="less").pvalue > 0.01, (t, covered)
    # the one-look bound, looked at 20 times, fails far more often than 5%
    assert failed[1][-1] / runs > 0.15


def test_looks_are_checked():
    r, truth = _data(500, seed=1)
    fit = _fit(r)
    ver = pd.Series(truth[:40], index=r.items[:40])
    for looks, look, error, match in (
            ("every", 1, ValueError, "'any' or a number of looks"),
            (0, 1, ValueError, "`looks` must be >= 1"), (True, 1, TypeError, "whole number"),
            ("any", 0, ValueError, "`look` must be >= 1"),
            (3, 4, ValueError, "past the 3 look")):
        with pytest.raises(error, match=match):
            residual_errors(fit, ver, looks=looks, look=look)
    # the bound only widens with the look, and the one-look bound is the narrowest
    uppers = [residual_errors(fit, ver, look=t).upper for t in (1, 2, 5, 20)]
    assert uppers == sorted(uppers)
    assert residual_errors(fit, ver, looks=1).upper <= uppers[0]
    assert residual_errors(fit, ver, looks=20, look=20).upper <= uppers[-1]


def test_command_line_next_says_when_the_gold_leaves_fewer_items_than_asked(tmp_path, capsys):
    # 300 of 1,000 items are gold: --size 900 gets the 700 others, and the note says why
    # (it said "more items than there are" though there are 1,000)
    from goldnoise._cli import main

    r, truth, _fit, gold = _gold_case()
    frame = pd.DataFrame(r.codes, index=pd.Index([f"q{i}" for i in r.items], name="id"))
    frame.to_csv(tmp_path / "r.csv")
    ids = sorted(gold)
    pd.DataFrame({"item": [f"q{i}" for i in ids], "gold": truth[ids]}).to_csv(
        tmp_path / "gold.csv", index=False)
    assert main(["next", str(tmp_path / "r.csv"), "--item", "id", "--size", "900",
                 "--gold", str(tmp_path / "gold.csv")]) == 0
    out = capsys.readouterr().out
    assert "700 of 1000 items" in out
    assert "more items than the 700 the gold does not settle" in out
