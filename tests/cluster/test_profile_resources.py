"""The SLURM profile gives every model-slice rule (`model_*`) its resources, and the GPU overlay asks one GPU per
model job with the model's layers offloaded. The rule list comes from the workflow itself, so a new model rule
without an entry fails here instead of falling back to the defaults (1,000 MB, 15 minutes) on a cluster."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BASE = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())
GPU = yaml.safe_load((ROOT / "profiles" / "slurm-gpu" / "config.yaml").read_text())
GPU_KEYS = {"gpu": 1, "slurm_partition": "$TAILMEM_SLURM_GPU_PARTITION"}
MODEL_MEMORY_MB = 2500  # the 1.1 GB GGUF, its role contexts' KV caches and the stage itself


def _rules_that_run_jobs(config: dict, workdir: Path) -> set[str]:
    """Names of the workflow's rules that run a command (not the target-only ones), as Snakemake loads them."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    cwd = os.getcwd()
    try:
        with SnakemakeApi(OutputSettings()) as api:
            wf = api.workflow(
                resource_settings=ResourceSettings(),
                config_settings=ConfigSettings(config=config),
                snakefile=ROOT / "Snakefile",
                workdir=workdir,
            )
            return {r.name for r in wf._workflow.rules if not r.norun}
    finally:
        os.chdir(cwd)


def test_every_model_rule_that_runs_a_job_has_its_resources(data_dir, tmp_path):
    rules = _rules_that_run_jobs({"scale": "paper"}, tmp_path)
    model = {r for r in rules if r.startswith("model_")}
    assert len(model) > 20, model  # the slice was imported
    entries = BASE["set-resources"]
    missing = sorted(model - set(entries))
    assert not missing, f"profiles/slurm/config.yaml set-resources has no entry for {missing}"
    small = {r: entries[r] for r in model if entries[r].get("mem_mb", 0) < MODEL_MEMORY_MB}
    assert not small, f"model rules asking less than {MODEL_MEMORY_MB} MB: {small}"
    assert all(entries[r].get("runtime") for r in model)
    stale = sorted(r for r in entries if r not in rules)
    assert not stale, f"profiles/slurm/config.yaml set-resources names rules the workflow does not have: {stale}"


def test_the_gpu_overlay_is_the_slurm_profile_plus_a_gpu_for_model_jobs():
    base, gpu = BASE["set-resources"], GPU["set-resources"]
    assert set(gpu) == set(base), "profiles/slurm-gpu repeats every set-resources entry of profiles/slurm"
    with_gpu = {r for r, v in gpu.items() if "gpu" in v}
    assert with_gpu and all(r.startswith("model_") for r in with_gpu)
    for rule, entry in gpu.items():
        expected = {**base[rule], **GPU_KEYS} if rule in with_gpu else base[rule]
        assert entry == expected, f"profiles/slurm-gpu {rule}: {entry} against profiles/slurm {base[rule]}"
    assert {"model_control", "model_fsmem_answers", "model_longmemeval_run", "model_alfworld_skills"} <= with_gpu
    assert set(GPU) == {"set-resources"}  # everything else comes from profiles/slurm, given first


def _dry_run(workdir: Path, *options: str) -> dict[str, list[tuple[str, str]]]:
    """rule -> [(resources line, shell command)] of every job in a dry run of the paper scale."""
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="the `cluster` extra is not installed")
    env = {**os.environ, "TAILMEM_SLURM_ACCOUNT": "acct", "TAILMEM_SLURM_PARTITION": "part"}
    cmd = [sys.executable, "-m", "snakemake", "-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(workdir)]
    cmd += ["--profile", str(ROOT / "profiles" / "slurm"), *options]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    jobs: dict[str, list] = {}
    for block in re.split(r"\n(?=\S*rule \w+:|localrule \w+:)", proc.stdout):
        m = re.match(r"\S*rule (\w+):", block.strip())
        if m:
            res = re.search(r"^\s+resources: (.*)$", block, re.M)
            shell = re.search(r"^Shell command: (.*)$", block, re.M)
            jobs.setdefault(m.group(1), []).append((res.group(1) if res else "", shell.group(1) if shell else ""))
    return jobs


def _resource(line: str, name: str) -> str | None:
    m = re.search(rf"(?:^|, ){name}=([^,]+)", line)
    return m.group(1) if m else None


@pytest.mark.slow
def test_a_slurm_dry_run_gives_each_model_job_its_resources(data_dir, tmp_path):
    jobs = _dry_run(tmp_path, "--config", "scale=paper")
    model = {r: js for r, js in jobs.items() if r.startswith("model_")}
    assert "model_control" in model and "model_longmemeval_run" in model
    for rule, js in model.items():
        want = BASE["set-resources"][rule]
        for res, _ in js:
            assert _resource(res, "mem_mb") == str(want["mem_mb"]), (rule, res)
            assert _resource(res, "runtime") == str(want["runtime"]), (rule, res)
            assert _resource(res, "gpu") is None


@pytest.mark.slow
def test_the_gpu_overlay_gives_model_jobs_a_gpu_and_the_model_its_layers(data_dir, tmp_path):
    jobs = _dry_run(
        tmp_path, "--profile", str(ROOT / "profiles" / "slurm-gpu"), "--config", "scale=paper",
        'model_overrides=["llm.n_gpu_layers=99"]',
    )  # fmt: skip
    with_gpu = {r for r, v in GPU["set-resources"].items() if "gpu" in v}
    seen = set()
    for rule, js in jobs.items():
        for res, shell in js:
            if rule in with_gpu:
                seen.add(rule)
                assert _resource(res, "gpu") == "1", (rule, res)
                assert _resource(res, "slurm_partition") == "$TAILMEM_SLURM_GPU_PARTITION", (rule, res)
                assert "llm.n_gpu_layers=99" in shell, (rule, shell)
            else:
                assert _resource(res, "gpu") is None, (rule, res)
            if not rule.startswith("model_"):
                assert "n_gpu_layers" not in shell, (rule, shell)  # the slice's override stays in the slice
    assert {"model_control", "model_fsmem_answers", "model_longmemeval_run", "model_alfworld_skills"} <= seen
