"""A study's config key reruns that study's jobs only: the design check's rows of the fsmem, LongMemEval, ALFWorld
and policy-tail studies were once decided by the controller study's `design_check_report`, which therefore read
their config groups, so editing an fsmem setting reran a controller job.

The slow test reads the session's finished smoke run (tests/smoke_run.py), whose design check table is one of its
targets, edits `fsmem.max_questions` (then a LongMemEval key, then an ALFWorld key) in a copy of `configs/`, and reads
which jobs a dry run of that table schedules: that study's rows and the table, no controller job.
"""

from __future__ import annotations

import re
import shutil

import pytest

import smoke_run
from tailmem import outputs, paths
from tailmem.stage import DECLARED
from tailmem.studies import controller
from tailmem.workflow import compose_config

# lines of configs/scale/smoke.yaml, each edited in turn, and the rule of the study whose row must follow it
EDITS = (
    (
        "  max_questions: 10                 # LoCoMo",
        "  max_questions: 9                 # LoCoMo",
        "fsmem_design_rows",
    ),
    (
        "  max_per_type: 1                   # LongMemEval",
        "  max_per_type: 2   # LongMemEval",
        "longmemeval_design_rows",
    ),
    ("  subsets: [smoke]               # what", "  subsets: []               # what", "alfworld_design_rows"),
)


def _rules(out) -> set[str]:
    """The rules a dry run (`--quiet rules`) schedules, from Snakemake's job-stats table."""
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    if "Nothing to be done" in text:
        return set()
    return {
        m.group(1)
        for m in (re.fullmatch(r"\s*([A-Za-z_]\w*)\s+(\d+)\s*", line) for line in text.splitlines())
        if m and m.group(1) not in ("total", "job", "count")
    }


def test_no_controller_stage_reads_another_studys_config_group():
    """The controller study's stages read the graph world's, the controller's and the shared groups, never the
    config group of a benchmark study."""
    others = {"fsmem", "longmemeval", "alfworld"}
    for name, stage in controller.STAGES.items():
        assert not others & set(stage.groups), (name, stage.groups)


def test_each_study_declares_its_design_rows_stage_with_its_own_groups():
    """Each benchmark study's design row is made by a stage of its own that reads its study's config group."""
    for study, group in (("fsmem", "fsmem"), ("longmemeval", "longmemeval"), ("alfworld", "alfworld")):
        stage = DECLARED[f"{study}_design_rows"]
        assert stage.target.startswith(f"tailmem.studies.{study}."), stage.target
        assert group in stage.groups, stage.groups
        assert not ({"fsmem", "longmemeval", "alfworld"} - {group}) & set(stage.groups), stage.groups


@pytest.mark.slow
def test_an_edit_of_another_studys_key_reruns_no_controller_job(smoke, tmp_path, repo_root, data_dir):
    configs = tmp_path / "configs"
    shutil.copytree(repo_root / "configs", configs)
    env = {"TAILMEM_CONFIGS": str(configs)}
    results = compose_config("smoke").results_dir
    table = f"{paths.TABLES.format(results=results)}/{outputs.DESIGN_CHECK}.csv"
    assert (smoke.workdir / table).is_file()  # with nothing to do before an edit (test_rerun_digests' no-op rerun)

    scale = configs / "scale" / "smoke.yaml"
    text = scale.read_text()
    for line, edited, rows in EDITS:
        assert line in text, f"{scale}: the line {line!r} moved"
        scale.write_text(text.replace(line, edited))
        try:
            dry = smoke_run.snakemake(smoke.workdir, repo_root, data_dir, table, "-n", "--quiet", "rules", environ=env)
        finally:
            scale.write_text(text)
        rules = _rules(dry)
        assert rows in rules, f"{edited.strip()!r}: the study's design row did not follow it: {rules}"
        assert not rules & set(controller.STAGES), (edited, rules)


def test_a_stated_role_called_once_a_step_needs_the_units_steps():
    """A null call count means a call a step: a study whose row gives no steps says which key to set."""
    from tailmem.errors import ConfigError
    from tailmem.studies.fsmem import design_rows

    cfg = compose_config("smoke", ["power.stated_effects.fsmem.calls_per_unit.searcher=null"])
    with pytest.raises(ConfigError, match=r"power\.stated_effects\.fsmem\.calls_per_unit"):
        design_rows.row(cfg, 6, 0.025)


def test_the_table_keeps_the_studies_order_and_puts_the_plans_draws_last():
    """The design_check table: the controller's claim pairs, then each study's row, in `STUDIES` order, with the
    columns as they first appear and `draws_per_run` (the controller plan's; empty for a stated row) last."""
    import math

    from tailmem.design_table.gather import table
    from tailmem.records.design import DesignRows

    pair = {"claim": "Table 5", "runs": 6, "draws_per_run": 4.0, "planned_power": 0.9}
    stated = {"claim": "fsmem: arms", "runs": None, "planned_power": float("nan"), "stated_effect": 0.2}
    df = table([DesignRows("controller", [pair], "twin"), DesignRows("fsmem", [stated])])
    assert df.claim.tolist() == ["Table 5", "fsmem: arms"]
    assert list(df.columns) == ["claim", "runs", "planned_power", "stated_effect", "draws_per_run"]
    assert df.draws_per_run.iloc[0] == 4.0 and math.isnan(df.draws_per_run.iloc[1])
