"""Stages of the ALFWorld study: regenerate games, paper 1's memory arms, paper 2's skill chains,
and the report. Artifacts under `<results>/alfworld/...` (folders: `alfworld.layout`, one segment per agent role
a cell depends on); tables under `<results>/tables/alfworld_*`.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from tailmem import outputs
from tailmem.alfworld import games as G
from tailmem.alfworld import layout
from tailmem.errors import ConfigError
from tailmem.llm.parallel import run_units, units_workers
from tailmem.paths import out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.alfworld import AlfworldChain, AlfworldGames, AlfworldMemoryCell
from tailmem.roles import BUILDER, EXECUTOR, SEARCHER, model_free, programmatic_agent
from tailmem.settings.stage import StageSettings
from tailmem.stage import typed_stage

log = logging.getLogger(__name__)
WORKERS_ENV = "TAILMEM_WORKERS"


def games_dir(cfg, split: str) -> Path:
    """Regenerated game files, shared by every subset (a game is rebuilt once). Like every folder here, named from
    the composed config `cfg` (a stage passes its settings' `composed`), as the DAG names it."""
    return layout.game_files_dir(cfg, split)


def manifest_path(cfg, subset: str) -> Path:
    return layout.games_dir(cfg, subset) / "manifest.json"


def listed_games(cfg, subset: str) -> list[G.Game]:
    """Every game a subset names, excluded ones too: the smoke list, or a whole split."""
    a = cfg.alfworld
    data = Path(a.data_root)
    if subset == "smoke":
        return G.select(G.split_games(data, "valid_seen"), list(a.smoke_games))
    if subset not in G.SPLITS:
        raise ConfigError(f"alfworld.subset: {subset!r}; expected smoke or one of {G.SPLITS}")
    return G.split_games(data, subset)


def subset_games(cfg, subset: str) -> list[G.Game]:
    """The games a subset plays, in the order every cell runs: the smoke list as given, or a split's games
    without `games.EXCLUDED` (the same on every machine) in the fixed family-interleaved order; the first
    `max_games` of them if set (the smoke list's too)."""
    games = G.playable(listed_games(cfg, subset))
    if subset != "smoke":
        games = G.interleaved(games)
    max_games = cfg.alfworld.max_games
    return games[:max_games] if max_games else games


def arm_settings(cfg, arm: str) -> dict:
    """An arm's controller settings: configs/memory/<name>.yaml with the arm's other keys on top."""
    from tailmem.memory.arms import arm_settings as from_catalogue

    a = cfg.alfworld
    if arm not in a.arms:
        raise ConfigError(f"alfworld.arm: {arm!r}; expected one of {list(a.arms)}")
    spec = dict(a.arms[arm])
    if "name" not in spec:
        raise ConfigError(f"alfworld.arms.{arm}: no `name`; expected a configs/memory option (graph_memory, ctmc, ...)")
    return from_catalogue(spec.pop("name"), **spec)


def split_of(subset: str) -> str:
    return "valid_seen" if subset == "smoke" else subset


@typed_stage("alfworld_games")
def regenerate_games(cfg: StageSettings) -> None:
    """Stage `alfworld_games`: rebuild every game of `alfworld.subset` for the installed alfworld."""
    from tailmem.alfworld import regenerate as R
    from tailmem.alfworld import speedup
    from tailmem.alfworld.env import alfred_game_files

    composed = cfg.composed
    speedup.install(
        layout.sas_dir(composed)
    )  # same text, ~4x faster expert checks (tests/alfworld: the patch changes no observation)
    a = cfg.alfworld
    subset = a.subset
    split = split_of(subset)
    out = out_dir(cfg, manifest_path(composed, subset).parent)
    files = games_dir(composed, split)
    listed = listed_games(cfg, subset)
    gs = subset_games(cfg, subset)
    domain, grammar = R.installed_logic()
    data = Path(a.data_root) / "json_2.1.1"
    jobs = [(g, data, files.parent, domain, grammar, a.regenerate.seed, a.regenerate.expert_check) for g in gs]
    workers = min(job_workers(), len(jobs))
    if workers > 1:  # each game is seeded by its own key, so the split across workers changes no byte
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:  # forked: the speed-up patches carry over
            recs = list(tqdm(pool.imap(_regenerate_one, jobs), total=len(jobs), desc=f"regenerate {subset}"))
    else:
        recs = [_regenerate_one(j) for j in tqdm(jobs, desc=f"regenerate {subset}")]
    accepted = {str(Path(p).resolve()) for p in alfred_game_files(files)}
    rows = [{**r.__dict__, "collected": str((files / r.id / R.GAME_FILE).resolve()) in accepted} for r in recs]
    failed = [r for r in rows if not r["ok"]]
    for r in failed:
        log.warning("alfworld game %s/%s failed to regenerate: %s", split, r["id"], r["error"])
    excluded = [{"id": g.id, "family": g.family, "reason": G.EXCLUDED[g.key]} for g in listed if g.key in G.EXCLUDED]
    save_provenance(
        out, cfg, data_files=_data_files(data, gs), regenerate=R.recipe(a.regenerate.seed, a.regenerate.expert_check)
    )
    AlfworldGames(
        subset=subset,
        split=split,
        games=rows,
        n=len(rows),
        ok=len(rows) - len(failed),
        excluded=excluded,
        collected_by_AlfredTWEnv=sum(r["collected"] for r in rows),
    ).write(out / "manifest.json")
    log.info(
        "%s: %d games, %d regenerated, %d excluded (games.EXCLUDED)",
        subset,
        len(rows),
        len(rows) - len(failed),
        len(excluded),
    )


def job_workers() -> int:
    """Processes a job may use: $TAILMEM_WORKERS (the rule passes Snakemake's `{threads}`), else 1. Not a config
    key, since it changes no result, only how fast it comes."""
    raw = os.environ.get(WORKERS_ENV, "1")
    try:
        n = int(raw)
    except ValueError:
        raise ConfigError(f"${WORKERS_ENV}: {raw!r}; expected a whole number of processes >= 1") from None
    if n < 1:
        raise ConfigError(f"${WORKERS_ENV}: {n}; expected a whole number of processes >= 1")
    return n


def _regenerate_one(job):
    from tailmem.alfworld import regenerate as R

    return R.regenerate(*job)


def _data_files(data: Path, games: list[G.Game]) -> list[Path]:
    """The data files a regeneration reads: each game's trajectory and initial state."""
    from tailmem.alfworld import regenerate as R

    return [data / g.split / g.id / name for g in games for name in (R.TRAJ_FILE, R.PROBLEM_FILE)]


def _manifest(cfg, subset: str) -> dict:
    return {r["id"]: r for r in AlfworldGames.read(manifest_path(cfg, subset)).games}


def _game_file(cfg, game: G.Game) -> Path:
    return games_dir(cfg, game.split) / game.id / "game.tw-pddl"


def _agent(client) -> str:
    return client.agent if model_free(client.backend) else client.model


def _executor(cfg, client):
    """The episode's executor: the model's (`alfworld.model_executor`) when the executor role plays a model in
    ALFWorld (`alfworld.model_roles`), else the programmatic one."""
    from tailmem.alfworld.executor import make_executor

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
    from tailmem.alfworld import speedup
    from tailmem.alfworld.episode import cached, episode_key, run_episode
    from tailmem.llm import get_client
    from tailmem.memory.controllers import make_controller

    composed = cfg.composed
    speedup.install(layout.sas_dir(composed))
    a = cfg.alfworld
    arm = a.arm
    settings = arm_settings(cfg, arm)
    out = out_dir(cfg, layout.memory_dir(composed, a.subset, arm))
    gs = subset_games(cfg, a.subset)
    _manifest(composed, a.subset)  # the games stage ran
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
                g, _game_file(composed, g), ex, make_controller(settings, cfg.seed), counter, "", a.max_steps
            ),
        )
        if not rec.loaded:
            log.warning("alfworld game %s could not be loaded: %s (skipped)", g.key, rec.error)
        progress.update()
        return rec.to_json() | ({"seconds": round(time.perf_counter() - start, 3)} if model else {})

    # a model executor's games side by side (their env steps take turns: tailmem.alfworld.env); a programmatic
    # one's in turn, as it calls no model
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
    from tailmem.alfworld import speedup
    from tailmem.alfworld.chain import PROTOCOLS, chain_order, run_chain, to_rows
    from tailmem.alfworld.curator import VARIANTS, ModelCurator, ProgrammaticCurator
    from tailmem.alfworld.episode import cached, episode_key, run_episode
    from tailmem.alfworld.goal import parse_goal
    from tailmem.alfworld.retriever import Retrieved, retrieve, retrieve_model
    from tailmem.fsmem.snapshots import SnapshotLog
    from tailmem.llm import get_client
    from tailmem.memory.controllers import make_controller

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
    manifest = _manifest(composed, a.subset)
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
        snapshots.take(store, snapshot_label("before", g.id))
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
                g, _game_file(composed, g), ex, make_controller(settings, cfg.seed), counter, guidance, a.max_steps
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
        snapshots.take(store, snapshot_label("after", game_id))  # with before_<game>: what curating task k changed
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


