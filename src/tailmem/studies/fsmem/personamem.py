"""Stage fsmem_personamem: PersonaMem through every filesystem-memory variant, per tier (the 32k vs 128k scale study).

Each shared context becomes a conversation (`data.personamem.as_conversation`) and each variant's stores are
built so a question is answered over exactly its visible prefix (`fsmem.personamem`). The search agent reads a
store through the variant's harness (`variants.search_harness`: none, chunk retrieval or `fsmem.harness`) and
picks an option; the score is exact match on the letter. The programmatic searcher picks the option sharing the
most terms with its answer and the lines it cited; a model gets the options in the question and answers with a
letter. Where a tier's files are absent (the shared contexts are not distributed with this repository) the table
says so per variant and the tier is skipped; nothing is guessed.

Artifacts: <results>/fsmem/personamem/<tier>/<variant>/contexts/<context>/{snapshots/, build.json} and
.../<variant>/answers/<harness>/answers.json, each written atomically and reused while its key matches, so a
killed run keeps every finished (tier, variant).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
import shlex
import tempfile
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pandas as pd

from tailmem import outputs
from tailmem.data.personamem import (
    as_conversation,
    context_for,
    contexts_path,
    load_contexts,
    load_questions,
    missing,
    prefix,
    questions_path,
)
from tailmem.errors import ConfigError
from tailmem.fsmem.agents import searcher
from tailmem.fsmem.agents.accounting import RUN_SETTINGS_NOTE, Meter, dollars, run_setting_counts, search_costs
from tailmem.fsmem.agents.models import client_for, label
from tailmem.fsmem.errors import FsmemError
from tailmem.fsmem.harness_pool import HarnessPool
from tailmem.fsmem.harnesses import sandbox_provenance
from tailmem.fsmem.personamem import build_context, open_store
from tailmem.fsmem.store import Store
from tailmem.fsmem.terms import terms
from tailmem.fsmem.variants import build_harness_name, check_variant, search_harness
from tailmem.llm.group import prices_of
from tailmem.llm.parallel import run_units, units_workers
from tailmem.metrics.answer_length import COLUMN as ANSWER_TOKENS
from tailmem.metrics.answer_length import NOTE as ANSWER_TOKENS_NOTE
from tailmem.metrics.answer_length import mean_answer_tokens
from tailmem.metrics.multiple_choice import exact_match, option_letter
from tailmem.paths import data_label, out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import PersonaMemAnswers
from tailmem.report.table_io import write_table
from tailmem.roles import BUILDER, SEARCHER
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem")
ANSWERS_FILE = "answers.json"
COLUMNS = [
    "tier",
    "variant",
    "status",
    "questions",
    "answered",
    "contexts",
    "stores",
    "accuracy",
    ANSWER_TOKENS,
    "tool calls/q",
    "rounds/q",
    "chars read/q",
    "tokens/q",
    "cents/q",
    "store files",
    "store sections",
    "store bytes",
    "build tool calls",
    "build tokens",
    "build dollars",
    "no tool call",
    "compactions",
    "truncations",
    "invalid citations",
    "harness",
    "build harness",
    SEARCHER,
    BUILDER,
]
SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def context_dir(vdir: Path, cid: str) -> Path:
    """A context's folder: its id if that is a safe file name, else a hash of it."""
    return vdir / "contexts" / (cid if SAFE.fullmatch(cid) else "ctx_" + hashlib.sha256(cid.encode()).hexdigest()[:16])


def _options_text(q) -> str:
    return "\n".join(f"({'abcdefgh'[i]}) {o}" for i, o in enumerate(q.options))


