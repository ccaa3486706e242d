"""Stage alfworld_report: the memory and skill tables, figures and claims of a subset, read from the cells the
episode stages wrote."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs
from tailmem.errors import ConfigError
from tailmem.paths import out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.alfworld import AlfworldChain, AlfworldGames, AlfworldMemoryCell
from tailmem.roles import BUILDER, EXECUTOR, SEARCHER
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies.alfworld.games import manifest_path
from tailmem.studies.alfworld.play import layout

log = logging.getLogger(__name__)


def memory_episodes(cfg, subset: str, arms: list[str]) -> pd.DataFrame:
    """One row per (arm, game) of the memory cells, for `studies.alfworld.tables.memory_tables`."""
    rows = [
        {"arm": arm, **e}
        for arm in arms
        for e in AlfworldMemoryCell.read(layout.memory_dir(cfg, subset, arm) / "episodes.json").episodes
    ]
    return pd.DataFrame(rows)


def skill_tasks(cfg, subset: str, protocols: list[str], variants: list[str], seeds=(0,)) -> pd.DataFrame:
    """One row per (protocol, variant, chain seed, task) of the skill cells, for `studies.alfworld.tables`."""
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
    was given, restored from the cell's `before_<game>` snapshot, for `studies.alfworld.tables.store_table`."""
    import tempfile

    from tailmem.fsmem.hierarchy import measure

    rows = []
    panels: dict[tuple, dict] = {}  # store content (path -> sha256) -> its panel: a third of the stores recur
    for p, v, cell, chain, log_, have in _skill_cells(cfg, subset, protocols, variants, seed):
        for t in chain.tasks:
            label = layout.snapshot_label("before", t["id"])
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
    """One row per (protocol, variant, task): what curating it cost (studies.alfworld.tables.EFFORT_COLUMNS), from
    the task rows, the `before_`/`after_` snapshots around the curation and a model curator's episodes."""
    nan = float("nan")
    rows = []
    for p, v, cell, chain, log_, have in _skill_cells(cfg, subset, protocols, variants, seed):
        episodes = {e["index"]: e for e in chain.curation_episodes or []}
        for t in chain.tasks:
            before, after = layout.snapshot_label("before", t["id"]), layout.snapshot_label("after", t["id"])
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
    from tailmem.power.stated import planned_power
    from tailmem.report.plots import save_figure
    from tailmem.report.table_io import write_table
    from tailmem.stats.group import settings as stats_settings
    from tailmem.studies.alfworld import design_rows
    from tailmem.studies.alfworld import figures as F
    from tailmem.studies.alfworld import tables as T
    from tailmem.studies.alfworld import text as W

    a = cfg.alfworld
    subset = a.subset
    st = stats_settings(cfg)
    margin = float(a.claims.order_margin)
    protocols, variants = list(a.protocols), list(a.variants)
    executor = labels[EXECUTOR]
    planned = planned_power(design_rows.row(cfg, st.min_units, st.alpha))  # as the design check plans them
    claims = T.skill_claims(tasks, st, margin, min_tie_games=int(a.claims.min_tie_games), planned=planned)
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
