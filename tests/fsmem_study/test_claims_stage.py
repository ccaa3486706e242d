"""The fsmem_claims stage end to end on answer sets written where the study's runs keep them (no builds): it reads
every study (main, harness, strength) and writes claims_fsmem with the offline note. The study tables' paper 2
columns land beside their own column (a unit test, and RQ1/RQ2/RQ3 and the hierarchy panel on two questions)."""

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from record_kit import placeholder
from tailmem import outputs
from tailmem.configs import config_dir
from tailmem.fsmem import run_list
from tailmem.records.fsmem import FsmemAnswers
from tailmem.registry import STAGES
from tailmem.report import paper2_values
from tailmem.stats.verdict import HELD, INCONCLUSIVE
from tailmem.studies.fsmem import claims_stage as fsmem_claims
from tailmem.studies.fsmem import locomo
from tailmem.studies.fsmem import report as fsmem_study
from tailmem.studies.fsmem.report import with_paper

DATA = "/work/shared/data"
N = 40


def cfg_for(tmp_path):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(
            config_name="config",
            overrides=[
                f"results_dir={tmp_path}",
                f"data_dir={DATA}",
                f"out={tmp_path / 'tables'}",
                "stage=fsmem_claims",
                "stats.resamples=500",
                "fsmem.study.benchmarks=[locomo]",
                "fsmem.study.variants=[closed_book,verbatim,agent_curated]",
                "fsmem.study.harness_benchmarks=[locomo]",
                "fsmem.study.harness_variants=[agent_curated]",
            ],
        )


def write_answers(run: run_list.Run, f1: np.ndarray, chars) -> None:
    chars = np.broadcast_to(np.asarray(chars, dtype=float), (N,))
    rows = [
        {
            "qid": i,
            "question": f"question {i}?",
            "f1": float(f1[i]),
            "judge_correct": None,
            "search_chars_read": float(chars[i]),
            "search_dollars": 0.0,
        }
        for i in range(N)
    ]
    placeholder(FsmemAnswers, benchmark=run.benchmark, variant=run.variant, rows=rows).write(run.answers_file)


def test_stage_writes_claims_fsmem_from_every_study(tmp_path):
    cfg = cfg_for(tmp_path)
    base = np.random.default_rng(0).uniform(0.3, 0.7, N)
    shift = {"closed_book": -0.3, "verbatim": 0.0, "agent_curated": 0.0}
    for run in run_list.main_runs(cfg):
        write_answers(run, base + shift[run.variant], 4000.0 if run.variant == "verbatim" else 1000.0 - base * 10)
    for run in run_list.harness_runs(cfg) + run_list.strength_runs(cfg):
        if not run.answers_file.exists():  # the center harness run reuses the main answers
            write_answers(run, base, 1000.0)
    fsmem_claims.run(cfg)
    table = tmp_path / "tables" / f"{outputs.FSMEM_STUDY_TABLES['fsmem_claims']}.csv"
    df = pd.read_csv(table)
    verdict = dict(zip(df.claim, df.verdict))
    assert verdict["A file-based store (agent_curated) answers better than closed book"] == HELD
    assert verdict["A file-based store (verbatim) answers better than closed book"] == HELD
    # identical F1 on 40 questions says little of a 0.05 margin (0.95^40 = 0.13): open, not HELD
    reason = dict(zip(df.claim, df.reason))
    no_better = "Organization does not buy better answers: agent_curated no better than verbatim"
    assert verdict[no_better] == INCONCLUSIVE and reason[no_better].startswith("uninformative")
    assert verdict["Organization buys search economy: agent_curated costs less to search than verbatim"] == HELD
    assert verdict["The harnesses tie (agent_curated): every pair within the margin"] == INCONCLUSIVE
    assert verdict["A stronger search model answers better"] == INCONCLUSIVE  # offline: a 1 x 1 grid
    assert set(df.unit.dropna()) == {"question"} and (df.n_units.dropna() <= N).all()
    md = table.with_suffix(".md").read_text()
    assert "programmatic agents" in md and "not comparable in level" in md.lower()
    assert (tmp_path / "tables" / "claims_fsmem.provenance" / "meta.json").exists()