def _cited_text(harness, citation: str, conv) -> str:
    """The text of a cited line, read through the harness the searcher used (chunk retrieval returns turns
    verbatim, so a cited locator's turn is what it read)."""
    where, _, locator = citation.partition(" ")
    path, _, line = where.rpartition(":")
    if "view" in harness.tools and line.isdigit():
        return harness.call("view", {"path": path, "view_range": [int(line), int(line)]}).output
    if "bash" in harness.tools and line.isdigit():
        return harness.call("bash", {"command": f"sed -n '{int(line)}p' {shlex.quote(path)}"}).output
    dia = locator.strip("[] ")
    return " ".join(t.text for s in conv.sessions for t in s.turns if t.dia_id == dia)


def choose_programmatic(q, harness, conv) -> tuple[str, searcher.Answer]:
    """The option sharing the most terms with the searcher's answer and the lines it cited (ties: the first).
    Reading the cited lines counts as the searcher's tool calls and characters read."""
    meter = Meter(SEARCHER, searcher.AGENT, harness)
    a = searcher.answer_programmatic(q.question, harness)
    found = set(terms(a.text))
    for c in a.citations:
        found |= set(terms(_cited_text(harness, c, conv)))
    scores = [len(set(terms(o)) & found) for o in q.options]
    episode = replace(meter.close(), rounds=a.episode.rounds + (1 if a.citations else 0))
    return f"({'abcdefgh'[scores.index(max(scores))]})", replace(a, episode=episode)


def choose_model(client, q, harness, form: str, cap: int) -> tuple[str, searcher.Answer]:
    text = (
        f"{q.question}\n\nOptions:\n{_options_text(q)}\n\nAnswer with the letter of the best option, e.g. ANSWER: (b)."
    )
    a = searcher.answer_model(client, text, harness, form, cap)
    return a.text, a


def _select(pm, qs: list) -> list:
    """The questions of the first `contexts` contexts (in file order), then the first `max_questions`."""
    n_ctx, n_q = pm.contexts, pm.max_questions
    for key, value in (("contexts", n_ctx), ("max_questions", n_q)):
        if value is not None and int(value) < 1:
            raise ConfigError(f"fsmem.personamem.{key}: expected null or >= 1, got {value}")
    if n_ctx is not None:
        keep = list(dict.fromkeys(q.context_id for q in qs))[: int(n_ctx)]
        qs = [q for q in qs if q.context_id in set(keep)]
    return qs[: int(n_q)] if n_q is not None else qs


def _variants(cfg) -> list[str]:
    pm = cfg.fsmem.personamem
    variants = list(pm.variants or cfg.fsmem.variants)
    for v in variants:
        try:
            check_variant(v)
        except FsmemError as exc:
            raise ConfigError(f"fsmem.personamem.variants: {exc}") from exc
    return variants


