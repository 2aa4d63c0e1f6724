"""The RuleList model: prediction, the paper's print format, and the JSON document."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairlist import Rule, RuleList, RuleListFormatError
from fairlist.errors import DataError

NAMES = ("priors:>3", "age:18-20 && gender:Male", "juvenile:>0")


@pytest.fixture
def rule_list() -> RuleList:
    return RuleList(
        [Rule("priors:>3", 1), Rule("age:18-20 && gender:Male", 1), Rule("juvenile:>0", 0)],
        default=0,
        labels=("no recidivism", "recidivism"),
        feature_names=NAMES,
    )


def test_prints_in_the_papers_format(rule_list):
    assert str(rule_list) == (
        "if [priors:>3] then [recidivism]\n"
        "else if [age:18-20 && gender:Male] then [recidivism]\n"
        "else if [juvenile:>0] then [no recidivism]\n"
        "else [no recidivism]"
    )


def test_default_alone_prints_as_a_sentence():
    text = str(RuleList([], default=1, labels=("low", "high")))
    assert text.startswith("always predict [high]")
    assert "if (1)" not in text


def test_first_matching_rule_decides():
    rl = RuleList([Rule("a", 0), Rule("b", 1)], default=1, feature_names=("a", "b"))
    X = np.array([[1, 1], [0, 1], [0, 0], [1, 0]], dtype=np.uint8)
    assert rl.predict(X).tolist() == [0, 1, 1, 0]
    assert rl.apply(X).tolist() == [0, 1, 2, 0]


def test_predicts_on_a_dataframe_by_column_name(rule_list):
    frame = pd.DataFrame(
        {"juvenile:>0": [1, 0, 0], "priors:>3": [0, 0, 1], "age:18-20 && gender:Male": [0, 1, 0]}
    )
    assert rule_list.predict(frame).tolist() == [0, 1, 1]


def test_composes_conjunctions_and_negations_from_parts():
    rl = RuleList([Rule("age:18-20 && gender:Male", 1), Rule("not priors:0", 1)], default=0)
    frame = pd.DataFrame(
        {"age:18-20": [1, 1, 0, 0], "gender:Male": [1, 0, 0, 0], "priors:0": [1, 1, 0, 1]}
    )
    assert rl.predict(frame).tolist() == [1, 0, 1, 0]


def test_missing_column_is_named():
    rl = RuleList([Rule("priors:>3", 1)], default=0)
    with pytest.raises(KeyError, match="priors:>3"):
        rl.predict(pd.DataFrame({"other": [1]}))


def test_wrong_number_of_columns_is_reported(rule_list):
    with pytest.raises(ValueError, match="X has 2 columns, the rule list expects 3"):
        rule_list.predict(np.zeros((4, 2), dtype=np.uint8))


def test_json_round_trip(rule_list, tmp_path):
    path = tmp_path / "model.json"
    text = rule_list.to_json(path)
    again = RuleList.from_json(path)
    assert again == rule_list
    assert again.feature_names == rule_list.feature_names
    assert str(again) == str(rule_list)
    assert RuleList.from_json(text) == rule_list
    doc = json.loads(text)
    assert doc["format"] == "fairlist.rule_list" and doc["version"] == 1


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=12).filter(str.strip), st.sampled_from([0, 1])),
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    st.sampled_from([0, 1]),
)
def test_json_round_trip_for_any_rules(rules, default):
    rl = RuleList([Rule(a, q) for a, q in rules], default=default)
    assert RuleList.from_json(rl.to_json()) == rl


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("[1, 2]", "expected a JSON object"),
        ('{"format": "sklearn"}', "not a fairlist rule list"),
        (
            '{"format": "fairlist.rule_list", "version": 99, "rules": [], "default": 0}',
            "rule list version 99 is newer than this fairlist \\(1\\) reads; upgrade",
        ),
        ('{"format": "fairlist.rule_list", "version": 1, "default": 0}', "'rules' is missing"),
        (
            '{"format": "fairlist.rule_list", "version": 1, "rules": [{"antecedent": "a"}],'
            ' "default": 0}',
            "'rules\\[0\\].prediction' is missing",
        ),
        (
            '{"format": "fairlist.rule_list", "version": 1, "rules": [{"antecedent": "a",'
            ' "prediction": 3}], "default": 0}',
            "'rules\\[0\\].prediction' is a number \\(3\\), expected 0 or 1",
        ),
        (
            '{"format": "fairlist.rule_list", "version": 1, "rules": [], "default": 2}',
            "'default' is a number \\(2\\), expected 0 or 1",
        ),
        (
            '{"format": "fairlist.rule_list", "version": 1, "rules": [{"antecedent": "a",'
            ' "prediction": 1}, {"antecedent": "a", "prediction": 0}], "default": 0}',
            "appears twice",
        ),
        ("{not json", "the rule-list text is not valid JSON \\(line 1, column 2\\)"),
    ],
)
def test_malformed_documents_say_what_is_wrong(document, message):
    with pytest.raises(RuleListFormatError, match=message):
        RuleList.from_json(document)


def test_missing_file_is_reported(tmp_path):
    with pytest.raises(FileNotFoundError, match="no rule-list file"):
        RuleList.from_json(tmp_path / "absent.json")


def test_rule_lists_are_immutable(rule_list):
    with pytest.raises(AttributeError):
        rule_list.default = 1  # type: ignore[misc]


# --------------------------------------------------------------------------- one line of text
#: Antecedent names with the characters that bite a parser: brackets, spaces, "then", "else".
_NAME = st.text(st.sampled_from("ab[]() :<>=&-.,then elsif"), min_size=1, max_size=14).filter(
    lambda s: s.strip() and "] then [" not in s
)
_LABEL = st.text(st.sampled_from("ny[] es"), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(_NAME, max_size=6, unique=True),
    data=st.data(),
    labels=st.lists(_LABEL, min_size=2, max_size=2, unique=True),
)
def test_to_text_and_from_text_round_trip_on_random_lists(names, data, labels):
    predictions = data.draw(st.lists(st.integers(0, 1), min_size=len(names) + 1))
    rl = RuleList(
        [Rule(a, q) for a, q in zip(names, predictions, strict=False)], predictions[-1], labels
    )
    text = rl.to_text()
    assert "\n" not in text
    back = RuleList.from_text(text, labels)
    assert back == rl and back.labels == rl.labels


def test_to_text_reads_like_the_paper_and_from_text_names_bad_text():
    rl = RuleList([Rule("age:[18, 25]", 1), Rule("priors:>3", 0)], 0, ("no", "yes"))
    assert rl.to_text() == "if [age:[18, 25]] then [yes] else if [priors:>3] then [no] else [no]"
    assert RuleList([], 1, ("no", "yes")).to_text() == "[yes]"
    assert rl.to_text(("n", "y")).endswith("else [n]")
    assert RuleList.from_text("[yes]", ("no", "yes")) == RuleList([], 1, ("no", "yes"))
    for bad in ("", "[maybe]", "if [a] then [yes]", "if [a] then [yes] else [no] x", "else [no]"):
        with pytest.raises(DataError, match="not a rule list in the paper's format"):
            RuleList.from_text(bad, ("no", "yes"))
