"""Filesystem-memory answers (LoCoMo, REALTALK, PersonaMem; the main table and the study's answer sets): one page per
question with the answer, its scores, every tool call with its output, the files and sections read, and a link to
the store it was answered over.

`answers.json` records each call (tool, arguments, ok); its outputs are in `tool_outputs.json.gz` beside it
(`tailmem.fsmem.tool_outputs`). Where a model searched, the page shows the tool messages of its transcript in the
call cache; where a programmatic agent did, the recorded outputs, or for a set from before they were recorded, the
calls replayed through a fresh read-only harness over the same store (rebuilt from the answer set's own
`config.yaml`). A call that cannot be replayed says so.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path, PurePosixPath

from omegaconf import OmegaConf

from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.tool_outputs import call_key
from tailmem.paths import ANSWERS_FILE, BUILD_FILE, CONFIG_FILE
from tailmem.records.fsmem import FsmemBuild, read_answer_set
from tailmem.roles import BUILDER, JUDGE, SEARCHER, is_programmatic
from tailmem.site.collect import Files, Found, from_files
from tailmem.site.model import Row, Section, slug, verdict
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts

log = logging.getLogger("tailmem")

OUTPUT_CHARS = 3000  # characters of one tool output drawn on a page (the rest is counted, not shown)
FOLD_CHARS = 300  # longer outputs start folded
STORE_FILE_CHARS = 60000  # characters of one store file drawn on a store page
FILE_TOOLS = {"view", "toc", "read_section", "grep", "create", "str_replace", "insert", "append_section"}


def _study(rel: PurePosixPath, data: dict) -> str:
    """Which study an answer set belongs to, from its folder: the main table, RQ3 strength, RQ5 harness, PersonaMem."""
    first = rel.parts[0] if rel.parts else ""
    return {"strength": "RQ3 strength", "harness": "RQ5 harness", "personamem": "PersonaMem"}.get(first, "main")


def _store_folder(answers: Path) -> Path:
    """The store folder an answers.json was answered over: the parent of its `answers/` folder."""
    for parent in answers.parents:
        if parent.name == "answers":
            return parent.parent
    return answers.parent


_CONFIGS: dict[str, object] = {}


def _config(folder: Path, fallback):
    """The `fsmem` group the answer set ran with (its saved `config.yaml`), else the site's own; only that group is
    wrapped as a config (a whole resolved config takes a second to wrap, and sets share their settings)."""
    path = folder / CONFIG_FILE
    if not path.is_file():
        return fallback
    try:
        import yaml

        fs = (yaml.safe_load(path.read_text()) or {}).get("fsmem")
        if not isinstance(fs, dict):
            return fallback
        key = json.dumps(fs, sort_keys=True, default=str)
        if key not in _CONFIGS:
            _CONFIGS[key] = OmegaConf.create({"fsmem": fs})
        return _CONFIGS[key]
    except Exception:  # noqa: BLE001 - a damaged config only costs the replay
        return fallback


def _files_read(trace: list) -> tuple[list[str], list[str]]:
    """(files, sections) a trace read: paths of file reads (`view` with a file, `toc`, `read_section`, `grep` scoped to
    a path) and `path > heading` of each section read, in first-read order."""
    files: dict[str, None] = {}
    sections: dict[str, None] = {}
    for name, args, ok in trace:
        if not ok or not isinstance(args, dict):
            continue
        path = str(args.get("path") or "").strip("/")
        if name in ("view", "toc", "read_section", "grep") and path and path.endswith(".md"):
            rng = args.get("view_range")
            files[path + (f" (lines {rng[0]}-{rng[1]})" if isinstance(rng, list) and len(rng) == 2 else "")] = None
        if name == "read_section" and path:
            sections[f"{path} > {args.get('heading', '')}"] = None
        if name == "bash" and args.get("command"):
            files[f"$ {args['command']}"] = None
    return list(files), list(sections)


class _Replayer:
    """A set's tool outputs: those recorded when it was answered (fsmem.tool_outputs), else its read-only calls
    re-run through the harness its variant is searched with (one per answer set)."""

    def __init__(self, store_folder: Path, data: dict, cfg, answers_folder: Path):
        self.harness = None
        self.reason = ""
        self.memo: dict[str, tuple[bool, str]] = {}
        self.source = "replayed"
        self.ready = False  # outputs available: recorded, or a harness to replay them
        from tailmem.fsmem.benchmarks import BENCHMARKS

        bench = data.get("benchmark")
        if bench not in BENCHMARKS:
            self.reason = "outputs are not replayed for PersonaMem answers (each question's store is a prefix snapshot)"
            return
        try:
            from tailmem.fsmem import tool_outputs
            from tailmem.fsmem.benchmarks import conversation
            from tailmem.fsmem.store import Store
            from tailmem.fsmem.variants import search_harness

            conv = conversation(cfg.fsmem, bench, data["conversation"])
            self.conversation = conv
            recorded = tool_outputs.read(answers_folder, data.get("tool_outputs"))
            if recorded is not None:
                self.memo, self.source, self.ready = recorded, "recorded", True
                return
            self.harness = search_harness(data["variant"], Store(store_folder / "store"), conv, cfg.fsmem)[0]
        except Exception as exc:  # noqa: BLE001 - shown on the page instead of the outputs
            self.reason = f"outputs not recovered: the harness could not be rebuilt ({type(exc).__name__}: {exc})"[:400]
        self.ready = self.harness is not None

    def output(self, name: str, args) -> tuple[bool | None, str]:
        key = call_key(name, args)
        if self.source == "recorded":
            return self.memo.get(key, (None, "not recorded with the answer set"))
        if self.harness is None:
            return None, self.reason
        if key not in self.memo:
            try:
                got = self.harness.call(name, args)
                self.memo[key] = (got.ok, got.output)
            except Exception as exc:  # noqa: BLE001
                self.memo[key] = (None, f"not recovered: {type(exc).__name__}: {exc}"[:400])
        return self.memo[key]

    def close(self) -> None:
        if self.harness is not None:
            try:
                self.harness.close()
            except Exception:  # noqa: BLE001
                pass


def _calls_from_transcript(call) -> list[str]:
    """Tool outputs in order from a transcript (the `tool` messages of the fullest request)."""
    return [
        m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        for m in call.messages
        if m.get("role") == "tool"
    ]


def _clip(text: str) -> tuple[str, int]:
    return (text[:OUTPUT_CHARS], max(0, len(text) - OUTPUT_CHARS))


def _question_text(row: dict, pm_questions: dict) -> str:
    if row.get("question"):
        return row["question"]
    q = pm_questions.get(row.get("question_id"))
    return q.question if q is not None else ""


def _pm_questions(cfg, tiers: set[str]) -> dict:
    """PersonaMem questions by id, from the tiers' question files where the data folder has them."""
    out = {}
    try:
        from tailmem.data.personamem import load_questions, questions_path

        for tier in tiers:
            path = questions_path(cfg.fsmem.personamem.data_dir, tier)
            if path.exists():
                out |= {q.question_id: q for q in load_questions(path)}
    except Exception:  # noqa: BLE001 - the page then says the text is not in the artifact
        pass
    return out


