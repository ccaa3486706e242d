"""Which of a scale's tail-fit worlds have a fittable tail, and what their rollouts and audits cost.

Why: at the old default length (10 episodes x 50 steps) most tails were too small to fit
(n_tail < audit.min_tail), so Table 3 and the tail-shape claims could not be decided. This script composes a
scale's config (plus overrides), enumerates the worlds behind Table 3 under the controller study's policy
(`targets.policy_runs`), the tail-shape rows (`targets.tail_contrast_runs`) and the random-walk tail fits
(`targets.size_runs` at the largest size, as `stages.tables` reads them), rolls each out and fits its tail in
process, and prints per group the share with n_tail >= audit.min_tail. With `--cost` it also runs every audit
the graph-world tables read (bootstrap included) and prints the CPU seconds (time.process_time: a loaded machine
does not inflate it) of the rollouts and audits by policy and size.

With `--grid` it sizes the LLM policy before any model step is spent: the semantic proxy (the model-free stand-in
for an LLM policy, the same goals, memory and tabu rule) is rolled out on every family of the scale at each
`--sizes` world size for each `--lengths` trace length (episodes x steps), and the script prints, per (size,
length), the share of runs whose tail can be fitted (n_tail >= audit.min_tail), the median n_tail, and what the
runs would cost the model at `--step-seconds` per policy step (one core; the measured rate of
benchmarks/bench_policy_step.py). The cheapest cell where at least `--share` of the runs fit is the smallest world
and trace on which the tail-shape claims can be decided.

Run: python benchmarks/bench_tail_sizes.py [--scale default] [--override rollout.episodes=10 ...] [--cost]
     python benchmarks/bench_tail_sizes.py --grid --sizes 100 200 500 --lengths 20x50 40x50 80x50 [--step-seconds 1.5]
It measures and prints; it asserts nothing (tests/rollout/test_decidable_scale.py holds the regression).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import defaultdict

from omegaconf import OmegaConf

from tailmem import graph_runs as targets
from tailmem.audit.record import audit_counts
from tailmem.configs import config_dir
from tailmem.graphworld.build import world_from_config
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import Semantic
from tailmem.settings.audit import settings as audit_settings
from tailmem.settings.checks import typed
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup
from tailmem.workflow import compose_config


def groups(cfg) -> dict[str, list[targets.Run]]:
    """The runs behind each decidability criterion (the groups may share runs)."""
    largest = max(int(n) for n in cfg.scale.sizes)
    return {
        "Table 3, controller-study policy": targets.policy_runs(cfg),
        "tail-shape rows (both policies)": targets.tail_contrast_runs(cfg),
        "Table 3, random walk (largest size)": [r for r in targets.size_runs(cfg) if r.n == largest],
    }


class Runner:
    """Rolls out and audits runs of one composed config, once each, timing both in CPU seconds."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.audit = audit_settings(cfg)
        self.cache: dict[targets.Run, dict] = {}
        self.cpu: dict[tuple[str, str, int], float] = defaultdict(float)

    def option(self, group: str, name: str) -> dict:
        return OmegaConf.to_container(OmegaConf.load(config_dir() / group / f"{name}.yaml"))

    def tail(self, run: targets.Run, bootstrap: bool) -> dict:
        if run in self.cache and (not bootstrap or self.cache[run]["bootstrapped"]):
            return self.cache[run]
        world = world_from_config({**self.option("graph", run.family), "n": run.n}, run.seed)
        length = typed(self.cfg, "rollout", RolloutGroup)
        retrieval = RetrievalGroup(name=run.retrieval, k=int(self.option("retrieval", run.retrieval)["k"]))
        policy = Semantic(world, run.seed) if run.policy == "semantic" else None
        start = time.process_time()
        trace = rollout(world, length, retrieval, run.seed, policy=policy, progress=False)
        middle = time.process_time()
        s = self.audit if bootstrap else type(self.audit)(**{**vars(self.audit), "bootstrap": 0})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = audit_counts(trace.counts, s, run.seed)
        end = time.process_time()
        if bootstrap:
            self.cpu[("rollout", run.policy, run.n)] += middle - start
            self.cpu[("audit", run.policy, run.n)] += end - middle
        self.cache[run] = {**vars(result.tail), "bootstrapped": bootstrap}
        return self.cache[run]


