"""Where every artifact lives: one template per artifact, read by the stages and by the Snakemake rules alike.

A path names the parameters that make the artifact, so a reader can tell where a number came from. Templates
are `str.format` patterns; `wild(template, results=...)` fills some fields and leaves the others as Snakemake
wildcards (`{family}`), so a rule's output and a stage's default folder come from the same string.
"""

from __future__ import annotations

import os
import re
import string
from pathlib import Path
from typing import TYPE_CHECKING

from tailmem.roles import POLICY, PREDICTOR, PROGRAMMATIC, SERVED_SUFFIX, configured_model, configured_served

if TYPE_CHECKING:
    from omegaconf import DictConfig

# -- file names ---------------------------------------------------------------------------------------------
WORLD_FILE = "world.json"
TRACE_FILE = "trace.npz"
AUDIT_FILE = "audit.json"
CONFIG_FILE = "config.yaml"
META_FILE = "meta.json"
SUMMARY_FILE = "summary.json"
STEPS_FILE = "steps.parquet"
COUNTS_FILE = "counts.npz"
BUILD_FILE = "build.json"
ANSWERS_FILE = "answers.json"

# -- graph world ----------------------------------------------------------------------------------------------
GRAPHWORLD = "{results}/graphworld/{family}/n{n}/seed{seed}"
# {agent}: the model of the LLM roles an artifact depends on, or `programmatic` (see `agent_label`).
ROLLOUT = "{results}/rollout/{policy}/{agent}/{retrieval}/{family}/n{n}/seed{seed}"  # agent: the policy role
AUDIT = "{results}/audit/{policy}/{agent}/{retrieval}/{family}/n{n}/seed{seed}"
CONTROL = "{results}/control/{policy}/{agent}/{retrieval}/{family}/n{n}/seed{seed}/{predictor}/{arm}"
# the design check of one replayed trajectory (stage design_check: pairs.csv, twin.parquet; design_plan: plan.json),
# model-free
DESIGN = "{results}/design_check/{policy}/{agent}/{retrieval}/{family}/n{n}/seed{seed}"
PLAN_FILE = "plan.json"
PAIRS_FILE = "pairs.csv"
TWIN_FILE = "twin.parquet"  # the design check's replay of every claim arm (stage design_plan reads it)
# a study's rows of the design check's table (stage <study>_design_rows; the table's stage design_table reads them)
DESIGN_ROWS = "{results}/design_check/rows/{study}.json"
# a model slice's policy probe rows (stage policy_probe; the role probe's table, stage model_roles, reads them)
POLICY_PROBE = "{results}/model_roles/policy_probe.json"
CALIBRATION = (
    "{results}/calibration"  # the protocol search (studies/calibration/calibrate.py): walks/<digest>/ caches its walks
)
CALIBRATION_PROTOCOLS = "protocols.csv"  # every searched protocol's scores, best first

# -- filesystem memory (paper 2) -----------------------------------------------------------------------------
FSMEM = "{results}/fsmem"
# {builder}: the builder role's agent label; {searcher}: the searcher and judge roles' (see `agent_label`).
FSMEM_CONV = "{results}/fsmem/{bench}/{conv}"
FSMEM_VARIANT = FSMEM_CONV + "/{builder}/{variant}"  # store/, snapshots/, build.json
FSMEM_STRENGTH = "{results}/fsmem/strength/{bench}/{conv}/{builder}/{variant}"  # RQ3: one store per builder
FSMEM_HARNESS = "{results}/fsmem/harness/{bench}/{conv}/{builder}/{bharness}/{variant}"  # RQ5: built through bharness
# Replicate builds: the same store built again with another sampling seed, so the spread between builds that differ
# only in the builder's seed is measured; replicate 0 is the main store.
FSMEM_REPLICATE = "{results}/fsmem/replicate/{bench}/{conv}/{builder}/{variant}/rep{replicate}"
ANSWERS = "{store}/answers/{harness}/{searcher}"  # under any store folder above