def _category(bench: str, row: dict) -> str:
    if bench == "personamem":
        return str(row.get("question_type", ""))
    try:
        from tailmem.fsmem.benchmarks import category_names

        names = category_names(bench) | {5: "adversarial"}
    except Exception:  # noqa: BLE001
        names = {}
    cat = row.get("category")
    return f"{cat} {names.get(cat, '')}".strip()


def _correct(row: dict) -> str:
    """The `correct` filter: the judge's verdict where a judge ran, else exact match (PersonaMem) or F1 (1 = yes)."""
    if row.get("judge_correct") is not None:
        return verdict(row["judge_correct"])
    if "correct" in row:
        return verdict(row["correct"])
    return verdict(row.get("f1"))


def _store_files(store_folder: Path) -> tuple[str, list[dict]]:
    """The files of the store the set was answered over: its final snapshot if the build kept one, else `store/`."""
    manifests = store_folder / "snapshots" / "manifests"
    if (manifests / "final.json").is_file():
        snap = SnapshotLog(store_folder / "snapshots").load("final")
        objects = store_folder / "snapshots" / "objects"
        blobs = sorted((path, objects / digest) for path, digest in snap.files.items())
        return "snapshot `final`", [_store_file(path, blob) for path, blob in blobs]
    root = store_folder / "store"
    files = sorted(q for q in root.rglob("*") if q.is_file()) if root.is_dir() else []
    return "store/ folder", [_store_file(p.relative_to(root).as_posix(), p) for p in files]


def _store_file(path: str, file: Path) -> dict:
    """A store file as its page shows it: the text cut at STORE_FILE_CHARS (empty where the blob is missing)."""
    text = file.read_bytes().decode(errors="replace") if file.is_file() else ""
    cut = max(0, len(text) - STORE_FILE_CHARS)
    return {"path": path, "text": text[:STORE_FILE_CHARS], "cut": cut, "size": len(text), "anchor": "f-" + slug(path)}


