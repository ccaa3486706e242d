"""Stages of the filesystem-memory study: one table per research question, read from the build and
answer artifacts that `tailmem.fsmem.run_list` enumerates.

fsmem_shape      RQ1  store shape per builder and variant
fsmem_hierarchy       paper 2 Table 14: shape and taxonomy-contract metrics B1-B4
fsmem_retrieval  RQ2  correctness and search cost per variant per benchmark
fsmem_strength   RQ3  builder x searcher models
fsmem_harness    RQ5  every harness (tailmem.fsmem.harnesses), each building and searching: shape, effort, correctness
fsmem_costs           tokens (uncached, cached, output) per role, dollars, intrinsic-efficiency share
Tables go to {results}/tables/fsmem_<name>.{csv,md}.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.errors import DataError
from tailmem.fsmem import harnesses, run_list
from tailmem.fsmem.agents.accounting import RUN_SETTINGS_NOTE, run_setting_counts
from tailmem.fsmem.agents.searcher import INVALID_CITATIONS_NOTE, invalid_citation_count
from tailmem.fsmem.benchmarks import category_names, conversation, conversation_file
from tailmem.fsmem.chunks import chunk_conversation
from tailmem.fsmem.hierarchy import measure
from tailmem.fsmem.store import Store
from tailmem.metrics.answer_length import COLUMN as ANSWER_TOKENS
from tailmem.metrics.answer_length import NOTE as ANSWER_TOKENS_NOTE
from tailmem.metrics.answer_length import mean_answer_tokens
from tailmem.paths import out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild
from tailmem.report import paper2_values as paper
from tailmem.report.table_io import write_table
from tailmem.roles import BUILDER, JUDGE, PROGRAMMATIC, SEARCHER, configured_model
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem")
OFFLINE_NOTE = (
    "Offline (llm=offline) every role is a programmatic agent: tokens and dollars are 0 and `chars read/q` "
    "(characters of tool output returned to the agent) is the cost proxy; the judge does not run."
)
ROLES = (BUILDER, SEARCHER, JUDGE)


def agents_note(cfg) -> str:
    """Who played each role in the composed config `cfg`: the offline note when nobody is a model, else the model
    per role."""
    names = {r: configured_model(cfg, r) or PROGRAMMATIC for r in ROLES}
    if set(names.values()) == {PROGRAMMATIC}:
        return OFFLINE_NOTE
    return (
        "Roles: " + ", ".join(f"{r} {m}" for r, m in names.items()) + " (RQ3 rows name their own builder and "
        "searcher); dollars from llm.prices; cents/q = search dollars per question x 100; `chars read/q` = "
        "characters of tool output returned to the searcher."
        + (" No judge model: judge columns are empty." if names[JUDGE] == PROGRAMMATIC else "")
    )


def _out(cfg) -> Path:
    return out_dir(cfg, tables_dir(cfg))


def _load(run: run_list.Run) -> tuple[FsmemBuild, list[dict]]:
    for f in (run.build_file, run.answers_file):
        if not f.exists():
            raise DataError(f"{f}: missing; run its Snakemake rule first (studies/fsmem/rules.smk)")
    built = FsmemBuild.read(run.build_file)
    made_with = built.build_harness
    if made_with != run.build_harness:
        raise DataError(
            f"{run.build_file}: built through {made_with!r}, but this study expects build harness "
            f"{run.build_harness!r}; rebuild it (its Snakemake rule, or fsmem.build_harness=...)"
        )
    return built, FsmemAnswers.read(run.answers_file).rows


def _data_files(cfg, runs) -> list[Path]:
    """The benchmark files a table read conversations from (for the sha256s in its provenance)."""
    return list(dict.fromkeys(conversation_file(cfg.fsmem, r.benchmark, r.conversation) for r in runs))


def _chunks(cfg, bench: str, conv: str) -> int:
    fs = cfg.fsmem
    return len(chunk_conversation(conversation(fs, bench, conv), fs.chunk.max_turns, fs.chunk.max_chars))


def _input_bytes(cfg, bench: str, conv: str) -> int:
    c = conversation(cfg.fsmem, bench, conv)
    return sum(len(t.render().encode()) + 1 for s in c.sessions for t in s.turns)


def _correctness(df: pd.DataFrame, bench: str) -> dict:
    out = {"n": len(df), "F1": df["f1"].mean() if len(df) else np.nan}
    for cat in category_names(bench):
        sel = df[df["category"] == cat]
        out[f"F1 cat{cat}"] = sel["f1"].mean() if len(sel) else np.nan
    judged = df["judge_correct"].dropna() if "judge_correct" in df else pd.Series(dtype=float)
    out["judge correct"] = judged.mean() if len(judged) else np.nan
    out[ANSWER_TOKENS] = mean_answer_tokens(df["answer"]) if "answer" in df else np.nan  # lenient judges reward length
    return out


def _search_cost(df: pd.DataFrame) -> dict:
    if not len(df):
        return {}
    return {
        "tool calls/q": df["search_tool_calls"].mean(),
        "rounds/q": df["search_rounds"].mean(),
        "chars read/q": df["search_chars_read"].mean(),
        "tokens/q": (df["search_prompt_tokens"] + df["search_completion_tokens"]).mean(),
        "cents/q": 100 * df["search_dollars"].mean(),
        **run_setting_counts(df.to_dict("records")),
        "invalid citations": invalid_citation_count(df.to_dict("records")),
    }


def with_paper(df: pd.DataFrame, keys: list[str], values_of, columns: list[str]) -> pd.DataFrame:
    """`df` with a `<column>_paper` column for each of `columns`: paper 2's value for the row, `values_of(*keys of
    the row)` (tailmem.report.paper2_values), NaN where the summary gives none; placed after `<column>` if the
    table has it, else at the end."""
    out = df.copy()
    for col in columns:
        values = [values_of(*k).get(col, np.nan) for k in out[keys].itertuples(index=False)]
        counts = all(isinstance(v, int) for v in values if not (isinstance(v, float) and np.isnan(v)))
        at = out.columns.get_loc(col) + 1 if col in out.columns else len(out.columns)
        out.insert(at, f"{col}_paper", pd.Series(values, index=out.index, dtype="Int64" if counts else float))
    return out


def _finish(cfg, stem: str, df: pd.DataFrame, title: str, note: str, data_files=()) -> None:
    """Write the table (provenance footer under it) and its provenance; `data_files` = benchmark files read."""
    out = _out(cfg)
    if "no tool call" in df.columns:
        note = f"{note.strip()} {RUN_SETTINGS_NOTE}"
    if "invalid citations" in df.columns:
        note = f"{note.strip()} {INVALID_CITATIONS_NOTE}"
    if ANSWER_TOKENS in df.columns:
        note = f"{note.strip()} {ANSWER_TOKENS_NOTE}"
    write_table(
        out,
        stem,
        df.round(4),
        title,
        f"{note.strip()} {agents_note(cfg.composed)}",
        table_footer(cfg, data_files=data_files),
    )
    save_provenance(out / f"{stem}.provenance", cfg, data_files=data_files, agent=stem)
    log.info("%s: wrote %s", stem, out / f"{stem}.md")


@typed_stage("fsmem_shape")
def shape(cfg) -> None:
    """RQ1: store shape per builder and variant, averaged over each benchmark's conversations."""
    recs = []
    for run in run_list.main_runs(cfg.composed):
        if run.variant == "closed_book":
            continue
        built, _ = _load(run)
        h = measure(Store(run.build_dir / "store"))
        recs.append(
            {
                "benchmark": run.benchmark,
                BUILDER: built.agent,
                "variant": run.variant,
                "files": h.files,
                "folders": h.folders,
                "sections": h.sections,
                "bytes": h.bytes,
                "bytes/input": h.bytes / max(1, _input_bytes(cfg, run.benchmark, run.conversation)),
                "max depth": h.max_leaf_depth,
                "mean fanout": h.mean_fanout,
                "cross-refs": h.references,
                "locators": h.locators,
                "build tool calls": built.tool_calls,
            }
        )
    df = pd.DataFrame(recs).groupby(["benchmark", BUILDER, "variant"], sort=False).mean(numeric_only=True).reset_index()
    df = with_paper(df, ["benchmark", "variant"], paper.shape_row, ["files", "sections", "cross-refs"])
    n = Counter(r.benchmark for r in run_list.main_runs(cfg.composed) if r.variant == cfg.fsmem.study.variants[0])
    _finish(
        cfg,
        outputs.FSMEM_STUDY_TABLES["fsmem_shape"],
        df,
        "RQ1: store shape per builder and variant",
        f"Mean over conversations ({dict(n)}). bytes/input = store bytes over the rendered transcript's bytes; "
        "cross-refs = mentions of another file's path; locators = source locators like [D3:1]. `*_paper` = "
        "paper 2's example LoCoMo conv-50 store (appendix B: a management agent's, 3 files), agent_curated only. ",
        _data_files(cfg, (r for r in run_list.main_runs(cfg.composed) if r.variant != "closed_book")),
    )


@typed_stage("fsmem_hierarchy")
def hierarchy(cfg) -> None:
    """Paper 2 Table 14: the hierarchy panel per store, averaged over conversations."""
    recs = []
    for run in run_list.main_runs(cfg.composed) + run_list.harness_runs(cfg.composed):
        if run.variant == "closed_book" or run.harness != harnesses.MAIN_HARNESS:
            continue
        built, _ = _load(run)
        h = measure(Store(run.build_dir / "store")).to_dict()
        recs.append({"benchmark": run.benchmark, BUILDER: built.agent, "variant": run.variant, **h})
    df = pd.DataFrame(recs).drop_duplicates()
    df = df.groupby(["benchmark", BUILDER, "variant"], sort=False).mean(numeric_only=True).reset_index()
    df = with_paper(df, ["benchmark", "variant"], paper.hierarchy_row, ["files", "references"])
    keep = [
        "benchmark",
        BUILDER,
        "variant",
        "files",
        "files_paper",
        "mean_leaf_depth",
        "max_leaf_depth",
        "mean_fanout",
        "max_fanout",
        "gini_bytes",
        "top_file_share",
        "references",
        "references_paper",
        "b1_label_distinguishability",
        "b2_sibling_cohesion",
        "b3_scope_leakage",
        "b4_tree_content_spearman",
    ]
    _finish(
        cfg,
        outputs.FSMEM_STUDY_TABLES["fsmem_hierarchy"],
        df[keep],
        "Hierarchy metrics (paper 2 Table 14 panel)",
        "Mean over conversations. B1 = share of children whose content is closest (TF-IDF cosine) to their own label "
        "among their siblings' labels (higher = distinguishable labels); B2 = mean pairwise content cosine of files "
        "sharing a folder (higher = cohesive); B3 = share of files closer to another folder's centroid than their "
        "own (lower = less leakage); B4 = Spearman of tree distance vs content distance over file pairs "
        "(NaN for flat stores). Definitions: tailmem/fsmem/hierarchy.py. `*_paper` = paper 2's example LoCoMo "
        "store (appendix B; its B1-B4 values are not in the summary).",
    )


@typed_stage("fsmem_retrieval")
def retrieval(cfg) -> None:
    """RQ2: correctness and search cost per variant per benchmark (question-weighted over conversations)."""
    recs = []
    runs = run_list.main_runs(cfg.composed)
    for bench in dict.fromkeys(r.benchmark for r in runs):
        for variant in dict.fromkeys(r.variant for r in runs):
            rows, files = [], []
            for run in (r for r in runs if r.benchmark == bench and r.variant == variant):
                built, rs = _load(run)
                rows += rs
                files.append(built.store["files"])
            df = pd.DataFrame(rows)
            recs.append(
                {
                    "benchmark": bench,
                    "variant": variant,
                    SEARCHER: df[SEARCHER].iloc[0] if len(df) else "",
                    **_correctness(df, bench),
                    **_search_cost(df),
                    "store files": float(np.mean(files)),
                }
            )
    df = with_paper(pd.DataFrame(recs), ["benchmark", "variant"], paper.retrieval_row, ["n"])
    _finish(
        cfg,
        outputs.FSMEM_STUDY_TABLES["fsmem_retrieval"],
        df,
        "RQ2: store shape vs retrieval, per variant per benchmark",
        "Harness center; F1 = the benchmark's token F1 (LoCoMo's definition, REALTALK reuses it; categories as "
        "columns, REALTALK has 1-3); question-weighted over conversations. n_paper = the questions paper 2 "
        "scores (one conversation each: LoCoMo conv-50, one REALTALK chat); the summary gives no per-variant "
        "LoCoMo or REALTALK correctness (paired comparisons: claims_fsmem). ",
    )


@typed_stage("fsmem_strength")
def strength(cfg) -> None:
    """RQ3: the builder x searcher grid."""
    recs = []
    for run in run_list.strength_runs(cfg.composed):
        built, rows = _load(run)
        df = pd.DataFrame(rows)
        recs.append(
            {
                BUILDER: run.builder,
                SEARCHER: run.searcher,
                **_correctness(df, run.benchmark),
                **_search_cost(df),
                "build tokens": built.tokens,
                "build dollars": built.dollars,
                "store files": built.store["files"],
                "store sections": built.store["sections"],
            }
        )
    s = cfg.fsmem.study.strength
    grid = f"{len(run_list._role_models(cfg.composed, BUILDER, s.builders))} x {len(run_list._role_models(cfg.composed, SEARCHER, s.searchers))}"
    degenerate = (
        " Offline the grid degenerates to programmatic x programmatic (1 x 1): the configured models "
        f"{list(s.builders)} x {list(s.searchers)} run with llm=openai (any OpenAI-compatible endpoint)."
        if grid == "1 x 1"
        else ""
    )
    df = with_paper(
        pd.DataFrame(recs),
        [BUILDER, SEARCHER],
        paper.strength_row,
        ["store files", "builder judge correct", "searcher judge correct"],
    )
    _finish(
        cfg,
        outputs.FSMEM_STUDY_TABLES["fsmem_strength"],
        df,
        "RQ3: strength grid (builder x searcher models)",
        f"{grid} grid on {s.benchmark} {run.conversation}, variant {s.variant}, harness {s.harness}.{degenerate} "
        "`*_paper` = paper 2's one-factor ladders, not cells of its grid: store files per builder (§4.1), "
        "correctness per builder and per searcher (§4.3, the searcher's 'about'); the summary does not name "
        "their benchmark; empty for programmatic agents. ",
    )


@typed_stage("fsmem_harness")
def harness(cfg) -> None:
    """RQ5: each store built AND searched through every harness of the study (paper 2 Tables 9 and 10, D.3)."""
    per_run, tools, rows_of = [], {}, {}
    for run in run_list.harness_runs(cfg.composed):
        built, rows = _load(run)
        key = (run.benchmark, run.variant, run.harness)
        st, eps, chunks = built.store, built.episodes, _chunks(cfg, run.benchmark, run.conversation)
        per_run.append(
            {
                "benchmark": run.benchmark,
                "variant": run.variant,
                "harness": run.harness,
                BUILDER: built.agent,
                "store files": st["files"],
                "folders": st["folders"],
                "sections": st["sections"],
                "bytes": st["bytes"],
                "max depth": st["depth"],
                "build rounds/chunk": sum(e["rounds"] for e in eps) / chunks,
                "build tool calls/chunk": sum(e["tool_calls"] for e in eps) / chunks,
                "build tool errors": sum(e["tool_errors"] for e in eps),
                "build dollars": built.dollars,
                **{f"build {k}": v for k, v in run_setting_counts([], eps).items()},
            }
        )
        rows_of.setdefault(key, []).extend(rows)
        tools.setdefault(key, Counter()).update(c[0] for r in rows for c in r.get("search_trace", []))
    keys = ["benchmark", "variant", "harness", BUILDER]
    df = pd.DataFrame(per_run).groupby(keys, sort=False).mean(numeric_only=True).reset_index()
    recs = []
    for _, rec in df.iterrows():
        key = (rec["benchmark"], rec["variant"], rec["harness"])
        rows, mix = pd.DataFrame(rows_of[key]), tools[key]
        total = max(1, sum(mix.values()))
        recs.append(
            {
                **rec.to_dict(),
                **_correctness(rows, key[0]),
                **_search_cost(rows),
                "search tool mix": ", ".join(f"{k} {v / total:.0%}" for k, v in mix.most_common(4)),
            }
        )
    df = with_paper(
        pd.DataFrame(recs),
        ["benchmark", "variant", "harness"],
        paper.harness_row,
        ["store files", "build rounds/chunk", "build tool calls/chunk", "judge correct low", "judge correct high"],
    )
    n = Counter((r.benchmark, r.variant, r.harness) for r in run_list.harness_runs(cfg.composed))
    files = _data_files(cfg, run_list.harness_runs(cfg.composed))
    names = harnesses.study_harnesses(cfg.fsmem.study.harnesses)
    _finish(
        cfg,
        outputs.FSMEM_STUDY_TABLES["fsmem_harness"],
        df,
        f"RQ5: harness study ({' vs '.join(harnesses.spec(n).label for n in names)})",
        "The harness is one factor for both roles (paper 2 C.4): each store is built and searched through it "
        f"({harnesses.describe(names)}). Store shape as Table 10, correctness "
        "and search cost as Table 9, build effort per input chunk (chunks of the conversation) as D.3; the center "
        f"row reuses the main store. Mean over {max(n.values(), default=0)} conversation(s) per row, correctness "
        "question-weighted. The verbatim variant is a fixed dump, so only curated builds can depend on the build "
        "harness; the programmatic builder's plan does not depend on tools either (the same files through "
        "append_section or bash heredocs, byte-identical), so offline the shape columns tie and only build "
        "effort and search cost differ. `*_paper` (agent_curated rows) = paper 2's LoCoMo curated builds: "
        "store files and build effort per chunk of Center+BM25 and Shell (D.3), and Table 9's correctness "
        "range across tool sets (judge correct low/high, any harness). ",
        files,
    )


# The store-shape metrics compared across replicates (columns of `hierarchy.Hierarchy`), and the answer metric.
REPLICATE_METRICS = (
    "files",
    "folders",
    "sections",
    "bytes",
    "max_leaf_depth",
    "mean_fanout",
    "references",
    "gini_bytes",
    "b1_label_distinguishability",
)


@typed_stage("fsmem_replicates")
def replicates(cfg) -> None:
    """Replicate builds: how much the store (and the answers over it) varies between builds that differ only in the
    builder's sampling seed. One row per conversation and metric: mean, sample SD, min, max over replicates,
    and the values themselves."""
    recs = []
    for run in run_list.replicate_runs(cfg.composed):
        built, rows = _load(run)
        if int(built.replicate) != run.replicate:
            raise DataError(
                f"{run.build_file}: built as replicate {built.replicate}, expected "
                f"{run.replicate}; rebuild it (rule fsmem_replicate_store)"
            )
        h = measure(Store(run.build_dir / "store")).to_dict()
        recs.append(
            {
                "benchmark": run.benchmark,
                "conversation": run.conversation,
                "variant": run.variant,
                BUILDER: built.agent,
                "replicate": run.replicate,
                **{m: float(h[m]) for m in REPLICATE_METRICS},
                "build tool calls": float(built.tool_calls),
                "F1": float(np.mean([r["f1"] for r in rows])) if rows else np.nan,
            }
        )
    per = pd.DataFrame(recs)
    keys = ["benchmark", "conversation", "variant", BUILDER]
    out = []
    for k, g in per.groupby(keys, sort=False):
        for metric in [*REPLICATE_METRICS, "build tool calls", "F1"]:
            v = g[metric].to_numpy(dtype=float)
            out.append(
                {
                    **dict(zip(keys, k)),
                    "metric": metric,
                    "replicates": len(v),
                    "mean": v.mean(),
                    "sd": v.std(ddof=1) if len(v) > 1 else np.nan,
                    "min": v.min(),
                    "max": v.max(),
                    "values": ", ".join(f"{x:g}" for x in v),
                }
            )
    df = pd.DataFrame(out)
    programmatic = per[BUILDER].str.startswith(PROGRAMMATIC).all()
    _finish(
        cfg,
        outputs.FSMEM_STUDY_TABLES["fsmem_replicates"],
        df,
        "Store shape across replicate builds",
        "Each replicate rebuilds the store with the builder's sampling seed set to the replicate number (replicate "
        "0 is the main store; a model builder's requests then carry `seed`, so each replicate is its own sample) "
        "and answers the same questions through the search harness. sd = sample SD over replicates; metric "
        "definitions: tailmem/fsmem/hierarchy.py. "
        + (
            "The programmatic builder is deterministic, so its replicates are identical (sd 0) by construction; "
            "the spread measures model builders. "
            if programmatic
            else ""
        ),
        _data_files(cfg, run_list.replicate_runs(cfg.composed)),
    )


def transcripts_of(role: str, episodes: list[dict]) -> list[list]:
    """The transcripts paper 2's bounds are taken over: an agent's episode is one growing transcript; the judge's
    prompts (correctness, citation) are independent calls, so each is a transcript of its own."""
    from tailmem.llm.records import Usage

    calls = [[Usage(*c) for c in e.get("calls", [])] for e in episodes]
    return [[u] for t in calls for u in t] if role == JUDGE else calls


@typed_stage("fsmem_costs")
def costs(cfg) -> None:
    """Tokens per role (uncached input, cached input, output), dollars and paper 2's intrinsic-efficiency share."""
    from tailmem.llm.cost import bounds
    from tailmem.llm.group import prices_of
    from tailmem.settings.llm import Price

    prices = prices_of(cfg.composed)

    def price(agent: str) -> Price | None:
        p = prices.get(agent) or prices.get("default")
        return (
            None
            if p is None or agent.startswith(PROGRAMMATIC)
            else Price(float(p["input"]), float(p["cached_input"]), float(p["output"]))
        )

    groups: dict[tuple, list] = {}
    seen_builds = set()
    strength_files = {r.answers_file for r in run_list.strength_runs(cfg.composed)}
    replicate_files = {r.answers_file for r in run_list.replicate_runs(cfg.composed) if r.replicate > 0}
    for run in run_list.all_runs(cfg.composed):
        built, rows = _load(run)
        kind = (
            "strength"
            if run.answers_file in strength_files
            else "replicate"
            if run.answers_file in replicate_files
            else "main"
        )
        key = (kind, run.benchmark, run.variant, run.harness)
        if run.build_file not in seen_builds:
            seen_builds.add(run.build_file)
            for e in built.episodes:
                groups.setdefault((*key[:3], run.build_harness, BUILDER, e["agent"]), []).append(e)
        for r in rows:
            ep = {k[len("search_") :]: v for k, v in r.items() if k.startswith("search_")}
            groups.setdefault((*key, SEARCHER, r[SEARCHER]), []).append(ep)
            if r.get("judge_episode"):
                groups.setdefault((*key, JUDGE, r[JUDGE]), []).append(r["judge_episode"])
    recs = []
    for (runs, bench, variant, harness_name, role, agent), eps in groups.items():
        uncached = sum(e["prompt_tokens"] - e["cached_tokens"] for e in eps)
        p = price(agent)
        transcripts = transcripts_of(role, eps)
        b = bounds(transcripts, p) if p is not None else None
        recs.append(
            {
                "study": runs,
                "benchmark": bench,
                "variant": variant,
                "harness": harness_name,
                "role": role,
                "agent": agent,
                "episodes": len(eps),
                "model calls": sum(len(t) for t in transcripts),
                "uncached input": uncached,
                "cached input": sum(e["cached_tokens"] for e in eps),
                "output": sum(e["completion_tokens"] for e in eps),
                "chars read": sum(e["chars_read"] for e in eps),
                "dollars": b.measured if b else 0.0,
                "no-cache $": b.no_cache if b else 0.0,
                "perfect $": b.perfect if b else 0.0,
                "efficiency share": b.share if b else np.nan,
            }
        )
    _finish(
        cfg,
        outputs.FSMEM_STUDY_TABLES["fsmem_costs"],
        pd.DataFrame(recs),
        "Cost per role: tokens, dollars and intrinsic efficiency",
        "Per study (main = RQ1/2/5 runs, strength = RQ3 grid, replicate = replicate builds 1..), benchmark, variant, harness (the build harness on "
        "builder rows, the search harness otherwise) and role, summed over runs (each build counted once). "
        "Dollars from llm.prices; no-cache $ bills every prompt token uncached, perfect $ pre-fills every transcript "
        "token once (paper 2 C.5; per agent episode, each judge call on its own); efficiency share = (no-cache - measured) / "
        "(no-cache - perfect), NaN where caching could save nothing, above 1 where the provider cached more than a "
        "transcript's own prefix (e.g. a system prompt shared across episodes). ",
    )
