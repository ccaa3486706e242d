"""The cluster path run for real (issue 19): a slice of the smoke DAG covering every cheap rule kind goes through
`profiles/slurm` to a single-node SLURM with accounting; its artifacts equal a local run's byte for byte (timing
fields aside), a rerun through the profile submits nothing, and an unset account or partition is named in the
error. Only rule names and the Snakemake CLI are assumed of the workflow."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import yaml
from slurm_testkit import SingleNodeSlurm, unavailable

import smoke_run
from artifact_kit import SLICE, SLICE_RULES, TARGETS
from artifact_kit import artifacts as _artifacts
from artifact_kit import normalised as _normalised
from artifact_kit import tree_state as _tree_state

# Poll sacct every second or so instead of the plugin's 40 s first wait: a test run, not a production one.
# (Letting group jobs take both CPUs, --cores 2, was not faster: a 2-CPU group job holds the whole node.)
FAST_POLL = ["--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1"]
PROFILE = Path(__file__).resolve().parents[2] / "profiles" / "slurm"
TIMEOUT = 900


def _snakemake(
    repo_root: Path, workdir: Path, env: dict, options: list[str], targets: list[str], timeout: float = TIMEOUT
) -> tuple[subprocess.CompletedProcess, float]:
    """Run Snakemake on the slice; past `timeout` it is killed and returns code -9 with what it printed."""
    cmd = smoke_run.command(repo_root, workdir, *options, overrides=SLICE, cores=None, targets=targets)
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo_root, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), time.monotonic() - t0


def _job_stats(log: str) -> dict[str, int]:
    """Snakemake's 'Job stats' table: jobs per rule."""
    stats, inside = {}, False
    for line in log.splitlines():
        if line.startswith("Job stats:"):
            inside, stats = True, {}
        elif inside and (m := re.match(r"^(\w+)\s+(\d+)\s*$", line)):
            if m.group(1) == "total":
                inside = False
            else:
                stats[m.group(1)] = int(m.group(2))
    return stats


@pytest.fixture(scope="module")
def cluster():
    if why := unavailable():
        pytest.skip(why)
    with SingleNodeSlurm() as c:
        need = max(v.get("mem_mb", 0) for v in _profile()["set-resources"].values())
        if c.memory_mb < need:
            pytest.skip(f"the profile asks up to {need} MB per job; this node has {c.memory_mb} MB")
        yield c


def _profile() -> dict:
    return yaml.safe_load((PROFILE / "config.yaml").read_text())


def _env(data_dir: Path, **slurm) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "TAILMEM_SLURM_"))}
    # SOURCE_DATE_EPOCH: matplotlib writes it as the PDFs' creation date, so figures compare byte for byte
    return {**env, "TAILMEM_DATA_DIR": str(data_dir), "SOURCE_DATE_EPOCH": "0", **slurm}


@pytest.mark.slow
def test_profile_takes_account_and_partition_from_the_environment_and_names_only_real_rules(repo_root):
    prof = _profile()
    res = prof["default-resources"]
    assert res["slurm_account"] == "$TAILMEM_SLURM_ACCOUNT"
    assert res["slurm_partition"] == "$TAILMEM_SLURM_PARTITION"
    assert "your_account" not in (PROFILE / "config.yaml").read_text()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(repo_root / "Snakefile"),
            "--list-rules",
            "--config",
            "scale=smoke",
        ],
        capture_output=True,
        text=True,
        cwd=repo_root,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rules = set(done.stdout.split())
    for key in ("set-resources", "groups"):
        unknown = set(prof[key]) - rules
        assert not unknown, f"profiles/slurm {key} names rules the workflow does not have: {sorted(unknown)}"
    assert set(prof["group-components"]) <= set(prof["groups"].values())


