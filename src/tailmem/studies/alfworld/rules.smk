# ALFWorld: regenerate the games for the installed alfworld, run paper 1's memory arms and paper 2's
# skill cells, then tables and figures.   snakemake --cores 2 alfworld   |   snakemake --cores 2 alfworld_smoke
# Cells sit under the agent of every role they depend on (tailmem.paths.ALFWORLD_MEMORY / ALFWORLD_SKILLS).
import re

from tailmem import roles
from tailmem import paths
from tailmem.studies.alfworld.play.layout import agent_segments
from tailmem.dag import plan_of

ALFWORLD = plan_of(config, workflow.basedir, "alfworld")  # alfworld/plan.py

ALF_ARMS = list(ALFWORLD.cfg.alfworld.arms_run)
ALF_PROTOCOLS = list(ALFWORLD.cfg.alfworld.protocols)
ALF_VARIANTS = list(ALFWORLD.cfg.alfworld.variants)
ALF_SEEDS = [int(s) for s in ALFWORLD.cfg.alfworld.seeds]  # chain seeds of the skill cells
ALF_GAMES = f"{paths.wild(paths.ALFWORLD_GAMES, results=ALFWORLD.results)}/manifest.json"
ALF_MEMORY = f"{paths.wild(paths.ALFWORLD_MEMORY, results=ALFWORLD.results)}/episodes.json"
ALF_SKILLS = f"{paths.wild(paths.ALFWORLD_SKILLS, results=ALFWORLD.results)}/chain.json"
# The agent of each role, as its folder segment: the cells this run makes, and the only ones its rules will make
# (a request for another model's folder finds no rule instead of a job that mislabels what it ran).
ALF_AGENTS = agent_segments(ALFWORLD.cfg)
ALF_AGENT_CONSTRAINTS = {role: re.escape(seg) for role, seg in ALF_AGENTS.items()}


rule alfworld:
    input:
        ALFWORLD.targets,


rule alfworld_smoke:
    input:
        ALFWORLD.alf_outputs("smoke"),


rule alfworld_games:
    output:
        ALF_GAMES,
    threads: 2  # games regenerate in parallel (the result is the same for any count)
    priority: 20  # the head of the workflow's longest chain (games -> cells -> report): first when two cores free up
    params:
        **ALFWORLD.stage_params("alfworld_games", lambda wc: [f"alfworld.subset={wc.subset}"]),
    log:
        ALFWORLD.log_of("alfworld_games", "subset"),
    conda:
        ALFWORLD.conda_env
    shell:
        "TAILMEM_WORKERS={threads} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_memory:
    input:
        ALF_GAMES,
    output:
        ALF_MEMORY,
    priority: 10
    wildcard_constraints:
        executor=ALF_AGENT_CONSTRAINTS[roles.EXECUTOR],
    params:
        **ALFWORLD.stage_params("alfworld_memory", lambda wc: [f"alfworld.subset={wc.subset}", f"alfworld.arm={wc.arm}"]),
    log:
        ALFWORLD.log_of("alfworld_memory", "subset", "executor", "arm"),
    conda:
        ALFWORLD.conda_env
    resources:
        llm_slots=ALFWORLD.llm_slots(roles.EXECUTOR),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_skills:
    input:
        ALF_GAMES,
    output:
        ALF_SKILLS,
    priority: 10  # ten cells of ~1 min that the report waits on
    wildcard_constraints:
        **ALF_AGENT_CONSTRAINTS,
    params:
        **ALFWORLD.stage_params("alfworld_skills", lambda wc: [f"alfworld.subset={wc.subset}",
                                                      f"alfworld.protocol={wc.protocol}",
                                                      f"alfworld.variant={wc.skill_variant}",
                                                      f"alfworld.seed={wc.seed}"]),
    log:
        ALFWORLD.log_of("alfworld_skills", "subset", "executor", "builder", "searcher", "protocol", "skill_variant", "seed"),
    conda:
        ALFWORLD.conda_env
    resources:
        llm_slots=ALFWORLD.llm_slots(roles.BUILDER, roles.SEARCHER, roles.EXECUTOR),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_report:
    input:
        lambda wc: expand(ALF_MEMORY, subset=wc.subset, executor=ALF_AGENTS[roles.EXECUTOR], arm=ALF_ARMS),
        lambda wc: expand(ALF_SKILLS, subset=wc.subset, **ALF_AGENTS, protocol=ALF_PROTOCOLS,
                          skill_variant=ALF_VARIANTS, seed=ALF_SEEDS),
    output:
        ALFWORLD.alf_outputs("{subset}"),
    params:
        **ALFWORLD.stage_params("alfworld_report", lambda wc: [f"alfworld.subset={wc.subset}"]),
    log:
        ALFWORLD.log_of("alfworld_report", "subset"),
    conda:
        ALFWORLD.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"


# the study's row of the design check (tables/design_check), from its own config groups
rule alfworld_design_rows:
    output:
        ALFWORLD.design_rows("alfworld"),
    params:
        **ALFWORLD.stage_params("alfworld_design_rows"),
    log:
        ALFWORLD.log_of("alfworld_design_rows"),
    conda:
        ALFWORLD.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
