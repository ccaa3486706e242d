# ALFWorld (issue 8): regenerate the games for the installed alfworld, run paper 1's memory arms and paper 2's
# skill cells, then tables and figures.   snakemake --cores 2 alfworld   |   snakemake --cores 2 alfworld_smoke
# Cells sit under the agent of every role they depend on (tailmem.paths.ALFWORLD_MEMORY / ALFWORLD_SKILLS).
import re

from tailmem.alfworld.layout import agent_segments

ALF_ARMS = list(CFG.alfworld.arms_run)
ALF_PROTOCOLS = list(CFG.alfworld.protocols)
ALF_VARIANTS = list(CFG.alfworld.variants)
ALF_SEEDS = [int(s) for s in CFG.alfworld.seeds]  # chain seeds of the skill cells
ALF_GAMES = f"{paths.wild(paths.ALFWORLD_GAMES, results=RESULTS)}/manifest.json"
ALF_MEMORY = f"{paths.wild(paths.ALFWORLD_MEMORY, results=RESULTS)}/episodes.json"
ALF_SKILLS = f"{paths.wild(paths.ALFWORLD_SKILLS, results=RESULTS)}/chain.json"
# The agent of each role, as its folder segment: the cells this DAG makes, and the only ones its rules will make
# (a request for another model's folder finds no rule instead of a job that mislabels what it ran).
ALF_AGENTS = agent_segments(CFG)
ALF_AGENT_CONSTRAINTS = {role: re.escape(seg) for role, seg in ALF_AGENTS.items()}


ALFWORLD_TARGETS = [t for s in CFG.alfworld.subsets for t in _alf_outputs(s)]
ALFWORLD_SMOKE_TARGETS = _alf_outputs("smoke")


rule alfworld:
    input:
        ALFWORLD_TARGETS,


rule alfworld_smoke:
    input:
        ALFWORLD_SMOKE_TARGETS,


rule alfworld_games:
    output:
        ALF_GAMES,
    threads: 2  # games regenerate in parallel (the result is the same for any count)
    priority: 20  # the head of the DAG's longest chain (games -> cells -> report): first when two cores free up
    params:
        **stage_params("alfworld_games", lambda wc: [f"alfworld.subset={wc.subset}"]),
    log:
        log_of("alfworld_games", "subset"),
    conda:
        CONDA_ENV
    shell:
        "TAILMEM_WORKERS={threads} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_memory:
    input:
        ALF_GAMES,
    output:
        ALF_MEMORY,
    priority: 10
    wildcard_constraints:
        executor=ALF_AGENT_CONSTRAINTS["executor"],
    params:
        **stage_params("alfworld_memory", lambda wc: [f"alfworld.subset={wc.subset}", f"alfworld.arm={wc.arm}"]),
    log:
        log_of("alfworld_memory", "subset", "executor", "arm"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_skills:
    input:
        ALF_GAMES,
    output:
        ALF_SKILLS,
    priority: 10  # ten cells of ~1 min that the report waits on
    wildcard_constraints:
        **ALF_AGENT_CONSTRAINTS,
    params:
        **stage_params("alfworld_skills", lambda wc: [f"alfworld.subset={wc.subset}",
                                                      f"alfworld.protocol={wc.protocol}",
                                                      f"alfworld.variant={wc.skill_variant}",
                                                      f"alfworld.seed={wc.seed}"]),
    log:
        log_of("alfworld_skills", "subset", "executor", "builder", "searcher", "protocol", "skill_variant", "seed"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_report:
    input:
        lambda wc: expand(ALF_MEMORY, subset=wc.subset, executor=ALF_AGENTS["executor"], arm=ALF_ARMS),
        lambda wc: expand(ALF_SKILLS, subset=wc.subset, **ALF_AGENTS, protocol=ALF_PROTOCOLS,
                          skill_variant=ALF_VARIANTS, seed=ALF_SEEDS),
    output:
        _alf_outputs("{subset}"),
    params:
        **stage_params("alfworld_report", lambda wc: [f"alfworld.subset={wc.subset}"]),
    log:
        log_of("alfworld_report", "subset"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} > {log} 2>&1"
