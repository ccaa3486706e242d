"""Stage fsmem_access: the tail audit of paper 1 applied to filesystem stores. For every (benchmark, variant,
harness) of the studies, count how often the search agent read each file and each leaf section over all
queries (`tailmem.fsmem.access`), pool the counts over the benchmark's conversations, and report the same
concentration metrics, tail fits and bootstrap p_gof as the graph-world audit, with Figure-3-style CCDFs.

Outputs: {results}/tables/fsmem_access_audit.{csv,md}, {results}/tables/fsmem_access_ccdf.csv (the plotted
points), {figures}/fsmem_access_ccdf_{file,section}.{png,pdf}.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.artifacts import write_text
from tailmem.audit.bootstrap import bootstrap_gof
from tailmem.audit.concentration import concentration
from tailmem.audit.tailfit import fit_tail
from tailmem.fsmem import run_list
from tailmem.fsmem.access import count_reads
from tailmem.fsmem.benchmarks import conversation, conversation_file
from tailmem.fsmem.chunks import chunk_conversation
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.chunks import ChunkIndex
from tailmem.paths import out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import FsmemAnswers
from tailmem.report.table_io import write_table
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem")
UNITS = outputs.FSMEM_ACCESS_UNITS


def _retriever(cfg, run: run_list.Run):
    if run.variant != "chunk_retrieval":
        return None
    fs = cfg.fsmem
    index = ChunkIndex(
        chunk_conversation(conversation(fs, run.benchmark, run.conversation), fs.chunk.max_turns, fs.chunk.max_chars)
    )
    return lambda q: [f"chunks/{c.id}.md" for c in index.top(q, fs.retrieval_k)] if q.strip() else []


def pooled_counts(cfg, runs: list[run_list.Run]) -> dict[str, np.ndarray]:
    """Read counts per unit, pooled over the runs' conversations (items keep their conversation)."""
    out = {u: [] for u in UNITS}
    for run in runs:
        rows = FsmemAnswers.read(run.answers_file).rows
        acc = count_reads(
            Store(run.build_dir / "store"), [r.get("search_trace", []) for r in rows], _retriever(cfg, run)
        )
        out["file"] += list(acc.files.values())
        out["section"] += list(acc.sections.values())
    return {u: np.asarray(v, dtype=float) for u, v in out.items()}


