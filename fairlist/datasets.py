"""The paper's two data sets, COMPAS and Adult, prepared exactly as the paper prepares them.

``load_compas()`` and ``load_adult()`` return a :class:`Dataset`: the table, the binary label,
the sensitive attribute and the antecedent matrix (built by :class:`fairlist.binarize.Binarizer`).

Where the raw files come from
-----------------------------
Each loader needs one or two public files (``compas/compas-scores-two-years.csv``,
``adult/adult.data``, ``adult/adult.test``). They are looked up, in order:

1. at an explicit ``path`` (a file, or a folder holding the files directly or under their
   relative path); when given, nothing else is tried;
2. under the folder named by the ``FAIRLIST_DATA_HOME`` environment variable;
3. under the per-user cache (:func:`cache_dir`, e.g. ``~/.cache/fairlist``);
4. downloaded from the public source into ``data_home()`` (``FAIRLIST_DATA_HOME`` if set,
   else the cache) and checked against its published sha256. ``base_url=`` or the
   ``FAIRLIST_DATA_URL`` environment variable replaces the public source by a mirror that
   keeps the relative paths (``<base_url>/compas/compas-scores-two-years.csv``).

Without a network the error names the missing file, where it was looked for and where to put
it. Files found locally are trusted as they are (a user may bring a modified copy); downloads
are always verified.

Data sets are listed in :data:`DATASETS` (name → :class:`DatasetInfo`), the registry the command
line uses: ``DATASETS["compas"].load(min_support=0.01)``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._params import Options, validate_params
from .errors import DataError, FairlistError, InvalidParameterError

if TYPE_CHECKING:  # the loaders import it (and scikit-learn) on first use
    from .binarize import Binarizer

#: The sensitive groups a built-in data set can be loaded with (see load_compas, load_adult).
GROUPS = ("paper", "race", "race_sex")

__all__ = [
    "Dataset",
    "DatasetInfo",
    "RemoteFile",
    "DATASETS",
    "DataFileNotFoundError",
    "ChecksumError",
    "load_compas",
    "load_adult",
    "load_dataset",
    "data_home",
    "cache_dir",
    "fetch_file",
]

ENV_DATA_HOME = "FAIRLIST_DATA_HOME"
ENV_DATA_URL = "FAIRLIST_DATA_URL"


class DataFileNotFoundError(FairlistError, FileNotFoundError):
    """A data file is neither on disk nor downloadable; the message says where to put it."""


class ChecksumError(FairlistError, OSError):
    """A downloaded file does not have the published sha256; it was discarded."""


@dataclass(frozen=True)
class RemoteFile:
    """A public data file: where it lives relative to a data folder, its source and digest."""

    path: str  # relative path inside a data folder, e.g. "adult/adult.data"
    url: str  # public source
    sha256: str  # hex digest of the published file


@dataclass(frozen=True)
class Dataset:
    """A data set ready for the solvers.

    Attributes
    ----------
    name : str
    frame : DataFrame
        The kept rows, before discretisation (label and sensitive columns included).
    X : DataFrame of uint8
        Antecedents, one column per antecedent, named as in the paper (``age:18-20``).
    y : Series of uint8
        The label, 0/1 (1 = ``labels[1]``).
    sensitive : Series or DataFrame
        Group of each row (e.g. ``"African-American"`` / ``"Caucasian"``), or the columns
        whose combinations are the groups (intersections).
    protected : str or None
        The value of ``sensitive`` that marks the protected group of the paper's two groups
        (None: every value is a group).
    labels : tuple of str
        Names of label 0 and label 1, e.g. ``("no recidivism", "recidivism")``.
    description : str
    binarizer : Binarizer
        The fitted transformer that produced ``X`` (apply it to new rows of the same table).
    """

    name: str
    frame: pd.DataFrame
    X: pd.DataFrame
    y: pd.Series
    sensitive: pd.Series | pd.DataFrame
    protected: str | None
    labels: tuple[str, str]
    description: str
    binarizer: Binarizer = field(repr=False)

    @property
    def protected_mask(self) -> np.ndarray:
        """Boolean array: True for the rows of the protected group (the paper's two groups)."""
        if self.protected is None:
            raise DataError(f"{self.name} was loaded with every group; it has no protected one")
        return (self.sensitive == self.protected).to_numpy()

    @property
    def feature_names(self) -> list[str]:
        """Antecedent names, in column order of ``X``."""
        return [str(c) for c in self.X.columns]

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, rows={self.X.shape[0]}, antecedents={self.X.shape[1]}, "
            f"protected={self.protected!r}, labels={self.labels!r})"
        )


