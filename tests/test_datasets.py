"""Tests of fairlist.datasets: the paper's preparation of COMPAS and Adult, file lookup, download.

Data come from ../shared/data (the ``shared_data`` fixture skips when it is absent). Downloads
go to a local HTTP server on 127.0.0.1; an autouse guard fails any test that tries another host.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import socket
import threading
import urllib.parse
from pathlib import Path

import numpy as np
import pytest

from fairlist import datasets
from fairlist.binarize import mdlp_cut_points
from fairlist.datasets import (
    COMPAS_FILE,
    DATASETS,
    ChecksumError,
    DataFileNotFoundError,
    cache_dir,
    data_home,
    fetch_file,
    load_adult,
    load_compas,
    load_dataset,
)

# ------------------------------------------------------------------ guards and fixtures


@pytest.fixture(autouse=True)
def _local_only(monkeypatch, tmp_path):
    """No real network, no real cache: every test gets its own empty data home and cache."""
    real = datasets.urllib.request.urlopen

    def guarded(url, *args, **kwargs):
        host = urllib.parse.urlsplit(url if isinstance(url, str) else url.full_url).hostname
        assert host == "127.0.0.1", f"a test tried to reach {url}"
        return real(url, *args, **kwargs)

    monkeypatch.setattr(datasets.urllib.request, "urlopen", guarded)
    monkeypatch.delenv(datasets.ENV_DATA_HOME, raising=False)
    monkeypatch.delenv(datasets.ENV_DATA_URL, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture(scope="module")
def dataset(request):
    data = request.getfixturevalue("shared_data")
    return load_compas(data)


@pytest.fixture(scope="module")
def adult(request):
    data = request.getfixturevalue("shared_data")
    return load_adult(data / "adult")


class _Server:
    """An http.server on 127.0.0.1 (ephemeral port) serving a folder, counting requests."""

    def __init__(self, folder: Path):
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):  # keep the test output clean
                pass

            def do_GET(self):
                server.requests.append(self.path)
                super().do_GET()

        self.requests: list[str] = []
        handler = functools.partial(Handler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def server(shared_data):
    srv = _Server(shared_data)
    yield srv
    srv.close()


@pytest.fixture
def corrupt_server(shared_data, tmp_path):
    folder = tmp_path / "corrupt"
    target = folder / COMPAS_FILE.path
    target.parent.mkdir(parents=True)
    data = bytearray((shared_data / COMPAS_FILE.path).read_bytes())
    data[1000] ^= 0x01  # one flipped bit
    target.write_bytes(bytes(data))
    srv = _Server(folder)
    yield srv
    srv.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ------------------------------------------------------------------ COMPAS against the paper


def _published_to_ours(name: str) -> str:
    """Name of an antecedent of compas_rules_full.csv in our notation.

    ``age_18-20`` -> ``age:18-20``, ``juvenile-felonies_=0`` -> ``juvenile-felonies:0``,
    ``juvenile-crimes_>0`` -> ``juvenile-crimes:>0``, ``priors_2-3`` -> ``priors:2-3``,
    ``charge_degree_Felony`` -> ``charge-degree:Felony``, ``gender_Male`` -> ``gender:Male``,
    ``not_X`` -> ``not X``; conjunctions ``A__AND__B`` are handled by the caller.
    """
    if name.startswith("not_"):
        return "not " + _published_to_ours(name[len("not_") :])
    feature, value = name.rsplit("_", 1)
    feature = {"charge_degree": "charge-degree"}.get(feature, feature)
    return f"{feature}:{value.removeprefix('=')}"


def _conjunction_key(name: str) -> frozenset[str]:
    return frozenset(_published_to_ours(part) for part in name.split("__AND__"))


def test_compas_keeps_within_one_percent_of_the_published_rows(dataset, compas_published):
    assert abs(len(dataset.X) - len(compas_published)) <= 0.01 * len(compas_published)
    assert len(dataset.X) == len(dataset.y) == len(dataset.sensitive) == len(dataset.frame)


def test_compas_single_antecedents_of_the_published_file_exist_with_support_within_1pp(
    dataset, compas_published
):
    antecedents = [c for c in compas_published.columns[2:-1] if "__AND__" not in c]
    assert len(antecedents) == 38  # 19 single antecedents and their negations
    for name in antecedents:
        ours = _published_to_ours(name)
        assert ours in dataset.X.columns, f"{name} ({ours}) is missing"
        assert abs(dataset.X[ours].mean() - compas_published[name].mean()) <= 0.01, name


def test_compas_conjunctions_are_those_of_the_published_file(dataset, compas_published):
    theirs = {_conjunction_key(c): c for c in compas_published.columns if "__AND__" in c}
    ours = {frozenset(c.split(" && ")): c for c in dataset.X.columns if " && " in c}
    assert set(ours) == set(theirs)
    for key, name in ours.items():
        assert abs(dataset.X[name].mean() - compas_published[theirs[key]].mean()) <= 0.01, name


def test_compas_antecedent_count_matches_the_published_file_and_the_papers_range(
    dataset, compas_published
):
    n_published = compas_published.shape[1] - 3  # minus the two group columns and the label
    assert dataset.X.shape[1] == n_published
    # the paper reports N=166: the column count of the published file (groups and label
    # included); the antecedents are 166 - 3
    assert compas_published.shape[1] == 166


def test_compas_groups_and_label_agree_with_the_published_file(dataset, compas_published):
    assert dataset.protected == "African-American"
    assert set(dataset.sensitive.unique()) == {"African-American", "Caucasian"}
    protected = compas_published["race_African-American"]
    assert abs(dataset.protected_mask.mean() - protected.mean()) < 0.01
    assert abs(dataset.y.mean() - compas_published["two_year_recid"].mean()) < 0.01
    assert dataset.labels == ("no recidivism", "recidivism")
    assert not any("race" in c or "African" in c for c in dataset.X.columns)


def test_compas_antecedents_of_the_papers_rule_lists_exist(dataset):
    for name in [
        "priors:>3",
        "age:21-22 && gender:Male",
        "age:18-20",
        "age:23-25 && priors:2-3",
        "juvenile-misdemeanors:0 && priors:1",
    ]:
        parts = frozenset(name.split(" && "))
        assert any(frozenset(c.split(" && ")) == parts for c in dataset.X.columns), name


def test_compas_options_reach_the_binarizer(shared_data, dataset):
    singles = load_compas(shared_data, negations=False, conjunctions=False)
    assert singles.X.shape[1] == len(dataset.binarizer.single_names_) == 19
    denser = load_compas(shared_data, min_support=0.05)
    assert denser.X.shape[1] < dataset.X.shape[1]


def test_compas_matrix_is_uint8_and_matches_the_binarizer(dataset):
    assert all(dt == np.uint8 for dt in dataset.X.dtypes)
    assert dataset.y.dtype == np.uint8 and set(dataset.y.unique()) == {0, 1}


# ------------------------------------------------------------------ Adult


def test_adult_keeps_two_thirds_of_the_rows_without_missing_values(adult, shared_data):
    raw = datasets.read_adult(
        [shared_data / "adult" / "adult.data", shared_data / "adult" / "adult.test"]
    )
    assert not raw.isna().any().any()
    assert len(adult.X) == len(raw) - len(raw) // 3
    assert abs(len(adult.X) - 30_300) <= 0.01 * 30_300  # the paper's M = 30,300


def test_adult_uses_gender_as_sensitive_attribute_and_never_as_antecedent(adult):
    assert adult.protected == "Female" and set(adult.sensitive.unique()) == {"Female", "Male"}
    assert not any("gender" in c or "Female" in c for c in adult.X.columns)
    assert adult.labels == ("<=50K", ">50K") and sorted(adult.labels) == list(adult.labels)
    assert 0.2 < adult.y.mean() < 0.3  # about 24% earn more than 50K


def test_adult_cut_points_come_from_the_held_out_third(adult, shared_data):
    table = datasets.adult_table(
        datasets.read_adult(
            [shared_data / "adult" / "adult.data", shared_data / "adult" / "adult.test"]
        )
    )
    y = (table["income"] == ">50K").to_numpy()
    order = np.random.default_rng(0).permutation(len(table))
    learn = np.sort(order[: len(table) // 3])
    for col, cuts in adult.binarizer.cut_points_.items():
        expected = np.unique(np.ceil(mdlp_cut_points(table[col].to_numpy()[learn], y[learn])))
        np.testing.assert_array_equal(cuts, expected)


def test_adult_split_is_seeded(shared_data, adult):
    other = load_adult(shared_data / "adult", random_state=1, conjunctions=False)
    same = load_adult(shared_data / "adult", random_state=0, conjunctions=False)
    assert not other.frame.equals(adult.frame)
    assert same.frame.equals(adult.frame)


def test_adult_conjunctions_have_support_at_least_min_support(adult):
    conj = [c for c in adult.X.columns if " && " in c]
    assert conj and adult.X[conj].mean().min() >= 0.1


def test_adult_reproduces_most_antecedents_of_the_papers_rule_lists(adult):
    """The paper's Adult listings; ``>k`` on an integer column is our ``>=k+1``."""
    paper = [
        "capitalGain:>=5119",
        "maritalStatus:single",
        "workclass:private && education:bachelors",
        "education:masters_doctorate",
        "capitalLoss:1882-1978",
        "occupation:not_professional",
        "hoursPerWeek:>=51 && workclass:private",
        "age:36-61",
        "age:<21",
        "capitalGain:>=7074",
        "capitalLoss:2385-2581",
        "not capitalLoss:1882-1978",
        "maritalStatus:married",
        "capitalGain:>=5120",
        "education:prof_school",
        "hoursPerWeek:<34",
        "capitalGain:5317-7073",
        "capitalLoss:1821-1862",
    ]
    ours = {frozenset(c.split(" && ")) for c in adult.X.columns}
    found = [name for name in paper if frozenset(name.split(" && ")) in ours]
    assert len(found) >= len(paper) // 2, found


