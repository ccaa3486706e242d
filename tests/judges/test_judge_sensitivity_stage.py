"""Stage judge_sensitivity on answers written where the study and LongMemEval keep them: one table with accuracy
and its interval per judge, agreement and kappa per pair (scikit-learn's kappa), Krippendorff's alpha (the
package's) per benchmark, agreement with the official F1; the claims stages then add a verdict per judge."""

import json

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from sklearn.metrics import cohen_kappa_score

from record_kit import placeholder
from tailmem import outputs
from tailmem.cli import main
from tailmem.configs import config_dir
from tailmem.fsmem import run_list
from tailmem.judges import panel
from tailmem.records.fsmem import FsmemAnswers
from tailmem.stats.group import shipped
from tailmem.studies.judge_sensitivity import sensitivity as stage

GOLD = "Lena adopted a rescue dog named Biscuit"
ANSWERS = [
    "Lena adopted a rescue dog named Biscuit.",
    "Lena got a rescue dog",
    "a cat",
    "Well, thinking back over all of our chats, there was a lot going on that spring: the move, the new job, the "
    "long trip to the coast with her sister, and somewhere in all of that Lena adopted a rescue dog named "
    "Biscuit, which she talked about at length, along with the garden and the neighbours.",
]


def verdict_frame() -> pd.DataFrame:
    """Answers of two arms to 20 questions, judged by the three offline rules (no model)."""
    from tailmem.metrics.locomo_f1 import locomo_f1

    recs = []
    for arm in ("a", "b"):
        for q in range(20):
            text = ANSWERS[(q + (arm == "b")) % 4]
            item = panel.locomo_item(f"q{q}?", GOLD, text, q, 4)
            recs.append(
                {
                    "source": "fsmem",
                    "benchmark": "locomo",
                    "answers": arm,
                    "qid": str(q),
                    "unit": f"locomo/conv-50/{q}",
                    "item": item,
                    "f1": locomo_f1(text, GOLD, 4),
                }
            )
    return stage.judge_answers(pd.DataFrame(recs), list(panel.JUDGES), None)


def test_table_statistics_match_the_libraries():
    import krippendorff

    v = verdict_frame()
    df = stage.sensitivity_table(v, list(panel.JUDGES), 0.5, shipped(resamples=300, seed=0), "programmatic-judge")
    labels = {j: v[v.judge == j].sort_values(["answers", "qid"]).correct.to_numpy() for j in panel.JUDGES}
    acc = df[df.row == "judge"].set_index("judge")
    assert acc.loc["gist", "accuracy"] == pytest.approx(0.75) and acc.loc["paper", "accuracy"] == pytest.approx(0.25)
    assert acc.loc["per_type", "accuracy"] == pytest.approx(0.5)
    assert (acc.ci_low <= acc.accuracy).all() and (acc.accuracy <= acc.ci_high).all()
    pair = df[df.row == "pair"].set_index("judge")
    assert pair.loc["paper vs gist", "cohen_kappa"] == pytest.approx(cohen_kappa_score(labels["paper"], labels["gist"]))
    assert pair.loc["paper vs gist", "agreement"] == pytest.approx(0.5)
    alpha = df[df.row == "all judges"].krippendorff_alpha.iloc[0]
    assert alpha == pytest.approx(
        krippendorff.alpha(reliability_data=np.array(list(labels.values())), level_of_measurement="nominal")
    )
    from tailmem.metrics.locomo_f1 import locomo_f1

    passes = [locomo_f1(a, GOLD, 4) >= 0.5 for a in ANSWERS]  # the exact and the half answer; not the ramble
    assert passes == [True, True, False, False]
    assert acc.loc[stage.F1_JUDGE, "accuracy"] == pytest.approx(0.5)
    assert acc.loc["paper", "f1_agreement"] == pytest.approx(0.75)  # strict passes only the exact one
    assert set(df.benchmark) == {"locomo"} and (df.answers == 40).all() and (df.questions == 20).all()


DATA = "/work/shared/data"


def cfg_for(tmp_path, stage_name):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(
            config_name="config",
            overrides=[
                "scale=smoke",
                f"results_dir={tmp_path}/results",
                f"data_dir={DATA}",
                f"stage={stage_name}",
                "stats.resamples=300",
                "fsmem.study.benchmarks=[locomo]",
                "fsmem.study.variants=[closed_book,agent_curated]",
                "fsmem.study.harness_benchmarks=[]",
                "longmemeval.max_per_type=1",
                "longmemeval.datasets=[oracle]",
            ],
        )


@pytest.mark.slow
def test_stage_then_claims_carry_a_verdict_per_judge(tmp_path):
    over = [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        f"figures_dir={tmp_path}/figures",
        f"data_dir={DATA}",
        "stats.resamples=300",
        "fsmem.study.benchmarks=[locomo]",
        "fsmem.study.variants=[closed_book,agent_curated]",
        "fsmem.study.harness_benchmarks=[]",
        "longmemeval.max_per_type=1",
        "longmemeval.datasets=[oracle]",
    ]
    assert main(["longmemeval", *over, "longmemeval.dataset=oracle", "seed=0"]) == 0
    cfg = cfg_for(tmp_path, "judge_sensitivity")
    rng = np.random.default_rng(0)
    for run in run_list.main_runs(cfg) + run_list.strength_runs(cfg):
        if run.answers_file.exists():
            continue
        rows = [
            {
                "qid": q,
                "question": f"q{q}?",
                "gold": GOLD,
                "category": 4,
                "answer": ANSWERS[int(rng.integers(0, 4 if run.variant == "agent_curated" else 3))],
                "search_chars_read": 100.0,
                "search_dollars": 0.0,
            }
            for q in range(30)
        ]
        for r in rows:
            from tailmem.metrics.locomo_f1 import locomo_f1

            r["f1"], r["judge_correct"] = locomo_f1(r["answer"], GOLD, 4), None
        placeholder(FsmemAnswers, benchmark=run.benchmark, variant=run.variant, rows=rows).write(run.answers_file)
    assert main(["judge_sensitivity", *over]) == 0
    tables = tmp_path / "results" / "tables"
    df = pd.read_csv(tables / f"{outputs.JUDGE_SENSITIVITY}.csv")
    assert set(df.benchmark) == {"locomo", "longmemeval oracle"}
    assert df[df.row == "all judges"].krippendorff_alpha.notna().all()
    assert "token rule" in (tables / f"{outputs.JUDGE_SENSITIVITY}.md").read_text()
    verdicts = pd.read_parquet(tables / outputs.JUDGE_VERDICTS)
    assert set(verdicts.judge) == set(panel.JUDGES) and verdicts.correct.notna().all()

    assert main(["fsmem_claims", *over]) == 0
    claims = pd.read_csv(tables / "claims_fsmem.csv")
    assert {"verdict_paper", "verdict_per_type", "verdict_gist", "judge_sensitive", "held_under_every_judge"} <= set(
        claims.columns
    )
    sensitive = claims.judge_sensitive == (
        claims[["verdict_paper", "verdict_per_type", "verdict_gist"]].nunique(axis=1) > 1
    )
    assert sensitive.all()
    assert main(["longmemeval_report", *over]) == 0
    lme = pd.read_csv(tables / "claims_longmemeval.csv")
    assert {"verdict_paper", "judge_sensitive"} <= set(lme.columns)
    meta = json.loads((tables / f"{outputs.JUDGE_SENSITIVITY}.provenance" / "meta.json").read_text())
    assert meta["judge"] == "programmatic-judge"
