"""fsmem.gold_overlay at scoring time (issue 31), offline on conv-50's first 21 questions: a dropped question is not
scored, a corrected gold scores F1, answers.json and meta.json record the overlay (name, version, sha256), the
table refuses answers scored under another overlay, and the LoCoMo table carries the answer length."""

import pandas as pd
import pytest
import tiktoken
from hydra import compose, initialize_config_dir

from tailmem.artifacts import read_json
from tailmem.configs import config_dir
from tailmem.errors import DataError
from tailmem.llm.tokens import get_encoding
from tailmem.metrics.locomo_f1 import locomo_f1
from tailmem.paths import ANSWERS_FILE, META_FILE
from tailmem.studies.fsmem import locomo

OVERLAY = """benchmark: locomo
conversation: conv-50
name: mine
version: 3
description: one corrected gold
source: a test
entries:
  - question: 2
    original_gold: {gold}
    corrected_gold: Tokyo
    reason: r
    source: s
"""


def _cfg(tmp_path, data_dir, variant, overlay="null"):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(
            config_name="config",
            overrides=[
                f"results_dir={tmp_path}",
                f"data_dir={data_dir}",
                f"fsmem.variant={variant}",
                "fsmem.max_questions=21",
                "fsmem.variants=[closed_book,verbatim]",
                "stage=fsmem_answer",
                f"fsmem.gold_overlay={overlay}",
            ],
        )


def _answers(cfg):
    (path,) = locomo.variant_dir(cfg).glob(f"answers/center/**/{ANSWERS_FILE}")
    return path, read_json(path)


def test_dropped_and_corrected_golds_at_scoring_time(tmp_path, data_dir):
    conv = locomo.full_conversation(_cfg(tmp_path, data_dir, "verbatim").fsmem, "locomo", "conv-50")
    mine = tmp_path / "mine.yaml"
    mine.write_text(OVERLAY.format(gold=conv.qa[1].answer))
    for v in ("closed_book", "verbatim"):
        cfg = _cfg(tmp_path, data_dir, v, "locomo/d2-v1")
        locomo.build(cfg)
        locomo.answer(cfg)
        path, data = _answers(cfg)
        assert len(data["rows"]) == 20 and conv.qa[19].question not in [r["question"] for r in data["rows"]]
        assert data["gold_overlay"]["name"] == "d2" and data["gold_overlay"]["version"] == 1
        meta = read_json(path.parent / META_FILE)
        assert meta["gold_overlay"]["sha256"] == data["gold_overlay"]["sha256"]
    locomo.table(_cfg(tmp_path, data_dir, "verbatim", "locomo/d2-v1"))
    md = (tmp_path / "tables/locomo_conv-50.md").read_text()
    assert "Golds: overlay d2-v1" in md
    with pytest.raises(DataError, match="scored under gold overlay"):  # the standard data asked of d2 answers
        locomo.table(_cfg(tmp_path, data_dir, "verbatim"))

    cfg = _cfg(tmp_path, data_dir, "verbatim", str(mine))
    locomo.answer(cfg)
    _, data = _answers(cfg)
    two = next(r for r in data["rows"] if r["question"] == conv.qa[1].question)
    assert two["gold"] == "Tokyo" and two["gold_original"] == conv.qa[1].answer
    assert two["f1"] == locomo_f1(two["answer"], "Tokyo", two["category"])
    assert len(data["rows"]) == 21 and data["gold_overlay"]["version"] == 3


def test_locomo_table_answer_tokens_match_tiktoken(tmp_path, data_dir):
    for v in ("closed_book", "verbatim"):
        cfg = _cfg(tmp_path, data_dir, v)
        locomo.build(cfg)
        locomo.answer(cfg)
    locomo.table(_cfg(tmp_path, data_dir, "verbatim"))
    df = pd.read_csv(tmp_path / "tables/locomo_conv-50.csv").set_index("variant")
    _, data = _answers(_cfg(tmp_path, data_dir, "verbatim"))
    enc = get_encoding("o200k_base")
    assert enc.name == tiktoken.get_encoding("o200k_base").name
    expected = sum(len(enc.encode(r["answer"])) for r in data["rows"]) / len(data["rows"])
    assert df.loc["verbatim", "answer tokens"] == pytest.approx(expected, abs=1e-4) and expected > 0
    assert "answer tokens = mean tokens" in (tmp_path / "tables/locomo_conv-50.md").read_text()
    meta = read_json(tmp_path / "tables" / "locomo_conv-50.provenance" / META_FILE)
    assert "gold_overlay" in meta and meta["gold_overlay"] is None  # the default: the standard data, recorded