def test_claims_stage_is_registered_with_the_stats_group():
    stage = STAGES["fsmem_claims"]
    assert stage.target == "tailmem.studies.fsmem.claims_stage:run" and "stats" in stage.groups
    assert outputs.FSMEM_STUDY_TABLES["fsmem_claims"] == "claims_fsmem"


def test_paper_columns_sit_beside_their_own_column():
    df = pd.DataFrame(
        {
            "benchmark": ["locomo", "locomo", "realtalk"],
            "builder": "programmatic",
            "variant": ["agent_curated", "verbatim", "agent_curated"],
            "files": [4.0, 10.0, 3.0],
            "sections": [50.0, 10.0, 20.0],
            "cross-refs": [7.0, 0.0, 2.0],
        }
    )
    out = with_paper(df, ["benchmark", "variant"], paper2_values.shape_row, ["files", "sections", "cross-refs"])
    assert list(out.columns) == [
        "benchmark",
        "builder",
        "variant",
        "files",
        "files_paper",
        "sections",
        "sections_paper",
        "cross-refs",
        "cross-refs_paper",
    ]
    assert out.loc[0, ["files_paper", "sections_paper", "cross-refs_paper"]].tolist() == [3, 116, 151]
    assert out.loc[1:, "files_paper"].isna().all()
    harness = pd.DataFrame(
        {"benchmark": ["locomo"], "variant": ["agent_curated"], "harness": ["center_bm25"], "store files": [5.0]}
    )
    out = with_paper(
        harness, ["benchmark", "variant", "harness"], paper2_values.harness_row, ["store files", "judge correct low"]
    )
    assert list(out.columns)[-2:] == ["store files_paper", "judge correct low_paper"]
    assert out.loc[0, "store files_paper"] == 29 and out.loc[0, "judge correct low_paper"] == 0.861


@pytest.mark.slow
def test_study_tables_print_paper_2_beside_ours(tmp_path):
    """RQ1, the hierarchy panel, RQ2 and RQ3 on two LoCoMo questions, offline: each has its `_paper` columns."""

    def cfg(*extra):
        with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
            return compose(
                config_name="config",
                overrides=[
                    f"results_dir={tmp_path}",
                    f"data_dir={DATA}",
                    f"out={tmp_path / 'tables'}",
                    "fsmem.max_questions=2",
                    "fsmem.study.benchmarks=[locomo]",
                    "fsmem.study.variants=[closed_book,agent_curated]",
                    "fsmem.study.harness_benchmarks=[]",
                    *extra,
                ],
            )

    for run in run_list.main_runs(cfg()) + run_list.strength_runs(cfg()):
        common = [
            f"fsmem.benchmark={run.benchmark}",
            f"fsmem.conversation={run.conversation}",
            f"fsmem.variant={run.variant}",
        ]
        locomo.build(cfg(*common, f"out={run.build_dir}"))
        locomo.answer(cfg(*common, f"fsmem.harness={run.harness}", f"input={run.build_dir}", f"out={run.answers_dir}"))
    for stage in (fsmem_study.shape, fsmem_study.hierarchy, fsmem_study.retrieval, fsmem_study.strength):
        stage(cfg())
    tables = tmp_path / "tables"
    shape = pd.read_csv(tables / "fsmem_rq1_store_shape.csv")
    assert shape.loc[0, ["files_paper", "sections_paper", "cross-refs_paper"]].tolist() == [3, 116, 151]
    assert list(shape.columns).index("files_paper") == list(shape.columns).index("files") + 1
    hierarchy = pd.read_csv(tables / "fsmem_hierarchy.csv")
    assert hierarchy.loc[0, ["files_paper", "references_paper"]].tolist() == [3, 151]
    retrieval = pd.read_csv(tables / "fsmem_rq2_retrieval.csv")
    assert set(retrieval["n_paper"]) == {158} and set(retrieval["n"]) == {2}
    strength = pd.read_csv(tables / "fsmem_rq3_strength.csv")  # offline: programmatic, no paper row to match
    for col in ("store files_paper", "builder judge correct_paper", "searcher judge correct_paper"):
        assert col in strength.columns and strength[col].isna().all()
    assert "one-factor ladders" in (tables / "fsmem_rq3_strength.md").read_text()