# ------------------------------------------------------------------ registry


def test_registry_lists_both_data_sets_with_the_papers_support(shared_data):
    assert set(DATASETS) == {"compas", "adult"}
    assert DATASETS["compas"].min_support == 0.01 and DATASETS["adult"].min_support == 0.1
    ds = load_dataset("compas", shared_data, conjunctions=False)
    assert ds.name == "compas"
    with pytest.raises(ValueError, match="name must be one of"):
        load_dataset("iris")


# ------------------------------------------------------------------ file lookup and download


def test_explicit_path_may_be_the_file_or_a_folder(shared_data):
    direct = shared_data / COMPAS_FILE.path
    assert fetch_file(COMPAS_FILE, path=direct) == direct
    assert fetch_file(COMPAS_FILE, path=shared_data) == direct
    assert fetch_file(COMPAS_FILE, path=direct.parent) == direct


def test_explicit_path_that_lacks_the_file_is_an_error_without_download(tmp_path, server):
    with pytest.raises(DataFileNotFoundError, match="compas-scores-two-years.csv not found"):
        fetch_file(COMPAS_FILE, path=tmp_path, base_url=server.url)
    assert server.requests == []


def test_data_home_environment_variable_is_searched(monkeypatch, shared_data):
    monkeypatch.setenv(datasets.ENV_DATA_HOME, str(shared_data))
    assert data_home() == shared_data
    assert fetch_file(COMPAS_FILE, download=False) == shared_data / COMPAS_FILE.path


