"""Stage fsmem_growth (RQ4): the growth atlas of the agent-curated stores, one snapshot per chunk.

Outputs: {results}/tables/fsmem_rq4_growth.{csv,md} (one row per conversation), the per-chunk atlas
{results}/tables/fsmem_rq4_growth_atlas.csv, and {figures}/fsmem_rq4_growth.{png,pdf}: files, sections, bytes,
creates/edits/deletes, build effort (tool calls) per chunk, and early-file survival against chunks.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.artifacts import write_text
from tailmem.errors import DataError
from tailmem.fsmem import run_list
from tailmem.fsmem.growth import atlas
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.paths import out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import FsmemBuild
from tailmem.report.table_io import write_table
from tailmem.roles import BUILDER
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem")


KB = 1024  # bytes per KB on the figure's size axis

# (atlas column, panel title, y-axis label in words with its unit); `bytes` is drawn in KB
PANELS = (
    ("files", "Files in the store", "files (count)"),
    ("sections", "Sections in the store", "sections, i.e. headings (count)"),
    ("bytes", "Store size", "store size (KB, 1 KB = 1024 bytes)"),
    ("edits", "Files edited per chunk", "files edited (count per chunk)"),
    ("build tool calls", "Build effort per chunk", "builder tool calls (count per chunk)"),
    ("early_alive", "Survival of the early files", "early files still present (share, 0-1)"),
)
CHUNK_AXIS = "chunks integrated (count)"
CONV_COLORS = (
    "tab:blue",
    "tab:orange",
    "tab:green",
    "tab:red",
    "tab:purple",
    "tab:brown",
    "tab:pink",
    "tab:gray",
    "tab:olive",
    "tab:cyan",
)  # one per conversation of a benchmark
BENCH_LINES = ("-", "--", "-.", ":")  # one per benchmark
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def _series_style(bench: int, conv: int, series: int, points: int) -> dict:
    """Line style per benchmark, colour and hollow marker per conversation; about eight markers per line, each
    series' markers shifted along the line (by its number `series`) so coinciding lines still show all of them."""
    step = max(1, points // 8)
    return {
        "color": CONV_COLORS[conv % len(CONV_COLORS)],
        "linestyle": BENCH_LINES[bench % len(BENCH_LINES)],
        "marker": MARKERS[(conv + 3 * bench) % len(MARKERS)],
        "markerfacecolor": "none",
        "markersize": 4,
        "markevery": (series % step, step),
        "linewidth": 1,
    }


def growth_figure(atlas_rows: pd.DataFrame, variant: str, early_fraction: float):
    """The RQ4 figure from the per-chunk atlas (one row per benchmark, conversation and chunk): one panel per
    quantity against chunks integrated, one line per conversation, a shared legend under the panels."""
    from tailmem.report import plots

    fig, axes = plots.panel_grid(len(PANELS))
    benches = list(dict.fromkeys(atlas_rows["benchmark"]))
    series = []  # (benchmark number, conversation number within it, legend entry, its per-chunk rows)
    for b, bench in enumerate(benches):
        convs = atlas_rows[atlas_rows["benchmark"] == bench].groupby("conversation", sort=False)
        series += [(b, c, f"{bench} {conv}", g) for c, (conv, g) in enumerate(convs)]
    for ax, (col, title, ylabel) in zip(axes, PANELS):
        for k, (b, c, name, g) in enumerate(series):
            ax.plot(g["chunk"], g[col] / KB if col == "bytes" else g[col], label=name, **_series_style(b, c, k, len(g)))
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(CHUNK_AXIS, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(labelsize=8)
        if col == "early_alive":
            ax.set_ylim(-0.05, 1.05)
    fig.legend(
        *axes[0].get_legend_handles_labels(),
        loc="outside lower center",
        ncol=min(5, len(series)),
        fontsize=8,
        title="benchmark and conversation (line style = benchmark, colour = conversation)",
        title_fontsize=8,
    )
    fig.suptitle(
        f"RQ4 growth atlas: the {variant} store after each chunk integrated\n"
        f"early files = files present after any of the first {early_fraction:.0%} of chunks; "
        "a rename counts as a delete plus a create",
        fontsize=10,
    )
    return fig


@typed_stage("fsmem_growth")
def run(cfg) -> None:
    from tailmem.report import plots

    st = cfg.fsmem.study
    runs = [r for r in run_list.main_runs(cfg.composed) if r.variant == st.growth_variant]
    summary, steps_all = [], []
    for r in runs:
        if not r.build_file.exists():
            raise DataError(f"{r.build_file}: missing; run the fsmem_store rule for it first")
        built = FsmemBuild.read(r.build_file)
        steps, surv = atlas(SnapshotLog(r.build_dir / "snapshots"), float(st.early_fraction))
        if not steps:
            raise DataError(f"{r.build_dir / 'snapshots'}: no per-chunk snapshots (variant {r.variant} keeps none)")
        effort = [e["tool_calls"] for e in built.episodes]
        rounds = [e["rounds"] for e in built.episodes]
        tokens = [e["prompt_tokens"] + e["completion_tokens"] for e in built.episodes]
        for s, calls, rd, tok in zip(steps, effort, rounds, tokens):
            steps_all.append(
                {
                    "benchmark": r.benchmark,
                    "conversation": r.conversation,
                    **s.to_dict(),
                    "build tool calls": calls,
                    "build rounds": rd,
                    "build tokens": tok,
                }
            )
        q = max(1, len(steps) // 4)
        summary.append(
            {
                "benchmark": r.benchmark,
                "conversation": r.conversation,
                BUILDER: built.agent,
                "chunks": len(steps),
                "final files": steps[-1].files,
                "final sections": steps[-1].sections,
                "final bytes": steps[-1].bytes,
                "chunk of last new file": max(s.chunk for s in steps if s.creates)
                if any(s.creates for s in steps)
                else 0,
                "creates": sum(s.creates for s in steps),
                "edits": sum(s.edits for s in steps),
                "deletes": sum(s.deletes for s in steps),
                "calls/chunk first quarter": float(np.mean(effort[:q])),
                "calls/chunk last quarter": float(np.mean(effort[-q:])),
                "early files": surv.early_files,
                "early survival": surv.share,
                "early unchanged": surv.unchanged / surv.early_files if surv.early_files else np.nan,
            }
        )
    tables = out_dir(cfg, tables_dir(cfg))
    write_table(
        tables,
        outputs.FSMEM_GROWTH,
        pd.DataFrame(summary).round(4),
        "RQ4: growth atlas of the agent-curated stores",
        f"Variant {st.growth_variant}, one build episode and one snapshot per chunk (<= {cfg.fsmem.chunk.max_turns} "
        f"turns or {cfg.fsmem.chunk.max_chars} characters). Early files = files present after any of the first "
        f"{st.early_fraction:.0%} of chunks; survival = still present (same path) at the end; unchanged = same bytes "
        "as at the end of the early phase. A rename counts as a delete plus a create. Per-chunk rows: "
        "fsmem_rq4_growth_atlas.csv.",
        table_footer(cfg),
    )
    df = pd.DataFrame(steps_all)
    write_text(tables / f"{outputs.FSMEM_GROWTH}_atlas.csv", df.to_csv(index=False))
    plots.save_figure(
        growth_figure(df, st.growth_variant, float(st.early_fraction)), Path(cfg.figures_dir) / outputs.FSMEM_GROWTH
    )
    # reads snapshots and build.json only: no benchmark file, so no data sha256s (the builds' meta.json have them)
    save_provenance(tables / f"{outputs.FSMEM_GROWTH}.provenance", cfg, agent="fsmem_growth")
    log.info("fsmem_growth: %d stores", len(runs))