# --------------------------------------------------------------------------------------------
# Files: lookup, cache, download
# --------------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """The per-user cache folder of fairlist (platform convention; not created)."""
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
        return base / "fairlist" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "fairlist"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "fairlist"


def data_home(path: str | os.PathLike[str] | None = None) -> Path:
    """Where data files are looked for first and downloaded to.

    ``path`` if given, else ``$FAIRLIST_DATA_HOME`` if set, else :func:`cache_dir`.
    """
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get(ENV_DATA_HOME)
    if env:
        return Path(env).expanduser()
    return cache_dir()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download(url: str, target: Path, sha256: str, timeout: float) -> None:
    """Fetch ``url`` to ``target`` atomically, rejecting it unless its sha256 matches."""
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            for chunk in iter(lambda: resp.read(1 << 20), b""):
                digest.update(chunk)
                out.write(chunk)
        got = digest.hexdigest()
        if got != sha256:
            raise ChecksumError(
                f"{url} has sha256 {got}, expected {sha256}; the download was discarded"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def fetch_file(
    remote: RemoteFile,
    *,
    path: str | os.PathLike[str] | None = None,
    data_home: str | os.PathLike[str] | None = None,
    download: bool = True,
    base_url: str | None = None,
    timeout: float = 60.0,
) -> Path:
    """Find a data file locally or download it (see the module docstring for the order).

    Parameters
    ----------
    remote : RemoteFile
    path : path-like, optional
        The file itself, or a folder holding it (directly or under ``remote.path``). When
        given, it is the only place looked at.
    data_home : path-like, optional
        Replaces ``$FAIRLIST_DATA_HOME`` and the cache folder, for lookup and download.
    download : bool, default=True
        Allow downloading when the file is not found locally.
    base_url : str, optional
        Mirror to download from (default ``$FAIRLIST_DATA_URL``, else ``remote.url``).
    timeout : float, default=60
        Seconds to wait for the server.

    Returns
    -------
    Path
        The local file.

    Raises
    ------
    DataFileNotFoundError
        Not found, and not downloadable; the message says where to put the file.
    ChecksumError
        The downloaded file does not match its sha256.
    """
    name = Path(remote.path).name
    if path is not None:
        given = Path(path).expanduser()
        candidates = [given / remote.path, given / name] if given.is_dir() else [given]
        for candidate in candidates:
            if candidate.is_file():
                return candidate
        raise DataFileNotFoundError(
            f"{remote.path} not found at {given} (looked at "
            f"{', '.join(str(c) for c in candidates)}); download it from {remote.url}"
        )
    if data_home is not None:
        folders = [Path(data_home).expanduser()]
    else:
        env = os.environ.get(ENV_DATA_HOME)
        folders = ([Path(env).expanduser()] if env else []) + [cache_dir()]
    for folder in folders:
        candidate = folder / remote.path
        if candidate.is_file():
            return candidate
    target = folders[0] / remote.path
    searched = ", ".join(str(f / remote.path) for f in folders)
    if not download:
        raise DataFileNotFoundError(
            f"{remote.path} not found (looked at {searched}) and download=False; download it "
            f"from {remote.url} and put it at {target}, or set {ENV_DATA_HOME} to a folder "
            f"holding {remote.path}"
        )
    mirror = base_url if base_url is not None else os.environ.get(ENV_DATA_URL)
    url = f"{mirror.rstrip('/')}/{remote.path}" if mirror else remote.url
    try:
        _download(url, target, remote.sha256, timeout)
    except ChecksumError:
        raise
    except (urllib.error.URLError, OSError) as exc:
        raise DataFileNotFoundError(
            f"{remote.path} not found (looked at {searched}) and the download from {url} "
            f"failed ({exc}); download it from {remote.url} and put it at {target}, or set "
            f"{ENV_DATA_HOME} to a folder holding {remote.path}"
        ) from exc
    return target


# --------------------------------------------------------------------------------------------
# COMPAS
# --------------------------------------------------------------------------------------------

COMPAS_FILE = RemoteFile(
    "compas/compas-scores-two-years.csv",
    "https://raw.githubusercontent.com/propublica/compas-analysis/master/"
    "compas-scores-two-years.csv",
    "c451db85908b2f7fef1d83203bedf6b71ecda0d5af468d82ae62178f91d0cc7d",
)

COMPAS_DESCRIPTION = (
    "ProPublica COMPAS two-year recidivism (Broward County, 2013-2014), African-American vs "
    "Caucasian defendants after ProPublica's filters; label: re-offended within two years."
)


def _bucket(values: pd.Series, edges: list[int], labels: list[str]) -> pd.Categorical:
    """Integer values to ordered categories: ``labels[i]`` is ``edges[i] <= v < edges[i+1]``."""
    codes = np.searchsorted(np.asarray(edges), values.to_numpy(), side="right") - 1
    if codes.min() < 0:
        raise DataError(f"{values.name} has values below {edges[0]}")
    return pd.Categorical.from_codes(codes, categories=labels)


#: The raw COMPAS columns the paper uses (ProPublica's names), in the order the data set keeps.
_COMPAS_COLUMNS = (
    "sex",
    "age",
    "race",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "c_charge_degree",
    "two_year_recid",
)


def compas_table(raw: pd.DataFrame, all_races: bool = False) -> pd.DataFrame:
    """ProPublica's filters and the paper's discretisation of the raw COMPAS table.

    Keeps the rows with ``-30 <= days_b_screening_arrest <= 30``, ``is_recid != -1``,
    ``c_charge_degree != "O"`` and a COMPAS score, of African-American or Caucasian
    defendants (of every race with ``all_races``). Returns the kept rows of the raw columns
    used, plus the discretised ones:
    ``age`` (18-20, 21-22, 23-25, 26-45, >45), ``priors`` (0, 1, 2-3, >3),
    ``juvenile-felonies`` / ``juvenile-misdemeanors`` / ``juvenile-crimes`` (0, >0; the last
    is ProPublica's ``juv_other_count``), ``charge-degree`` (Felony, Misdemeanor) and
    ``gender`` (Female, Male).
    """
    keep = (
        raw["days_b_screening_arrest"].between(-30, 30)
        & (raw["is_recid"] != -1)
        & (raw["c_charge_degree"] != "O")
        & raw["score_text"].notna()
        & (raw["score_text"] != "N/A")
        & (all_races | raw["race"].isin(["African-American", "Caucasian"]))
    )
    table = raw.loc[keep, list(_COMPAS_COLUMNS)].reset_index(drop=True)
    big = 10**9
    table["age_cat"] = _bucket(
        table["age"], [0, 21, 23, 26, 46, big], ["18-20", "21-22", "23-25", "26-45", ">45"]
    )
    table["priors_cat"] = _bucket(table["priors_count"], [0, 1, 2, 4, big], ["0", "1", "2-3", ">3"])
    for src in ("juv_fel_count", "juv_misd_count", "juv_other_count"):
        table[src + "_cat"] = _bucket(table[src], [0, 1, big], ["0", ">0"])
    degree = table["c_charge_degree"].map({"F": "Felony", "M": "Misdemeanor"})
    table["charge_cat"] = pd.Categorical(degree, categories=["Felony", "Misdemeanor"])
    table["gender_cat"] = pd.Categorical(table["sex"], categories=["Female", "Male"])
    return table


_COMPAS_FEATURES = {  # antecedent prefix -> column of compas_table(); order = antecedent order
    "age": "age_cat",
    "priors": "priors_cat",
    "juvenile-felonies": "juv_fel_count_cat",
    "juvenile-misdemeanors": "juv_misd_count_cat",
    "juvenile-crimes": "juv_other_count_cat",
    "charge-degree": "charge_cat",
    "gender": "gender_cat",
}


def load_compas(
    path: str | os.PathLike[str] | None = None,
    *,
    min_support: float = 0.01,
    negations: bool = True,
    conjunctions: bool = True,
    max_antecedents: int | None = None,
    groups: str = "paper",
    data_home: str | os.PathLike[str] | None = None,
    download: bool = True,
    base_url: str | None = None,
) -> Dataset:
    """COMPAS prepared as in the paper (race as the sensitive attribute).

    About 5,278 rows (ProPublica's filters, African-American and Caucasian defendants); the
    protected group is African-American; label 1 = re-offended within two years. Single
    antecedents: age, priors, juvenile felonies / misdemeanours / other crimes, charge degree,
    gender (19 of them); with the defaults also their negations and the two-clause
    conjunctions with support >= 0.01 (163 antecedents in all, like the authors' published
    ``compas_rules_full.csv``).

    Parameters
    ----------
    path : path-like, optional
        ``compas-scores-two-years.csv`` or a folder holding it.
    min_support, negations, conjunctions, max_antecedents
        Passed to :class:`~fairlist.binarize.Binarizer`.
    groups : {"paper", "race", "race_sex"}, default="paper"
        The sensitive groups: the paper's two (African-American, protected, and Caucasian
        defendants only); every race (six groups, every defendant); or the race x sex
        intersections (every defendant; gender is then not an antecedent). The sensitive
        attributes are never antecedents.
    data_home, download, base_url
        Passed to :func:`fetch_file`.
    """
    validate_params("load_compas", {"groups": [Options(GROUPS)]}, {"groups": groups})
    file = fetch_file(
        COMPAS_FILE, path=path, data_home=data_home, download=download, base_url=base_url
    )
    table = compas_table(pd.read_csv(file), all_races=groups != "paper")
    features = pd.DataFrame(
        {
            name: table[col]
            for name, col in _COMPAS_FEATURES.items()
            if not (groups == "race_sex" and name == "gender")
        }
    )
    from .binarize import Binarizer

    binarizer = Binarizer(
        min_support=min_support,
        negations=negations,
        conjunctions=conjunctions,
        max_antecedents=max_antecedents,
    ).fit(features)
    X = pd.DataFrame(
        binarizer.transform(features), columns=binarizer.get_feature_names_out(), index=table.index
    )
    frame = table[list(_COMPAS_COLUMNS)]
    return Dataset(
        name="compas",
        frame=frame,
        X=X,
        y=table["two_year_recid"].astype(np.uint8).rename("two_year_recid"),
        sensitive=table["race"] if groups != "race_sex" else table[["race", "sex"]],
        protected="African-American" if groups == "paper" else None,
        labels=("no recidivism", "recidivism"),
        description=COMPAS_DESCRIPTION,
        binarizer=binarizer,
    )


# --------------------------------------------------------------------------------------------
# Adult
# --------------------------------------------------------------------------------------------

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
ADULT_FILES = (
    RemoteFile(
        "adult/adult.data",
        _UCI + "adult.data",
        "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    ),
    RemoteFile(
        "adult/adult.test",
        _UCI + "adult.test",
        "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    ),
)

ADULT_DESCRIPTION = (
    "UCI Adult (1994 US census), adult.data + adult.test without rows with missing values; "
    "sensitive attribute gender (protected: Female); label: income > 50K."
)

_ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]

_EDUCATION = {
    **dict.fromkeys(
        ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th"], "dropout"
    ),
    "HS-grad": "hs_grad",
    "Some-college": "some_college",
    "Assoc-voc": "associate",
    "Assoc-acdm": "associate",
    "Bachelors": "bachelors",
    "Masters": "masters_doctorate",
    "Doctorate": "masters_doctorate",
    "Prof-school": "prof_school",
}
_WORKCLASS = {
    "Private": "private",
    "Self-emp-not-inc": "self_employed",
    "Self-emp-inc": "self_employed",
    "Federal-gov": "government",
    "Local-gov": "government",
    "State-gov": "government",
    "Without-pay": "without_pay",
    "Never-worked": "without_pay",
}
_MARITAL = {"Married-civ-spouse": "married", "Married-AF-spouse": "married"}  # else "single"
_PROFESSIONAL = {"Prof-specialty", "Exec-managerial"}  # else "not_professional"


def read_adult(files: list[Path]) -> pd.DataFrame:
    """The raw UCI Adult rows of ``files`` (``adult.test``'s header line and label dots handled),
    without the rows that have a missing value (``?``)."""
    parts = []
    for file in files:
        part = pd.read_csv(
            file,
            header=None,
            names=_ADULT_COLUMNS,
            skipinitialspace=True,
            na_values="?",
            comment="|",  # adult.test opens with "|1x3 Cross validator"
        )
        parts.append(part.dropna(how="all"))
    raw = pd.concat(parts, ignore_index=True)
    raw["income"] = raw["income"].str.rstrip(".")
    return raw.dropna().reset_index(drop=True)


def adult_table(raw: pd.DataFrame) -> pd.DataFrame:
    """The columns the paper's listings use, with its names and category groupings.

    Numeric: ``age``, ``capitalGain``, ``capitalLoss``, ``hoursPerWeek`` (cut later by MDLP).
    Categorical: ``workclass`` (private, self_employed, government, without_pay), ``education``
    (dropout, hs_grad, some_college, associate, bachelors, masters_doctorate, prof_school),
    ``maritalStatus`` (married, single), ``occupation`` (professional, not_professional),
    ``race`` (white, non_white), ``nativeCountry`` (united_states, other). Left out: ``fnlwgt``
    (a census sampling weight, not a trait of the person), ``education-num`` (a code of
    ``education``) and ``relationship`` (its values Husband/Wife spell out the sensitive
    attribute, and the rest repeats ``maritalStatus``). Also ``gender`` (sensitive) and
    ``income`` (label).
    """
    out = pd.DataFrame(
        {
            "age": raw["age"].astype(np.int64),
            "workclass": raw["workclass"].map(_WORKCLASS),
            "education": raw["education"].map(_EDUCATION),
            "maritalStatus": raw["marital-status"].map(_MARITAL).fillna("single"),
            "occupation": np.where(
                raw["occupation"].isin(_PROFESSIONAL), "professional", "not_professional"
            ),
            "race": np.where(raw["race"] == "White", "white", "non_white"),
            "capitalGain": raw["capital-gain"].astype(np.int64),
            "capitalLoss": raw["capital-loss"].astype(np.int64),
            "hoursPerWeek": raw["hours-per-week"].astype(np.int64),
            "nativeCountry": np.where(
                raw["native-country"] == "United-States", "united_states", "other"
            ),
            "gender": raw["sex"],
            "income": raw["income"],
        }
    )
    unmapped = out[["workclass", "education"]].isna().sum()
    if unmapped.any():
        raise DataError(f"unexpected Adult categories: {unmapped[unmapped > 0].to_dict()}")
    return out


def load_adult(
    path: str | os.PathLike[str] | None = None,
    *,
    min_support: float = 0.1,
    negations: bool = True,
    conjunctions: bool = True,
    max_antecedents: int | None = None,
    random_state: int = 0,
    use_test: bool = True,
    groups: str = "paper",
    data_home: str | os.PathLike[str] | None = None,
    download: bool = True,
    base_url: str | None = None,
) -> Dataset:
    """Adult prepared as in the paper (gender as the sensitive attribute).

    ``adult.data`` and ``adult.test`` together (the paper's "more than 45,000 individuals"),
    rows with a missing value dropped (45,222 left); MDLP cut points of the numeric columns are
    learned on a random third of the rows (seeded by ``random_state``) and applied to the other
    two thirds, which are kept (30,148 rows) and from which conjunctions are mined. Protected
    group: Female; label 1 = income > 50K. See :func:`adult_table` for the columns.

    Parameters
    ----------
    path : path-like, optional
        A folder holding ``adult.data`` and ``adult.test``.
    min_support, negations, conjunctions, max_antecedents
        Passed to :class:`~fairlist.binarize.Binarizer`.
    random_state : int, default=0
        Seed of the one-third / two-thirds split.
    use_test : bool, default=True
        Also read ``adult.test`` (False: ``adult.data`` only, about 20,100 rows kept).
    groups : {"paper", "race", "race_sex"}, default="paper"
        The sensitive groups: the paper's two (Female, protected, and Male); every race of the
        census (five groups; gender is then an antecedent and ``race`` is not); or the race x
        gender intersections. The sensitive attributes are never antecedents.
    data_home, download, base_url
        Passed to :func:`fetch_file`.
    """
    validate_params("load_adult", {"groups": [Options(GROUPS)]}, {"groups": groups})
    remotes = ADULT_FILES if use_test else ADULT_FILES[:1]
    files = [
        fetch_file(r, path=path, data_home=data_home, download=download, base_url=base_url)
        for r in remotes
    ]
    raw = read_adult(files)
    table = adult_table(raw)
    if groups != "paper":  # every race value, not the paper's white / non-white antecedent
        table["race"] = raw["race"].to_numpy()
    sensitive = {"paper": "gender", "race": "race", "race_sex": ["race", "gender"]}[groups]
    y_all = (table["income"] == ">50K").astype(np.uint8)
    rng = np.random.default_rng(random_state)
    order = rng.permutation(len(table))
    n_learn = len(table) // 3
    learn, kept = np.sort(order[:n_learn]), np.sort(order[n_learn:])
    features = table.drop(columns=["income"])

    from .binarize import Binarizer

    cutter = Binarizer(sensitive=sensitive, numeric="mdlp", negations=False, conjunctions=False)
    cutter.fit(features.iloc[learn], y_all.iloc[learn])
    binarizer = Binarizer(
        sensitive=sensitive,
        cut_points=cutter.cut_points_,
        min_support=min_support,
        negations=negations,
        conjunctions=conjunctions,
        max_antecedents=max_antecedents,
    )
    frame = table.iloc[kept].reset_index(drop=True)
    kept_features = features.iloc[kept].reset_index(drop=True)
    binarizer.fit(kept_features)
    X = pd.DataFrame(
        binarizer.transform(kept_features),
        columns=binarizer.get_feature_names_out(),
        index=frame.index,
    )
    return Dataset(
        name="adult",
        frame=frame,
        X=X,
        y=y_all.iloc[kept].reset_index(drop=True).rename("income"),
        sensitive=frame[sensitive],
        protected="Female" if groups == "paper" else None,
        labels=("<=50K", ">50K"),  # sorted as classes: ">50K" is the positive one
        description=ADULT_DESCRIPTION,
        binarizer=binarizer,
    )


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DatasetInfo:
    """A registered data set: its loader, files and the paper's minimal support."""

    name: str
    description: str
    loader: Callable[..., Dataset]
    files: tuple[RemoteFile, ...]
    min_support: float  # the paper's sigma for this data set (the loader's default)

    def load(self, path: str | os.PathLike[str] | None = None, **kwargs: object) -> Dataset:
        """Call the loader (keyword arguments as :func:`load_compas` / :func:`load_adult`)."""
        return self.loader(path, **kwargs)


DATASETS: dict[str, DatasetInfo] = {
    "compas": DatasetInfo("compas", COMPAS_DESCRIPTION, load_compas, (COMPAS_FILE,), 0.01),
    "adult": DatasetInfo("adult", ADULT_DESCRIPTION, load_adult, ADULT_FILES, 0.1),
}


def load_dataset(
    name: str, path: str | os.PathLike[str] | None = None, **kwargs: object
) -> Dataset:
    """Load a registered data set by name (``"compas"`` or ``"adult"``)."""
    try:
        info = DATASETS[name]
    except KeyError:
        raise InvalidParameterError(
            f"name must be one of {sorted(DATASETS)}, got {name!r}"
        ) from None
    return info.load(path, **kwargs)
