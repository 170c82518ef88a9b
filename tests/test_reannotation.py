"""Re-annotation policies, expert-check designs and the certificate of the errors left (SPEC §6)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from agreement import Ratings
from noise_models import EasyHardModel, LatentClassModel, verified_sample_bound
from simulation import next_batch, residual_errors, verification_batch
from simulation.reannotation._policies import _typical_emission, expected_error_reduction


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
        res = residual_errors(fit, ver, confidence_level=level)
        e = int((fit.label_codes[sample] != truth[sample]).sum())
        assert res.errors_found == e
        assert res.upper == verified_sample_bound(500, s, e, alpha=level).max_errors
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
    assert res.upper == e_ranked + verified_sample_bound(570, 30, e_random).max_errors
    assert res.estimate == pytest.approx(e_ranked + e_random * 570 / 30)
    assert res.strata.loc["ranked", "upper"] == e_ranked
    assert res.to_dict()["strata"][0]["stratum"] == "ranked"
    assert residual_errors(fit, ver, design=design, epsilon=0.9).stop is True


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["independent", "mixed", "correlated"])
def test_certificate_covers_in_simulation(scenario):
    covered, runs = 0, 300
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


def _slow_ensemble_posterior(r, **options):
    """Mean over spam and Dawid-Skene (fitted with ``options``) of the class posterior,
    item by item from the fitted parameters (the definition of the ensemble)."""
    out = np.zeros((r.n_items, r.n_categories))
    codes = r.codes
    for model in (LatentClassModel("spam", **options), LatentClassModel("confusion", **options)):
        f = model.fit(r)
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
            logp /= f.temperature
            post = np.exp(logp - logp.max())
            out[i] += post / post.sum() / 2
    return out


def _slow_ensemble_p_wrong(r, labels, **options):
    return 1 - _slow_ensemble_posterior(r, **options)[np.arange(r.n_items), labels]


def test_ensemble_ranking_against_slow_reference():
    r, truth = _data(120, k=4, m=3, seed=11)
    x = np.array(r.to_wide().to_numpy(dtype=float))
    x[::5, 1] = np.nan  # some items have fewer ratings
    r = Ratings.from_wide(x)
    fit = _fit(r)  # published labels from another model (one-coin)
    design = verification_batch(fit, size=r.n_items, random_share=0.0, rng=0)
    pos = r.items.get_indexer(design["item"])
    # the members take the fit's own options (here: 2 starts, seed 0, no calibration)
    slow = _slow_ensemble_p_wrong(r, np.asarray(fit.label_codes), rng=0, n_starts=2)
    np.testing.assert_allclose(design["p_wrong"], slow[pos], atol=1e-9)
    assert (np.diff(design["p_wrong"]) <= 1e-12).all()  # ranked by it, highest first
    # the default fit (spam, held-out) is reused, not refitted: same ranking either way
    default = verification_batch(r, size=30, random_share=0.0, rng=0)
    spam = LatentClassModel("spam", rng=0, calibrate="held-out").fit(r)
    np.testing.assert_allclose(
        default["p_wrong"],
        verification_batch(spam, size=30, random_share=0.0, rng=0)["p_wrong"])
    np.testing.assert_allclose(
        default["p_wrong"],
        _slow_ensemble_p_wrong(r, np.asarray(spam.label_codes), rng=0, calibrate="held-out")[
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


def test_expected_error_reduction_by_enumeration():
    g = np.random.default_rng(5)
    for _ in range(50):
        m = int(g.integers(2, 5))
        pi = g.dirichlet(np.ones(m))
        a = g.dirichlet(np.ones(m), size=m) * 0.5 + np.eye(m) * 0.5
        got = expected_error_reduction(pi[None], a)[0]
        assert got == pytest.approx(_slow_eer(pi, a), abs=1e-12)


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
    ens = _slow_ensemble_posterior(r, rng=0, n_starts=2)
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
