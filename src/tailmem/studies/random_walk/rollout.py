"""Stage `rollout`: load the world, roll out the policy with the retrieval design, write `trace.npz`.

The world comes from `input=` (a graphworld folder) or, by default, from the graphworld folder the config
names; a missing default world is generated there first (deterministic, so it equals the graphworld stage's).
A world made for other graph settings is refused rather than silently used under the wrong name.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tailmem.errors import ArtifactError, ConfigError
from tailmem.graphworld.build import check_seed
from tailmem.graphworld.families import check_graph_config
from tailmem.graphworld.world import World
from tailmem.paths import TRACE_FILE, WORLD_FILE, graphworld_dir, out_dir, rollout_dir
from tailmem.provenance import save_provenance
from tailmem.roles import POLICY, plays_model
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import LLMPolicy, Semantic
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies.random_walk.graphworld import make_world, save_world

log = logging.getLogger("tailmem.rollout")


def load_world(cfg: StageSettings) -> tuple[World, Path]:
    """The world of this rollout and its file; ArtifactError if it was made for other graph settings."""
    family, n, params = check_graph_config(cfg.graph.mapping())
    seed = check_seed(cfg.seed)
    if cfg.input:
        path = Path(cfg.input) / WORLD_FILE
    else:
        path = graphworld_dir(cfg) / WORLD_FILE
        if not path.exists():
            log.info("rollout: %s not found; generating the world first", path)
            save_world(make_world(cfg), path.parent, cfg)
    world = World.load(path)
    made, asked = (world.family, world.n, world.seed, world.params), (family, n, seed, params)
    if made != asked:
        raise ArtifactError(
            f"{path}: made for (family, n, seed, params)={made} but the config asks for {asked}; "
            "point input= at the matching graphworld folder or re-run the graphworld stage"
        )
    return world, path


def make_policy(cfg: StageSettings, world: World):
    """None for the random walk (the numba kernel); a goal-directed policy object otherwise."""
    if cfg.policy.name == "random_walk":
        return None
    if cfg.policy.name == "semantic":
        return Semantic(world, cfg.seed)
    from tailmem.llm import get_client

    client = get_client(cfg, POLICY, stage="rollout")
    if not plays_model(client):
        raise ConfigError(
            "policy.name=llm: the policy role has no model (llm.roles.policy.backend=programmatic); "
            "set llm=local or llm=openai, or use policy=semantic for the model-free proxy"
        )
    return LLMPolicy(world, cfg.seed, client)


@typed_stage("rollout")
def run(cfg: StageSettings) -> Path:
    world, world_path = load_world(cfg)
    policy = make_policy(cfg, world)
    retrieval = cfg.retrieval
    trace = rollout(world, cfg.rollout.for_policy(cfg.policy.name), retrieval, cfg.seed, policy=policy, progress=None)
    out = out_dir(cfg, rollout_dir(cfg.composed))
    path = trace.save(out / TRACE_FILE)
    agent = cfg.policy.name if policy is None else policy.agent
    save_provenance(
        out,
        cfg,
        agent=agent,
        policy=cfg.policy.name,
        retrieval=retrieval.name,
        k=retrieval.k,
        world=str(world_path),
        steps=trace.total_steps,
        accesses=trace.total_accesses,
        kernel="numba" if policy is None else "python",
    )
    log.info(
        "rollout: %s + %s(k=%d) on %s n=%d: %d steps, %d accesses -> %s",
        cfg.policy.name,
        retrieval.name,
        retrieval.k,
        world.family,
        world.n,
        trace.total_steps,
        trace.total_accesses,
        path,
    )
    return path
