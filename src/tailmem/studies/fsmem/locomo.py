"""LoCoMo (and REALTALK, same shape) end to end for filesystem memory: build a variant's store, answer the
questions, tabulate.

Artifacts (paths in `tailmem.paths`): {results}/fsmem/<benchmark>/<conv>/<variant>/{store/, snapshots/,
build.json}, .../answers/<harness>/answers.json, and {results}/tables/<benchmark>_<conv>.{csv,md}.
`build.json` and `answers.json` are written last and atomically,
so a killed run leaves nothing that looks complete.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pandas as pd

from tailmem import outputs
from tailmem.artifacts import write_json
from tailmem.errors import DataError
from tailmem.exports import locomo as locomo_export
from tailmem.fsmem import tool_outputs
from tailmem.fsmem.agents import searcher
from tailmem.fsmem.agents.accounting import dollars, run_setting_counts, search_costs
from tailmem.fsmem.agents.models import client_for, label
from tailmem.fsmem.benchmarks import (
    BENCHMARKS,
    MAIN_BENCHMARK,
    category_names,
    conversation,
    conversation_file,
    entry,
    full_conversation,
    opt_in_names,
    setting,
)
from tailmem.fsmem.harness_pool import HarnessPool
from tailmem.fsmem.harnesses import CENTER, sandbox_provenance
from tailmem.fsmem.questions import select_questions
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store
from tailmem.fsmem.variants import build as build_variant
from tailmem.fsmem.variants import build_harness_name, check_variant, search_harness
from tailmem.llm.group import prices_of
from tailmem.llm.parallel import run_units, units_workers
from tailmem.metrics import gold_overlay, locomo_evidence
from tailmem.metrics.answer_length import COLUMN as ANSWER_TOKENS
from tailmem.metrics.answer_length import NOTE as ANSWER_TOKENS_NOTE
from tailmem.metrics.answer_length import mean_answer_tokens
from tailmem.metrics.locomo_f1 import locomo_f1
from tailmem.paths import ANSWERS_FILE, BUILD_FILE, answers_dir, out_dir, role_label, tables_dir
from tailmem.paths import variant_dir as _variant_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild
from tailmem.report.table_io import write_table
from tailmem.roles import BUILDER, JUDGE, PROGRAMMATIC, SEARCHER
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem")


def variant_dir(cfg, variant: str | None = None, conv: str | None = None) -> Path:
    """The store folder of a variant of the composed config `cfg` (a stage passes its settings' `composed`): the
    folder the DAG names, its builder segment read as the DAG reads it."""
    fs = cfg.fsmem
    return _variant_dir(
        cfg.results_dir, fs.benchmark, conv or fs.conversation, variant or fs.variant, role_label(cfg, BUILDER)
    )


def _conversation(cfg):
    return conversation(cfg.fsmem, cfg.fsmem.benchmark, cfg.fsmem.conversation)


def gold_overlay_of(cfg, conv_id: str | None = None) -> gold_overlay.Overlay | None:
    """The gold overlay `fsmem.gold_overlay` names (null: the standard data), checked against the benchmark file;
    None for a conversation it does not correct (that one is scored on the standard data)."""
    fs = cfg.fsmem
    spec = fs.gold_overlay
    if spec is None:
        return None
    overlay, conv_id = gold_overlay.load(spec), conv_id or fs.conversation
    known = list(BENCHMARKS)
    if overlay.benchmark == fs.benchmark:  # the run's data is at hand: the conversation must be one of its
        data = setting(fs, fs.benchmark, "data")
        gold_overlay.check_target(overlay, known, entry(fs.benchmark).ids(data), data)
    elif overlay.benchmark not in known:
        gold_overlay.check_target(overlay, known, [])
    if (overlay.benchmark, overlay.conversation) != (fs.benchmark, conv_id):
        log.info(
            "gold overlay %s corrects %s %s, not %s %s: standard data",
            overlay.label,
            overlay.benchmark,
            overlay.conversation,
            fs.benchmark,
            conv_id,
        )
        return None
    gold_overlay.check(
        overlay,
        fs.benchmark,
        conv_id,
        full_conversation(fs, fs.benchmark, conv_id).qa,
        conversation_file(fs, fs.benchmark, conv_id),
    )
    return overlay


def overlay_record(overlay: gold_overlay.Overlay | None) -> dict | None:
    return None if overlay is None else overlay.provenance()


@typed_stage("fsmem_build")
def build(cfg) -> None:
    """Stage fsmem_build: one variant's store for one conversation, through `fsmem.build_harness`."""
    fs = cfg.fsmem
    check_variant(fs.variant)
    harness = build_harness_name(fs)
    out = out_dir(cfg, variant_dir(cfg.composed))
    conv = _conversation(cfg)
    replicate = int(fs.replicate or 0)
    client = client_for(cfg, BUILDER, "fsmem_build")
    if client is not None:
        client = client.sampled(replicate)  # replicate > 0: every request carries the seed (a sample of its own)
    (out / BUILD_FILE).unlink(missing_ok=True)
    for sub in ("store", "snapshots", ".store.partial"):
        shutil.rmtree(out / sub, ignore_errors=True)
    partial = out / ".store.partial"
    store = Store(partial)
    episodes = build_variant(fs.variant, conv, store, SnapshotLog(out / "snapshots"), fs, client, build_harness=harness)
    partial.rename(out / "store")
    stats = Store(out / "store").stats()
    agent = label(client, BUILDER)
    prices = prices_of(cfg.composed)
    # The programmatic reorganizer always rewrites through the management tools (agents/reorganizer.py).
    reorganizer = (CENTER if client is None else harness) if fs.variant.startswith("reorganized") else None
    FsmemBuild(
        benchmark=fs.benchmark,
        conversation=conv.sample_id,
        variant=fs.variant,
        agent=agent,
        replicate=replicate,
        build_harness=harness,
        sandbox=sandbox_provenance(fs, harness),
        reorganizer_harness=reorganizer,
        store=stats,
        episodes=[e.to_json() for e in episodes],
        tool_calls=sum(e.tool_calls for e in episodes),
        tokens=sum(e.prompt_tokens + e.completion_tokens for e in episodes),
        dollars=sum(dollars(e, prices) for e in episodes),
    ).write(out / BUILD_FILE)
    save_provenance(
        out,
        cfg,
        data_files=[conversation_file(fs, fs.benchmark, fs.conversation)],
        agent=agent,
        model=None if client is None else agent,
    )
    log.info("fsmem_build %s/%s (build harness %s): %s", conv.sample_id, fs.variant, harness, stats)


@typed_stage("fsmem_answer")
def answer(cfg) -> None:
    """Stage fsmem_answer: the search agent answers the non-adversarial questions over a built store."""
    fs = cfg.fsmem
    check_variant(fs.variant)
    src = Path(cfg.input) if cfg.input else variant_dir(cfg.composed)
    built = FsmemBuild.read(src / BUILD_FILE)
    out = out_dir(cfg, answers_dir(src, fs.harness, role_label(cfg.composed, SEARCHER)))
    conv = _conversation(cfg)
    qs = select_questions(conv, fs, fs.benchmark)
    overlay = gold_overlay_of(cfg)  # corrected golds score the answers, dropped questions are not asked
    fixes = {} if overlay is None else overlay.by_question()
    numbers = (
        []
        if overlay is None
        else gold_overlay.positions(
            [{"question": q.question, "category": q.category} for q in qs],
            full_conversation(fs, fs.benchmark, conv.sample_id).qa,
        )
    )
    store = Store(src / "store")
    s_client = client_for(cfg, SEARCHER, "fsmem_answer")
    j_client = client_for(cfg, JUDGE, "fsmem_answer") if fs.judge else None
    prices = prices_of(cfg.composed)
    asked = []  # (position among the selected questions, question, its correction or None, gold)
    for i, q in enumerate(qs):
        fix = fixes.get(numbers[i]) if fixes else None
        if fix is None or not fix.dropped:
            asked.append((i, q, fix, q.answer if fix is None else fix.corrected_gold))
    harnesses = HarnessPool(lambda: search_harness(fs.variant, store, conv, fs))
    form, cap = harnesses.form, harnesses.cap

    def one(unit) -> dict:
        """One question: its search on a harness of its own (so its trace and counters are its own), then its
        judge calls, which need its answer; the questions are independent of each other."""
        i, q, fix, gold = unit
        with harnesses.taken() as harness:
            start = len(harness.trace)
            if s_client is None:
                a = searcher.answer_programmatic(q.question, harness)
            else:
                a = searcher.answer_model(s_client, q.question, harness, form, cap)
            trace = harness.trace[start:]
            name = harness.name
        row = {
            "benchmark": fs.benchmark,
            "conversation": conv.sample_id,
            "variant": fs.variant,
            "harness": name,
            "qid": i,
            "category": q.category,
            "question": q.question,
            "gold": gold,
            "answer": a.text,
            "citations": list(a.citations),
            "invalid_citations": sum(not c.valid for c in searcher.check_citations(store, a.citations)),
            "f1": locomo_f1(a.text, gold, q.category),
            **({"gold_original": q.answer} if fix else {}),
            SEARCHER: a.episode.agent,
            BUILDER: built.agent,
            **{f"search_{k}": v for k, v in a.episode.to_json().items() if k not in ("role", "agent")},
            "search_dollars": dollars(a.episode, prices),
            JUDGE: None,
            "judge_correct": None,
            "judge_citation": None,
            "search_trace": trace,
        }
        if j_client is not None:
            from tailmem.fsmem.agents.judge import judge

            v = judge(j_client, q.question, gold, a.text, a.citations, store)
            row.update(
                judge=label(j_client, JUDGE),
                judge_correct=v.correct,
                judge_citation=v.citation,
                judge_episode=v.episode,
                judge_unparsed=v.unparsed,
            )
        return row

    try:
        rows = run_units(one, asked, units_workers(len(asked), s_client, j_client), name="question")
    finally:
        harnesses.close()
    recorded = tool_outputs.write(out, harnesses.outputs())
    answers = FsmemAnswers(
        benchmark=fs.benchmark,
        conversation=conv.sample_id,
        variant=fs.variant,
        harness=fs.harness,
        sandbox=getattr(harnesses.first, "sandbox_info", None),
        tool_outputs=recorded,
        gold_overlay=overlay_record(overlay),
        rows=rows,
    )
    answers.write(out / ANSWERS_FILE)
    save_provenance(
        out,
        cfg,
        data_files=[conversation_file(fs, fs.benchmark, fs.conversation)],
        agent=label(s_client, SEARCHER),
        model=None if s_client is None else label(s_client, SEARCHER),
        gold_overlay=overlay_record(overlay),
    )
    log.info(
        "fsmem_answer %s/%s: %d questions, mean F1 %.3f",
        conv.sample_id,
        fs.variant,
        len(rows),
        sum(r["f1"] for r in rows) / max(1, len(rows)),
    )


def summarize(rows: list[dict], built: FsmemBuild, benchmark: str = MAIN_BENCHMARK) -> dict:
    df = pd.DataFrame(rows)
    out = {
        "variant": built.variant,
        SEARCHER: df[SEARCHER].iloc[0] if len(df) else "",
        BUILDER: built.agent,
        "n": len(df),
        "F1": df["f1"].mean() if len(df) else float("nan"),
    }
    asked = set(df["category"]) if len(df) else set()
    names = category_names(benchmark) | {k: v for k, v in opt_in_names(benchmark).items() if k in asked}
    for cat, name in names.items():  # LoCoMo's 5 only when fsmem.categories opts in (LoCoMo's rule, not an F1)
        sel = df[df["category"] == cat] if len(df) else df
        out[f"F1 {cat} {name}"] = sel["f1"].mean() if len(sel) else float("nan")
    if "evidence_coverage" in df:  # tailmem.metrics.locomo_evidence: gold dialogue ids among those read
        out["evidence coverage"] = df["evidence_coverage"].mean()
    if len(df) and df["judge_correct"].notna().any():
        out["judge correct"] = df["judge_correct"].mean()
        out["judge citation"] = df["judge_citation"].mean()
    out |= search_costs(df)
    out[ANSWER_TOKENS] = mean_answer_tokens(df["answer"]) if len(df) else float("nan")  # lenient judges reward length
    if len(df) and df[JUDGE].notna().any():  # replies the judge rule could not read (left out of its means)
        out["judge unparsed"] = int(df.get("judge_unparsed", pd.Series(0, index=df.index)).fillna(0).sum())
    # paper 2's run settings: answers without a tool call, compactions, cut outputs
    out |= run_setting_counts(df.to_dict("records"), built.episodes)
    out["invalid citations"] = searcher.invalid_citation_count(rows)  # a model may cite what is not in the store
    out["build tool calls"] = built.tool_calls
    out["build tokens"] = built.tokens
    out["build dollars"] = built.dollars
    for k in ("files", "sections", "bytes"):
        out[f"store {k}"] = built.store[k]
    return out


def _offline(agents: pd.Series) -> bool:
    """Every agent of the column is a programmatic one (no model was called)."""
    return len(agents) > 0 and all(str(a).startswith(PROGRAMMATIC) for a in agents)


def table_note(benchmark: str, df: pd.DataFrame) -> str:
    """What the per-conversation table shows, what made its numbers, and what they cannot be compared with."""
    searchers = sorted(set(df[SEARCHER])) if SEARCHER in df else []
    builders = sorted(set(df[BUILDER])) if BUILDER in df else []
    scorer = (
        "LoCoMo's token F1 as its official scorer computes it (tailmem.metrics.locomo_f1: normalised, "
        "Porter-stemmed tokens; category 1 (multi-hop) split on commas, category 3 gold cut at its first ';')"
    )
    if not entry(benchmark).own_scorer:
        scorer = f"the same token F1 as LoCoMo's official scorer (tailmem.metrics.locomo_f1), on {benchmark}'s answers"
    parts = [
        f"One row per store variant of this conversation: the builder ({', '.join(builders) or '-'}) wrote the store, "
        f"the searcher ({', '.join(searchers) or '-'}) answered the questions over it with its tools. "
        f"F1 = {scorer}, the mean over the `n` questions; `F1 <k> <name>` = the mean over category k's questions "
        "(`-`: no question of that category among those asked).",
    ]
    if "evidence coverage" in df:
        parts.append(
            "Evidence coverage = the share of a question's gold evidence dialogues among those the searcher "
            "read (tailmem.metrics.locomo_evidence), the model-free twin of F1."
        )
    parts.append(
        "Per question (`/q`), the searcher's tool calls, rounds, characters of tool output read, cents at the "
        "configured prices, and prompt plus completion tokens; "
        + ANSWER_TOKENS_NOTE
        + " No tool call, compactions and truncations count answers given without "
        "any tool call, transcripts compacted and tool outputs cut at the safety cap, over building and searching. "
        "Build tool calls, tokens and dollars are the whole build; store files, sections (headings) and bytes "
        "describe the store it left. " + searcher.INVALID_CITATIONS_NOTE
    )
    if "judge correct" in df:
        parts.append(
            "Judge correct / judge citation = the share of answers the judge model found correct / "
            "supported by the cited store text (judge unparsed = replies it could not read, left out)."
        )
    if _offline(df.get(BUILDER, pd.Series(dtype=object))):
        parts.append("The builder is a programmatic agent (no model), so build tokens and dollars are 0.")
    if _offline(df.get(SEARCHER, pd.Series(dtype=object))):
        parts.append(
            "Offline run: the searcher is a programmatic agent (a fixed rule, no model), so its tokens and "
            "cents are 0 by construction and its F1 measures what the store lets a fixed rule find. These "
            "numbers are not comparable with paper 2's accuracies, which a model searcher earned and a "
            "model judge scored."
        )
    else:
        parts.append(
            "Paper 2 reports judged accuracy, not token F1: compare F1 between the variants here, not with "
            "the paper's numbers."
        )
    return " ".join(parts)


@typed_stage("fsmem_table")
def table(cfg) -> None:
    """Stage fsmem_table: one row per variant, F1 per category, costs per query, store structure."""
    fs = cfg.fsmem
    conv = fs.conversation
    src = Path(cfg.input) if cfg.input else variant_dir(cfg.composed).parent
    out = out_dir(cfg, tables_dir(cfg))
    records, answers, conv_data = [], {}, _conversation(cfg)
    overlay = overlay_record(gold_overlay_of(cfg, conv))
    for variant in fs.variants:
        check_variant(variant)
        built = FsmemBuild.read(src / variant / BUILD_FILE)
        folder = answers_dir(src / variant, fs.harness, role_label(cfg.composed, SEARCHER))
        data = FsmemAnswers.read(folder / ANSWERS_FILE)
        if (data.gold_overlay or {}).get("sha256") != (overlay or {}).get("sha256"):
            raise DataError(
                f"{folder / ANSWERS_FILE}: scored under gold overlay {data.gold_overlay}, but "
                f"fsmem.gold_overlay gives {overlay}; answer again (rule fsmem_answers)"
            )
        rows, recorded = data.rows, tool_outputs.read(folder, data.tool_outputs)
        if recorded is not None:  # the outputs the calls returned when answered
            rows = locomo_evidence.annotate(rows, conv_data.qa, lambda n, a: recorded[tool_outputs.call_key(n, a)][1])
        else:  # an older set: replay each answer's read-only calls to see which dialogue ids it read
            harness = search_harness(variant, Store(src / variant / "store"), conv_data, fs)[0]
            try:
                rows = locomo_evidence.annotate(rows, conv_data.qa, lambda n, a: harness.call(n, a).output)
            finally:
                harness.close()
        answers[variant] = rows
        records.append(summarize(rows, built, fs.benchmark))
    df = pd.DataFrame(records)
    stem = outputs.conversation_table(fs.benchmark, conv)
    gold = (
        ""
        if overlay is None
        else (
            f" Golds: overlay {overlay['name']}-v{overlay['version']} (sha256 "
            f"{overlay['sha256'][:12]}; docs/gold_overlays.md), not the standard data."
        )
    )
    write_table(
        out,
        stem,
        df.round(4),
        f"{fs.benchmark} {conv}: filesystem-memory variants (harness {fs.harness})",
        table_note(fs.benchmark, df) + gold,
        table_footer(cfg),
    )
    write_json(out / f"{stem}.predictions.json", locomo_export.predictions(conv_data, answers))  # LoCoMo's layout
    save_provenance(
        out / f"{stem}.provenance",
        cfg,
        data_files=[conversation_file(fs, fs.benchmark, conv)],
        agent="fsmem_table",
        gold_overlay=overlay,
    )
    log.info("fsmem_table: wrote %s", out / f"{stem}.md")