# -- LongMemEval, ALFWorld ----------------------------------------------------------------------------------------
LONGMEMEVAL = "{results}/longmemeval/{dataset}/{agent}/seed{seed}"  # agent: searcher and judge
ALFWORLD = "{results}/alfworld"
ALFWORLD_GAMES = "{results}/alfworld/games/{subset}"
# ALFWorld cells: one segment per role the cell depends on, each the role's model or programmatic agent label
# (`tailmem.studies.alfworld.play.layout.agent_segments`): a memory cell on the executor alone; a skill cell also on
# the curator ({builder}) and the retriever ({searcher}), so a rerun with another model lands beside the first, not
# over it.
ALFWORLD_MEMORY = "{results}/alfworld/memory/{subset}/{executor}/{arm}"
# {seed}: the chain seed (alfworld.seed): 0 plays the fixed order, s > 0 a seeded permutation of it.
ALFWORLD_SKILLS = (
    "{results}/alfworld/skills/{subset}/{executor}/{builder}/{searcher}/{protocol}/{skill_variant}/seed{seed}"
)

# -- tables, figures, logs ----------------------------------------------------------------------------------------
TABLES = "{results}/tables"
TABLE = "{results}/tables/{stem}.{ext}"
FIGURE = "{figures}/{stem}.{ext}"
LOGS = "{results}/logs"
TABLE_EXTS = ("csv", "md")
FIGURE_EXTS = ("png", "pdf")


def wild(template: str, **fixed) -> str:
    """`template` with the `fixed` fields filled and every other field kept as a `{wildcard}`."""
    fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    return template.format(**{name: "{" + name + "}" for name in fields} | fixed)


def table_files(results: str | Path, stem: str) -> list[str]:
    """The .csv and .md of one table."""
    return [TABLE.format(results=results, stem=stem, ext=ext) for ext in TABLE_EXTS]


def figure_files(figures: str | Path, stem: str) -> list[str]:
    """The .png and .pdf of one figure."""
    return [FIGURE.format(figures=figures, stem=stem, ext=ext) for ext in FIGURE_EXTS]


def log_file(results: str | Path, rule: str, *keys) -> str:
    """`<results>/logs/<rule>/<key1>_<key2>....log` (a single `<rule>.log` without keys)."""
    if not keys:
        return f"{LOGS.format(results=results)}/{rule}.log"
    return f"{LOGS.format(results=results)}/{rule}/{'_'.join(map(str, keys))}.log"


