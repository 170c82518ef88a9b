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
