"""Real, published multi-annotator data sets shipped with goldnoise.

Each loader returns a fresh :class:`pandas.DataFrame`; sources and printed
values are in ``goldnoise/data/README.md`` and in each docstring.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_artstein_poesio2008", "load_dawid_skene1979", "load_fleiss1971",
           "load_hayes_krippendorff2007", "load_krippendorff2011"]

FLEISS1971_DIAGNOSES = {
    1: "depression",
    2: "personality disorder",
    3: "schizophrenia",
    4: "neurosis",
    5: "other",
}


def _read(name: str, **kwargs) -> pd.DataFrame:
    with resources.files("goldnoise").joinpath("data", name).open("r") as fh:
        return pd.read_csv(fh, **kwargs)


def load_fleiss1971(*, names: bool = True) -> pd.DataFrame:
    """Fleiss (1971): 30 patients, each diagnosed by 6 of a pool of psychiatrists.

    Parameters
    ----------
    names : bool, default True
        Return the diagnoses as names (``"depression"``, ``"personality
        disorder"``, ``"schizophrenia"``, ``"neurosis"``, ``"other"``, as an
        unordered categorical); with ``False``, the printed codes 1–5.

    Returns
    -------
    pandas.DataFrame, shape (30, 6)
        Wide: one row per patient (index ``subject``), one column per rating
        slot ``rater1`` … ``rater6``.

    Notes
    -----
    The six annotators of a patient were drawn from a larger pool, so the columns
    are rating slots rather than the same six people: use the coefficients
    that treat annotators as exchangeable (Fleiss κ, Gwet's AC1, Krippendorff's
    α). Fleiss (1971) prints κ = 0.430.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    *Psychological Bulletin* 76(5), 378–382. doi:10.1037/h0031619

    Examples
    --------
    >>> from goldnoise.datasets import load_fleiss1971
    >>> df = load_fleiss1971()
    >>> df.shape
    (30, 6)
    >>> df.iloc[0].tolist()
    ['neurosis', 'neurosis', 'neurosis', 'neurosis', 'neurosis', 'neurosis']
    """
    frame = _read("fleiss1971_diagnoses.csv", index_col="subject")
    if not names:
        return frame
    dtype = pd.CategoricalDtype(list(FLEISS1971_DIAGNOSES.values()))
    return frame.apply(lambda col: col.map(FLEISS1971_DIAGNOSES).astype(dtype))


def load_dawid_skene1979() -> pd.DataFrame:
    """Dawid & Skene (1979): 45 patients rated by 5 observers, classes 1–4.

    Returns
    -------
    pandas.DataFrame
        Long: columns ``patient``, ``observer``, ``replicate``, ``rating``;
        observer 1 rated every patient three times (replicates 1–3).

    References
    ----------
    Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of
    observer error-rates using the EM algorithm. *Applied Statistics* 28(1),
    20–28. doi:10.2307/2346806

    Examples
    --------
    >>> from goldnoise.datasets import load_dawid_skene1979
    >>> df = load_dawid_skene1979()
    >>> df["patient"].nunique(), sorted(df["rating"].unique().tolist())
    (45, [1, 2, 3, 4])
    """
    return _read("dawid_skene1979_anaesthesia.csv")


def load_krippendorff2011() -> pd.DataFrame:
    """Krippendorff (2011), example C: 12 units coded by 4 coders, values 1–5, with gaps.

    Returns
    -------
    pandas.DataFrame, shape (12, 4)
        Wide, one row per unit (index ``unit``: ``u1`` … ``u12``), one column
        per coder (``coder_A`` … ``coder_D``), values 1–5 as floats, NaN where
        a coder gave no value. The paper prints the coders as rows; this is
        the same table turned around (units × coders, goldnoise's layout).

    Notes
    -----
    Krippendorff prints α = 0.743 (nominal), 0.815 (ordinal), 0.849
    (interval) and 0.797 (ratio). Unit 12 has a single value, so it is not
    pairable and counts in no coefficient.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's alpha-reliability*.
    Departmental Papers (ASC) 43, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> from agreement import krippendorff_alpha
    >>> from goldnoise.datasets import load_krippendorff2011
    >>> df = load_krippendorff2011()
    >>> df.shape
    (12, 4)
    >>> round(krippendorff_alpha(df, level="interval").value, 3)
    0.849
    """
    frame = _read("krippendorff2011_C.csv", index_col="coder").T
    frame.index.name = "unit"
    frame.columns.name = None
    return frame.astype("float64")


def load_hayes_krippendorff2007() -> pd.DataFrame:
    """Hayes & Krippendorff (2007), Table 1: the tone of 40 news articles, 5 observers.

    Returns
    -------
    pandas.DataFrame, shape (40, 5)
        Wide, one row per article (index ``unit``), one column per observer
        (``obs1`` … ``obs5``), tone coded 0–3 (an ordinal scale) as floats,
        NaN where an observer did not code the article.

    Notes
    -----
    Hayes & Krippendorff print ordinal α = 0.7598 (their KALPHA macro).

    References
    ----------
    Hayes, A. F. & Krippendorff, K. (2007). Answering the call for a standard
    reliability measure for coding data. *Communication Methods and Measures*
    1(1), 77–89. doi:10.1080/19312450709336664

    Examples
    --------
    >>> from agreement import krippendorff_alpha
    >>> from goldnoise.datasets import load_hayes_krippendorff2007
    >>> df = load_hayes_krippendorff2007()
    >>> df.shape
    (40, 5)
    >>> round(krippendorff_alpha(df, level="ordinal").value, 4)
    0.7598
    """
    return _read("hayes_krippendorff2007_news_tone.csv", index_col="unit").astype("float64")


def load_artstein_poesio2008() -> pd.DataFrame:
    """Artstein & Poesio (2008): 100 utterances labelled by 2 coders (the running example).

    Returns
    -------
    pandas.DataFrame, shape (200, 3)
        Long: columns ``coder`` (``a``, ``b``), ``item`` (1–100) and ``label``
        (``stat`` statement, ``ireq`` info request, ``chck`` check).

    Notes
    -----
    Artstein & Poesio print observed agreement A_o = 0.88, Scott's π =
    0.7995 and Bennett's S = 0.82 for these data.

    References
    ----------
    Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational
    linguistics. *Computational Linguistics* 34(4), 555–596.
    doi:10.1162/coli.07-034-R2

    Examples
    --------
    >>> from agreement import Ratings, scott_pi
    >>> from goldnoise.datasets import load_artstein_poesio2008
    >>> df = load_artstein_poesio2008()
    >>> r = Ratings.from_long(df, item="item", rater="coder", label="label")
    >>> round(scott_pi(r).value, 4)
    0.7995
    """
    return _read("artstein_poesio2008.csv")
