"""CPU of one stage job's config composition: Hydra's own against a composition from the loads and merged prefixes
the warm server keeps (tailmem.compose_cache), in the same process, on the same override sets.

Why: every DAG job composes its config once (207 jobs in the smoke DAG, 917 in the default run), about 0.27 s of
CPU each, most of it Hydra re-parsing the same YAML files and re-merging the same configs in the same order. The
warm server composes each set of config groups its jobs choose once and keeps the merged prefixes; the jobs it
forks start from them.

The sets are smoke-DAG jobs' overrides (a world, a rollout, a controller arm, a model-slice job). Each arm composes
every set `--rounds` times (process CPU time); the cached arm first learns the sets' group choices as the server
does. Prints the seconds per composition of each arm and their ratio, and checks that both compose the same YAML;
asserts nothing about time.

Run: python benchmarks/bench_compose.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import time

from omegaconf import OmegaConf

from tailmem import cli, compose_cache
from tailmem.runner import compose_stage

SETS = (
    ("graphworld", ["scale=smoke", "graph=uniform", "graph.n=30", "seed=0"]),
    ("rollout", ["scale=smoke", "graph=modular", "graph.n=60", "seed=1", "policy=random_walk", "retrieval=recency"]),
    ("control", ["scale=smoke", "graph=modular", "seed=0", "policy=semantic", "memory=ctmc", "control.arm=ctmc"]),
    ("rollout", ["scale=smoke_model", "graph=modular", "policy=llm", "retrieval=recency", "seed=0"]),
)


def plain(stage: str, overrides: list[str]):
    """Hydra's compose API as the runner called it before the cache."""
    from hydra import compose, initialize_config_dir

    from tailmem.configs import config_dir

    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir()), job_name=f"tailmem_{stage}"):
        return compose(config_name="config", overrides=[*overrides, f"stage={stage}"])


def per_composition(compose, rounds: int) -> float:
    t0 = time.process_time()
    for _ in range(rounds):
        for stage, overrides in SETS:
            compose(stage, overrides)
    return (time.process_time() - t0) / (rounds * len(SETS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    cli.warm_up()  # as the server does first: Hydra's parser built, the default groups' prefixes kept
    for stage, overrides in SETS:
        cli.learn([stage, *overrides])  # as the server does after forking each job
    for stage, overrides in SETS:
        assert OmegaConf.to_yaml(compose_stage(stage, overrides)) == OmegaConf.to_yaml(plain(stage, overrides))
    hydra = per_composition(plain, args.rounds)
    cached = per_composition(compose_stage, args.rounds)
    print(f"Hydra's compose:          {hydra * 1000:7.1f} ms CPU per composition")
    print(f"from kept loads/prefixes: {cached * 1000:7.1f} ms CPU per composition")
    print(
        f"ratio: {hydra / cached:.2f}x ({len(SETS)} override sets, {args.rounds} rounds, kept prefixes: "
        f"{len(compose_cache._prefixes)})"
    )


if __name__ == "__main__":
    main()
