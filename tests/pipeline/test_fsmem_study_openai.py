"""Every filesystem-memory study target through Snakemake with every role on an endpoint (llm=openai at a
loopback server played by `scripted_agent`): model builders write the stores through tool calls, model
searchers read them, the judge grades, and the tables report the model names, tokens and dollars."""

import subprocess

import pandas as pd
import pytest

import scripted_agent
import smoke_run
from llm_testkit import FakeServer
from tailmem import paths
from tailmem.llm.cache import CallCache

TEST_PRICE = "{input:1.0,cached_input:0.1,output:4.0}"  # a test price for every model (the paper gives only mini's)
MODELS = "[gpt-5.4-nano,gpt-5.4-mini]"


def _snakemake(repo_root, workdir, overrides, *targets, options=()):
    cmd = smoke_run.command(repo_root, workdir, *options, overrides=overrides, targets=targets)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=repo_root)


@pytest.mark.slow
def test_study_targets_run_against_an_endpoint(tmp_path, repo_root, data_dir, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeServer(agent=scripted_agent.agent) as server:
        overrides = [
            f"data_dir={data_dir}",
            "llm=openai",
            f"llm.base_url={server.base_url}",
            f"llm.cache_path={tmp_path}/llm_cache.sqlite",
            "llm.retries=1",
            "llm.backoff_s=0.01",
            f"+llm.prices.default={TEST_PRICE}",
            "fsmem.max_questions=3",
            "fsmem.personamem.max_questions=2",
            f"fsmem.study.strength.builders={MODELS}",
            f"fsmem.study.strength.searchers={MODELS}",
            "fsmem.max_sessions=3",  # the stores of the first sessions: every role's path, fewer build episodes
            "fsmem.chunk.max_turns=32",
            "fsmem.chunk.max_chars=12000",  # fewer, larger build episodes
            # the model's variants: the builder writes agent_curated, the searcher reads it, closed book asks without
            # a store (chunk_retrieval's programmatic store adds jobs, not a role: the smoke DAG runs it)
            "fsmem.study.variants=[closed_book,agent_curated]",
            # one replicate: a rebuild's model path is tested in tests/fsmem_study/test_replicates.py against the
            # same kind of server; here it added jobs, not roles
            "fsmem.study.replicates.count=1",
            # RQ5 through the main build's harness and the shell (center_bm25's build and answers are the same
            # tool-call path; the smoke DAG and tests/test_registries.py run every harness)
            "fsmem.study.harnesses=[center,shell]",
            # the judge-sensitivity table the claims read judges LongMemEval's answers too: one question of one
            # dataset keeps that path (two datasets of 6 questions cost 9 s of jobs, no other role)
            "longmemeval.datasets=[oracle]",
            "longmemeval.max_questions=1",
        ]
        run = _snakemake(repo_root, tmp_path, overrides, "fsmem_study")
        assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
        calls = server.requests
        assert calls > 50
        # One cell of the RQ3 grid (the second builder's store, the other model's answers on it and their
        # judgements) re-run from scratch asks the server nothing: every call comes from the call cache. A re-run of
        # the whole grid took the same path for both builds and all four cells.
        strength = tmp_path / "results" / "smoke" / "fsmem" / "strength"
        cell = sorted(strength.glob(f"*/*/gpt-5.4-nano/agent_curated/answers/*/gpt-5.4-mini/{paths.ANSWERS_FILE}"))
        assert len(cell) == 1, sorted(strength.rglob(paths.ANSWERS_FILE))
        target = str(cell[0].relative_to(tmp_path))
        again = _snakemake(repo_root, tmp_path, overrides, target, options=["--forceall"])
        out = again.stdout + again.stderr
        assert again.returncode == 0, out[-4000:]
        assert {"fsmem_strength_store", "fsmem_strength_answers"} <= {j.rule for j in smoke_run.jobs_in(out)}, out[
            -3000:
        ]
        assert server.requests == calls

    tables = tmp_path / "results" / "smoke" / "tables"
    strength = pd.read_csv(tables / "fsmem_rq3_strength.csv")
    pairs = set(zip(strength["builder"], strength["searcher"]))
    assert pairs == {(b, s) for b in ("gpt-5.4-nano", "gpt-5.4-mini") for s in ("gpt-5.4-nano", "gpt-5.4-mini")}
    retrieval = pd.read_csv(tables / "fsmem_rq2_retrieval.csv")
    filesystem = retrieval[retrieval["variant"] == "agent_curated"]
    assert (filesystem["tokens/q"] > 0).all() and (filesystem["cents/q"] > 0).all()
    assert filesystem["judge correct"].between(0, 1).all()
    shape = pd.read_csv(tables / "fsmem_rq1_store_shape.csv")
    curated = shape[shape["variant"] == "agent_curated"]
    assert (curated["files"] > 0).all()  # the model builder's tool calls made the store
    costs = pd.read_csv(tables / "fsmem_costs.csv")
    assert {"builder", "searcher", "judge"} <= set(costs["role"])
    stats = CallCache(tmp_path / "llm_cache.sqlite").stats()
    assert stats
