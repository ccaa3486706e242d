# ALFWorld (issue 8): regenerate the games for the installed alfworld, run paper 1's memory arms and paper 2's
# skill cells, then tables and figures.   snakemake --cores 2 alfworld   |   snakemake --cores 2 alfworld_smoke
ALF_ARMS = list(CFG.alfworld.arms_run)
ALF_PROTOCOLS = list(CFG.alfworld.protocols)
ALF_VARIANTS = list(CFG.alfworld.variants)
ALF_TABLE_STEMS = ["memory", "memory_family", "skills", "skills_family"]
ALF_FIGURE_STEMS = ["memory", "skills_growth"]
ALF_GAMES = f"{paths.wild(paths.ALFWORLD_GAMES, results=RESULTS)}/manifest.json"
ALF_MEMORY = f"{paths.wild(paths.ALFWORLD_MEMORY, results=RESULTS)}/episodes.json"
ALF_SKILLS = f"{paths.wild(paths.ALFWORLD_SKILLS, results=RESULTS)}/chain.json"


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
    params:
        **stage_params("alfworld_games", lambda wc: [f"alfworld.subset={wc.subset}"]),
    log:
        log_of("alfworld_games", "subset"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_memory:
    input:
        ALF_GAMES,
    output:
        ALF_MEMORY,
    params:
        **stage_params("alfworld_memory", lambda wc: [f"alfworld.subset={wc.subset}", f"alfworld.arm={wc.arm}"]),
    log:
        log_of("alfworld_memory", "subset", "arm"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_skills:
    input:
        ALF_GAMES,
    output:
        ALF_SKILLS,
    params:
        **stage_params("alfworld_skills", lambda wc: [f"alfworld.subset={wc.subset}", f"alfworld.protocol={wc.protocol}",
                                                      f"alfworld.variant={wc.skill_variant}"]),
    log:
        log_of("alfworld_skills", "subset", "protocol", "skill_variant"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_report:
    input:
        lambda wc: expand(ALF_MEMORY, subset=wc.subset, arm=ALF_ARMS),
        lambda wc: expand(ALF_SKILLS, subset=wc.subset, protocol=ALF_PROTOCOLS, skill_variant=ALF_VARIANTS),
    output:
        [f for s in ALF_TABLE_STEMS for f in table(f"alfworld_{{subset}}_{s}")],
        [f for s in ALF_FIGURE_STEMS for f in figure(f"alfworld_{{subset}}_{s}")],
    params:
        **stage_params("alfworld_report", lambda wc: [f"alfworld.subset={wc.subset}"]),
    log:
        log_of("alfworld_report", "subset"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} > {log} 2>&1"
