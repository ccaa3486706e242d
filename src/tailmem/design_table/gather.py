"""Stage `design_table`: the design check's table (`design_check`), the studies' rows under one note."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs, paths
from tailmem.design_table.rows import STUDIES, rows_files
from tailmem.power import stated
from tailmem.provenance import table_footer
from tailmem.records.design import DesignRows
from tailmem.report.table_io import write_table
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies import alfworld, controller, fsmem, longmemeval, random_walk

log = logging.getLogger(__name__)


def table(records: list[DesignRows]) -> pd.DataFrame:
    """The studies' rows in one frame, columns in the order they first appear and `draws_per_run` (the controller
    plan's draws; empty for a stated row) last."""
    out = pd.concat([pd.DataFrame(r.rows) for r in records], ignore_index=True)
    if "draws_per_run" in out:
        out["draws_per_run"] = out.pop("draws_per_run")
    return out


def rows_groups() -> list[str]:
    """The config groups the studies' rows read (each `<study>_design_rows` stage's), in first-seen order: the
    table's footer records their digest and the agents the rows rest on."""
    packages = {p.__name__.rsplit(".", 1)[1]: p for p in (controller, fsmem, longmemeval, alfworld, random_walk)}
    return list(dict.fromkeys(g for s in STUDIES for g in packages[s].STAGES[f"{s}_design_rows"].groups))


@typed_stage("design_table")
def run(cfg: StageSettings) -> None:
    records = [DesignRows.read(f) for f in rows_files(cfg.results_dir)]
    df = table(records)
    note = " ".join([*(r.note for r in records if r.note), stated.note(cfg.power)])
    write_table(
        Path(paths.TABLES.format(results=cfg.results_dir)),
        outputs.DESIGN_CHECK,
        df,
        "Design check: can each claim pair's arms differ?",
        note,
        table_footer(cfg, rows_groups()),
    )
    log.info("design check: %d claims of %d studies", len(df), len(records))
