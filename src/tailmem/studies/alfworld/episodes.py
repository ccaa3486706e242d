"""Stages alfworld_memory and alfworld_skills: paper 1's memory arms and paper 2's skill chains played over a
subset's games. Artifacts under `<results>/alfworld/...` (folders: `play.layout`, one segment per agent role a
cell depends on)."""

from __future__ import annotations

import logging
import shutil
import time

from tqdm import tqdm

from tailmem.errors import ConfigError
from tailmem.llm.parallel import run_units, units_workers
from tailmem.paths import out_dir
from tailmem.provenance import save_provenance
from tailmem.records.alfworld import AlfworldChain, AlfworldMemoryCell
from tailmem.roles import BUILDER, EXECUTOR, SEARCHER, model_free, programmatic_agent
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies.alfworld.games import game_file, manifest_of, subset_games
from tailmem.studies.alfworld.play import layout

log = logging.getLogger(__name__)


def arm_settings(cfg, arm: str) -> dict:
    """An arm's controller settings: configs/memory/<name>.yaml with the arm's other keys on top."""
    from tailmem.memory.catalogue import arm_settings as from_catalogue

    a = cfg.alfworld
    if arm not in a.arms:
        raise ConfigError(f"alfworld.arm: {arm!r}; expected one of {list(a.arms)}")
    spec = dict(a.arms[arm])
    if "name" not in spec:
        raise ConfigError(f"alfworld.arms.{arm}: no `name`; expected a configs/memory option (graph_memory, ctmc, ...)")
    return from_catalogue(spec.pop("name"), **spec)


def _agent(client) -> str:
    return client.agent if model_free(client.backend) else client.model


def _executor(cfg, client):
    """The episode's executor: the model's (`alfworld.model_executor`) when the executor role plays a model in
    ALFWorld (`alfworld.model_roles`), else the programmatic one."""
    from tailmem.studies.alfworld.play.executor import make_executor

    return make_executor(
        client if layout.plays_model(cfg, EXECUTOR, client) else None,
        str(cfg.alfworld.model_executor or "react"),
    )


def _executor_agent(cfg, client) -> str:
    return _agent(client) if layout.plays_model(cfg, EXECUTOR, client) else programmatic_agent(EXECUTOR)


def _model_seconds(client) -> dict:
    """An in-process model's counters for this role (tokens sent and evaluated, seconds inside llama.cpp)."""
    impl = getattr(client, "_impl", None)
    if impl is None or not hasattr(impl, "evaluated"):
        return {}
    return {
        "sent_tokens": int(impl.sent_tokens),
        "evaluated_tokens": int(impl.evaluated),
        "seconds_in_model": round(float(impl.seconds_in_model), 3),
    }


def _counter(cfg):
    from tailmem.memory.tokens import TokenCounter

    return TokenCounter(encoding=cfg.llm.encoding)


@typed_stage("alfworld_memory")
def memory(cfg: StageSettings) -> None:
    """Stage `alfworld_memory`: every game of the subset under one memory arm (paper 1 on ALFWorld)."""
    from tailmem.llm import get_client
    from tailmem.memory.controllers import make_controller
    from tailmem.studies.alfworld.play import speedup
    from tailmem.studies.alfworld.play.episode import cached, episode_key, run_episode

    composed = cfg.composed
    speedup.install(layout.sas_dir(composed))
    a = cfg.alfworld
    arm = a.arm
    settings = arm_settings(cfg, arm)
    out = out_dir(cfg, layout.memory_dir(composed, a.subset, arm))
    gs = subset_games(cfg, a.subset)
    manifest_of(composed, a.subset)  # the games stage ran
    client = get_client(cfg, EXECUTOR, "alfworld_memory")
    counter = _counter(cfg)
    model = layout.plays_model(composed, EXECUTOR, client)
    cache_dir = None if model else layout.episodes_dir(composed)
    progress = tqdm(total=len(gs), desc=f"alfworld memory {arm}")

    def play(g) -> dict:
        """One game with its own executor and memory: a cell's games do not depend on each other."""
        ex = _executor(composed, client)
        key = episode_key(g, settings, "", a.max_steps, ex.agent)
        start = time.perf_counter()
        rec = cached(
            cache_dir,
            key,
            lambda: run_episode(
                g, game_file(composed, g), ex, make_controller(settings, cfg.seed), counter, "", a.max_steps
            ),
        )
        if not rec.loaded:
            log.warning("alfworld game %s could not be loaded: %s (skipped)", g.key, rec.error)
        progress.update()
        return rec.to_json() | ({"seconds": round(time.perf_counter() - start, 3)} if model else {})

    # a model executor's games side by side (their env steps take turns: play.env); a programmatic one's in turn, as
    # it calls no model
    try:
        rows = run_units(play, gs, units_workers(len(gs), client) if model else 1, name="game")
    finally:
        progress.close()
    agent = _executor_agent(composed, client)
    save_provenance(out, cfg, executor=agent)
    # with a model: what the run cost (seconds per game are beside each episode)
    cost = {"executor_mode": str(a.model_executor or "react"), **_model_seconds(client)} if model else None
    AlfworldMemoryCell(arm=arm, settings=settings, subset=a.subset, executor=agent, episodes=rows, model=cost).write(
        out / "episodes.json"
    )


