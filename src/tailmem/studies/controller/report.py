"""Stage `control_report`: paper 1 Table 3 and Figure 4 under the semantic/LLM policy, Tables 4-6, Figures 6-7,
and the CTMC claims, from the controller study's summaries and per-step records and the policy rollouts' audits
and traces (whose access counts define the one tail set every arm of a trajectory is scored on)."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs, paths
from tailmem.audit.concentration import concentration
from tailmem.control import arms
from tailmem.control.replay import window_counts
from tailmem.graph_runs import ControlRun, Run, contrast_worlds, control_runs, design_runs, policy_runs
from tailmem.memory.arm_names import ArmName
from tailmem.paths import TABLES
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.control import ControlCounts, ControlSteps, ControlSummary, DesignPlan
from tailmem.records.rollout import RolloutTrace
from tailmem.report.audits import EXPLAIN, load_audits, stats_note, table3
from tailmem.report.table_io import write_table
from tailmem.report.table_spec import text
from tailmem.roles import PREDICTOR, tail_policy
from tailmem.settings.stage_settings import StageSettings
from tailmem.settings.stats import StatsGroup
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings
from tailmem.studies.controller import figures as cf
from tailmem.studies.controller import tables as ct

log = logging.getLogger(__name__)


def load_summaries(runs: list[ControlRun], results: str) -> pd.DataFrame:
    """One row per arm, family and seed of the controller study (`studies.controller.tables.summary_row`)."""
    return pd.DataFrame(
        [ct.summary_row(r.arm, r.family, r.seed, ControlSummary.read(r.summary_file(results))) for r in runs]
    )


def load_steps(runs: list[ControlRun], results: str) -> pd.DataFrame:
    """Every arm's per-step records (the columns the claims read), with arm, family and seed."""
    frames = []
    for r in runs:
        steps = ControlSteps.read(r.folder(results) / paths.STEPS_FILE, columns=ct.STEP_COLUMNS).frame
        frames.append(steps.assign(arm=r.arm, family=r.family, seed=r.seed))
    return pd.concat(frames, ignore_index=True)


def load_counts(runs: list[ControlRun], results: str) -> dict:
    """(arm, family, seed) -> the arm's access counts (its counts.npz): each arm's own tail."""
    return {(r.arm, r.family, r.seed): ControlCounts.read(r.counts_file(results))["counts"] for r in runs}


def trajectory_counts(cfg: StageSettings, results: str) -> dict:
    """(family, seed) -> the trajectory's access counts over the steps the study replays (its rollout's
    trace.npz, `control.replay_steps`): the tail is the part of memory rarely used in what is replayed."""
    c = cfg.scale.control
    agent = paths.policy_agent(cfg.composed, c.policy)
    out = {}
    for fam in c.families:
        for seed in c.seeds:
            run = Run(c.policy, c.retrieval, fam, int(c.size), int(seed), agent)
            trace = RolloutTrace.read(run.trace_file(results))
            n = len(trace["counts"])
            out[(fam, int(seed))] = window_counts(
                trace["access_step"], trace["access_item"], n, cfg.control.replay_steps
            )
    return out


def load_plans(cfg: StageSettings, results: str) -> list[DesignPlan] | None:
    """A planned model replay's plans (`control.plan`), every run's design-check plan.json; None when every step
    was predicted (no plan governs the calls, so no row has a planned power)."""
    if not cfg.control.plan:
        return None
    return [
        DesignPlan.read(Path(paths.DESIGN.format(**r.keys(results))) / paths.PLAN_FILE)
        for r in design_runs(cfg.composed)
    ]


def log_flips(steps: pd.DataFrame, pair_weights: pd.DataFrame) -> None:
    """How often a pair's answers parted at its drawn steps, per stratum (the plan's allocation assumed a spread
    there: `tailmem.control.design.STRATUM_SD`): the evidence for sizing the next plan."""
    keys = [*ct.RUN, "step"]
    cols = [*keys, "arm", "correct", "called"]
    a = pair_weights.merge(steps[cols].rename(columns={"arm": "a"}), on=[*keys, "a"])
    both = a.merge(steps[cols].rename(columns={"arm": "b"}), on=[*keys, "b"], suffixes=("_a", "_b"))
    both = both[both.called_a.astype(bool) & both.called_b.astype(bool)]
    for stratum, g in both.groupby("stratum"):
        parted = (g.correct_a.astype(bool) != g.correct_b.astype(bool)).mean()
        log.info("plan stratum %s: %d draws, answers parted at %.3f of them", stratum, len(g), parted)


def tau_concentration(cfg: StageSettings, results: str) -> pd.DataFrame:
    """Gini, skew and max/median of the controller's accesses for every tau arm, family and seed (Figure 6)."""
    c = cfg.scale.control
    rows = []
    for tau in c.taus:
        for fam in c.families:
            for seed in c.seeds:
                run = ControlRun(
                    c.policy,
                    c.retrieval,
                    fam,
                    int(c.size),
                    int(seed),
                    arms.ctmc(tau=tau),
                    paths.policy_agent(cfg.composed, c.policy),
                    paths.role_label(cfg.composed, PREDICTOR),
                )
                counts = ControlCounts.read(run.counts_file(results))["counts"]
                conc = concentration(counts, cfg.audit.top_fraction)
                rows.append(
                    {
                        "tau": float(tau),
                        "family": fam,
                        "seed": int(seed),
                        "gini": conc.gini,
                        "skew": conc.skew,
                        "max_median": conc.max_median,
                    }
                )
    return pd.DataFrame(rows)


