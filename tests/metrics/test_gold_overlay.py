"""Versioned gold (issue 31): the shipped D.2 overlay is paper 2's `LOCOMO_DEFECTIVE_GOLDS`, fits the LoCoMo file
it corrects (question numbers 1-based in conv-50's qa list), and a bad overlay fails naming its file and entry."""

import json
from pathlib import Path

import pytest

from tailmem.data import locomo
from tailmem.metrics import gold_overlay
from tailmem.metrics.gold_overlay import GoldOverlayError
from tailmem.metrics.locomo_f1 import locomo_f1
from tailmem.report import paper2_values as paper

DATA = Path("/work/shared/data/locomo/locomo10.json")
D2 = "locomo/d2-v1"


@pytest.fixture(scope="module")
def conv50():
    return locomo.load(DATA, "conv-50")


def test_finding_the_defective_golds_are_shipped_as_the_d2_overlay(conv50):
    """Issue 31's finding: LOCOMO_DEFECTIVE_GOLDS was defined and used by nothing. It is now the D.2 overlay."""
    overlay = gold_overlay.load(D2)
    assert overlay.dropped() == paper.LOCOMO_DEFECTIVE_GOLDS
    assert D2 in gold_overlay.shipped()
    gold_overlay.check(overlay, "locomo", "conv-50", conv50.qa, DATA)  # every original gold is the file's


def test_question_numbers_are_1_based_positions_in_the_file(conv50):
    """Read straight from the JSON (not our parser): question n is qa[n-1], and conv-50's first 158 questions are
    the non-adversarial ones paper 2 scores, so the number is the same among them."""
    raw = next(s for s in json.loads(DATA.read_text()) if s["sample_id"] == "conv-50")["qa"]
    assert [q["category"] for q in raw].index(5) == paper.BENCHMARKS["locomo"]["questions"] == 158
    for e in gold_overlay.load(D2).entries:
        assert raw[e.question - 1]["answer"] == e.original_gold
        assert raw[e.question - 1]["question"] == e.question_text
    # question 138: the gold is Dave's memory, the question asks about Calvin (D.2's misattribution)
    assert "Calvin" in raw[137]["question"] and raw[137]["evidence"] == ["D26:6"]


def _write(tmp_path, text: str) -> Path:
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    return p


HEAD = "benchmark: locomo\nconversation: conv-50\nname: t\nversion: 1\ndescription: d\nsource: s\nentries:\n"


def test_original_gold_mismatch_names_file_entry_and_both_golds(tmp_path, conv50):
    p = _write(
        tmp_path,
        HEAD + "  - {question: 1, original_gold: x, corrected_gold: drop, reason: r, source: s}\n"
        "  - {question: 21, original_gold: His Mom, corrected_gold: drop, reason: r, source: s}\n",
    )
    overlay = gold_overlay.load(p)
    with pytest.raises(GoldOverlayError) as err:
        gold_overlay.check(overlay, "locomo", "conv-50", conv50.qa, DATA)
    msg = str(err.value)
    assert str(p) in msg and "entry 1 (question 1)" in msg and "'x'" in msg
    assert repr(conv50.qa[0].answer) in msg  # the file's gold beside the overlay's


@pytest.mark.parametrize(
    "entry, words",
    [
        ("  - {question: 0, original_gold: x, corrected_gold: drop, reason: r, source: s}\n", "1-based"),
        ("  - {question: 2, original_gold: x, corrected_gold: drop, source: s}\n", "missing keys ['reason']"),
        ("  - {question: 2, original_gold: x, corrected_gold: drop, reason: r, source: s, extra: 1}\n", "unknown keys"),
        (
            "  - {question: 2, original_gold: x, corrected_gold: '', reason: r, source: s}\n",
            "'corrected_gold' is empty",
        ),
    ],
)
def test_malformed_entries_name_file_and_entry(tmp_path, entry, words):
    p = _write(
        tmp_path, HEAD + "  - {question: 1, original_gold: x, corrected_gold: drop, reason: r, source: s}\n" + entry
    )
    with pytest.raises(GoldOverlayError) as err:
        gold_overlay.load(p)
    assert str(p) in str(err.value) and "entry 2" in str(err.value) and words in str(err.value)


def test_duplicate_question_and_bad_yaml(tmp_path):
    e = "  - {question: 3, original_gold: x, corrected_gold: drop, reason: r, source: s}\n"
    with pytest.raises(GoldOverlayError, match="already corrected by entry 1"):
        gold_overlay.load(_write(tmp_path, HEAD + e + e))
    with pytest.raises(GoldOverlayError, match="not valid YAML"):
        gold_overlay.load(_write(tmp_path, HEAD + "  - [unclosed\n"))


def test_unknown_name_lists_the_shipped_ones():
    with pytest.raises(Exception, match="locomo/d2-v1"):
        gold_overlay.load("locomo/nope")


def test_apply_drops_and_rescores_a_corrected_gold(conv50):
    qa = conv50.qa
    rows = [
        {
            "qid": i,
            "question": q.question,
            "category": q.category,
            "gold": q.answer,
            "answer": q.answer,
            "f1": 1.0,
            "judge_correct": True,
        }
        for i, q in enumerate(qa[:30])
    ]
    overlay = gold_overlay.load(D2)
    fixed = gold_overlay.Overlay(
        **{
            **overlay.__dict__,
            "entries": overlay.entries[:1]
            + (gold_overlay.Entry(5, qa[4].answer, "something else entirely", "r", "s"),),
        }
    )
    out = gold_overlay.apply(rows, fixed, qa, locomo_f1)
    assert len(out) == 29 and qa[19].question not in {r["question"] for r in out}  # question 20 dropped
    five = next(r for r in out if r["question"] == qa[4].question)
    assert five["gold"] == "something else entirely" and five["gold_original"] == qa[4].answer
    assert five["f1"] == locomo_f1(qa[4].answer, "something else entirely", qa[4].category) < 1.0
    assert five["judge_correct"] is None and five["judge_stale"]