def collect(results: Path, cfg, transcripts: Transcripts) -> Section:
    section = Section(
        key="fsmem",
        title="Filesystem memory: every answer",
        blurb="One row per question a search agent answered over a store (LoCoMo, REALTALK; PersonaMem multiple "
        "choice). Correct = the judge's verdict where a judge model ran, else exact match (PersonaMem) or "
        "LoCoMo F1 (1 = yes, 0 = no, between = partial).",
        columns=["study", "benchmark", "variant", "harness", "question type", "question", "F1 / correct", JUDGE],
        filters=[
            ("study", "study"),
            ("benchmark", "benchmark"),
            ("variant", "variant"),
            ("harness", "harness"),
            ("category", "question type"),
            ("correct", "correct"),
        ],
    )
    answers = Files(
        f"**/{ANSWERS_FILE}", read=_answer_set, rows=_rows, draw=lambda w, sets: _draw(w, sets, cfg, transcripts)
    )
    return from_files(section, results, answers)


def _bench(answers: Found) -> str:
    return answers.data.get("benchmark") or ("personamem" if "tier" in answers.data else "?")


def _store_page(answers: Found) -> str | None:
    """The page of the store a set was answered over (PersonaMem's stores are per question: none)."""
    if _bench(answers) == "personamem":
        return None
    return f"fsmem/{PurePosixPath(_store_folder(answers.path).relative_to(answers.root).as_posix())}/store.html"


def _rows(answers: Found) -> list[Row]:
    """One row per question of an answer set."""
    data, bench, out = answers.data, _bench(answers), []
    for row in data.get("rows", []):
        qid = row.get("qid", row.get("question_id"))
        question = row.get("question") or f"PersonaMem {row.get('question_id')}"
        score = row.get("f1") if "f1" in row else row.get("correct")
        judge = "-" if row.get("judge_correct") is None else verdict(row["judge_correct"])
        filters = {
            "study": _study(answers.rel, data),
            "benchmark": bench,
            "variant": data.get("variant", row.get("variant")),
            "harness": row.get("harness", data.get("harness")),
            "category": _category(bench, row),
            "correct": _correct(row),
        }
        cells = [filters[k] for k in ("study", "benchmark", "variant", "harness", "category")] + [
            question,
            score,
            judge,
        ]
        text = f"{question} {row.get('gold', '')} {row.get('answer', row.get('reply', ''))}"
        out.append(Row(f"{answers.folder}/q-{slug(str(qid))}.html", cells, filters, text))
    return out


def _draw(w: Writer, sets: list[Found], cfg, transcripts: Transcripts) -> None:
    """Each store's page once, then one page per question of each answer set."""
    tiers = {s.data.get("tier") for s in sets if s.data.get("tier")}
    pm_questions = _pm_questions(cfg, tiers) if tiers else {}
    anchors: dict[str, dict[str, str]] = {}  # store page -> {file path: anchor}
    for answers in sets:
        path, data, rel, folder, bench = answers.path, answers.data, answers.rel, answers.folder, _bench(answers)
        store_folder, store_page = _store_folder(path), _store_page(answers)
        run_cfg = _config(path.parent, cfg)
        if store_page and store_page not in anchors:
            label, files = _store_files(store_folder)
            anchors[store_page] = {f["path"]: f["anchor"] for f in files}
            built = store_folder / BUILD_FILE
            build = FsmemBuild.read(built) if built.is_file() else None
            w.write(
                store_page,
                "store.html",
                title=f"Store: {store_folder.relative_to(answers.root)}",
                label=label,
                files=files,
                build=build,
                back="fsmem/index.html",
            )
        rows = data.get("rows", [])
        model_searched = any(not is_programmatic(r.get(SEARCHER)) for r in rows)
        replayer = None if model_searched else _Replayer(store_folder, data, run_cfg, path.parent)
        evidence = _evidence(rows, replayer)
        try:
            for i, row in enumerate(rows):
                _draw_item(
                    w,
                    row,
                    i,
                    rows,
                    data,
                    bench,
                    folder,
                    store_page,
                    replayer,
                    transcripts,
                    pm_questions,
                    evidence[i] if evidence else None,
                    _study(rel, data),
                    str(rel),
                    anchors.get(store_page, {}),
                )
        finally:
            if replayer is not None:
                replayer.close()


def _answer_set(path: Path) -> dict:
    """An answers.json as the page code reads it, through its record (version and keys checked): a LoCoMo-shaped
    set (FsmemAnswers) or a PersonaMem set (PersonaMemAnswers, its own cache keyed by content; it has `tier`)."""
    return read_answer_set(path).to_json()


