"""Stage `tables`: the random-walk tables (paper 1 Tables 2, 7, 8, the Table 3 layout) and the claims check,
including the tail-shape contrast of the random walk with the controller study's policy on the same worlds."""

from __future__ import annotations

import logging

import pandas as pd

from tailmem import outputs, paths
from tailmem.errors import ArtifactError
from tailmem.graph_runs import contrast_worlds, retrieval_runs, size_runs, tail_contrast_runs
from tailmem.paths import TABLES, out_dir
from tailmem.power.stated import planned_power
from tailmem.provenance import save_provenance, table_footer
from tailmem.report.audits import EXPLAIN, load_audits, stats_note, table3
from tailmem.report.table_io import write_table
from tailmem.report.table_spec import text
from tailmem.roles import tail_policy
from tailmem.rollout.trace import Trace
from tailmem.settings.stage_settings import StageSettings
from tailmem.settings.stats import StatsGroup
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings
from tailmem.studies.random_walk import design_rows
from tailmem.studies.random_walk import tables as rw
from tailmem.studies.random_walk.claim_specs import CONCENTRATION

log = logging.getLogger(__name__)

PAPER_SIZES = (100, 500, 1000)  # the graph sizes paper 1 reports (Tables 2 and 7)


def _text(key: str, **fields) -> str:
    return text(rw.FILE, key, **fields)


def not_comparable(cfg: StageSettings) -> str:
    """What keeps our random-walk numbers from being paper 1's, for every note of this stage."""
    s = cfg.scale
    sizes = " / ".join(str(int(n)) for n in s.sizes)
    paper_sizes = " / ".join(f"{n:,}" for n in PAPER_SIZES)
    policy = tail_policy(cfg.composed)
    if policy == "llm":
        steps = cfg.rollout.for_policy(policy).total_steps
        agents = _text("agents_model", agent=paths.policy_agent(cfg.composed, policy), policy_steps=steps)
    else:
        agents = _text("agents_programmatic")
    return _text("not_comparable", agents=agents, scale=s.name, sizes=sizes, paper_sizes=paper_sizes)


def produced_by(cfg: StageSettings, retrieval: str | None) -> str:
    """Which runs and stages made a table's numbers; `retrieval` None: each row names its design."""
    design = _text("design_one", retrieval=retrieval) if retrieval else _text("design_each")
    return _text(
        "produced_by",
        design=design,
        episodes=cfg.rollout.episodes,
        steps=cfg.rollout.steps,
        seeds=list(cfg.scale.seeds),
    )


def tail_shape_note(cfg: StageSettings) -> str:
    """How the tail-shape rows of the claims table are read."""
    c, policy = cfg.scale.control, tail_policy(cfg.composed)
    agent = paths.policy_agent(cfg.composed, policy)
    who = _text("who_llm", agent=agent) if policy == "llm" else _text("who_proxy")
    size, seeds = contrast_worlds(c)
    return _text(
        "tail_shape",
        R_tpl_ln=EXPLAIN["R_tpl_ln"],
        policy=policy,
        who=who,
        size=size,
        seeds=seeds,
        retrieval=c.retrieval,
        min_tail=cfg.audit.min_tail,
        policy_steps=cfg.rollout.for_policy(policy).total_steps,
    )


def notes(cfg: StageSettings, st: StatsGroup) -> dict[str, tuple[str, str]]:
    """Table stem -> (title, note): what each table shows, what produced it and what is not comparable; the words
    are the specs' in report/data/random_walk.yaml, the numbers the config's."""
    s = cfg.scale
    fields = {
        "produced": produced_by(cfg, s.table_retrieval),
        "unlike": not_comparable(cfg),
        "explain": EXPLAIN,
        "retrieval_size": s.retrieval_size,
        "largest": max(int(n) for n in s.sizes),
        "bootstrap": cfg.audit.bootstrap,
        "gof_threshold": cfg.audit.gof_threshold,
        "stats": stats_note(st),
        "sizes": list(s.sizes),
        "gini_margin": st.margins.gini,
        "all": rw.ALL,
        "tail_shape": tail_shape_note(cfg),
    }
    each = fields | {"produced": produced_by(cfg, None)}  # Table 8's rows are the designs
    out = {}
    for stem in outputs.RANDOM_WALK_TABLES:
        spec, given = rw.SPECS[stem], each if stem == outputs.TABLE8_RETRIEVAL_DESIGNS else fields
        out[stem] = (spec.title_text(**given), spec.note_text(**given))
    return out


