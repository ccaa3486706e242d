"""Which runs each table needs, enumerated from the config: shared by the Snakefiles and the report stages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from omegaconf import DictConfig

from tailmem import paths
from tailmem.roles import PREDICTOR, PROGRAMMATIC, contrast_policies, tail_policy


@dataclass(frozen=True)
class Run:
    """One rollout (and its audit): the readable key of its artifact folders."""

    policy: str
    retrieval: str
    family: str
    n: int
    seed: int
    agent: str = PROGRAMMATIC  # the policy role's model for the `llm` policy (paths.policy_agent)

    def keys(self, results: str) -> dict:
        """The path templates' fields (paths.ROLLOUT, AUDIT, CONTROL): this run's fields and `results`."""
        return {"results": results, **vars(self)}

    def audit_file(self, results: str) -> Path:
        return Path(paths.AUDIT.format(**self.keys(results))) / paths.AUDIT_FILE

    def trace_file(self, results: str) -> Path:
        return Path(paths.ROLLOUT.format(**self.keys(results))) / paths.TRACE_FILE


def size_runs(cfg: DictConfig) -> list[Run]:
    """Tables 2 and 7: random walk x family x size x seed, under the scale's table retrieval design."""
    s = cfg.scale
    return [
        Run("random_walk", s.table_retrieval, fam, int(n), int(seed))
        for fam in s.families
        for n in s.sizes
        for seed in s.seeds
    ]


def retrieval_runs(cfg: DictConfig) -> list[Run]:
    """Table 8: retrieval design x family at one size, random walk, every seed."""
    s = cfg.scale
    return [
        Run("random_walk", design, fam, int(s.retrieval_size), int(seed))
        for design in s.retrieval_designs
        for fam in s.retrieval_families
        for seed in s.seeds
    ]


def random_walk_runs(cfg: DictConfig) -> list[Run]:
    """Every run the random-walk tables and figures read, without duplicates, in a stable order."""
    return list(dict.fromkeys(size_runs(cfg) + retrieval_runs(cfg)))


def calibration_worlds(cfg: DictConfig) -> list[Path]:
    """The graph-world files the calibration study walks on: its families x sizes x seeds."""
    c = cfg.calibration
    return [
        Path(paths.GRAPHWORLD.format(results=cfg.results_dir, family=f, n=int(n), seed=int(s))) / paths.WORLD_FILE
        for f in c.families
        for n in c.sizes
        for s in c.seeds
    ]


def largest_size_runs(cfg: DictConfig) -> list[Run]:
    """Table 3 and Figures 3/5 under the random walk: each family at the largest size, first seed."""
    s = cfg.scale
    n = max(int(x) for x in s.sizes)
    return [Run("random_walk", s.table_retrieval, fam, n, int(s.seeds[0])) for fam in s.families]


def contrast_worlds(control) -> tuple[int, list[int]]:
    """The tail contrast's world size and seeds (`scale.control.contrast_size` / `contrast_seeds`), the controller
    study's `size` and `seeds` where unset: a model slice can play the policy on worlds its claim's power asks for
    while the predictor replays the controller study's trajectories."""
    size = control.contrast_size if control.contrast_size is not None else control.size
    seeds = control.contrast_seeds if control.contrast_seeds is not None else control.seeds
    return int(size), [int(s) for s in seeds]


def tail_contrast_runs(cfg: DictConfig) -> list[Run]:
    """Figures 3/5 and the tail-shape claim: every contrast policy on the same worlds (each family at the contrast
    size, every contrast seed, the control retrieval design: `contrast_worlds`), so two policies differ in the
    policy alone. The controller-study rows are `policy_runs`; the random-walk rows are usually also `size_runs`
    rows."""
    c = cfg.scale.control
    size, seeds = contrast_worlds(c)
    return [
        Run(policy, c.retrieval, fam, size, seed, paths.policy_agent(cfg, policy))
        for fam in cfg.scale.families
        for seed in seeds
        for policy in contrast_policies(cfg)
    ]


def figure_runs(cfg: DictConfig) -> tuple[list[Run], list[Run]]:
    """Figures 3 and 5: (the tail-contrast runs of the first control seed; the largest-size random-walk runs
    that are not among them)."""
    first = contrast_worlds(cfg.scale.control)[1][0]
    contrast = [r for r in tail_contrast_runs(cfg) if r.seed == first]
    return contrast, [r for r in largest_size_runs(cfg) if r not in contrast]


@dataclass(frozen=True)
class ControlRun:
    """One arm of the controller study replayed on one rollout."""

    policy: str
    retrieval: str
    family: str
    n: int
    seed: int
    arm: str
    agent: str = PROGRAMMATIC  # the trajectory's policy agent
    predictor: str = PROGRAMMATIC  # the predictor role's agent

    def folder(self, results: str) -> Path:
        return Path(paths.CONTROL.format(results=results, **vars(self)))

    def summary_file(self, results: str) -> Path:
        return self.folder(results) / paths.SUMMARY_FILE

    def counts_file(self, results: str) -> Path:
        return self.folder(results) / paths.COUNTS_FILE


def control_arms(cfg: DictConfig) -> list[str]:
    """The controller study's arms at this scale: every table's, (`scale.control.arms: claims`) only those a
    claims_ctmc row compares and the tau sweep's, or (`first_claim`) the first claim pair's two and the tau
    sweep's, after Graph Memory (compact), whose measured tokens a matched arm spends."""
    from tailmem.control import arms, design

    taus = arms.tau_arms(cfg.scale.control.taus)
    if cfg.scale.control.arms == "first_claim":
        first = design.claim_pairs()[0]
        return list(dict.fromkeys([arms.baseline("graph_memory"), first.b, first.a, *taus]))
    if cfg.scale.control.arms == "claims":
        return list(dict.fromkeys(design.claim_arms() + taus))
    return list(dict.fromkeys(arms.table4_arms() + arms.table5_arms() + arms.table6_arms() + taus))


def control_runs(cfg: DictConfig) -> list[ControlRun]:
    """Every arm x family x seed of the controller study, on the scale's trajectory source."""
    c = cfg.scale.control
    return [
        ControlRun(
            c.policy,
            c.retrieval,
            fam,
            int(c.size),
            int(seed),
            arm,
            paths.policy_agent(cfg, c.policy),
            paths.role_label(cfg, PREDICTOR),
        )
        for fam in c.families
        for seed in c.seeds
        for arm in control_arms(cfg)
    ]


def design_runs(cfg: DictConfig) -> list[Run]:
    """The controller study's trajectories (family x seed), one design check each."""
    c = cfg.scale.control
    agent = paths.policy_agent(cfg, c.policy)
    return [Run(c.policy, c.retrieval, fam, int(c.size), int(seed), agent) for fam in c.families for seed in c.seeds]


def policy_runs(cfg: DictConfig) -> list[Run]:
    """Table 3 / Figure 4 under the semantic or LLM policy (`tail_policy`): each family on the contrast worlds
    (`contrast_worlds`), every seed."""
    c, policy = cfg.scale.control, tail_policy(cfg)
    agent = paths.policy_agent(cfg, policy)
    size, seeds = contrast_worlds(c)
    return [Run(policy, c.retrieval, fam, size, seed, agent) for fam in cfg.scale.families for seed in seeds]