def snapshot_label(when: str, game_id: str) -> str:
    """A skill cell's snapshot of its store `before` a task (what the task was given) or `after` curating it."""
    return f"{when}_{game_id.replace('/', '__')}"


def memory_episodes(cfg, subset: str, arms: list[str]) -> pd.DataFrame:
    """One row per (arm, game) of the memory cells, for `report.alfworld_tables.memory_tables`."""
    rows = [
        {"arm": arm, **e}
        for arm in arms
        for e in AlfworldMemoryCell.read(layout.memory_dir(cfg, subset, arm) / "episodes.json").episodes
    ]
    return pd.DataFrame(rows)


def skill_tasks(cfg, subset: str, protocols: list[str], variants: list[str], seeds=(0,)) -> pd.DataFrame:
    """One row per (protocol, variant, chain seed, task) of the skill cells, for `report.alfworld_tables`."""
    rows = [
        {"protocol": p, "variant": v, "seed": int(s), **t}
        for p in protocols
        for v in variants
        for s in seeds
        for t in AlfworldChain.read(layout.skills_dir(cfg, subset, p, v, s) / "chain.json").tasks
    ]
    return pd.DataFrame(rows)


def _cell_tasks(cfg, subset: str, protocol: str, variant: str, seed: int = 0) -> tuple[Path, AlfworldChain]:
    cell = layout.skills_dir(cfg, subset, protocol, variant, seed)
    return cell, AlfworldChain.read(cell / "chain.json")


