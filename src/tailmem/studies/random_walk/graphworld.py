"""Stage `graphworld`: check the `graph` config, draw the world, write `world.json` and its provenance."""

from __future__ import annotations

import logging
from pathlib import Path

from tailmem.graphworld.build import world_from_config
from tailmem.graphworld.world import World
from tailmem.paths import WORLD_FILE, graphworld_dir, out_dir
from tailmem.provenance import save_provenance
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem.graphworld")


def make_world(cfg: StageSettings) -> World:
    """The world the config describes (ConfigError naming the key before anything is written)."""
    return world_from_config(cfg.graph.mapping(), cfg.seed)


def save_world(world: World, out: Path, cfg: StageSettings) -> Path:
    """Write `world.json` and the provenance beside it; return the world file."""
    path = world.save(out / WORLD_FILE)
    save_provenance(out, cfg, family=world.family, n=world.n, edges=world.n_edges, construction=world.construction)
    return path


@typed_stage("graphworld")
def run(cfg: StageSettings) -> Path:
    world = make_world(cfg)
    path = save_world(world, out_dir(cfg, graphworld_dir(cfg)), cfg)
    log.info(
        "graphworld: %s n=%d edges=%d seed=%d -> %s (%s)",
        world.family,
        world.n,
        world.n_edges,
        world.seed,
        path,
        world.construction,
    )
    return path