def grid(cfg, sizes: list[int], lengths: list[str], seeds: list[int], step_seconds: float, share: float) -> None:
    """The semantic proxy's fittable share and the model's cost per (world size, trace length) (module docstring)."""
    runner = Runner(cfg)
    min_tail = runner.audit.min_tail
    families = list(cfg.scale.families)
    retrieval = str(cfg.scale.control.retrieval)
    print(
        f"semantic proxy on {families} x seeds {seeds}, retrieval {retrieval}, audit.min_tail={min_tail}; "
        f"model cost at {step_seconds:g} s per policy step (one core)"
    )
    print(f"  {'size':>5} {'length':>8} {'steps':>6} {'fittable':>9} {'median n_tail':>14} {'core-h / run':>13}")
    best = None
    for length in lengths:
        episodes, steps = (int(x) for x in length.split("x"))
        sized = compose_config(cfg.scale.name, [f"rollout.episodes={episodes}", f"rollout.steps={steps}"])
        runner.cfg = sized
        for n in sizes:
            runs = [targets.Run("semantic", retrieval, fam, n, seed) for fam in families for seed in seeds]
            tails = [runner.tail(r, bootstrap=False)["n_tail"] for r in runs]
            runner.cache.clear()
            fit = sum(t >= min_tail for t in tails) / len(tails)
            hours = episodes * steps * step_seconds / 3600
            print(
                f"  {n:>5} {length:>8} {episodes * steps:>6} {fit:>9.0%} {sorted(tails)[len(tails) // 2]:>14} "
                f"{hours:>13.2f}"
            )
            if fit >= share and (best is None or hours < best[0]):
                best = (hours, n, length, fit)
    if best:
        print(
            f"  cheapest with >= {share:.0%} fittable: n={best[1]}, {best[2]} ({best[3]:.0%}), {best[0]:.2f} core-h a run"
        )
    else:
        print(f"  no cell reaches {share:.0%} fittable: longer traces are needed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="default")
    parser.add_argument("--override", action="append", default=[], help="a Hydra override, e.g. rollout.steps=50")
    parser.add_argument("--cost", action="store_true", help="also time every graph-world audit, bootstrap included")
    parser.add_argument(
        "--cost-seeds",
        type=int,
        nargs="*",
        default=None,
        help="time only the runs of these seeds and scale the sums to every seed (seeds are "
        "exchangeable: same worlds' families and sizes, other draws)",
    )
    parser.add_argument("--grid", action="store_true", help="size the LLM policy's runs from the semantic proxy")
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 200, 500])
    parser.add_argument("--lengths", nargs="*", default=["20x50", "40x50", "80x50", "160x50"])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--step-seconds", type=float, default=7.2, help="the model's seconds per policy step")
    parser.add_argument("--share", type=float, default=0.8, help="the fittable share a cell must reach")
    a = parser.parse_args()
    cfg = compose_config(a.scale, a.override)
    if a.grid:
        grid(cfg, a.sizes, a.lengths, a.seeds, a.step_seconds, a.share)
        return
    runner = Runner(cfg)
    min_tail = runner.audit.min_tail
    print(
        f"scale={a.scale} {a.override}: {cfg.rollout.episodes} episodes x {cfg.rollout.steps} steps; "
        f"audit.min_tail={min_tail}"
    )
    everything = set()
    for name, runs in groups(cfg).items():
        tails = [(r, runner.tail(r, bootstrap=False)) for r in runs]
        fitted = [t["n_tail"] >= min_tail for _, t in tails]
        everything.update((r, f) for (r, _), f in zip(tails, fitted))
        small = ", ".join(
            f"{r.policy}/{r.family}/n{r.n}/s{r.seed}: {t['n_tail']}" for r, t in tails if t["n_tail"] < min_tail
        )
        print(
            f"  {name}: {sum(fitted)}/{len(fitted)} fittable ({sum(fitted) / len(fitted):.0%})"
            + (f"; too small: {small}" if small else "")
        )
    worlds = {r: f for r, f in everything}
    print(
        f"  all distinct worlds: {sum(worlds.values())}/{len(worlds)} fittable "
        f"({sum(worlds.values()) / len(worlds):.0%})"
    )
    if a.cost:
        every = list(dict.fromkeys(targets.random_walk_runs(cfg) + targets.tail_contrast_runs(cfg)))
        runs = [r for r in every if a.cost_seeds is None or r.seed in a.cost_seeds]
        scale = len(every) / len(runs)
        for r in runs:
            runner.tail(r, bootstrap=True)
        print(
            f"  CPU seconds of {len(runs)} of the {len(every)} runs (rollout + audit with B={runner.audit.bootstrap})"
            + (f", x {scale:.2f} for all {len(every)}" if scale != 1 else "")
            + ":"
        )
        for key in sorted(runner.cpu):
            print(f"    {key[0]:8} {key[1]:12} n={key[2]:<5} {runner.cpu[key]:8.1f}  -> {scale * runner.cpu[key]:8.1f}")
        for stage in ("rollout", "audit"):
            total = sum(v for k, v in runner.cpu.items() if k[0] == stage)
            print(f"    {stage} total {total:8.1f}  -> {scale * total:8.1f}")


if __name__ == "__main__":
    main()