def _skill_cells(cfg, subset: str, protocols: list[str], variants: list[str], seed: int = 0):
    """(protocol, variant, cell folder, chain record, its SnapshotLog, the snapshot labels it holds) per skill cell
    of chain seed `seed`."""
    from tailmem.fsmem.snapshots import SnapshotLog

    for p in protocols:
        for v in variants:
            cell, chain = _cell_tasks(cfg, subset, p, v, seed)
            snaps = SnapshotLog(cell / "snapshots")
            yield p, v, cell, chain, snaps, set(snaps.labels())


def skill_stores(cfg, subset: str, protocols: list[str], variants: list[str], seed: int = 0) -> pd.DataFrame:
    """One row per (protocol, variant, task): the hierarchy panel (fsmem.hierarchy.measure) of the store the task
    was given, restored from the cell's `before_<game>` snapshot, for `report.alfworld_tables.store_table`."""
    import tempfile

    from tailmem.fsmem.hierarchy import measure

    rows = []
    panels: dict[tuple, dict] = {}  # store content (path -> sha256) -> its panel: a third of the stores recur
    for p, v, cell, chain, log_, have in _skill_cells(cfg, subset, protocols, variants, seed):
        for t in chain.tasks:
            label = snapshot_label("before", t["id"])
            if label not in have:
                raise ConfigError(
                    f"{cell / 'snapshots'}: no snapshot {label!r}; re-run stage alfworld_skills "
                    f"for alfworld.protocol={p} alfworld.variant={v}"
                )
            content = tuple(sorted(log_.load(label).files.items()))
            if content not in panels:
                with tempfile.TemporaryDirectory() as tmp:
                    panels[content] = measure(log_.restore(label, Path(tmp) / "store")).to_dict()
            h = panels[content]
            rows.append({"protocol": p, "variant": v, "index": t["index"], "id": t["id"], "family": t["family"], **h})
    return pd.DataFrame(rows)


def skill_effort(cfg, subset: str, protocols: list[str], variants: list[str], seed: int = 0) -> pd.DataFrame:
    """One row per (protocol, variant, task): what curating it cost (report.alfworld_tables.EFFORT_COLUMNS), from
    the task rows, the `before_`/`after_` snapshots around the curation and a model curator's episodes."""
    nan = float("nan")
    rows = []
    for p, v, cell, chain, log_, have in _skill_cells(cfg, subset, protocols, variants, seed):
        episodes = {e["index"]: e for e in chain.curation_episodes or []}
        for t in chain.tasks:
            before, after = snapshot_label("before", t["id"]), snapshot_label("after", t["id"])
            touched = added = nan
            if before in have and after in have:
                b, a_ = log_.load(before), log_.load(after)
                touched = sum(1 for f, h in a_.files.items() if b.files.get(f) != h)
                added = a_.bytes - b.bytes
            elif t["ran"] and v != "no_store":
                log.warning(
                    "%s: no snapshot %r (a cell from before the after_ snapshots); files_touched left empty",
                    cell,
                    after,
                )
            e = episodes.get(t["index"], {})
            rows.append(
                {
                    "protocol": p,
                    "variant": v,
                    "index": t["index"],
                    "id": t["id"],
                    "family": t["family"],
                    "success": t["success"],
                    "curation_chars": t["curation_chars"],
                    "files_touched": 0 if v == "no_store" else touched,
                    "bytes_added": 0 if v == "no_store" else added,
                    "rounds": e.get("rounds", nan),
                    "tool_calls": e.get("tool_calls", nan),
                }
            )
    return pd.DataFrame(rows)


