"""A finished run must stay finished: its rules' inputs and commands hold no absolute path of the checkout (a
results folder moved or copied with its checkout would rerun the jobs that carry one), and the site's inputs are
the same set on every DAG build (a set that moves between builds reruns the site and `all`)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from tailmem.dag import Pipeline

REPO = Path(__file__).resolve().parents[1]


def test_external_logs_are_named_relative_to_the_run(monkeypatch):
    monkeypatch.chdir(REPO)  # Snakemake builds the DAG in the run's working directory
    dag = Pipeline("smoke", (), False, str(REPO)).plans["audit_log"]
    assert dag.audit_log_entries, "the shipped example logs are audited by default"
    for name, entry in dag.audit_log_entries.items():
        assert not os.path.isabs(entry["file"]) and (REPO / entry["file"]).is_file()
        args = dag.audit_log_args(SimpleNamespace(access_log=name))
        job = dag.jobs.job("audit_log", tuple(args))
        assert str(REPO) not in job.cmd and str(REPO) not in " ".join(args)


def test_the_same_checkout_elsewhere_gives_the_same_commands(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    here = Pipeline("smoke", (), False, str(REPO)).plans["audit_log"]
    moved = tmp_path / "moved"
    moved.symlink_to(REPO, target_is_directory=True)
    monkeypatch.chdir(moved)
    there = Pipeline("smoke", (), False, str(moved)).plans["audit_log"]
    for name in here.audit_log_entries:
        wc = SimpleNamespace(access_log=name)
        assert here.audit_log_entries[name]["file"] == there.audit_log_entries[name]["file"]
        assert here.jobs.job("audit_log", tuple(here.audit_log_args(wc))) == there.jobs.job(
            "audit_log", tuple(there.audit_log_args(wc))
        )


def test_site_inputs_are_a_stable_set_of_relative_paths(monkeypatch):
    monkeypatch.chdir(REPO)
    first = Pipeline("smoke", (), False, str(REPO)).site_inputs
    again = Pipeline("smoke", (), False, str(REPO)).site_inputs
    assert sorted(first) == sorted(again) and len(set(first)) == len(first)
    assert not [f for f in first if os.path.isabs(f)]