# -- agent labels ------------------------------------------------------------------------------------------------
def path_segment(name: str) -> str:
    """`name` as one folder name: characters other than letters, digits, `.`, `_`, `-` become `_`."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", str(name)) or "_"


def role_label(cfg: DictConfig, role: str) -> str:
    """The model that plays `role` (as a folder name), or `programmatic` where no model does. Read from the
    composed config (a stage passes its settings' `composed`), so a stage and the DAG that scheduled it name the
    same folder."""
    model = configured_model(cfg, role)
    if model is None:
        return PROGRAMMATIC
    return path_segment(f"{model}{SERVED_SUFFIX}" if configured_served(cfg, role) else model)


def agent_label(cfg: DictConfig, *roles: str) -> str:
    """The agents behind an artifact made by `roles`: `programmatic` if no model plays any of them, else the
    distinct labels in role order joined by `+` (a model-free role among model roles counts as programmatic)."""
    labels = list(dict.fromkeys(role_label(cfg, r) for r in roles))
    if labels == [PROGRAMMATIC]:
        return PROGRAMMATIC
    return "+".join(labels)


def policy_agent(cfg: DictConfig, policy: str) -> str:
    """The agent of a rollout: the policy role's model for the `llm` policy, else `programmatic`."""
    return role_label(cfg, POLICY) if policy == "llm" else PROGRAMMATIC


# -- folders from a resolved config (the stages' defaults) -------------------------------------------------------
def graphworld_dir(cfg) -> Path:
    return Path(GRAPHWORLD.format(results=cfg.results_dir, family=cfg.graph.family, n=cfg.graph.n, seed=cfg.seed))


def _run_keys(cfg: DictConfig) -> dict:
    """The readable key of a run's folders under the composed config `cfg`: policy (and its agent), retrieval,
    family, size, seed."""
    return dict(
        results=cfg.results_dir,
        policy=cfg.policy.name,
        agent=policy_agent(cfg, cfg.policy.name),
        retrieval=cfg.retrieval.name,
        family=cfg.graph.family,
        n=cfg.graph.n,
        seed=cfg.seed,
    )


def rollout_dir(cfg: DictConfig) -> Path:
    return Path(ROLLOUT.format(**_run_keys(cfg)))


def audit_dir(cfg: DictConfig) -> Path:
    return Path(AUDIT.format(**_run_keys(cfg)))


def control_dir(cfg: DictConfig) -> Path:
    return Path(
        CONTROL.format(**_run_keys(cfg), predictor=role_label(cfg, PREDICTOR), arm=cfg.control.arm or cfg.memory.name)
    )


def design_dir(cfg: DictConfig) -> Path:
    return Path(DESIGN.format(**_run_keys(cfg)))


def out_dir(cfg, default: str | Path) -> Path:
    """The stage's output folder: `out=` when given (Snakemake sets it), else the derived default. Every stage
    asks here, so the rule that `out=` wins is written once."""
    return Path(cfg.out) if cfg.out else Path(default)


def data_label(cfg, path: str | Path, key: str) -> str:
    """`path` as a table may print it, the same on every machine: `<data_dir>/<relative path>` when it lies under
    the configured data folder, else the config key it came from (`key`). A table cell never holds a machine's
    absolute path."""
    path, root = Path(path).resolve(), Path(cfg.data_dir).resolve()
    if path.is_relative_to(root):
        rel = path.relative_to(root).as_posix()
        return "<data_dir>" if rel == "." else f"<data_dir>/{rel}"
    return key


def tables_dir(cfg) -> Path:
    return Path(TABLES.format(results=cfg.results_dir))


def variant_dir(results: str | Path, benchmark: str, conv: str, variant: str, builder: str = PROGRAMMATIC) -> Path:
    return Path(FSMEM_VARIANT.format(results=results, bench=benchmark, conv=conv, builder=builder, variant=variant))


def answers_dir(store: str | Path, harness: str, searcher: str = PROGRAMMATIC) -> Path:
    return Path(ANSWERS.format(store=store, harness=harness, searcher=searcher))


def strength_dir(results: str | Path, benchmark: str, conv: str, builder: str, variant: str) -> Path:
    return Path(FSMEM_STRENGTH.format(results=results, bench=benchmark, conv=conv, builder=builder, variant=variant))


def harness_dir(
    results: str | Path, benchmark: str, conv: str, harness: str, variant: str, builder: str = PROGRAMMATIC
) -> Path:
    return Path(
        FSMEM_HARNESS.format(
            results=results, bench=benchmark, conv=conv, builder=builder, bharness=harness, variant=variant
        )
    )


def harness_build_dir(
    results: str | Path,
    benchmark: str,
    conv: str,
    harness: str,
    variant: str,
    main_harness: str,
    builder: str = PROGRAMMATIC,
) -> Path:
    """RQ5: the store built through `harness`; the main build's own harness (`main_harness`, the run's build
    harness) reuses the main store."""
    if harness == main_harness:
        return variant_dir(results, benchmark, conv, variant, builder)
    return harness_dir(results, benchmark, conv, harness, variant, builder)


def replicate_dir(
    results: str | Path, benchmark: str, conv: str, variant: str, replicate: int, builder: str = PROGRAMMATIC
) -> Path:
    """A replicate build's folder; replicate 0 is the main build (`variant_dir`), not built twice."""
    if int(replicate) == 0:
        return variant_dir(results, benchmark, conv, variant, builder)
    return Path(
        FSMEM_REPLICATE.format(
            results=results, bench=benchmark, conv=conv, builder=builder, variant=variant, replicate=int(replicate)
        )
    )


def longmemeval_dir(results: str | Path, dataset: str, seed: int, agent: str = PROGRAMMATIC) -> Path:
    return Path(LONGMEMEVAL.format(results=results, dataset=dataset, agent=agent, seed=seed))


def user_cache_dir() -> Path:
    """What tailmem keeps across runs outside the results (derived data only, keyed by content: the module scans
    of the code digests, tiktoken's tables): $TAILMEM_CACHE_DIR, else $XDG_CACHE_HOME/tailmem, else
    ~/.cache/tailmem."""
    env = os.environ.get("TAILMEM_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tailmem"
