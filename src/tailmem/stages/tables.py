"""Stage `tables`: the random-walk tables (paper 1 Tables 2, 7, 8, the Table 3 layout) and the claims check,
including the tail-shape contrast of the random walk with the controller study's policy on the same worlds."""

from __future__ import annotations

import logging

import pandas as pd

from tailmem import outputs, paths
from tailmem.paths import TABLES, out_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.audit import Audit
from tailmem.report import random_walk_tables as rw
from tailmem.report.audits import audit_frame
from tailmem.report.table_io import write_table
from tailmem.settings.stage import StageSettings
from tailmem.stages import typed_stage
from tailmem.stats.settings import StatsSettings
from tailmem.stats.settings import settings as stats_settings
from tailmem.targets import Run, retrieval_runs, size_runs, tail_contrast_runs

log = logging.getLogger(__name__)

PAPER_SIZES = (100, 500, 1000)  # the graph sizes paper 1 reports (Tables 2 and 7)


def load_audits(runs: list[Run], results: str) -> pd.DataFrame:
    """One row per run; a missing or corrupt audit raises ArtifactError naming the file."""
    return audit_frame((run, Audit.read(run.audit_file(results))) for run in runs)


def stats_note(s: StatsSettings) -> str:
    """How every claims row is decided, for the table's note."""
    return (
        f"Each compared metric: the mean difference (`estimate`) with its {100 * s.confidence:g}% interval (`ci_low`, "
        f"`ci_high`; `ci_method`: the inversion of the sign-flip test, exact up to 15 units and over {s.resamples} "
        f"random flips above, or, for more than 15 units nested in several seeds, a percentile bootstrap of "
        f"{s.resamples} replicates, seeds resampled first, then units within each seed; seed {s.seed}), the "
        "claim's own test (`p_held`: one-sided sign-flip test that the mean lies on the claimed `side` of its "
        "threshold, two one-sided tests against the margin for `|d| < m`; `p_not_held`: the same towards the other "
        "side) and the verdict: HELD (NOT HELD) when the whole interval lies on the claimed (other) side, the matching "
        f"p is at most {s.alpha:g} and there are at least {s.min_units} units (stats.min_units); INCONCLUSIVE "
        "otherwise, with the `reason`. docs/stats.md."
    )


def not_comparable(cfg: StageSettings) -> str:
    """What keeps our random-walk numbers from being paper 1's, for every note of this stage."""
    s = cfg.scale
    sizes = " / ".join(str(int(n)) for n in s.sizes)
    paper_sizes = " / ".join(f"{n:,}" for n in PAPER_SIZES)
    return (
        "Not comparable with paper 1 as is: every agent here is an offline programmatic one (the random walk picks "
        "uniformly among a state's actions and ignores memory; no language model runs), the graphs are generated "
        f"from the paper's family descriptions, not the paper's own graphs, and scale `{s.name}` has {sizes} states "
        f"per graph against the paper's {paper_sizes}. A `_paper` column holds the paper's number only at a size "
        "it reports (`-` elsewhere)."
    )


def produced_by(cfg: StageSettings, retrieval: str | None) -> str:
    """Which runs and stages made a table's numbers; `retrieval` None: each row names its design."""
    s = cfg.scale
    design = f"retrieval `{retrieval}`" if retrieval else "the retrieval design each row names"
    return (
        f"Produced by the `tables` stage from the tail audits (`audit.json`, tailmem.audit) of random-walk rollouts "
        f"(agent: random_walk; {design}; {cfg.rollout.episodes} episodes x {cfg.rollout.steps} steps; "
        f"seeds {list(s.seeds)}); ours = mean ± sd over seeds."
    )


def tail_shape_note(cfg: StageSettings) -> str:
    """How the tail-shape rows of the claims table are read."""
    c = cfg.scale.control
    agent = paths.policy_agent(cfg, c.policy)
    who = (
        f"a model ({agent}) playing the policy role"
        if c.policy == "llm"
        else "the programmatic `semantic` agent (a model-free proxy of an LLM policy: it takes the action whose name "
        "shares the most words with the episode's goal)"
    )
    return (
        f"Tail-shape rows: R_tpl_ln ({rw.EXPLAIN['R_tpl_ln']}) of the random walk and of the `{c.policy}` policy, "
        f"{who}, on the same worlds (every family at n = {c.size}, seeds {list(c.seeds)}, retrieval "
        f"`{c.retrieval}`). The unit is a world whose tail was fitted (at least `audit.min_tail` = "
        f"{cfg.audit.min_tail} states at or above xmin); a world with a smaller tail is left out and counted in "
        "`evidence`, so with small graphs these rows are INCONCLUSIVE. Paper 1 reports R only for its semantic LLM "
        "policy (Table 3: 0.60 to 3.22 by topology), not per world; its random-walk claim (log-normal-compatible) "
        "is read here as R < 0."
    )


