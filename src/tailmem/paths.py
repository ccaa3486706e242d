"""Where each stage's artifact lives: one template per stage, shared by the stages and the Snakefile.

A path names the parameters that make the artifact, so a reader can tell where a number came from.
"""

from __future__ import annotations

from pathlib import Path

GRAPHWORLD = "{results}/graphworld/{family}/n{n}/seed{seed}"
ROLLOUT = "{results}/rollout/{policy}/{retrieval}/{family}/n{n}/seed{seed}"
AUDIT = "{results}/audit/{policy}/{retrieval}/{family}/n{n}/seed{seed}"
CONTROL = "{results}/control/{policy}/{retrieval}/{family}/n{n}/seed{seed}/{arm}"
TABLES = "{results}/tables"

WORLD_FILE = "world.json"
TRACE_FILE = "trace.npz"
AUDIT_FILE = "audit.json"
CONFIG_FILE = "config.yaml"
META_FILE = "meta.json"
SUMMARY_FILE = "summary.json"
STEPS_FILE = "steps.parquet"
COUNTS_FILE = "counts.npz"


def graphworld_dir(cfg) -> Path:
    return Path(GRAPHWORLD.format(results=cfg.results_dir, family=cfg.graph.family, n=cfg.graph.n, seed=cfg.seed))


def _run_keys(cfg) -> dict:
    """The readable key of a run's folders: policy, retrieval, family, size, seed."""
    return dict(results=cfg.results_dir, policy=cfg.policy.name, retrieval=cfg.retrieval.name,
                family=cfg.graph.family, n=cfg.graph.n, seed=cfg.seed)


def rollout_dir(cfg) -> Path:
    return Path(ROLLOUT.format(**_run_keys(cfg)))


def audit_dir(cfg) -> Path:
    return Path(AUDIT.format(**_run_keys(cfg)))


def out_dir(cfg, default: Path) -> Path:
    """The stage's output folder: `out=` when given (Snakemake sets it), else the derived default."""
    return Path(cfg.out) if cfg.get("out") else default




def control_dir(cfg) -> Path:
    return Path(CONTROL.format(**_run_keys(cfg), arm=cfg.control.arm or cfg.memory.name))