def test_a_machine_with_slurm_but_without_the_plugin_skips_with_the_extra_named(monkeypatch):
    """Full `pytest` failed three cluster tests (Snakemake: unrecognized --slurm-* arguments) on a machine that
    had SLURM's daemons but not the `cluster` extra; the kit now asks for the plugin first."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "snakemake_executor_plugin_slurm" else real(name, *a),
    )
    assert "cluster" in unavailable(install=False)


@pytest.mark.slow
def test_smoke_slice_through_slurm_equals_local_run_then_nothing_to_do(cluster, tmp_path, repo_root, data_dir):
    tree_before = _tree_state(repo_root)
    local, local_s = _snakemake(repo_root, tmp_path / "local", _env(data_dir), ["--cores", "2"], TARGETS)
    assert local.returncode == 0, local.stderr[-4000:]
    stats = _job_stats(local.stderr)
    assert SLICE_RULES <= set(stats), f"the slice misses rule kinds {sorted(SLICE_RULES - set(stats))}"

    since = time.strftime("%Y-%m-%dT%H:%M:%S")
    env = _env(data_dir, TAILMEM_SLURM_ACCOUNT=cluster.account, TAILMEM_SLURM_PARTITION=cluster.partition)
    slurm, slurm_s = _snakemake(repo_root, tmp_path / "slurm", env, ["--profile", str(PROFILE), *FAST_POLL], TARGETS)
    assert slurm.returncode == 0, slurm.stderr[-6000:] + "\nslurmctld:\n" + cluster.log("slurmctld")
    jobs = cluster.jobs(since)
    assert jobs and all(j["state"] == "COMPLETED" for j in jobs), jobs
    # grouped: fewer submissions than rule jobs, and the groups of the profile among them
    rule_jobs = sum(n for r, n in stats.items() if r in SLICE_RULES)
    assert len(jobs) < rule_jobs, (len(jobs), rule_jobs)
    comments = " ".join(j["comment"] for j in jobs)
    for group in ("randomwalk", "control", "fsmem"):
        assert f"rule_{group}" in comments, comments
    assert "rule_longmemeval_run" in comments, comments

    # the same artifacts, byte for byte (JSON timing fields aside)
    mask_code = _tree_state(repo_root) != tree_before
    if mask_code:
        warnings.warn("the working tree changed during the test: provenance's code fields are not compared")
    a, b = _artifacts(tmp_path / "local"), _artifacts(tmp_path / "slurm")
    assert a and sorted(a) == sorted(b), sorted(set(a) ^ set(b))
    differ = [k for k in a if _normalised(a[k], mask_code) != _normalised(b[k], mask_code)]
    assert not differ, differ

    # a rerun through the profile submits nothing
    rerun, _ = _snakemake(repo_root, tmp_path / "slurm", env, ["--profile", str(PROFILE), *FAST_POLL], TARGETS)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    if _tree_state(repo_root) == tree_before:
        assert "Nothing to be done" in rerun.stdout + rerun.stderr, rerun.stderr[-3000:]
        assert len(cluster.jobs(since)) == len(jobs)

    in_job = sum(j["elapsed_s"] for j in jobs)
    print(
        f"\ncluster path: {rule_jobs} rule jobs in {len(jobs)} SLURM jobs; local {local_s:.1f} s "
        f"({local_s / rule_jobs:.2f} s per rule job on 2 cores), SLURM {slurm_s:.1f} s "
        f"({slurm_s / rule_jobs:.2f} s per rule job, {slurm_s / len(jobs):.1f} s per SLURM job), "
        f"overhead {(slurm_s - local_s) / rule_jobs:+.2f} s per rule job; time inside SLURM jobs {in_job} s, "
        f"peak memory per SLURM job {max(j['max_rss_mb'] for j in jobs):.0f} MB"
    )


@pytest.mark.slow
@pytest.mark.parametrize("unset", ["TAILMEM_SLURM_ACCOUNT", "TAILMEM_SLURM_PARTITION"])
def test_an_unset_account_or_partition_is_named_when_the_cluster_rejects_the_job(
    cluster, tmp_path, data_dir, repo_root, unset
):
    slurm = {"TAILMEM_SLURM_ACCOUNT": cluster.account, "TAILMEM_SLURM_PARTITION": cluster.partition}
    del slurm[unset]
    since = time.strftime("%Y-%m-%dT%H:%M:%S")
    # (Snakemake 9.27 + plugin 2.8.0 may keep waiting after a rejected group submission: killed after 60 s)
    done, _ = _snakemake(
        repo_root,
        tmp_path,
        _env(data_dir, **slurm),
        ["--profile", str(PROFILE), *FAST_POLL, "--retries", "0"],
        ["tables_random_walk"],
        timeout=60,
    )
    assert done.returncode != 0
    assert f"${unset}" in done.stdout + done.stderr, (done.stdout + done.stderr)[-3000:]
    assert cluster.jobs(since) == []
