"""RQ5 end to end, offline: each store is built and searched through the same harness, the center row reuses
the main build, and the table has one row per harness with store shape, build effort and search cost."""

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from tailmem.configs import config_dir
from tailmem.errors import DataError
from tailmem.fsmem import run_list
from tailmem.fsmem.sandbox import available
from tailmem.paths import harness_dir, variant_dir
from tailmem.records.fsmem import FsmemBuild
from tailmem.studies.fsmem import locomo
from tailmem.studies.fsmem import report as fsmem_study

DATA = "/work/shared/data"


def cfg_for(tmp_path, *extra):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(
            config_name="config",
            overrides=[
                f"results_dir={tmp_path}",
                f"data_dir={DATA}",
                "fsmem.max_questions=2",
                "stage=fsmem_harness",
                "fsmem.study.harness_benchmarks=[locomo]",
                "fsmem.study.harness_variants=[verbatim]",
                *extra,
            ],
        )


def test_harness_runs_pair_build_and_search_harness(tmp_path):
    runs = run_list.harness_runs(cfg_for(tmp_path))
    assert [(r.harness, r.build_harness) for r in runs] == [(h, h) for h in ("center", "center_bm25", "shell")]
    assert runs[0].build_dir == variant_dir(tmp_path, "locomo", "conv-50", "verbatim")  # center reuses the main store
    assert runs[2].build_dir == harness_dir(tmp_path, "locomo", "conv-50", "shell", "verbatim")
    assert runs[2].answers_file == runs[2].build_dir / "answers/shell/programmatic/answers.json"  # searcher named
    # a main build through another harness moves the reuse to that harness
    moved = run_list.harness_runs(cfg_for(tmp_path, "fsmem.build_harness=shell"))
    assert moved[2].build_dir == variant_dir(tmp_path, "locomo", "conv-50", "verbatim")
    assert moved[0].build_dir == harness_dir(tmp_path, "locomo", "conv-50", "center", "verbatim")


def _run_all(cfg, tmp_path):
    for run in run_list.harness_runs(cfg):
        common = [
            f"fsmem.benchmark={run.benchmark}",
            f"fsmem.conversation={run.conversation}",
            f"fsmem.variant={run.variant}",
        ]
        locomo.build(cfg_for(tmp_path, *common, f"fsmem.build_harness={run.build_harness}", f"out={run.build_dir}"))
        locomo.answer(
            cfg_for(
                tmp_path, *common, f"fsmem.harness={run.harness}", f"input={run.build_dir}", f"out={run.answers_dir}"
            )
        )


@pytest.mark.slow
@pytest.mark.skipif(available() != "bwrap", reason="the Shell harness needs bubblewrap")
def test_rq5_table_has_one_row_per_harness(tmp_path):
    cfg = cfg_for(tmp_path, f"out={tmp_path / 'tables'}")
    _run_all(cfg, tmp_path)
    for run in run_list.harness_runs(cfg):
        assert FsmemBuild.read(run.build_file).build_harness == run.harness
    fsmem_study.harness(cfg)
    df = pd.read_csv(tmp_path / "tables/fsmem_rq5_harness.csv")
    assert list(df["harness"]) == ["center", "center_bm25", "shell"] and set(df["variant"]) == {"verbatim"}
    for col in (
        "store files",
        "folders",
        "sections",
        "bytes",
        "max depth",
        "build rounds/chunk",
        "build tool calls/chunk",
        "F1",
        "judge correct",
        "tool calls/q",
        "tokens/q",
        "cents/q",
    ):
        assert col in df.columns, col
    assert df["store files"].nunique() == 1 and df["bytes"].nunique() == 1  # a verbatim dump ties
    assert (df["build tool calls/chunk"] > 0).all() and (df["tool calls/q"] > 0).all()
    assert "bash" in df.set_index("harness").loc["shell", "search tool mix"]
    assert "both roles" in (tmp_path / "tables/fsmem_rq5_harness.md").read_text()


def test_a_store_built_through_the_wrong_harness_is_named(tmp_path):
    cfg = cfg_for(tmp_path, "fsmem.study.harnesses=[center_bm25]")
    run = run_list.harness_runs(cfg)[0]
    common = ["fsmem.benchmark=locomo", "fsmem.conversation=conv-50", "fsmem.variant=verbatim"]
    locomo.build(cfg_for(tmp_path, *common, f"out={run.build_dir}"))  # through center, not center_bm25
    locomo.answer(
        cfg_for(tmp_path, *common, "fsmem.harness=center_bm25", f"input={run.build_dir}", f"out={run.answers_dir}")
    )
    with pytest.raises(DataError, match="built through 'center'.*center_bm25"):
        fsmem_study.harness(cfg)