def notes(cfg: StageSettings, st: StatsSettings) -> dict[str, tuple[str, str]]:
    """Table stem -> (title, note): what each table shows, what produced it and what is not comparable."""
    s = cfg.scale
    rw_text, unlike = produced_by(cfg, s.table_retrieval), not_comparable(cfg)
    return {
        outputs.TABLE2_SIGMA_TOP10: (
            "Table 2: random-walk control across graph sizes (sigma_top10)",
            f"How unequal the most-accessed states' counts are at each graph size, and how that grows with size. "
            f"{rw_text} {rw.EXPLAIN['sigma_top10']} {rw.EXPLAIN['slope_r2']} {unlike}",
        ),
        outputs.TABLE7_CONCENTRATION: (
            "Table 7: random-walk access concentration across families and sizes",
            f"Three measures of access concentration per family and graph size; the scaling fits follow in a second "
            f"table below, and the CSV holds both side by side. {rw_text} {rw.EXPLAIN['gini']} "
            f"{rw.EXPLAIN['top10_pct']} {rw.EXPLAIN['sigma_top10']} {unlike}",
        ),
        outputs.TABLE8_RETRIEVAL_DESIGNS: (
            "Table 8: retrieval designs under the random walk (Gini, max/median)",
            f"How each retrieval design changes access concentration at one graph size ({s.retrieval_size} states). "
            f"{produced_by(cfg, None)} {rw.EXPLAIN['gini']} {rw.EXPLAIN['max_median']} Paper 1's values are "
            "single-seed measurements; its max/median block is not in the copy of the paper we hold "
            f"(seeds/000), so `max_median` has no `_paper` column. {unlike}",
        ),
        outputs.TABLE3_RANDOM_WALK: (
            "Table 3 layout: tail audit per topology (random-walk traces)",
            f"The tail fit of each topology's access counts at the largest size ({max(int(n) for n in s.sizes)} "
            f"states), over every seed. {rw_text} p_gof from "
            f"{cfg.audit.bootstrap} bootstrap replicates, screen p_gof >= {cfg.audit.gof_threshold}. "
            f"{rw.EXPLAIN['tail']} {rw.EXPLAIN['R_tpl_ln']} The `_paper_llm` columns are paper 1's semantic LLM "
            "policy's (its Table 3), shown for reference: ours is a random walk, so a difference there is the "
            f"policy's, not a failed reproduction. {unlike}",
        ),
        outputs.CLAIMS_RANDOM_WALK: (
            "Paper 1's random-walk claims, checked",
            f"Each row: one claim of paper 1 about the random walk, its compared metric and the verdict. {rw_text} "
            f"{stats_note(st)} Size rows: a seed's log-log slope over sizes {list(s.sizes)}; design rows: Gini "
            f"differences at size {s.retrieval_size}, equal within ±{st.gini_margin:g}; `{rw.ALL}` pools every "
            f"family's graphs within each seed. {tail_shape_note(cfg)} {unlike}",
        ),
    }


def table7_parts(sizes: pd.DataFrame) -> dict:
    """Table 7 as `write_table` takes it: the CSV keeps the wide frame (every size's mean, sd and paper value, and
    the fits, one row per family); the Markdown shows a row per family and size, then the scaling fits."""
    fits_note = (
        f"Per family, the log-log scaling of Gini and sigma_top10 with graph size. {rw.EXPLAIN['slope_r2']} "
        "Paper 1 gives the fit for sigma_top10 only (its Table 2)."
    )
    return {
        "df": rw.table7(sizes),
        "shown": rw.table7_main(sizes),
        "continued": [(rw.table7_fits(sizes), "Table 7, continued: scaling with graph size", fits_note)],
    }


@typed_stage
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    results = cfg.results_dir
    out = out_dir(cfg, TABLES.format(results=results))
    sizes = load_audits(size_runs(cfg), results)
    designs = load_audits(retrieval_runs(cfg), results)
    tails = load_audits(tail_contrast_runs(cfg), results)
    largest = sizes[sizes.n == sizes.n.max()]
    frames = {
        outputs.TABLE2_SIGMA_TOP10: rw.table2(sizes),
        outputs.TABLE8_RETRIEVAL_DESIGNS: rw.table8(designs),
        outputs.TABLE3_RANDOM_WALK: rw.table3(largest),
        outputs.CLAIMS_RANDOM_WALK: rw.claims(sizes, designs, st, tails, str(cfg.scale.control.policy)),
    }
    footer = table_footer(cfg)
    parts = {stem: {"df": df} for stem, df in frames.items()} | {outputs.TABLE7_CONCENTRATION: table7_parts(sizes)}
    for stem, (title, note) in notes(cfg, st).items():
        p = parts[stem]
        write_table(out, stem, p["df"], title, note, footer, shown=p.get("shown"), continued=p.get("continued", ()))
        log.info("wrote %s", out / f"{stem}.md")
    save_provenance(out, cfg, prefix="random_walk.", agent="random_walk")
