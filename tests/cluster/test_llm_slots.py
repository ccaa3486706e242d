"""One cap on the calls in flight of a whole run: every rule whose jobs call a model declares the Snakemake
resource `llm_slots` (the largest concurrency of its roles on a shared endpoint) and hands its grant to the job
as $TAILMEM_LLM_SLOTS, the model slice's twins (`model_*`) too; so `snakemake --resources llm_slots=N` caps them
all, and a rule that loses its resource fails here."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the rules that run a stage calling a model role (tailmem.studies.*: get_client / client_for)
MODEL_RULES = {
    "control",
    "rollout",
    "fsmem_store",
    "fsmem_answers",
    "fsmem_strength_store",
    "fsmem_strength_answers",
    "fsmem_harness_store",
    "fsmem_harness_answers",
    "fsmem_replicate_store",
    "fsmem_replicate_answers",
    "fsmem_personamem",
    "judge_sensitivity",
    "longmemeval_run",
    "alfworld_memory",
    "alfworld_skills",
    "role_probe",
    "policy_probe",
}


def _rules(config: dict, workdir: Path) -> dict:
    """name -> (llm_slots resource or None, shell command, input files) of every rule, as Snakemake loads the workflow."""
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
            slots = {r.name: r.resources.get("llm_slots") for r in wf._workflow.rules}
            return {
                r.name: (getattr(slots[r.name], "value", slots[r.name]), r.shellcmd or "", list(r.input))
                for r in wf._workflow.rules
            }
    finally:
        os.chdir(cwd)


def test_every_model_rule_declares_its_slots_and_hands_them_to_the_job(data_dir, tmp_path):
    rules = _rules({"scale": "smoke", "overrides": ["llm=openai", "llm.concurrency=5"]}, tmp_path)
    for name in MODEL_RULES | {f"model_{r}" for r in MODEL_RULES if r not in ("role_probe", "policy_probe")}:
        assert name in rules, name
        slots, shell, _ = rules[name]
        assert slots is not None, f"rule {name} declares no `resources: llm_slots`"
        assert "TAILMEM_LLM_SLOTS={resources.llm_slots}" in shell, f"rule {name} does not hand its grant to the job"
        if not name.startswith("model_"):
            assert slots == 5, (name, slots)  # every role on the endpoint, 5 calls in flight each
    offline = _rules({"scale": "smoke", "overrides": ["scale.model_slice=null"]}, tmp_path)
    assert {offline[r][0] for r in MODEL_RULES} == {0}  # programmatic agents hold no slot


def test_the_policy_probe_reads_no_product_so_it_runs_beside_the_other_model_jobs(data_dir, tmp_path):
    # the probe took 7 min alone at the end of the default run while it waited for every claims table; as a rule
    # with no input it is ready from the start, and the role probe's table reads what it wrote
    rules = _rules({"scale": "smoke", "overrides": ["llm=openai"]}, tmp_path)
    assert rules["policy_probe"][2] == []
    probe = [f for f in rules["role_probe"][2] if f.endswith("model_roles/policy_probe.json")]
    assert len(probe) == 1, rules["role_probe"][2]