def _evidence(rows: list[dict], replayer) -> list | None:
    """Per row, (gold evidence ids, those read) for LoCoMo-shaped sets whose outputs could be replayed."""
    if replayer is None or not replayer.ready or not hasattr(replayer, "conversation"):
        return None
    try:
        from tailmem.metrics import locomo_evidence as E

        golds = E.match_evidence(rows, replayer.conversation.qa)
    except Exception:  # noqa: BLE001 - evidence is an extra
        return None
    out = []
    for row, gold in zip(rows, golds):
        read: set[str] = set()
        for name, args, ok in row.get("search_trace", []):
            if ok:
                read |= E.dialogue_ids(replayer.output(name, args)[1])
        ids = E.gold_ids(gold)
        out.append((sorted(ids), sorted(ids & read)))
    return out


_ROW_DEFAULTS = {
    JUDGE: None,
    "judge_correct": None,
    "judge_citation": None,
    "judge_unparsed": None,
    "citations": [],
    "gold": "",
    "question_id": None,
    SEARCHER: "",
    BUILDER: "",
    "search_rounds": 0,
    "search_tool_calls": 0,
    "search_chars_read": 0,
    "search_prompt_tokens": 0,
    "search_completion_tokens": 0,
    "search_trace": [],
}


def _draw_item(
    w: Writer,
    row: dict,
    i: int,
    rows: list,
    data: dict,
    bench: str,
    folder: str,
    store_page: str | None,
    replayer,
    transcripts: Transcripts,
    pm_questions: dict,
    evidence,
    study: str,
    set_label: str,
    anchors: dict[str, str],
) -> None:
    row = _ROW_DEFAULTS | {"harness": data.get("harness", "")} | row  # older or PersonaMem rows lack some keys
    qid = row.get("qid", row.get("question_id"))
    question = _question_text(row, pm_questions)
    searcher = row.get(SEARCHER, "")
    trace = row.get("search_trace", [])
    transcript, matched = None, 0
    if not is_programmatic(searcher) and question:
        transcript, matched = transcripts.transcript(SEARCHER, None, [question])
    outputs = _calls_from_transcript(transcript) if transcript is not None else None
    calls = []
    for k, (name, args, ok) in enumerate(trace):
        if outputs is not None:
            text, source = (outputs[k] if k < len(outputs) else "(not in the transcript)"), "transcript"
        elif replayer is not None:
            _, text = replayer.output(name, args)
            source = replayer.source if replayer.ready else "missing"
        else:
            text, source = "", "missing"
        shown, cut = _clip(text or "")
        calls.append(
            {
                "n": k + 1,
                "name": name,
                "args": args,
                "ok": ok,
                "output": shown,
                "cut": cut,
                "fold": len(shown) > FOLD_CHARS or shown.count("\n") > 6,
                "source": source,
                "anchor": anchors.get(str(args.get("path") or "").strip("/")) if isinstance(args, dict) else None,
            }
        )
    files, sections = _files_read(trace)
    judge_call = None
    if row.get(JUDGE) and not is_programmatic(row.get(JUDGE)) and question:
        judge_call, _ = transcripts.transcript(JUDGE, None, [question, str(row.get("answer", ""))])
    pm_q = pm_questions.get(row.get("question_id"))
    prev_href = (
        f"{folder}/q-{slug(str(rows[i - 1].get('qid', rows[i - 1].get('question_id'))))}.html" if i > 0 else None
    )
    next_href = (
        f"{folder}/q-{slug(str(rows[i + 1].get('qid', rows[i + 1].get('question_id'))))}.html"
        if i + 1 < len(rows)
        else None
    )
    w.write(
        f"{folder}/q-{slug(str(qid))}.html",
        "fsmem_item.html",
        title=f"{bench} {data.get('conversation', data.get('tier', ''))} · {data.get('variant')} · question {qid}",
        row=row,
        question=question,
        bench=bench,
        study=study,
        set_label=set_label,
        data=data,
        category=_category(bench, row),
        correct=_correct(row),
        calls=calls,
        files=files,
        sections=sections,
        store_page=store_page,
        transcript=transcript,
        matched=matched,
        judge_call=judge_call,
        programmatic=is_programmatic(searcher),
        options=list(pm_q.options) if pm_q is not None else [],
        evidence=evidence,
        prev_href=prev_href,
        next_href=next_href,
        replay_note=(replayer.reason if replayer is not None and not replayer.ready else ""),
        back="fsmem/index.html",
    )