@typed_stage("alfworld_report")
def report(cfg: StageSettings) -> None:
    """Stage `alfworld_report`: tables and figures of one subset, with their provenance."""
    from tailmem.report.plots import save_figure
    from tailmem.report.table_io import write_table
    from tailmem.studies.alfworld import figures as F
    from tailmem.studies.alfworld import tables as T
    from tailmem.studies.alfworld import text as W

    a = cfg.alfworld
    subset = a.subset
    tables = out_dir(cfg, tables_dir(cfg))
    figures = Path(cfg.figures_dir)
    stem = f"alfworld_{subset}"
    episodes = memory_episodes(cfg.composed, subset, list(a.arms_run))
    seeds = list(a.seeds)
    tasks = skill_tasks(cfg.composed, subset, list(a.protocols), list(a.variants), seeds)
    first = tasks[tasks.seed == seeds[0]]  # per-task curves and tables follow one chain: the first seed's
    mem, mem_fam, counts = T.memory_tables(episodes)
    sk, sk_fam = T.skill_tables(tasks)
    labels = layout.agent_labels(cfg.composed)
    excluded = len(AlfworldGames.read(manifest_path(cfg.composed, subset)).excluded)
    arms = W.arm_words({arm: dict(a.arms[arm]) for arm in a.arms_run})
    notes = W.notes(
        labels[EXECUTOR], labels[BUILDER], labels[SEARCHER], int(a.max_steps), cfg.llm.encoding, excluded, arms
    )
    titles = W.titles(subset)
    footer = table_footer(cfg)
    frames = dict(zip(outputs.ALFWORLD_TABLES, (mem, mem_fam, sk, sk_fam)))
    for name, df in frames.items():
        write_table(tables, outputs.alfworld_output(subset, name), df, titles[name], notes[name], footer)
    save_figure(
        F.skills_growth_figure(first, subset=subset, executor=labels[EXECUTOR]),
        figures / outputs.alfworld_output(subset, "skills_growth"),
    )
    save_figure(
        F.memory_figure(mem, counts, subset=subset, executor=labels[EXECUTOR], arms=arms),
        figures / outputs.alfworld_output(subset, "memory"),
    )
    _skill_side(cfg, tasks, tables, figures, labels, footer)
    save_provenance(tables, cfg, prefix=f"{stem}_", **labels)


def _skill_side(cfg, tasks: pd.DataFrame, tables: Path, figures: Path, labels: dict, footer: str) -> None:
    """Paper 2's skill-side analyses: claims at the game unit with chain seeds as the outer level; the
    store, the curation effort and running success by goal family against no store along the first seed's chain."""
    from tailmem.report.plots import save_figure
    from tailmem.report.table_io import write_table
    from tailmem.stats.settings import settings as stats_settings
    from tailmem.studies.alfworld import figures as F
    from tailmem.studies.alfworld import tables as T
    from tailmem.studies.alfworld import text as W

    a = cfg.alfworld
    subset = a.subset
    st = stats_settings(cfg)
    margin = float(a.claims.order_margin)
    protocols, variants = list(a.protocols), list(a.variants)
    executor = labels[EXECUTOR]
    claims = T.skill_claims(tasks, st, margin, min_tie_games=int(a.claims.min_tie_games))
    write_table(
        tables,
        outputs.claims_alfworld(subset),
        claims,
        W.claims_title(subset),
        W.claims_note(executor, st, margin, int(a.claims.min_tie_games), len(a.seeds)),
        footer,
    )
    seed = int(a.seeds[0])
    stores = skill_stores(cfg.composed, subset, protocols, variants, seed)
    effort = skill_effort(cfg.composed, subset, protocols, variants, seed)
    running = T.family_running(tasks[tasks.seed == seed])
    frames = {
        "skills_store": T.store_table(stores),
        "skills_erosion": T.erosion_table(stores),
        "skills_effort": T.effort_table(effort),
        "skills_effort_trend": T.effort_trend(effort, st),
        "skills_family_running": running,
    }
    titles, notes = W.skill_side_titles(subset), W.skill_side_notes(executor, labels[BUILDER], st)
    for name in outputs.ALFWORLD_SKILL_TABLES:
        write_table(tables, outputs.alfworld_output(subset, name), frames[name], titles[name], notes[name], footer)
    protocol = "full_chain" if "full_chain" in protocols else protocols[0]
    save_figure(
        F.effort_figure(effort, protocol, subset=subset, executor=executor),
        figures / outputs.alfworld_output(subset, "skills_effort"),
    )
    save_figure(
        F.family_running_figure(running, protocol, subset=subset, executor=executor),
        figures / outputs.alfworld_output(subset, "skills_family_running"),
    )