def test_cache_dir_follows_xdg_cache_home(tmp_path):
    assert cache_dir() == tmp_path / "xdg-cache" / "fairlist"
    assert data_home() == cache_dir()


def test_download_from_a_mirror_fills_the_data_home_once(tmp_path, server, shared_data):
    home = tmp_path / "home"
    got = fetch_file(COMPAS_FILE, data_home=home, base_url=server.url)
    assert got == home / COMPAS_FILE.path
    assert got.read_bytes() == (shared_data / COMPAS_FILE.path).read_bytes()
    assert server.requests == ["/" + COMPAS_FILE.path]
    again = load_compas(data_home=home, base_url=server.url, conjunctions=False)
    assert server.requests == ["/" + COMPAS_FILE.path]  # found locally the second time
    assert len(again.X) == len(load_compas(shared_data, conjunctions=False).X)


def test_download_goes_to_the_cache_and_uses_the_url_environment_variable(
    monkeypatch, server, shared_data
):
    monkeypatch.setenv(datasets.ENV_DATA_URL, server.url)
    ds = load_adult(conjunctions=False, use_test=False)
    for remote in datasets.ADULT_FILES[:1]:
        assert (cache_dir() / remote.path).is_file()
    assert len(server.requests) == 1 and len(ds.X) > 20_000


def test_corrupted_download_is_rejected_and_leaves_nothing_behind(tmp_path, corrupt_server):
    home = tmp_path / "home"
    with pytest.raises(ChecksumError, match="expected c451db"):
        fetch_file(COMPAS_FILE, data_home=home, base_url=corrupt_server.url)
    folder = home / Path(COMPAS_FILE.path).parent
    assert not folder.exists() or list(folder.iterdir()) == []


def test_no_network_error_names_the_file_and_where_to_put_it(tmp_path):
    home = tmp_path / "home"
    with pytest.raises(DataFileNotFoundError) as info:
        load_compas(data_home=home, base_url=f"http://127.0.0.1:{_closed_port()}")
    message = str(info.value)
    assert COMPAS_FILE.path in message and str(home / COMPAS_FILE.path) in message
    assert COMPAS_FILE.url in message


def test_download_false_error_says_how_to_provide_the_file():
    with pytest.raises(DataFileNotFoundError, match="FAIRLIST_DATA_HOME"):
        load_adult(download=False)


def test_missing_file_on_the_mirror_is_reported_as_not_found(tmp_path):
    (tmp_path / "empty-mirror").mkdir()
    empty = _Server(tmp_path / "empty-mirror")
    try:
        with pytest.raises(DataFileNotFoundError, match="404"):
            fetch_file(COMPAS_FILE, data_home=tmp_path / "home", base_url=empty.url)
    finally:
        empty.close()


def test_mirror_copy_is_byte_identical_to_the_shared_file(tmp_path, server, shared_data):
    shutil.rmtree(tmp_path / "home", ignore_errors=True)
    for remote in datasets.ADULT_FILES:
        got = fetch_file(remote, data_home=tmp_path / "home", base_url=server.url)
        assert datasets._sha256(got) == remote.sha256