@typed_stage("alfworld_skills")
def skills(cfg: StageSettings) -> None:
    """Stage `alfworld_skills`: one cell (protocol x variant) of the skill setting over the fixed order."""
    from tailmem.fsmem.snapshots import SnapshotLog
    from tailmem.llm import get_client
    from tailmem.memory.controllers import make_controller
    from tailmem.studies.alfworld.play import speedup
    from tailmem.studies.alfworld.play.chain import PROTOCOLS, chain_order, run_chain, to_rows
    from tailmem.studies.alfworld.play.curator import VARIANTS, ModelCurator, ProgrammaticCurator
    from tailmem.studies.alfworld.play.episode import cached, episode_key, run_episode
    from tailmem.studies.alfworld.play.goal import parse_goal
    from tailmem.studies.alfworld.play.retriever import Retrieved, retrieve, retrieve_model

    composed = cfg.composed
    speedup.install(layout.sas_dir(composed))
    a = cfg.alfworld
    if a.variant not in VARIANTS:
        raise ConfigError(f"alfworld.variant: {a.variant!r}; expected one of {VARIANTS}")
    if a.protocol not in PROTOCOLS:
        raise ConfigError(f"alfworld.protocol: {a.protocol!r}; expected one of {sorted(PROTOCOLS)}")
    seed = int(a.seed or 0)
    # seed > 0: a model role's requests carry the seed, so a replicate chain is its own sample (chain.seeded_order)
    builder = get_client(cfg, BUILDER, "alfworld_skills").sampled(seed)
    searcher = get_client(cfg, SEARCHER, "alfworld_skills").sampled(seed)
    model_builder = layout.plays_model(composed, BUILDER, builder)
    model_searcher = layout.plays_model(composed, SEARCHER, searcher)
    out = out_dir(cfg, layout.skills_dir(composed, a.subset, a.protocol, a.variant, seed))
    order = subset_games(cfg, a.subset)
    manifest = manifest_of(composed, a.subset)
    settings = arm_settings(cfg, a.executor_arm)
    client = get_client(cfg, EXECUTOR, "alfworld_skills").sampled(seed)
    counter = _counter(cfg)
    # A programmatic executor's episode depends only on the game, settings, cap and guidance text (all in the
    # episode key), so episodes stay cached whoever wrote the guidance: a model curator or retriever changes the
    # text, hence the key. Only a model executor disables the cache.
    model_executor = layout.plays_model(composed, EXECUTOR, client)
    cache_dir = None if model_executor else layout.episodes_dir(composed)
    curator = (
        ModelCurator(a.variant, builder, int(a.curator_rounds)) if model_builder else ProgrammaticCurator(a.variant)
    )
    retrievals: list[dict] = []
    # For the site (tailmem.site): the store as it stood before each task, and what each task was given and did.
    shutil.rmtree(out / "snapshots", ignore_errors=True)
    snapshots, played = SnapshotLog(out / "snapshots"), {}

    def goal_of(g):
        text = manifest.get(g.id, {}).get("goal", "")
        if not text:
            return None
        return parse_goal(text)

    def retrieve_for(store, g):
        snapshots.take(store, layout.snapshot_label("before", g.id))
        goal = goal_of(g)
        if goal is None:
            return Retrieved("", 0, ())
        if not model_searcher:
            return retrieve(a.variant, store, goal, g.family, a.retrieval_k)
        got = retrieve_model(searcher, a.variant, store, goal, g.family, int(a.retriever_rounds), a.retrieval_k)
        if got.episode is not None:
            retrievals.append({"id": g.id, "files": list(got.files), **got.episode.to_json()})
        return got

    def attempt(g, guidance):
        ex = _executor(composed, client)
        key = episode_key(g, settings, guidance, a.max_steps, ex.agent)
        ep = cached(
            cache_dir,
            key,
            lambda: run_episode(
                g, game_file(composed, g), ex, make_controller(settings, cfg.seed), counter, guidance, a.max_steps
            ),
        )
        played[g.id] = {
            "guidance": guidance,
            "goal": ep.goal,
            "start": ep.start,
            "trajectory": [list(t) for t in ep.trajectory],
        }
        return ep

    def curate(store, k, game_id, ep):
        written = curator.curate(store, k, game_id, ep)
        snapshots.take(
            store, layout.snapshot_label("after", game_id)
        )  # with before_<game>: what curating task k changed
        return written

    start = time.perf_counter()
    with tqdm(total=len(order), desc=f"alfworld {a.protocol}/{a.variant}") as bar:
        recs = run_chain(order, a.protocol, out / "store", retrieve_for, attempt, curate, bar, seed)
    seconds = time.perf_counter() - start
    for r in recs:
        if not r.ran:
            log.warning("alfworld game %s could not be loaded: %s (skipped; the chain went on)", r.id, r.error)
    retriever = searcher.model if model_searcher else programmatic_agent("retriever")
    executor = _executor_agent(composed, client)
    save_provenance(out, cfg, curator=curator.agent, executor=executor, retriever=retriever)
    AlfworldChain(
        protocol=a.protocol,
        variant=a.variant,
        subset=a.subset,
        seed=seed,
        agents={EXECUTOR: executor, "curator": curator.agent, "retriever": retriever},
        order=[g.id for g in chain_order(order, a.protocol, seed)],
        tasks=to_rows(recs),
        episodes=played,
        model={
            "executor_mode": str(a.model_executor or "react"),
            "seconds": round(seconds, 3),
            **_model_seconds(client),
        }
        if model_executor
        else None,
        # the model roles' accounting (tokens, tool calls), per task
        curation_episodes=[{"index": k, **e.to_json()} for k, e in curator.episodes] if model_builder else None,
        retrieval_episodes=retrievals if model_searcher else None,
    ).write(out / "chain.json")
