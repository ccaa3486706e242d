"""Exports in the benchmarks' own formats (issue 16 finding 4). The fixtures are written from the formats' docs:
LongMemEval's README (a JSONL file, each line with `question_id` and `hypothesis`, read by evaluate_qa.py) and
LoCoMo's task_eval/evaluation.py (`json.load(f)["qa"]`, each entry with `answer`, `category`, `evidence` and the
`<model>_prediction` key it is asked to score)."""

import json
from pathlib import Path

import pandas as pd
import pytest

from tailmem.data.locomo import QA, Conversation
from tailmem.exports.locomo import prediction_key, predictions
from tailmem.exports.longmemeval import hypotheses_lines, write_hypotheses

FIXTURES = Path(__file__).parent / "fixtures"


def _shape(entry: dict) -> dict:
    """Key -> type name, with every `<model>_prediction` key folded into one."""
    return {("<model>_prediction" if k.endswith("_prediction") else k): type(v).__name__ for k, v in entry.items()}


def _read_like_evaluate_qa(text: str) -> list[dict]:
    """What LongMemEval's evaluate_qa.py needs of a hypothesis file: JSON lines with the two fields."""
    entries = [json.loads(line) for line in text.splitlines()]
    return [{"question_id": e["question_id"], "hypothesis": e["hypothesis"]} for e in entries]


def test_longmemeval_hypotheses_have_the_fixture_shape(tmp_path):
    fixture = (FIXTURES / "longmemeval_hypotheses.jsonl").read_text()
    rows = pd.DataFrame(
        {
            "qid": ["q1", "q2_abs", "q1", "q2_abs"],
            "answer": ["Tokyo", "I don't know", "Osaka", "x\ny"],
            "arm": ["graph_memory", "graph_memory", "ctmc-r0.5", "ctmc-r0.5"],
            "seed": [0, 0, 0, 0],
        }
    )
    paths = write_hypotheses(tmp_path, rows)
    assert sorted(p.name for p in paths) == ["ctmc-r0.5.jsonl", "graph_memory.jsonl"]
    ours = (tmp_path / "hypotheses" / "ctmc-r0.5.jsonl").read_text()
    assert [set(e) for e in _read_like_evaluate_qa(ours)] == [set(e) for e in _read_like_evaluate_qa(fixture)]
    assert [json.loads(x) for x in ours.splitlines()] == [
        {"question_id": "q1", "hypothesis": "Osaka"},
        {"question_id": "q2_abs", "hypothesis": "x\ny"},
    ]
    assert ours.count("\n") == 2  # a newline inside an answer stays escaped


def test_hypotheses_refuse_mixed_arms_or_seeds(tmp_path):
    with pytest.raises(ValueError, match="repeat"):
        hypotheses_lines(pd.DataFrame({"qid": ["a", "a"], "answer": ["x", "y"]}))
    with pytest.raises(ValueError, match="one seed"):
        write_hypotheses(
            tmp_path, pd.DataFrame({"qid": ["a", "a"], "answer": ["x", "y"], "arm": ["g", "g"], "seed": [0, 1]})
        )


def _conv():
    return Conversation(
        "conv-9",
        ("A", "B"),
        (),
        (
            QA("When?", "7 May 2023", 2, ("D1:3",)),
            QA("Adversarial?", "never said", 5, ("D2:1",)),
            QA("Who?", "Calvin", 4, ("D1:1", "D1:2")),
            QA("Where?", "Tokyo", 1, ()),
        ),
    )


def test_locomo_predictions_have_the_fixture_shape():
    fixture = json.loads((FIXTURES / "locomo_predictions.json").read_text())
    rows = {
        "verbatim": [
            {"question": "Who?", "category": 4, "answer": "Calvin"},
            {"question": "When?", "category": 2, "answer": "7 May"},
        ],
        "agent_curated": [
            {"question": "When?", "category": 2, "answer": "May 2023"},
            {"question": "Who?", "category": 4, "answer": "Dave"},
        ],
    }
    out = json.loads(json.dumps(predictions(_conv(), rows)))
    assert set(out) == set(fixture)
    assert {k: type(v).__name__ for k, v in out.items()} == {k: type(v).__name__ for k, v in fixture.items()}
    assert [_shape(e) for e in out["qa"]] == [_shape(fixture["qa"][0])] * 2  # prediction keys folded
    for e in out["qa"]:
        for key in ("question", "answer", "evidence", "category"):
            assert type(e[key]) is type(fixture["qa"][0][key])
        assert {k for k in e if k.endswith("_prediction")} == {"verbatim_prediction", "agent_curated_prediction"}
    # conversation order, only the answered questions; what evaluation.py reads of each entry
    assert [e["question"] for e in out["qa"]] == ["When?", "Who?"]
    assert [(e["category"], str(e["answer"]), e[prediction_key("verbatim")]) for e in out["qa"]] == [
        (2, "7 May 2023", "7 May"),
        (4, "Calvin", "Calvin"),
    ]


def test_one_model_matches_the_fixture_entry_exactly():
    fixture = json.loads((FIXTURES / "locomo_predictions.json").read_text())
    out = predictions(_conv(), {"gpt-4-turbo": [{"question": "When?", "category": 2, "answer": "7 May 2023"}]})
    assert [_shape(e) for e in out["qa"]] == [_shape(fixture["qa"][0])]


def test_locomo_export_refuses_models_with_different_questions():
    with pytest.raises(ValueError, match="different numbers"):
        predictions(_conv(), {"a": [{"question": "Who?", "category": 4, "answer": "x"}], "b": []})
    with pytest.raises(ValueError, match="not in the conversation"):
        predictions(_conv(), {"a": [{"question": "Why?", "category": 4, "answer": "x"}]})
