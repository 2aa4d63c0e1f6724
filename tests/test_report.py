"""The HTML audit report (fairlist.report, ``fairlist report``, ``clf.report``): the intervals
against published values and their definitions, the counts against fairlist.metrics, the cap's
verdict, the front, the delta section (with and without fairest_within), the page's
accessibility and self-containedness, and the COMPAS report of issue 35."""

from __future__ import annotations

import html
import importlib.resources
import json
import math
import re
import sys
import time
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import fairlist
from fairlist import FairRuleListClassifier
from fairlist.cli import app
from fairlist.metrics import confusion_counts
from fairlist.report import ReportDependencyError, render_report, write_report
from fairlist.report.audit import Estimate, SplitAudit, audit_split, cap_verdict
from fairlist.report.front import Front, position, read_front
from fairlist.report.intervals import gap_interval, newcombe, wilson

pytest.importorskip("jinja2")
runner = CliRunner()


# --------------------------------------------------------------------------- the intervals
def test_wilson_and_newcombe_give_the_published_values():
    # Newcombe (1998), Table II: 56/70 against 48/80 -> 0.0524 to 0.3339; Wilson for 8/10
    # (Brown, Cai and DasGupta 2001's worked values) 0.4902 to 0.9433
    assert [round(v, 4) for v in newcombe(56, 70, 48, 80)] == [0.0524, 0.3339]
    assert [round(v, 4) for v in wilson(8, 10)] == [0.4902, 0.9433]
    assert [round(v, 4) for v in wilson(0, 10)] == [0.0, 0.2775]
    assert all(math.isnan(v) for v in wilson(0, 0))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 60), st.integers(1, 60), st.integers(0, 60), st.integers(1, 60),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)  # fmt: skip
def test_the_intervals_hold_their_estimates(k1, n1, k2, n2, level):
    k1, k2 = min(k1, n1), min(k2, n2)
    lo, hi = wilson(k1, n1, level)
    assert 0 <= lo <= k1 / n1 <= hi <= 1
    wider = wilson(k1, n1, min(0.999, level + 0.009))
    assert wider[0] <= lo + 1e-12 and hi <= wider[1] + 1e-12
    gap = abs(k1 / n1 - k2 / n2)
    glo, ghi = gap_interval([(k1, n1), (k2, n2)], level)
    assert 0 <= glo <= gap + 1e-12 and gap <= ghi + 1e-12
    d_lo, d_hi = newcombe(k1, n1, k2, n2, level)
    assert (glo, ghi) == pytest.approx(
        (d_lo, d_hi) if d_lo >= 0 else (-d_hi, -d_lo) if d_hi <= 0 else (0, max(-d_lo, d_hi))
    )
    # three groups: the Bonferroni bound holds the observed gap too
    rates = [(k1, n1), (k2, n2), (min(k1, n2), n2)]
    values = [k / n for k, n in rates]
    blo, bhi = gap_interval(rates, level)
    assert blo - 1e-12 <= max(values) - min(values) <= bhi + 1e-12


def test_an_empty_group_counts_as_rate_zero_as_the_metric_does():
    lo, hi = gap_interval([(5, 10), (0, 0)])
    # the gap is then |0.5 - 0| with the one group's uncertainty (Bonferroni at one group)
    assert (lo, hi) == pytest.approx(wilson(5, 10))


# --------------------------------------------------------------------------- the audit
def small(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 5)) < 0.4).astype(np.uint8)
    s = rng.integers(0, 3, n)
    y = ((X[:, 0] | X[:, 1]) ^ (rng.random(n) < 0.15)).astype(int)
    return X, y, s


def fitted(metric="SP", epsilon=0.1, seed=0):
    X, y, s = small(seed)
    clf = FairRuleListClassifier(metric=metric, epsilon=epsilon, lam=0.01, max_length=2)
    return clf.fit(X, y, sensitive_features=s), X, y, s


