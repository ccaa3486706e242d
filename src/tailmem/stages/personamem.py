"""Stage fsmem_personamem: PersonaMem through filesystem memory, per tier (32k, 128k).

For each question the store holds its shared context up to `end_index_in_shared_context`, verbatim, one file per
block of `fsmem.personamem.block_messages` messages (stores are cached per (context, end index)); the search
agent reads it through Center and picks an option; the score is exact match on the letter. The programmatic
searcher picks the option sharing the most terms with the lines it found; a model gets the options in the
question and answers with a letter. Where a tier's files are absent (the shared contexts are not distributed
with this repository) the table says so and the tier is skipped; nothing is guessed.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import pandas as pd

from tailmem.data.personamem import context_for, load_contexts, load_questions, missing, questions_path
from tailmem.fsmem.agents import searcher
from tailmem.fsmem.agents.models import client_for
from tailmem.fsmem.store import Store
from tailmem.fsmem.tokens import terms
from tailmem.fsmem.tools.center import center
from tailmem.fsmem.tools.management import management
from tailmem.metrics.multiple_choice import exact_match
from tailmem.provenance import save_provenance
from tailmem.stages.tables import write_table

log = logging.getLogger("tailmem")


def build_store(root: Path, messages, block: int) -> Store:
    store = Store(root)
    h = management(store)
    for start in range(0, len(messages), block):
        part = messages[start: start + block]
        body = f"# Messages {start + 1}-{start + len(part)}\n" + "\n".join(
            f"- [M{start + i + 1}] {m.role}: {' '.join(m.content.split())}" for i, m in enumerate(part)) + "\n"
        h.call("create", {"path": f"context_{start // block + 1:03d}.md",
                          "description": f"Chat messages {start + 1} to {start + len(part)}, verbatim", "content": body})
    return store


def choose_programmatic(q, harness) -> tuple[str, searcher.Answer]:
    """The option sharing the most terms with the lines the programmatic searcher found (ties: the first)."""
    a = searcher.answer_programmatic(q.question, harness)
    found = set()
    for c in a.citations:
        path, line = c.split(" ")[0].rsplit(":", 1)
        out = harness.call("view", {"path": path, "view_range": [int(line), int(line)]}).output
        found |= set(terms(out))
    scores = [len(set(terms(o)) & found) for o in q.options]
    return f"({'abcdefgh'[scores.index(max(scores))]})", a


def choose_model(client, q, harness, max_rounds: int) -> tuple[str, searcher.Answer]:
    options = "\n".join(f"({'abcdefgh'[i]}) {o}" for i, o in enumerate(q.options))
    text = f"{q.question}\n\nOptions:\n{options}\n\nAnswer with the letter of the best option, e.g. ANSWER: (b)."
    a = searcher.answer_model(client, text, harness, "filesystem", max_rounds)
    return a.text, a


def run(cfg) -> None:
    pm, fs = cfg.fsmem.personamem, cfg.fsmem
    client = client_for(cfg, "searcher", "fsmem_personamem")
    recs = []
    for tier in pm.tiers:
        absent = missing(pm.data_dir, tier)
        n_q = len(load_questions(questions_path(pm.data_dir, tier))) if questions_path(pm.data_dir, tier).exists() else 0
        if absent:
            status = f"skipped: {', '.join(p.name for p in absent)} absent from {pm.data_dir}"
            log.warning("fsmem_personamem %s: %s (not distributed here; see data/personamem/PROVENANCE.md)", tier, status)
            recs.append({"tier": tier, "status": status, "questions": n_q, "answered": 0})
            continue
        qs = load_questions(questions_path(pm.data_dir, tier))
        qs = qs[: int(pm.max_questions)] if pm.get("max_questions") is not None else qs
        contexts = load_contexts(Path(pm.data_dir) / f"shared_contexts_{tier}.jsonl")
        rows = []
        with tempfile.TemporaryDirectory(prefix="personamem_") as tmp:
            stores: dict[tuple[str, int], Store] = {}
            for q in qs:
                key = (q.context_id, q.end_index)
                if key not in stores:
                    stores[key] = build_store(Path(tmp) / f"s{len(stores)}", context_for(q, contexts), int(pm.block_messages))
                h = center(stores[key])
                reply, a = (choose_programmatic(q, h) if client is None
                            else choose_model(client, q, h, int(fs.rounds.search_other)))
                rows.append({"type": q.question_type, "correct": exact_match(reply, q.answer),
                             "tool calls": a.episode.tool_calls, "chars read": a.episode.chars_read,
                             "tokens": a.episode.prompt_tokens + a.episode.completion_tokens})
        df = pd.DataFrame(rows)
        recs.append({"tier": tier, "status": "ran", "questions": n_q, "answered": len(df), "variant": "verbatim",
                     "harness": "center", "searcher": "programmatic-searcher" if client is None else str(client.model),
                     "accuracy": df["correct"].mean(), "tool calls/q": df["tool calls"].mean(),
                     "chars read/q": df["chars read"].mean(), "tokens/q": df["tokens"].mean(),
                     **{f"acc {t}": g["correct"].mean() for t, g in df.groupby("type")}})
    out = Path(cfg.out) if cfg.get("out") else Path(cfg.results_dir) / "tables"
    write_table(out, "fsmem_personamem", pd.DataFrame(recs), "PersonaMem through filesystem memory",
                "4-option multiple choice, exact match on the letter; the store holds the shared context up to "
                "end_index_in_shared_context. A tier whose shared_contexts_<tier>.jsonl (or questions csv) is absent is "
                "skipped, not estimated: only questions_32k.csv is distributed here (data/personamem/PROVENANCE.md).")
    save_provenance(out / "fsmem_personamem.provenance", cfg, agent="fsmem_personamem")