def answer_variant(
    cfg, tier: str, variant: str, qs: list, convs: dict, clients: tuple, prices: dict
) -> tuple[list, list]:
    """Build (or reuse) every context's stores for `variant`, then answer (or reuse) the tier's questions.
    Returns (answer rows, build records)."""
    fs = cfg.fsmem
    b_client, s_client = clients
    vdir = Path(cfg.results_dir) / "fsmem" / "personamem" / tier / variant
    ends = defaultdict(set)
    for q in qs:
        ends[q.context_id].add(q.end_index)
    builds = {
        cid: build_context(variant, convs[cid], sorted(ends[cid]), context_dir(vdir, cid), fs, b_client, prices)
        for cid in ends
    }
    searcher_label = label(s_client, SEARCHER)
    key = hashlib.sha256(
        json.dumps(
            {
                "builds": [builds[c].key for c in sorted(builds)],
                "questions": [repr(q) for q in qs],
                SEARCHER: searcher_label,
                "harness": fs.harness,
                "retrieval_k": int(fs.retrieval_k),
                "rounds": [int(fs.rounds.search_curated), int(fs.rounds.search_other)],
            }
        ).encode()
    ).hexdigest()
    path = vdir / "answers" / str(fs.harness) / ANSWERS_FILE
    cached = PersonaMemAnswers.read_cache(path)
    if cached is not None and cached.key == key:
        log.info("fsmem_personamem %s/%s: reusing %s", tier, variant, path)
        return cached.rows, list(builds.values())
    pools: dict[tuple, tuple[HarnessPool, object, Store]] = {}  # (context, end) -> its harnesses, prefix, store

    def one(q) -> dict:
        """One question, on a harness of its store no other question holds (tailmem.fsmem.harness_pool)."""
        pool, conv, store = pools[(q.context_id, q.end_index)]
        with pool.taken() as harness:
            start = len(harness.trace)
            reply, a = (
                choose_programmatic(q, harness, conv)
                if s_client is None
                else choose_model(s_client, q, harness, pool.form, pool.cap)
            )
            trace, name = harness.trace[start:], harness.name
        return {
            "tier": tier,
            "variant": variant,
            "harness": name,
            "question_id": q.question_id,
            "context_id": q.context_id,
            "end_index": q.end_index,
            "question_type": q.question_type,
            "gold": q.answer,
            "reply": reply,
            "choice": option_letter(reply),
            "correct": exact_match(reply, q.answer),
            "citations": list(a.citations),
            "invalid_citations": sum(not c.valid for c in searcher.check_citations(store, a.citations)),
            SEARCHER: a.episode.agent,
            BUILDER: builds[q.context_id].agent,
            **{f"search_{k}": v for k, v in a.episode.to_json().items() if k not in ("role", "agent")},
            "search_dollars": dollars(a.episode, prices),
            "search_trace": trace,
        }

    with tempfile.TemporaryDirectory(prefix="personamem_answer_") as tmp:
        try:
            for q in qs:  # each store the questions ask about, opened in question order
                at = (q.context_id, q.end_index)
                if at not in pools:
                    store = open_store(context_dir(vdir, q.context_id), q.end_index, Path(tmp) / f"s{len(pools)}")
                    conv = prefix(convs[q.context_id], q.end_index)
                    opener = functools.partial(search_harness, variant, store, conv, fs)
                    pools[at] = (HarnessPool(opener, record_outputs=False), conv, store)
            rows = run_units(one, qs, units_workers(len(qs), s_client), name="question")
        finally:
            for pool, _, _ in pools.values():
                pool.close()
    PersonaMemAnswers(
        key=key,
        tier=tier,
        variant=variant,
        harness=str(fs.harness),
        sandbox=sandbox_provenance(fs, str(fs.harness)),
        rows=rows,
    ).write(path)
    return rows, list(builds.values())


def summarize(tier: str, variant: str, n_q: int, rows: list, builds: list, labels: dict) -> dict:
    df = pd.DataFrame(rows)
    stores = [s for b in builds for s in b.stores.values()]
    out = {
        "tier": tier,
        "variant": variant,
        "status": "ran",
        "questions": n_q,
        "answered": len(df),
        "contexts": len(builds),
        "stores": len(stores),
        "accuracy": df["correct"].mean() if len(df) else float("nan"),
        ANSWER_TOKENS: mean_answer_tokens(df["reply"]) if len(df) else float("nan"),
    }  # the reply, before its option
    for t, g in df.groupby("question_type") if len(df) else ():
        out[f"acc {t}"] = g["correct"].mean()
    out |= search_costs(df)
    for k in ("files", "sections", "bytes"):
        out[f"store {k}"] = sum(s[k] for s in stores) / len(stores) if stores else float("nan")
    out["build tool calls"] = sum(b.tool_calls for b in builds)
    out["build tokens"] = sum(b.tokens for b in builds)
    out["build dollars"] = sum(b.dollars for b in builds)
    out |= run_setting_counts(rows, [e for b in builds for e in b.episodes])  # paper 2's run settings
    out["invalid citations"] = searcher.invalid_citation_count(rows)
    harness = ",".join(dict.fromkeys(df["harness"])) if len(df) else labels["harness"]  # none / chunks / fsmem.harness
    return {**out, **labels, "harness": harness}