@pytest.mark.parametrize("metric", ["SP", "EOpp", "EOdds", "CUAE"])
def test_the_audit_counts_are_fairlist_metrics_counts(metric):
    clf, X, y, s = fitted(metric, epsilon=None)
    audit = audit_split(clf, X, y, s)
    expected = confusion_counts(y, clf.predict(X), s)
    assert [g.name for g in audit.groups] == list(expected.names) == list(clf.group_names_)
    for g, e in zip(audit.groups, expected.groups, strict=True):
        assert g.counts == {"tp": e.tp, "fp": e.fp, "tn": e.tn, "fn": e.fn}
        for rate in ("positive_rate", "tpr", "fpr", "ppv", "npv"):
            assert g.rates[rate].value == pytest.approx(getattr(e, rate))
    # the training unfairness is the certified one, inside its interval
    assert audit.unfairness.value == pytest.approx(clf.unfairness_)
    assert audit.unfairness.low <= audit.unfairness.value <= audit.unfairness.high
    assert audit.accuracy == pytest.approx(clf.accuracy_)
    assert "Bonferroni" in " ".join(audit.notes)  # three groups


def test_weights_shrink_the_effective_sample_size():
    clf, X, y, s = fitted(epsilon=None)
    plain = audit_split(clf, X, y, s)
    w = np.where(np.arange(len(y)) % 2 == 0, 1.0, 3.0)
    weighted = audit_split(clf, X, y, s, sample_weight=w)
    for a, b in zip(plain.groups, weighted.groups, strict=True):
        assert b.sizes["positive_rate"] < a.sizes["positive_rate"]
    # unit weights give the unweighted audit
    ones = audit_split(clf, X, y, s, sample_weight=np.ones(len(y)))
    assert ones.unfairness == plain.unfairness


def verdict(value, low, high, epsilon=0.05):
    audit = SplitAudit("test", "", 10, False, 1.0, [], {}, Estimate(value, low, high), "SP",
                       epsilon, 0.95)  # fmt: skip
    return cap_verdict(audit)


def test_the_cap_verdict_reads_the_interval():
    assert verdict(0.02, 0.01, 0.04)[0] is True
    assert verdict(0.09, 0.06, 0.12)[0] is False
    holds, text = verdict(0.062, 0.013, 0.110)
    assert holds is None and "above the cap" in text and "cannot tell" in text
    assert verdict(0.04, 0.01, 0.07)[1].count("under the cap") == 1
    assert verdict(0.04, 0.01, 0.07, epsilon=None)[0] is None


def test_labels_the_model_does_not_know_are_refused():
    clf, X, y, s = fitted()
    with pytest.raises(fairlist.DataError, match="not the model's classes"):
        audit_split(clf, X, np.where(y == 1, "yes", "no"), s)


# --------------------------------------------------------------------------- the page
class Page(HTMLParser):
    """The page's tags, attributes and text."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.text = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def all(self, tag):
        return [a for t, a in self.tags if t == tag]


def words(page_text):
    """The page's text as a reader sees it, on one line (tags out, entities read)."""
    return " ".join(html.unescape("".join(Page(page_text).text)).split())


def check_accessible_and_self_contained(page_text):
    page = Page(page_text)
    assert page.all("html")[0].get("lang") == "en"
    assert page.all("title") and page.all("h1") and len(page.all("h2")) >= 3
    for img in page.all("img"):
        assert len(img.get("alt", "")) > 40  # says what the figure shows
        assert img["src"].startswith("data:image/png;base64,")
    assert all(th.get("scope") in ("col", "row") for th in page.all("th"))
    assert len(page.all("caption")) >= len(page.all("table")) - 1  # certificate: caption too
    # nothing to fetch: no URL, no external style sheet, script or font
    assert not re.search(r"https?://", page_text)
    assert not page.all("script") and not page.all("link")
    assert "@import" not in page_text and "url(" not in page_text
    return page


