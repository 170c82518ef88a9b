"""Real, published multi-annotator data sets shipped with goldnoise.

Each loader returns a fresh :class:`pandas.DataFrame`; sources and printed
values are in ``goldnoise/data/README.md`` and in each docstring.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_dawid_skene1979", "load_fleiss1971"]

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
