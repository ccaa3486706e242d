"""Stage alfworld_games: the subset's games regenerated from the shipped game files, and which games a subset
holds (its manifest), which the episode stages read."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from tqdm import tqdm

from tailmem.errors import ConfigError
from tailmem.paths import out_dir
from tailmem.provenance import save_provenance
from tailmem.records.alfworld import AlfworldGames
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies.alfworld.play import games as G
from tailmem.studies.alfworld.play import layout

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


def split_of(subset: str) -> str:
    return "valid_seen" if subset == "smoke" else subset


@typed_stage("alfworld_games")
def regenerate_games(cfg: StageSettings) -> None:
    """Stage `alfworld_games`: rebuild every game of `alfworld.subset` for the installed alfworld."""
    from tailmem.studies.alfworld.play import regenerate as R
    from tailmem.studies.alfworld.play import speedup
    from tailmem.studies.alfworld.play.env import alfred_game_files

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
    from tailmem.studies.alfworld.play import regenerate as R

    return R.regenerate(*job)


def _data_files(data: Path, games: list[G.Game]) -> list[Path]:
    """The data files a regeneration reads: each game's trajectory and initial state."""
    from tailmem.studies.alfworld.play import regenerate as R

    return [data / g.split / g.id / name for g in games for name in (R.TRAJ_FILE, R.PROBLEM_FILE)]


def manifest_of(cfg, subset: str) -> dict:
    return {r["id"]: r for r in AlfworldGames.read(manifest_path(cfg, subset)).games}


def game_file(cfg, game: G.Game) -> Path:
    return games_dir(cfg, game.split) / game.id / "game.tw-pddl"