def table7_parts(sizes: pd.DataFrame) -> dict:
    """Table 7 as `write_table` takes it: the CSV keeps the wide frame (every size's mean, sd and paper value, and
    the fits, one row per family); the Markdown shows a row per family and size, then the scaling fits."""
    fits = rw.SPECS[rw.FITS]
    return {
        "df": rw.table7(sizes),
        "shown": rw.table7_main(sizes),
        "continued": [(rw.table7_fits(sizes), fits.title_text(), fits.note_text(explain=EXPLAIN))],
    }


def same_steps_concentration(contrast, results: str, top_fraction: float) -> pd.DataFrame | None:
    """`rw.concentration_frame` of the tail-contrast runs: each world's policy trace beside the random walk's
    trace on it cut to the policy trace's steps. None when the contrast policy is the random walk itself."""
    walks = {(r.family, r.n, r.seed): r for r in contrast if r.policy == rw.RANDOM_WALK}
    policy_counts, walk_counts = {}, {}
    for r in contrast:
        if r.policy == rw.RANDOM_WALK:
            continue
        trace = Trace.load(r.trace_file(results))
        key = (r.family, r.n, r.seed, trace.total_steps)
        policy_counts[key] = trace.counts
        walk = Trace.load(walks[key[:3]].trace_file(results))
        if walk.total_steps < trace.total_steps:
            raise ArtifactError(
                f"{walks[key[:3]].trace_file(results)}: {walk.total_steps} random-walk steps, fewer than the "
                f"{trace.total_steps} of {r.trace_file(results)} it is set beside (rollout.model_episodes is meant "
                "to shorten the model's traces, not lengthen them)"
            )
        walk_counts[key] = walk.counts_over(trace.total_steps)
    return rw.concentration_frame(policy_counts, walk_counts, top_fraction) if policy_counts else None


@typed_stage("tables")
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    results = cfg.results_dir
    out = out_dir(cfg, TABLES.format(results=results))
    composed = cfg.composed
    sizes = load_audits(size_runs(composed), results)
    designs = load_audits(retrieval_runs(composed), results)
    contrast = tail_contrast_runs(composed)
    tails = load_audits(contrast, results)
    largest = sizes[sizes.n == sizes.n.max()]
    frames = {
        outputs.TABLE2_SIGMA_TOP10: rw.table2(sizes),
        outputs.TABLE8_RETRIEVAL_DESIGNS: rw.table8(designs),
        outputs.TABLE3_RANDOM_WALK: table3(largest),
        outputs.CLAIMS_RANDOM_WALK: rw.claims(
            sizes,
            designs,
            st,
            tails,
            tail_policy(composed),
            {k: v for r in design_rows.rows(cfg, st.min_units, st.alpha) for k, v in planned_power(r).items()},
            same_steps_concentration(contrast, results, cfg.audit.top_fraction),
            {m: cfg.power.stated_effects[c.stated].level for m, c in CONCENTRATION.items()},
        ),
    }
    footer = table_footer(cfg)
    parts = {stem: {"df": df} for stem, df in frames.items()} | {outputs.TABLE7_CONCENTRATION: table7_parts(sizes)}
    for stem, (title, note) in notes(cfg, st).items():
        p = parts[stem]
        write_table(out, stem, p["df"], title, note, footer, shown=p.get("shown"), continued=p.get("continued", ()))
        log.info("wrote %s", out / f"{stem}.md")
    save_provenance(out, cfg, prefix="random_walk.", agent="random_walk")