def nominal_budgets(df: pd.DataFrame) -> dict:
    """Controller -> the nominal memory budget (tokens) Table 5's arms ran with: `memory.budget` of
    configs/memory/graph_memory.yaml and ctmc.yaml as each control job composed it (with any override), read from
    the arms' summary.json. Several values (an override per encoding) are listed, joined by '/'."""
    out = {}
    for arm in arms.table5_arms():
        controller = ArmName.parse(arm).controller
        # the column is float when a budget-less controller (full history) sits in the frame: 160.0 prints as 160
        out.setdefault(controller, []).extend(f"{float(b):g}" for b in df.loc[df.arm == arm, "budget"] if pd.notna(b))
    return {c: "/".join(dict.fromkeys(v)) or "-" for c, v in out.items()}


def notes(cfg: StageSettings, st: StatsGroup, predictor: str, budgets: dict) -> dict[str, tuple[str, str]]:
    """Table stem -> (title, note), the specs' words (studies/controller/data/control.yaml) filled with the config's numbers;
    `predictor` names the predictors that ran, `budgets` is `nominal_budgets`."""
    c = cfg.scale.control
    study = text(
        ct.FILE,
        "study",
        scale=cfg.scale.name,
        policy=c.policy,
        retrieval=c.retrieval,
        size=c.size,
        families=list(c.families),
        seeds=list(c.seeds),
        predictor=predictor,
        encoding=cfg.llm.encoding,
        tail_fraction=cfg.control.tail_fraction,
    )
    fields = {
        "study": study,
        "explain": EXPLAIN,
        # Table 3 and Figure 4: the tails set beside the random walk
        "policy": tail_policy(cfg.composed),  # the walk policy, not the role
        "bootstrap": cfg.audit.bootstrap,
        "gof_threshold": cfg.audit.gof_threshold,
        "table4": ct.table4_note(predictor),
        "table5": ct.table5_note(budgets),
        "cells": text(ct.FILE, "cells_planned" if cfg.control.plan else "cells_every_step"),
        "stats": stats_note(st),
        "tokens_margin_pct": 100 * st.margins.tokens_rel,
    }
    return {stem: (spec.title_text(**fields), spec.note_text(**fields)) for stem, spec in ct.SPECS.items()}


@typed_stage("control_report")
def run(cfg: StageSettings) -> None:
    results = cfg.results_dir
    tables = Path(TABLES.format(results=results))
    figures = Path(cfg.figures_dir)
    c = cfg.scale.control
    st = stats_settings(cfg)
    runs = control_runs(cfg.composed)
    steps = ct.shared_tail(load_steps(runs, results), trajectory_counts(cfg, results), cfg.control.tail_fraction)
    df = ct.with_shared_tail(
        load_summaries(runs, results), steps, load_counts(runs, results), cfg.control.tail_fraction
    )
    plans = load_plans(cfg, results)
    pair_weights = None if plans is None else ct.pair_weight_frame(plans)
    planned = plans[0].planned_power if plans else None  # every run's plan records the same powers (all runs')
    cells = None
    if pair_weights is not None:
        log_flips(steps, pair_weights)
        cells = ct.planned_cells(steps, pair_weights)
    audits = load_audits(policy_runs(cfg.composed), results)
    predictor = ", ".join(sorted(df.predictor.unique()))
    words = notes(cfg, st, predictor, nominal_budgets(df))
    t3 = table3(audits)
    conc = tau_concentration(cfg, results)
    red = ct.token_reduction(df)
    out = {
        outputs.TABLE3_POLICY: t3,
        outputs.TABLE4_BASELINES: ct.table4(df),
        outputs.TABLE5_GRAPH_VS_CTMC: ct.table5(df, cells),
        outputs.TABLE6_ABLATION: ct.table6(df, cells),
        outputs.CLAIMS_CTMC: ct.claims(df, conc, steps, st, pair_weights, planned),
        f"{outputs.FIG6_TAU}_data": conc,
        f"{outputs.FIG7_REDUCTION}_data": red,
    }
    footer = table_footer(cfg)
    for stem, frame in out.items():
        title, note = words[stem]
        write_table(tables, stem, frame, title, note, footer)
    cf.figure4(
        t3,
        cfg.audit.gof_threshold,
        figures / outputs.FIG4_TAIL_AUDIT,
        f"Figure 4: tail audit under the {tail_policy(cfg.composed)} policy (n = {contrast_worlds(c)[0]})",
    )
    cf.figure6(conc, figures / outputs.FIG6_TAU, "Figure 6: access concentration vs tau (CTMC)")
    cf.figure7(red, figures / outputs.FIG7_REDUCTION, "Figure 7: prompt-token reduction of CTMC vs Graph Memory")
    save_provenance(tables, cfg, prefix="control.", agent=predictor)
    log.info("wrote control tables under %s and figures under %s", tables, figures)
