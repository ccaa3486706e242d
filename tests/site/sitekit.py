"""Test kit for the site tests: a small results tree in the artifacts' real formats (one of each kind of item, a
model-searched answer set with its call in a real call cache, tables with paper columns and a claims verdict), so the
site builds in seconds without running the DAG. (A module, not conftest helpers: see tests/fs_testkit.py.)"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
from omegaconf import OmegaConf

from record_kit import control_summary, placeholder
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store
from tailmem.llm.cache import CallCache, request_hash
from tailmem.llm.records import ChatResponse, Usage
from tailmem.records.alfworld import AlfworldChain, AlfworldMemoryCell
from tailmem.records.control import ControlSteps
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild, PersonaMemAnswers
from tailmem.records.longmemeval import LongMemEvalRows, LongMemEvalSummary
from tailmem.records.provenance import RunMeta
from tailmem.workflow import compose_config

MODEL = "gpt-test"
TOOL_OUTPUT = "TOOL-OUTPUT-FROM-THE-TRANSCRIPT"
FILE_TEXT = "---\ndescription: trips\n---\n# Trips\n\n## Travel\nCalvin flew to Tokyo [D3:1].\n"
META = {
    "stage": "fsmem_answer",
    "seed": 0,
    "code": {"commit": "abc123def4567890", "dirty": False},
    "config_digest": "0123456789abcdef",
    "agents": {"searcher": {"backend": "programmatic", "agent": "programmatic-searcher"}},
    "finished_at": "2026-01-01T00:00:00+0000",
}


def site_config(data_dir: Path):
    return compose_config("smoke", [f"data_dir={data_dir}"])


def _store(folder: Path) -> None:
    store = Store(folder / "store")
    store.write("notes/trips.md", FILE_TEXT)
    store.write("notes/people.md", "---\ndescription: people\n---\n# People\nDave plays guitar [D2:4].\n")
    SnapshotLog(folder / "snapshots").take(store, "final")
    placeholder(
        FsmemBuild,
        variant=folder.name,
        agent="programmatic-builder",
        build_harness="center",
        store=store.stats(),
        tool_calls=2,
        tokens=0,
        dollars=0.0,
        episodes=[],
    ).write(folder / "build.json")


def _answer_row(i: int, question: str, gold: str, searcher: str, trace: list, **extra) -> dict:
    row = {
        "benchmark": "locomo",
        "conversation": "conv-50",
        "harness": "center",
        "qid": i,
        "category": 2,
        "question": question,
        "gold": gold,
        "answer": "Tokyo in March",
        "citations": ["notes/trips.md:7 [D3:1]"],
        "f1": 0.5,
        "searcher": searcher,
        "builder": "programmatic-builder",
        "search_rounds": 2,
        "search_tool_calls": len(trace),
        "search_tool_errors": 0,
        "search_prompt_tokens": 0,
        "search_cached_tokens": 0,
        "search_completion_tokens": 0,
        "search_chars_read": 100,
        "search_dollars": 0.0,
        "judge": None,
        "judge_correct": None,
        "judge_citation": None,
        "search_trace": trace,
    }
    return row | extra


def make_results(root: Path, data_dir: Path) -> tuple[Path, Path, object]:
    """Write the tree under `root`; returns (results folder, figures folder, config)."""
    cfg = site_config(data_dir)
    results, figures = root / "results", root / "figures"
    fs_yaml = OmegaConf.to_yaml(OmegaConf.create({"fsmem": OmegaConf.to_container(cfg.fsmem, resolve=True)}))
    from tailmem.data.locomo import load

    qa = [q for q in load(cfg.fsmem.data_file, "conv-50").qa if q.category == 2][:2]

    # filesystem memory: a programmatic set (outputs replayed) and a model set (outputs from the call cache)
    trace = [
        ["view", {"path": ""}, True],
        ["grep", {"pattern": "Tokyo"}, True],
        ["view", {"path": "notes/trips.md"}, True],
        ["read_section", {"path": "notes/trips.md", "heading": "Travel"}, True],
        ["view", {"path": "nowhere.md"}, False],
    ]
    variant = results / "fsmem/locomo/conv-50/programmatic/verbatim"
    _store(variant)
    answers = variant / "answers/center/programmatic"
    FsmemAnswers(
        benchmark="locomo",
        conversation="conv-50",
        variant="verbatim",
        harness="center",
        sandbox=None,
        tool_outputs=None,
        rows=[_answer_row(i, q.question, q.answer, "programmatic-searcher", trace) for i, q in enumerate(qa)],
    ).write(answers / "answers.json")
    (answers / "config.yaml").write_text(fs_yaml)
    placeholder(RunMeta, **META).write(answers / "meta.json")

    curated = results / "fsmem/locomo/conv-50/programmatic/agent_curated"
    _store(curated)
    model_answers = curated / f"answers/center/{MODEL}"
    question = "Where did Calvin travel in March?"
    model_trace = [["grep", {"pattern": "Calvin"}, True]]
    row = _answer_row(0, question, "Tokyo", MODEL, model_trace, judge=MODEL, judge_correct=1.0, judge_citation=1.0)
    FsmemAnswers(
        benchmark="locomo",
        conversation="conv-50",
        variant="agent_curated",
        harness="center",
        sandbox=None,
        tool_outputs=None,
        rows=[row],
    ).write(model_answers / "answers.json")
    (model_answers / "config.yaml").write_text(fs_yaml)
    cache = CallCache(results / "llm_cache.sqlite")
    request = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "You search a memory store."},
            {"role": "user", "content": f"Question: {question}"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": TOOL_OUTPUT},
        ],
    }
    cache.put(
        request_hash(request),
        "searcher",
        "fsmem_answer",
        "openai",
        request,
        ChatResponse("ANSWER: Tokyo [notes/trips.md:7]", (), Usage(120, 0, 9), MODEL, False, 0.1),
        0.0,
    )
    cache.flush()

    # PersonaMem: no question text in the row (the page says so, or reads the data's question file)
    PersonaMemAnswers(
        key="k",
        tier="32k",
        variant="verbatim",
        harness="center",
        sandbox=None,
        rows=[
            {
                "tier": "32k",
                "variant": "verbatim",
                "harness": "center",
                "question_id": "no-such-question",
                "context_id": "ctx",
                "end_index": 10,
                "question_type": "recall_user_shared_facts",
                "gold": "b",
                "reply": "(a)",
                "choice": "a",
                "correct": False,
                "citations": [],
                "searcher": "programmatic-searcher",
                "builder": "programmatic-builder",
                "search_rounds": 1,
                "search_tool_calls": 1,
                "search_prompt_tokens": 0,
                "search_completion_tokens": 0,
                "search_chars_read": 10,
                "search_trace": [["view", {"path": ""}, True]],
            }
        ],
    ).write(results / "fsmem/personamem/32k/verbatim/answers/center/answers.json")

    # LongMemEval: two questions under two arms, with their blocks (one tail line)
    lme = results / "longmemeval/oracle/programmatic/seed0"
    lme.mkdir(parents=True)
    rows = []
    for qid, qtype in (("q1", "temporal-reasoning"), ("q2_abs", "single-session-user")):
        for arm, label, memory, marks in (
            ("graph_memory", "Graph Memory", "S0 2023/05/21\n  0U: hello", "cc"),
            ("ctmc-r0.75", "CTMC (0.75x)", "S0 2023/05/21\n  0U: hello\nS1 summary", "cct"),
        ):
            rows.append(
                {
                    "qid": qid,
                    "question_type": qtype,
                    "abstention": qid.endswith("_abs"),
                    "seed": 0,
                    "arm": arm,
                    "label": label,
                    "budget": 100.0,
                    "sessions": 2,
                    "prompt_tokens": 50,
                    "memory_tokens": 20,
                    "n_core": 1,
                    "n_tail": marks.count("t"),
                    "coverage": 1.0,
                    "answer_sessions_placed": 1.0,
                    "question": f"What happened in {qid}?",
                    "memory": memory,
                    "marks": marks,
                    "answer": "hello",
                    "gold": "hello",
                    "answerer": "programmatic-answerer",
                    "correct": True,
                    "abstained": False,
                    "judge_correct": None,
                    "dataset": "oracle",
                }
            )
    LongMemEvalRows(pd.DataFrame(rows)).write(lme / "rows.parquet")
    placeholder(LongMemEvalSummary, dataset="oracle", seed=0).write(lme / "summary.json")

    # controller study: two arms, blocks at the same two steps
    run = results / "control/semantic/programmatic/recency/modular/n30/seed0/programmatic"
    for arm, marks in (("graph_memory-compact", "cc"), ("ctmc-compact-tau1", "ct")):
        steps = pd.DataFrame(
            [
                {
                    "step": t,
                    "state": 3 + t,
                    "next_state": 4 + t,
                    "predicted": 4 + t if t else -1,
                    "correct": bool(t),
                    "covered": True,
                    "mentions_next": True,
                    "prompt_tokens": 40,
                    "memory_tokens": 10,
                    "n_core": 1,
                    "n_tail": marks.count("t"),
                    "memory": ("S3 garret/jade\n  bridge>jade>S4" if t in (0, 2) else None),
                    "marks": (marks if t in (0, 2) else None),
                }
                for t in range(3)
            ]
        )
        ControlSteps(steps).write(run / arm / "steps.parquet")
        summary = control_summary(arm=arm, label=arm.partition("-")[0], predictor="programmatic-memory")
        summary.write(run / arm / "summary.json")

    # ALFWorld: a memory cell (blocks per step) and a skill cell (snapshots before each task)
    game = "pick_and_place_simple-Book-None-SideTable-329/trial_T20190908_050633_745514"
    episode = {
        "split": "valid_seen",
        "id": game,
        "family": "pick_and_place_simple",
        "loaded": True,
        "success": True,
        "steps": 2,
        "invalid": 0,
        "goal": "put some book on sidetable",
        "memory_tokens": 4,
        "context_tokens": 40,
        "guidance_tokens": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "accesses": {"bed 1": 1},
        "trajectory": [["go to bed 1", "You arrive at bed 1."], ["take book 1 from bed 1", "You pick up the book 1."]],
        "error": "",
        "agent": "programmatic-executor",
        "start": "You are in the middle of a room.",
        "blocks": [["", ""], ["bed 1: book 1", "c"]],
    }
    AlfworldMemoryCell(
        arm="graph_memory",
        settings={"name": "graph_memory"},
        subset="smoke",
        executor="programmatic-executor",
        episodes=[episode],
        model=None,
    ).write(results / "alfworld/memory/smoke/programmatic-executor/graph_memory/episodes.json")
    cell = (
        results
        / "alfworld/skills/smoke/programmatic-executor/programmatic-builder/programmatic-searcher/full_chain/episode_log"
    )
    store = Store(cell / "store")
    snaps = SnapshotLog(cell / "snapshots")
    second = "look_at_obj_in_light-AlarmClock-None-DeskLamp-323/trial_T20190909_044715_250790"
    snaps.take(store, f"before_{game.replace('/', '__')}")
    store.write("episodes/task_000.md", "---\ndescription: task 0\n---\nsource: task 0\n> go to bed 1\n")
    snaps.take(store, f"before_{second.replace('/', '__')}")
    task = {
        "chain": 0,
        "family": "pick_and_place_simple",
        "ran": True,
        "success": True,
        "steps": 2,
        "invalid": 0,
        "error": "",
        "store_sources_max": -1,
        "store_files": 1,
        "store_bytes": 30,
        "retrieval_chars": 0,
        "retrieval_files": 0,
        "guidance_tokens": 0,
        "execution_tokens": 40,
        "curation_chars": 30,
    }
    placeholder(
        AlfworldChain,
        protocol="full_chain",
        variant="episode_log",
        subset="smoke",
        agents={
            "executor": "programmatic-executor",
            "curator": "programmatic-curator",
            "retriever": "programmatic-retriever",
        },
        order=[game, second],
        tasks=[
            task | {"index": 0, "id": game},
            task
            | {"index": 1, "id": second, "family": "look_at_obj_in_light", "success": False, "store_sources_max": 0},
        ],
        episodes={
            game: {
                "guidance": "",
                "goal": "put some book on sidetable",
                "start": "A room.",
                "trajectory": episode["trajectory"],
            },
            second: {
                "guidance": "source: task 0\n> go to bed 1\n",
                "goal": "look at alarmclock under the desklamp",
                "start": "A room.",
                "trajectory": [["go to desk 1", "You arrive at desk 1."]],
            },
        },
        model=None,
        curation_episodes=None,
        retrieval_episodes=None,
    ).write(cell / "chain.json")

    # tables (with paper columns, a claims verdict and a provenance line) and a figure
    tables = results / "tables"
    tables.mkdir(parents=True)
    footer = (
        "\n---\n\nProvenance: commit `abc123def456` (clean); config digest `0123456789abcdef` (fsmem); "
        "agents: searcher programmatic-searcher.\n"
    )
    (tables / "locomo_conv-50.md").write_text(
        "# locomo conv-50: filesystem-memory variants\n\nWhat it shows: F1 per variant; **offline** agents.\n\n"
        "| variant | F1 | F1_paper |\n|:--|--:|--:|\n| verbatim | 0.500 | 0.610 |\n| agent_curated | 0.400 | nan |\n"
        + footer
    )
    (tables / "locomo_conv-50.csv").write_text("variant,F1,F1_paper\nverbatim,0.5,0.61\nagent_curated,0.4,\n")
    (tables / "claims_ctmc.md").write_text(
        "# Claims (CTMC)\n\nEach claim with its interval.\n\n| claim | estimate | verdict |\n|:--|--:|:--|\n"
        "| CTMC cuts tokens | -0.2 | HELD |\n| tail error drops | 0.01 | INCONCLUSIVE |\n" + footer
    )
    (tables / "claims_ctmc.csv").write_text("claim,estimate,verdict\nCTMC cuts tokens,-0.2,HELD\n")
    (tables / "table4_memory_baselines.md").write_text(
        "# Table 4\n\nBaselines.\n\n| arm | tail_error | tail_error_paper |\n|:--|--:|--:|\n"
        "| graph_memory-compact | 0.3 | 0.93 |\n| full_history-compact | 0.2 | - |\n" + footer
    )
    (tables / "table4_memory_baselines.csv").write_text("arm,tail_error\ngraph_memory-compact,0.3\n")
    placeholder(RunMeta, **(META | {"stage": "fsmem_table"})).write(tables / "locomo_conv-50.provenance" / "meta.json")
    figures.mkdir(parents=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [0, 1])
    ax.set_title("test figure")
    fig.savefig(figures / "fig_test.png", dpi=50)
    plt.close(fig)
    return results, figures, cfg


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[tuple[str, str]] = []  # (attribute, value)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in ("href", "src") and value is not None:
                self.links.append((f"{tag}.{name}", value))


def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def broken_links(site: Path) -> list[str]:
    """Every internal link of every page that leads nowhere: a missing file, or a missing `#id` (an anchor holding
    `=` is a list filter, read by the script, not an id). External and absolute links count as broken too: the
    site must open from disk without a network."""
    bad, ids = [], {}
    pages = sorted(site.rglob("*.html"))
    for page in pages:
        ids[page.resolve()] = parse(page).ids
    for page in pages:
        for attr, value in parse(page).links:
            parts = urlsplit(value)
            if parts.scheme == "data":
                continue
            if parts.scheme or value.startswith("/") or value.startswith("//"):
                bad.append(f"{page.relative_to(site)}: {attr}={value} (not a relative link)")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            if not target.is_file() or not target.is_relative_to(site.resolve()):
                bad.append(f"{page.relative_to(site)}: {attr}={value} (no such file)")
                continue
            anchor = unquote(parts.fragment)
            if anchor and "=" not in anchor and target.suffix == ".html" and anchor not in ids.get(target, set()):
                bad.append(f"{page.relative_to(site)}: {attr}={value} (no element with id {anchor!r})")
    return bad


def items_of(site: Path, section: str) -> list[dict]:
    text = (site / section / "items.js").read_text(encoding="utf-8")
    return json.loads(re.sub(r"^window\.SITE_ITEMS = |;\s*$", "", text).replace("<\\/", "</"))