def test_the_page_says_the_list_the_certificate_and_the_groups():
    clf, X, y, s = fitted()
    Xt, yt, st_ = small(seed=1)
    text = render_report(clf, X, y, s, X_test=Xt, y_test=yt, sensitive_features_test=st_)
    page = check_accessible_and_self_contained(text)
    body = html.unescape("".join(page.text))
    assert str(clf.rule_list_) in body
    assert "Status: optimal" in " ".join(body.split())
    test = audit_split(clf, Xt, yt, st_, split="test")
    for name in clf.group_names_:
        assert name in body
    for group in test.groups:
        assert group.rates["positive_rate"].text() in body
    assert test.verdict in body


def test_a_missing_jinja2_is_one_clear_error(monkeypatch):
    clf, X, y, s = fitted()
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(ReportDependencyError, match=r"pip install 'fairlist\[report\]'"):
        render_report(clf, X, y, s)


def test_the_templates_ship_in_the_package():
    folder = importlib.resources.files("fairlist.report") / "templates"
    assert (folder / "report.html.j2").is_file() and (folder / "report.css").is_file()


def test_test_data_without_its_groups_is_refused():
    clf, X, y, s = fitted()
    with pytest.raises(fairlist.DataError, match="sensitive_features_test"):
        render_report(clf, X, y, s, X_test=X, y_test=y)


# --------------------------------------------------------------------------- the front
def test_the_front_from_csv_and_json_marks_certified_points(tmp_path):
    from fairlist.pareto import training_front

    X, y, s = small()
    s = (s == 0).astype(int)
    result = training_front(X, y, s, metric="SP", lam=0.01, max_length=2)
    result.to_csv(tmp_path / "f.csv")
    result.to_json(tmp_path / "f.json")
    for path in (tmp_path / "f.csv", tmp_path / "f.json"):
        front = read_front(path)
        assert front.split == "training" and len(front.points) == len(result.front)
        assert front.points["certified"].sum() == (result.front["status"] == "optimal").sum()
    clf = FairRuleListClassifier(metric="SP", lam=0.01, max_length=2, epsilon=0.02)
    clf.fit(X, y, sensitive_features=s)
    text = render_report(clf, X, y, s, front=tmp_path / "f.json")
    assert "Position on the Pareto front" in text
    check_accessible_and_self_contained(text)
    with pytest.raises(fairlist.DataError, match="fairlist pareto"):
        read_front(pd.DataFrame({"a": [1]}))


def test_the_position_sentences():
    f = Front(pd.DataFrame({"unfairness": [0.0, 0.05, 0.1], "error": [0.4, 0.3, 0.2],
                            "certified": [True, True, False]}), "training", "x")  # fmt: skip
    assert "on the front" in position(f, 0.05, 0.3)
    assert "with less error (0.300" in position(f, 0.06, 0.35)
    assert "not dominated" in position(f, 0.06, 0.29)
    assert "fairer than every point" in position(
        Front(f.points.iloc[1:], "training", "x"), 0.0, 0.5
    )


# --------------------------------------------------------------------------- --delta
def test_the_delta_section_shows_the_alternative_and_its_certificate():
    """The section runs fairest_within and the Rashomon set over the model's antecedents: the
    page shows the alternative, its certificate sentence and the set counted in classifiers,
    the same figures the functions give when called directly."""
    from fairlist.report.alternatives import alternatives, antecedents_of

    clf, X, y, s = fitted()
    text = render_report(clf, X, y, s, delta=0.01)
    assert 'id="lda"' in text and 'id="multiplicity"' in text
    direct = fairlist.fairest_within(
        antecedents_of(clf, X), np.asarray(y), np.asarray(s), metric=clf.metric_,
        epsilon=clf.epsilon, lam=clf.lam_, max_length=clf.max_length, delta=0.01, binarizer=None,
    )  # fmt: skip
    assert html.escape(direct.certificate) in text
    section = alternatives(clf, X, y, s, delta=0.01)
    assert section.fairest["unfairness"] == pytest.approx(direct.unfairness)
    assert 1 <= section.n_classifiers <= section.n_lists
    check_accessible_and_self_contained(text)


