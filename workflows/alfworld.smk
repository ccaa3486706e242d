# ALFWorld (issue 8): regenerate the games for the installed alfworld, run paper 1's memory arms and paper 2's
# skill cells, then tables and figures.   snakemake --cores 2 alfworld   |   snakemake --cores 2 alfworld_smoke
ALF = f"{RESULTS}/alfworld"
ALF_ARMS = list(CFG.alfworld.arms_run)
ALF_PROTOCOLS = list(CFG.alfworld.protocols)
ALF_VARIANTS = list(CFG.alfworld.variants)
ALF_TABLE_STEMS = ["memory", "memory_family", "skills", "skills_family"]
ALF_FIGURE_STEMS = ["memory", "skills_growth"]


def _alf_targets(subset):
    return (expand(f"{RESULTS}/tables/alfworld_{subset}_{{stem}}.{{ext}}", stem=ALF_TABLE_STEMS, ext=["csv", "md"])
            + expand(f"{FIGURES}/alfworld_{subset}_{{stem}}.{{ext}}", stem=ALF_FIGURE_STEMS, ext=["png", "pdf"]))


ALFWORLD_TARGETS = [t for s in CFG.alfworld.subsets for t in _alf_targets(s)]
ALFWORLD_SMOKE_TARGETS = _alf_targets("smoke")


rule alfworld:
    input:
        ALFWORLD_TARGETS,


rule alfworld_smoke:
    input:
        ALFWORLD_SMOKE_TARGETS,


rule alfworld_games:
    output:
        f"{ALF}/games/{{subset}}/manifest.json",
    params:
        cmd=lambda wc: tm("alfworld_games", "alfworld", "llm"),
    log:
        f"{RESULTS}/logs/alfworld/games_{{subset}}.log",
    shell:
        "{params.cmd} alfworld.subset={wildcards.subset} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_memory:
    input:
        f"{ALF}/games/{{subset}}/manifest.json",
    output:
        f"{ALF}/memory/{{subset}}/{{arm}}/episodes.json",
    params:
        cmd=lambda wc: tm("alfworld_memory", "alfworld", "llm"),
    log:
        f"{RESULTS}/logs/alfworld/memory_{{subset}}_{{arm}}.log",
    shell:
        "{params.cmd} alfworld.subset={wildcards.subset} alfworld.arm={wildcards.arm} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_skills:
    input:
        f"{ALF}/games/{{subset}}/manifest.json",
    output:
        f"{ALF}/skills/{{subset}}/{{protocol}}/{{variant}}/chain.json",
    params:
        cmd=lambda wc: tm("alfworld_skills", "alfworld", "llm"),
    log:
        f"{RESULTS}/logs/alfworld/skills_{{subset}}_{{protocol}}_{{variant}}.log",
    shell:
        "{params.cmd} alfworld.subset={wildcards.subset} alfworld.protocol={wildcards.protocol} "
        "alfworld.variant={wildcards.variant} out=$(dirname {output}) > {log} 2>&1"


rule alfworld_report:
    input:
        lambda wc: expand(f"{ALF}/memory/{wc.subset}/{{arm}}/episodes.json", arm=ALF_ARMS),
        lambda wc: expand(f"{ALF}/skills/{wc.subset}/{{protocol}}/{{variant}}/chain.json",
                          protocol=ALF_PROTOCOLS, variant=ALF_VARIANTS),
    output:
        [f"{RESULTS}/tables/alfworld_{{subset}}_{s}.{e}" for s in ALF_TABLE_STEMS for e in ("csv", "md")],
        [f"{FIGURES}/alfworld_{{subset}}_{s}.{e}" for s in ALF_FIGURE_STEMS for e in ("png", "pdf")],
    params:
        cmd=lambda wc: tm("alfworld_report", "alfworld", "llm"),
    log:
        f"{RESULTS}/logs/alfworld/report_{{subset}}.log",
    shell:
        "{params.cmd} alfworld.subset={wildcards.subset} > {log} 2>&1"