@typed_stage("fsmem_personamem")
def run(cfg) -> None:
    pm, fs = cfg.fsmem.personamem, cfg.fsmem
    variants = _variants(cfg)
    block = int(pm.block_messages)
    if block < 1:
        raise ConfigError(f"fsmem.personamem.block_messages: expected >= 1, got {block}")
    b_client = client_for(cfg, BUILDER, "fsmem_personamem")
    s_client = client_for(cfg, SEARCHER, "fsmem_personamem")
    labels = {
        "harness": str(fs.harness),
        "build harness": build_harness_name(fs),
        SEARCHER: label(s_client, SEARCHER),
        BUILDER: label(b_client, BUILDER),
    }
    prices = prices_of(cfg.composed)
    recs, read = [], []
    for tier in pm.tiers:
        absent = missing(pm.data_dir, tier)
        qpath = questions_path(pm.data_dir, tier)
        n_q = len(load_questions(qpath)) if qpath.exists() else 0
        read += [qpath] if qpath.exists() else []
        if absent:
            where = data_label(cfg, pm.data_dir, "fsmem.personamem.data_dir")  # the same cell on any machine
            status = f"skipped: {', '.join(p.name for p in absent)} absent from {where}"
            log.warning(
                "fsmem_personamem %s: %s = %s (not distributed here; see data/personamem/PROVENANCE.md)",
                tier,
                status,
                pm.data_dir,
            )
            recs += [
                {
                    "tier": tier,
                    "variant": v,
                    "status": status,
                    "questions": n_q,
                    "answered": 0,
                    "contexts": 0,
                    "stores": 0,
                    **labels,
                }
                for v in variants
            ]
            continue
        qs = _select(pm, load_questions(qpath))
        contexts = load_contexts(contexts_path(pm.data_dir, tier))
        read.append(contexts_path(pm.data_dir, tier))
        for q in qs:
            context_for(q, contexts)  # every question's context exists and its end index is in range
        ends = defaultdict(set)
        for q in qs:
            ends[q.context_id].add(q.end_index)
        convs = {cid: as_conversation(cid, contexts[cid], e, block) for cid, e in ends.items()}
        for variant in variants:
            rows, builds = answer_variant(cfg, tier, variant, qs, convs, (b_client, s_client), prices)
            recs.append(summarize(tier, variant, n_q, rows, builds, labels))
            log.info(
                "fsmem_personamem %s/%s: %d questions over %d contexts, accuracy %.3f",
                tier,
                variant,
                len(rows),
                len(builds),
                recs[-1]["accuracy"],
            )
    df = pd.DataFrame(recs)
    acc = sorted(c for c in df.columns if c.startswith("acc "))
    df = df.reindex(columns=COLUMNS[:8] + acc + COLUMNS[8:])  # the same columns whether a tier ran or not
    out = out_dir(cfg, tables_dir(cfg))
    write_table(
        out,
        outputs.FSMEM_PERSONAMEM,
        df,
        "PersonaMem through filesystem memory, per tier and variant",
        "4-option multiple choice, exact match on the letter. Every question is answered over a store built from "
        "exactly messages[:end_index_in_shared_context] of its shared context (dumps and reorganized stores once "
        "per distinct end index, agent_curated once per context with the snapshot after the chunk ending there); "
        "store columns are means over those stores, build columns totals. A tier whose "
        "shared_contexts_<tier>.jsonl (or questions csv) is absent is skipped, not estimated: only "
        "questions_32k.csv is distributed here (data/personamem/PROVENANCE.md). "
        + RUN_SETTINGS_NOTE
        + " "
        + searcher.INVALID_CITATIONS_NOTE
        + " "
        + ANSWER_TOKENS_NOTE,
        table_footer(cfg, data_files=read),
    )
    save_provenance(out / f"{outputs.FSMEM_PERSONAMEM}.provenance", cfg, data_files=read, agent="fsmem_personamem")