# --------------------------------------------------------------------------- the command
def test_the_command_reads_the_roles_from_the_model(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame((rng.random((n, 4)) < 0.4).astype(int), columns=list("abcd"))
    frame.insert(0, "grp", (rng.random(n) < 0.5).astype(int))
    frame.insert(1, "other_grp", 1 - frame["grp"])
    frame["label"] = ((frame["a"] | frame["b"]) ^ (rng.random(n) < 0.1)).astype(int)
    frame.iloc[:300].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[300:].to_csv(tmp_path / "test.csv", index=False)
    model, out = tmp_path / "m.json", tmp_path / "r.html"
    fit = ["fit", str(tmp_path / "train.csv"), "--target", "label", "--sensitive", "grp"]
    fit += ["--drop", "other_grp", "--epsilon", "0.1", "--max-length", "2", "--output", str(model)]
    assert runner.invoke(app, fit).exit_code == 0
    args = ["report", str(model), "--data", str(tmp_path / "train.csv")]
    result = runner.invoke(app, [*args, "--test", str(tmp_path / "test.csv"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "report written to" in result.output
    text = out.read_text(encoding="utf-8")
    assert 'id="rates-test"' in text and "(100 rows)" in text
    bad = runner.invoke(app, [*args, "-o", str(tmp_path / "no" / "r.html")])
    assert bad.exit_code == 1 and "does not exist" in bad.output
    doc = json.loads(runner.invoke(app, [*args, "-o", str(out), "--json"]).stdout)
    assert doc == {"report": str(out), "bytes": out.stat().st_size, "status": "optimal"}


@pytest.mark.parametrize("raw", [False, True])
def test_a_model_fitted_with_a_weight_and_dropped_columns_reads_its_own_columns(tmp_path, raw):
    # the table keeps the weight and the dropped column (informative: the label follows it);
    # neither may be a feature of predict or of the report, and the report weighs the rows as
    # the fit did (the model file names its weight column)
    rng = np.random.default_rng(4)
    n = 400
    junk = rng.integers(0, 2, n)
    frame = pd.DataFrame({"a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n), "junk": junk})
    if raw:
        frame["job"] = rng.choice(["x", "y", "z"], n)
    frame["w"] = rng.integers(1, 5, n)
    frame["sex"] = rng.choice(["F", "M"], n)
    frame["label"] = np.where((junk == 1) ^ (rng.random(n) < 0.2) | (frame["a"] == 1), "yes", "no")
    data, model = tmp_path / "t.csv", tmp_path / "m.json"
    frame.to_csv(data, index=False)
    fit = ["fit", str(data), "--target", "label", "--sensitive", "sex", "--weight", "w"]
    fit += ["--drop", "junk", "--epsilon", "0.3", "--max-length", "2", "--output", str(model)]
    assert runner.invoke(app, fit).exit_code == 0
    clf = FairRuleListClassifier.load(model)
    columns = ["a", "b", "job"] if raw else ["a", "b"]
    assert list(clf.feature_names_in_) == columns
    predicted = runner.invoke(app, ["predict", str(model), str(data), "--json"])
    assert predicted.exit_code == 0, predicted.output
    got = [r["prediction"] for r in json.loads(predicted.stdout)["predictions"]]
    assert got == clf.predict(frame[columns]).tolist()
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(model), "--data", str(data), "-o", str(out)])
    assert result.exit_code == 0, result.output
    weighted = audit_split(clf, frame[columns + ["sex"]], frame["label"], "sex", None, frame["w"])
    plain = audit_split(clf, frame[columns + ["sex"]], frame["label"], "sex")
    assert f"{weighted.unfairness.value:.3f}" != f"{plain.unfairness.value:.3f}"  # tells them
    assert math.isclose(weighted.unfairness.value, clf.unfairness_, abs_tol=1e-9)
    body = words(out.read_text(encoding="utf-8"))
    assert f"on the training data ({clf.unfairness_:.3f})" in body


def test_write_report_writes_the_rendered_page(tmp_path):
    from fairlist.report import write_report

    clf, X, y, s = fitted()
    assert write_report(tmp_path / "r.html", clf, X, y, s) == tmp_path / "r.html"
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == render_report(clf, X, y, s)


def test_the_estimators_report_is_render_reports_page(tmp_path):
    clf, X, y, s = fitted()
    Xt, yt, st_ = small(seed=1)
    page = clf.report(
        X, y, s, X_test=Xt, y_test=yt, sensitive_features_test=st_, level=0.9,
        path=tmp_path / "r.html",
    )  # fmt: skip
    same = render_report(clf, X, y, s, X_test=Xt, y_test=yt, sensitive_features_test=st_, level=0.9)
    assert page == same
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == page
    body = words(page)
    assert " ".join(str(clf.rule_list_).split()) in body and "Status: optimal" in body
    for split in (audit_split(clf, X, y, s, level=0.9), audit_split(clf, Xt, yt, st_, level=0.9)):
        for group in split.groups:
            assert f"{group.rates['positive_rate'].text()}" in body
    assert clf.report(X, y, s) == render_report(clf, X, y, s)  # no path: nothing written
    with pytest.raises(fairlist.errors.DataError, match="y_test"):
        clf.report(X, y, s, X_test=Xt)


# --------------------------------------------------------------------------- COMPAS
def test_the_compas_report(shared_data, tmp_path):
    """Issue 35's target: the report of a COMPAS model (<= 3 rules) holds the list, the status
    and each group's rates, fetches nothing, and is small (its time is printed: the
    benchmark benchmarks/bench_report.py measures it)."""
    from sklearn.model_selection import train_test_split

    from fairlist.datasets import load_compas

    ds = load_compas(shared_data / "compas" / "compas-scores-two-years.csv")
    parts = train_test_split(ds.X, ds.y, ds.sensitive, test_size=0.3, random_state=0)
    Xtr, Xte, ytr, yte, s_tr, s_te = parts
    clf = FairRuleListClassifier(metric="SP", epsilon=0.05, max_length=3, lam=0.005)
    clf.fit(Xtr, ytr, sensitive_features=s_tr, protected=ds.protected)
    start = time.process_time()
    path = write_report(
        tmp_path / "compas.html", clf, Xtr, ytr, s_tr, ds.protected,
        X_test=Xte, y_test=yte, sensitive_features_test=s_te,
    )  # fmt: skip
    print(f"COMPAS report: {time.process_time() - start:.2f} CPU s, {path.stat().st_size:,} bytes")
    text = path.read_text(encoding="utf-8")
    assert path.stat().st_size < 2_000_000
    page = check_accessible_and_self_contained(text)
    body = html.unescape("".join(page.text))
    assert str(clf.rule_list_) in body and "optimal" in body
    for split, (X, y, s) in {"training": (Xtr, ytr, s_tr), "test": (Xte, yte, s_te)}.items():
        audit = audit_split(clf, X, y, s, ds.protected, split=split)
        assert [g.name for g in audit.groups] == ["African-American", "Caucasian"]
        for g in audit.groups:
            for rate in g.rates.values():
                assert rate.text() in body
    assert json.loads(json.dumps(clf.group_names_)) == ["African-American", "Caucasian"]


# --------------------------------------------------------------------------- more certificates
def raw_table(n=400, seed=5):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "score": rng.normal(size=n).round(2),
            "city": rng.choice(list("abcdefgh"), n),
            "sex": rng.choice(["f", "m"], n),
        }
    )
    y = ((frame["age"] < 30) ^ (rng.random(n) < 0.2)).astype(int)
    return frame, y


def test_the_budget_and_an_uncertified_search_are_said():
    from fairlist.binarize import Binarizer

    frame, y = raw_table()
    clf = FairRuleListClassifier(
        lam=0.001, epsilon=0.02, max_nodes=3, binarizer=Binarizer(max_antecedents=10)
    )
    with pytest.warns(Warning):
        clf.fit(frame, y, sensitive_features="sex")
    b = clf.binarizer_
    assert b.n_antecedents_kept_ < b.n_antecedents_made_  # the budget dropped some
    text = words(render_report(clf, frame, y, "sex"))
    assert (
        f"made {b.n_antecedents_made_:,} antecedents from 3 raw columns and kept the "
        f"{b.n_antecedents_kept_:,} most informative" in text
    )
    # a search a limit stopped, as a loaded model of one reads: its bound, gap and lengths
    import dataclasses

    from fairlist.solvers import Status, StopReason

    clf.result_ = dataclasses.replace(
        clf.result_, status=Status.FEASIBLE, stop_reason=StopReason.NODE_LIMIT
    )
    clf.status_, clf.lower_bound_, clf.certified_length_ = Status.FEASIBLE, 0.1234567, 2
    clf.gap_ = clf.objective_ - clf.lower_bound_
    text = words(render_report(clf, frame, y, "sex"))
    assert "Status: feasible — Not certified: the search stopped (node limit) first." in text
    assert f"objective below 0.123457, so this one ({clf.objective_:.6f})" in text
    assert "No list of at most 2 rules is better than this one." in text


def test_the_delta_section_reads_a_raw_table_through_the_models_binarizer():
    """A raw table goes through the model's fitted binarizer (the sensitive column out), so the
    set the page counts is the one over the model's own antecedents."""
    from fairlist.report.alternatives import antecedents_of

    frame, y = raw_table(n=200)
    clf = FairRuleListClassifier(lam=0.01, epsilon=0.1, max_length=2)
    clf.fit(frame, y, sensitive_features="sex")
    Xa = antecedents_of(clf, frame)
    assert list(Xa.columns) == list(clf.rule_list_.feature_names)
    rs = fairlist.rashomon_set(
        Xa, np.asarray(y), frame["sex"].to_numpy(), metric=clf.metric_, epsilon=0.1,
        lam=clf.lam_, max_length=2, delta=0.02, binarizer=None,
    )  # fmt: skip
    text = words(render_report(clf, frame, y, "sex", delta=0.02))
    assert f"{len(rs)} rule list(s), {rs.n_classifiers} distinct classifier(s)" in text


def test_the_command_places_the_model_on_a_front(tmp_path):
    from fairlist.pareto import training_front

    X, y, s = small(seed=2)
    s = (s == 0).astype(int)
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame["grp"], frame["label"] = s, y
    frame.to_csv(tmp_path / "d.csv", index=False)
    training_front(X, y, s, metric="SP", lam=0.01, max_length=2).to_csv(tmp_path / "f.csv")
    model = tmp_path / "m.json"
    fit = ["fit", str(tmp_path / "d.csv"), "--target", "label", "--sensitive", "grp"]
    fit += ["--lam", "0.01", "--max-length", "2", "--epsilon", "0.05", "--output", str(model)]
    assert runner.invoke(app, fit).exit_code == 0
    out = tmp_path / "r.html"
    args = ["report", str(model), "--data", str(tmp_path / "d.csv"), "-o", str(out)]
    result = runner.invoke(app, [*args, "--front", str(tmp_path / "f.csv")])
    assert result.exit_code == 0, result.output
    assert "Position on the Pareto front" in out.read_text(encoding="utf-8")
    bad = runner.invoke(app, [*args, "--front", str(tmp_path / "d.csv")])
    assert bad.exit_code == 1 and "fairlist pareto" in bad.output
