"""Issue 15, finding 5: fsmem store builds have a replicate dimension, and the spread of store shape across
replicates is a table. A model builder's replicate is its own sample (its requests carry the seed, so it is
neither a replay of replicate 0 nor paid twice on a rerun); the programmatic builder's replicates are identical."""

import json

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

import scripted_agent
from llm_testkit import FakeServer
from tailmem import provenance
from tailmem.configs import config_dir
from tailmem.errors import DataError
from tailmem.fsmem import run_list
from tailmem.paths import replicate_dir, variant_dir
from tailmem.studies.fsmem import locomo
from tailmem.studies.fsmem import report as fsmem_study

OVER = [
    "fsmem.max_questions=2",
    "fsmem.chunk.max_turns=64",
    "fsmem.chunk.max_chars=20000",
    "fsmem.study.replicates.count=3",
]


def _cfg(tmp_path, data_dir, *extra):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(
            config_name="config",
            overrides=["stage=fsmem_build", f"results_dir={tmp_path}", f"data_dir={data_dir}", *OVER, *extra],
        )


@pytest.fixture()
def fresh_caches():
    provenance.code_state.cache_clear()
    yield
    provenance.code_state.cache_clear()


def _build_and_answer(cfg_of, runs):
    for run in runs:
        over = [
            f"fsmem.benchmark={run.benchmark}",
            f"fsmem.conversation={run.conversation}",
            f"fsmem.variant={run.variant}",
            f"fsmem.replicate={run.replicate}",
            f"fsmem.harness={run.harness}",
        ]
        locomo.build(cfg_of(f"out={run.build_dir}", *over))
        locomo.answer(cfg_of(f"input={run.build_dir}", f"out={run.answers_dir}", *over))


def test_replicate_0_is_the_main_store_and_the_others_have_folders_of_their_own(tmp_path, data_dir):
    cfg = _cfg(tmp_path, data_dir)
    runs = run_list.replicate_runs(cfg)
    assert [r.replicate for r in runs] == [0, 1, 2]
    assert runs[0].build_dir == variant_dir(tmp_path, "locomo", "conv-50", "agent_curated")
    assert len({r.build_dir for r in runs}) == 3 and all("replicate" in r.build_dir.parts for r in runs[1:])
    assert runs[2].build_dir == replicate_dir(tmp_path, "locomo", "conv-50", "agent_curated", 2)
    assert {r.answers_file for r in runs} <= {r.answers_file for r in run_list.all_runs(cfg)}  # their cost is counted


@pytest.mark.slow
def test_programmatic_replicates_are_identical_and_the_table_says_why(tmp_path, data_dir, fresh_caches):
    cfg = _cfg(tmp_path, data_dir)
    _build_and_answer(lambda *o: _cfg(tmp_path, data_dir, *o), run_list.replicate_runs(cfg))
    fsmem_study.replicates(cfg)
    df = pd.read_csv(tmp_path / "tables/fsmem_store_replicates.csv")
    assert set(df["replicates"]) == {3} and (df["sd"] == 0).all()
    assert "deterministic" in (tmp_path / "tables/fsmem_store_replicates.md").read_text()


def _seeded_agent(body):
    """The scripted model, except that a builder request carrying seed s also files the chunk into s note files
    (`notes/seed<s>_<k>.md`): replicates of this model build stores of different shape, as sampled models do."""
    message = scripted_agent.agent(body)
    calls = message.get("tool_calls") or []
    seed = body.get("seed") or 0
    if seed and calls and all(c["function"]["name"] == "append_section" for c in calls):
        args = json.loads(calls[0]["function"]["arguments"])
        notes = [
            {
                "id": f"{calls[0]['id']}n{k}",
                "type": "function",
                "function": {
                    "name": "append_section",
                    "arguments": json.dumps({**args, "path": f"notes/seed{seed}_{k}.md"}),
                },
            }
            for k in range(seed)
        ]
        message = {**message, "tool_calls": [*calls, *notes]}
    return message


@pytest.mark.slow
def test_a_model_builders_replicates_are_separate_samples_with_a_spread(tmp_path, data_dir, monkeypatch, fresh_caches):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeServer(agent=_seeded_agent) as server:
        llm = [
            "llm=openai",
            f"llm.base_url={server.base_url}",
            f"llm.cache_path={tmp_path}/llm_cache.sqlite",
            "llm.retries=1",
            "llm.backoff_s=0.01",
            "+llm.prices.default={input:1.0,cached_input:0.1,output:4.0}",
        ]
        cfg = _cfg(tmp_path, data_dir, *llm)
        runs = run_list.replicate_runs(cfg)
        _build_and_answer(lambda *o: _cfg(tmp_path, data_dir, *llm, *o), runs)
        builder = [b for b in server.bodies if "chunk to integrate" in json.dumps(b["messages"])]
        seeds = [b.get("seed") for b in builder]
        assert seeds.count(None) == len(seeds) // 3 > 0  # replicate 0 sends no seed: it hashes as before
        assert seeds.count(1) == seeds.count(2) == len(seeds) // 3
        sent = server.requests
        _build_and_answer(lambda *o: _cfg(tmp_path, data_dir, *llm, *o), runs[1:])
        assert server.requests == sent  # a rerun of a replicate replays its own recordings: paid once
        fsmem_study.replicates(cfg)
    df = pd.read_csv(tmp_path / "tables/fsmem_store_replicates.csv").set_index("metric")
    files = [float(v) for v in df.loc["files", "values"].split(", ")]
    assert files[1] == files[0] + 1 and files[2] == files[0] + 2  # replicate s added s note files
    assert df.loc["files", "sd"] == pytest.approx(1.0) and df.loc["files", "replicates"] == 3
    assert "deterministic" not in (tmp_path / "tables/fsmem_store_replicates.md").read_text()


@pytest.mark.slow
def test_a_store_built_as_another_replicate_is_refused(tmp_path, data_dir, fresh_caches):
    cfg = _cfg(tmp_path, data_dir, "fsmem.study.replicates.count=2")
    runs = run_list.replicate_runs(cfg)
    _build_and_answer(lambda *o: _cfg(tmp_path, data_dir, "fsmem.study.replicates.count=2", *o), runs)
    build = runs[1].build_file
    build.write_text(json.dumps({**json.loads(build.read_text()), "replicate": 0}))
    with pytest.raises(DataError, match="built as replicate 0, expected 1"):
        fsmem_study.replicates(cfg)