def ccdf_points(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical P(X >= x) at each distinct positive count x."""
    x = np.sort(counts[counts > 0])
    if not len(x):
        return np.array([]), np.array([])
    values = np.unique(x)
    return values, 1.0 - np.searchsorted(x, values, side="left") / len(x)


def audit_counts(counts: np.ndarray, a, seed: int) -> dict:
    """Concentration, tail fit and bootstrap p_gof of one count vector (the graph-world audit's settings)."""
    conc = concentration(counts, a.top_fraction)
    tail = fit_tail(counts, pl_alpha_max=a.pl_alpha_max, tpl_alpha_max=a.tpl_alpha_max)
    rec = {
        "items": len(counts),
        "read items": int((counts > 0).sum()),
        "reads": int(counts.sum()),
        "gini": conc.gini,
        "top10 share": conc.top_share,
        "sigma_top10": conc.sigma_top10,
        "max/median": conc.max_median,
        "tail": tail.status,
    }
    if tail.ok:
        p = (
            bootstrap_gof(
                counts.astype(np.int64), tail.xmin, tail.alpha, tail.ks_D, int(a.bootstrap), seed, a.pl_alpha_max
            ).p
            if int(a.bootstrap) > 0
            else np.nan
        )
        rec.update(
            {
                "xmin": tail.xmin,
                "alpha": tail.alpha,
                "n_tail": tail.n_tail,
                "p_gof": p,
                "R_tpl_ln": tail.R_tpl_ln,
                "p_tpl_ln": tail.p_tpl_ln,
            }
        )
    return rec


def ccdf_figure(unit: str, fits: list[tuple[str, np.ndarray, dict]], tpl_alpha_max: float):
    """One CCDF panel per (benchmark, variant, harness): `fits` holds (panel title, read counts per item, the
    audit record of `audit_counts`); a panel whose tail was fitted shows the TPL and log-normal fits too."""
    from tailmem.report import plots

    fig, axes = plots.panel_grid(len(fits))
    for ax, (title, counts, rec) in zip(axes, fits):
        if rec["tail"] == "ok":
            plots.ccdf_with_tails(ax, counts, rec["xmin"], tpl_alpha_max, title)
            ax.set_xlabel(f"reads per {unit} (count; tail x >= {rec['xmin']:g})", fontsize=8)
            ax.set_ylabel("P(X >= x) among tail items (share)", fontsize=8)
        else:
            xs, ys = ccdf_points(counts)
            ax.loglog(xs, ys, "k.", label="empirical")
            ax.set_title(f"{title} (tail not fitted: {rec['tail']})", fontsize=8)
            ax.set_xlabel(f"reads per {unit} (count)", fontsize=8)
            ax.set_ylabel("P(X >= x) among read items (share)", fontsize=8)
            plots.plain_log_ticks(ax.xaxis, ax.yaxis)
        ax.tick_params(which="both", labelsize=8)
        ax.legend(fontsize=8)
    fig.suptitle(
        f"Search-agent reads per {unit}: CCDF with fitted tails\n"
        "panel = benchmark, store variant, tool harness; TPL = truncated power law;\n"
        "tail = items read at least xmin times; unread items are left out",
        fontsize=9,
    )
    return fig


@typed_stage("fsmem_access")
def run(cfg) -> None:
    from tailmem.report import plots

    groups: dict[tuple, list] = {}
    seen = set()
    for r in run_list.main_runs(cfg.composed) + run_list.harness_runs(cfg.composed):
        if r.variant != "closed_book" and r.answers_file not in seen:
            seen.add(r.answers_file)
            tools = "chunks" if r.variant == "chunk_retrieval" else r.harness  # chunk retrieval has its own tool
            groups.setdefault((r.benchmark, r.variant, tools), []).append(r)
    recs, points, fits = [], [], {u: [] for u in UNITS}
    for key, runs in groups.items():
        counts = pooled_counts(cfg, runs)
        for unit in UNITS:
            rec = {
                "benchmark": key[0],
                "variant": key[1],
                "harness": key[2],
                "unit": unit,
                **audit_counts(counts[unit], cfg.audit, int(cfg.seed)),
            }
            recs.append(rec)
            xs, ys = ccdf_points(counts[unit])
            points += [
                {"benchmark": key[0], "variant": key[1], "harness": key[2], "unit": unit, "x": x, "ccdf": y}
                for x, y in zip(xs, ys)
            ]
            fits[unit].append((f"{key[0]} {key[1]} {key[2]}", counts[unit], rec))
    tables = out_dir(cfg, tables_dir(cfg))
    figures = Path(cfg.figures_dir)
    write_table(
        tables,
        outputs.FSMEM_ACCESS,
        pd.DataFrame(recs).round(4),
        "Store-access tail audit: search-agent reads per file and per section",
        f"Reads counted over all queries of each (benchmark, variant, harness), pooled over conversations; every "
        f"file/section of the store is an item (unread = 0). Concentration as in paper 1 (top {cfg.audit.top_fraction:.0%}); "
        f"tail fits by powerlaw, p_gof from {cfg.audit.bootstrap} bootstrap replicates; R_tpl_ln > 0 favours the "
        "truncated power law over the log-normal. Reads: view of a file or range, read_section, bash sed/cat, "
        "retrieved chunks (grep/toc/search hits are not reads).",
        table_footer(cfg),
    )
    write_text(tables / f"{outputs.FSMEM_ACCESS_CCDF}.csv", pd.DataFrame(points).to_csv(index=False))
    for unit in UNITS:
        plots.save_figure(
            ccdf_figure(unit, fits[unit], float(cfg.audit.tpl_alpha_max)),
            figures / f"{outputs.FSMEM_ACCESS_CCDF}_{unit}",
        )
    read = dict.fromkeys(
        conversation_file(cfg.fsmem, r.benchmark, r.conversation)  # chunk retrieval re-chunks them
        for runs in groups.values()
        for r in runs
        if r.variant == "chunk_retrieval"
    )
    save_provenance(tables / f"{outputs.FSMEM_ACCESS}.provenance", cfg, data_files=list(read), agent="fsmem_access")
    log.info("fsmem_access: %d groups", len(groups))
