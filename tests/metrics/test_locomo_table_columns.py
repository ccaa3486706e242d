"""The LoCoMo stages with issue 16's additions, offline on a few conv-50 questions: the evidence-coverage column,
category 5 scored by LoCoMo's rule when `fsmem.categories` opts in, and the predictions file in LoCoMo's layout."""

import json

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from tailmem.configs import config_dir
from tailmem.metrics.locomo_f1 import locomo_f1
from tailmem.paths import ANSWERS_FILE
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild
from tailmem.studies.fsmem import locomo


def _cfg(tmp_path, data_dir, variant, **extra):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        over = [
            f"results_dir={tmp_path}",
            f"data_dir={data_dir}",
            f"fsmem.variant={variant}",
            "fsmem.max_questions=6",
            "fsmem.variants=[closed_book,verbatim]",
            "stage=fsmem_table",
        ]
        return compose(config_name="config", overrides=over + [f"{k}={v}" for k, v in extra.items()])


def _rows(cfg):
    """answers.json of a variant's centre-harness run, wherever the layout puts it below the variant folder."""
    (path,) = locomo.variant_dir(cfg).glob(f"answers/center/**/{ANSWERS_FILE}")
    return FsmemAnswers.read(path).rows


def test_coverage_column_and_predictions_file(tmp_path, data_dir):
    for v in ("closed_book", "verbatim"):
        cfg = _cfg(tmp_path, data_dir, v)
        locomo.build(cfg)
        locomo.answer(cfg)
    locomo.table(_cfg(tmp_path, data_dir, "verbatim"))
    df = pd.read_csv(tmp_path / "tables/locomo_conv-50.csv").set_index("variant")
    assert df.loc["closed_book", "evidence coverage"] == 0.0  # read nothing
    assert 0 < df.loc["verbatim", "evidence coverage"] <= 1.0
    assert "F1 5 adversarial" not in df  # paper 2's protocol: categories 1-4
    export = json.loads((tmp_path / "tables/locomo_conv-50.predictions.json").read_text())
    assert export["sample_id"] == "conv-50" and len(export["qa"]) == 6
    rows = _rows(_cfg(tmp_path, data_dir, "verbatim"))
    for e, r in zip(export["qa"], rows):  # same order, same scores from the export
        assert e["question"] == r["question"] and e["verbatim_prediction"] == r["answer"]
        assert locomo_f1(e["verbatim_prediction"], e["answer"], e["category"]) == r["f1"]
        assert {"closed_book_prediction", "evidence", "category"} <= set(e)


def test_category_5_is_scored_when_opted_in(tmp_path, data_dir):
    cfg = _cfg(tmp_path, data_dir, "closed_book", **{"fsmem.categories": "[5]", "fsmem.max_questions": 3})
    locomo.build(cfg)
    locomo.answer(cfg)
    rows = _rows(cfg)
    assert [r["category"] for r in rows] == [5, 5, 5]
    assert all(r["f1"] == 1.0 for r in rows)  # closed book says "No information available"
    built = FsmemBuild.read(locomo.variant_dir(cfg) / "build.json")
    summary = locomo.summarize(rows, built)
    assert summary["F1 5 adversarial"] == 1.0 and summary["F1"] == 1.0


def test_the_config_schema_accepts_the_category_5_opt_in():
    from tailmem.validation import validate

    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        ok = compose(config_name="config", overrides=["fsmem.categories=[1,2,3,4,5]", "stage=fsmem_answer"])
        bad = compose(config_name="config", overrides=["fsmem.categories=[1,6]", "stage=fsmem_answer"])
    validate(ok)
    with pytest.raises(Exception, match="fsmem.categories"):
        validate(bad)
