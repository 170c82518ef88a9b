"""The bundled real data sets load, and reproduce their published values."""

import numpy as np
import pytest

from agreement import Ratings, fleiss_kappa
from goldnoise.datasets import load_dawid_skene1979, load_fleiss1971


def test_fleiss1971_published_kappa():
    # Fleiss (1971), Psychological Bulletin 76:378, prints kappa = 0.430 (3 decimals).
    ratings = Ratings.from_wide(load_fleiss1971())
    assert ratings.n_items == 30 and ratings.n_raters == 6 and ratings.n_categories == 5
    assert fleiss_kappa(ratings).value == pytest.approx(0.430, abs=5e-4)


def test_fleiss1971_codes_and_names_agree():
    names = Ratings.from_wide(load_fleiss1971())
    codes = Ratings.from_wide(load_fleiss1971(names=False))
    np.testing.assert_array_equal(names.counts, codes.counts)
    assert list(names.categories) == ["depression", "personality disorder", "schizophrenia",
                                      "neurosis", "other"]


def test_loaders_return_fresh_frames():
    a = load_fleiss1971()
    a.iloc[0, 0] = "other"
    assert load_fleiss1971().iloc[0, 0] == "neurosis"


def test_dawid_skene1979_shape():
    df = load_dawid_skene1979()
    # 45 patients; observer 1 three ratings each, observers 2-5 one each: 7 per patient.
    assert len(df) == 45 * 7
    assert df.groupby("patient").size().eq(7).all()


def test_krippendorff2011_printed_alphas():
    # Krippendorff (2011), example C: 0.743 nominal, 0.815 ordinal, 0.849 interval, 0.797 ratio.
    from agreement import krippendorff_alpha
    from goldnoise.datasets import load_krippendorff2011

    df = load_krippendorff2011()
    assert df.shape == (12, 4) and df.notna().sum().sum() == 41
    for level, printed in [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849),
                           ("ratio", 0.797)]:
        assert krippendorff_alpha(df, level=level).value == pytest.approx(printed, abs=5e-4)


def test_hayes_krippendorff2007_printed_alpha():
    from agreement import krippendorff_alpha
    from goldnoise.datasets import load_hayes_krippendorff2007

    df = load_hayes_krippendorff2007()
    assert df.shape == (40, 5)
    assert krippendorff_alpha(df, level="ordinal").value == pytest.approx(0.7598, abs=5e-5)


def test_artstein_poesio2008_printed_values():
    # A_o 0.88, Scott's pi 0.7995, Bennett's S 0.82 (Artstein & Poesio 2008, Tables 1-2).
    from agreement import brennan_prediger, percent_agreement, scott_pi
    from goldnoise.datasets import load_artstein_poesio2008

    r = Ratings.from_long(load_artstein_poesio2008(), item="item", rater="coder", label="label")
    assert r.n_items == 100 and r.n_raters == 2 and r.n_categories == 3
    assert percent_agreement(r).value == pytest.approx(0.88, abs=5e-3)
    assert scott_pi(r).value == pytest.approx(0.7995, abs=5e-5)
    assert brennan_prediger(r).value == pytest.approx(0.82, abs=5e-3)


@pytest.mark.parametrize("name, coefficient, printed", [
    ("krippendorff2011", "Krippendorff's alpha (interval)", 0.849),
    ("hayes_krippendorff2007", "Krippendorff's alpha (ordinal)", 0.7598),
    ("artstein_poesio2008", "Scott's pi", 0.7995),
])
def test_bundled_examples_audit_from_the_command_line(name, coefficient, printed, capsys):
    import json

    from goldnoise._cli import main

    assert main(["audit", "--example", name, "--no-latent", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["sections"]["agreement"]["tables"]["coefficients"]["rows"]
    value = {row["coefficient"]: row["value"] for row in rows}[coefficient]
    assert value == pytest.approx(printed, abs=5e-4)
    assert main(["examples"]) == 0
    assert name in capsys.readouterr().out
