"""Versioned gold answers: corrections to a benchmark's gold kept as data (one YAML overlay per benchmark and
version, under `data/gold_overlays/`), checked against the benchmark file and applied when answers are scored.

Why data and not code: a corrected gold is a claim about the benchmark, with a reason and a source, that a
reader should be able to audit and cite; a result scored under one says which (name, version, sha256 of the
file) in its provenance. The default is the standard data: no overlay.

An overlay names one conversation and lists entries: `question` (the 1-based position in the conversation's
`qa` list of the benchmark file), `original_gold` (must equal the file's gold, so an overlay cannot silently
apply to other data), `corrected_gold` (a new gold, or `drop`: the question is not scored), `reason`, `source`,
and optionally `question_text` (checked too). The format and the shipped overlays: docs/gold_overlays.md.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import ConfigError, DataError

DROP = "drop"
ROOT = Path(__file__).resolve().parents[3] / "data" / "gold_overlays"  # the checkout's shipped overlays
TOP_KEYS = ("benchmark", "conversation", "name", "version", "description", "source", "entries")
ENTRY_KEYS = ("question", "original_gold", "corrected_gold", "reason", "source")
OPTIONAL_ENTRY_KEYS = ("question_text",)
MAX_OVERLAY_CHARS = 1 << 20  # a few hundred corrections fit many times over; a bigger file is not an overlay
SHOWN = 80  # characters of a value an error message quotes: the message names the entry, the file has the rest


class GoldOverlayError(DataError):
    """An overlay file is malformed or does not fit the benchmark data; the message names the file and entry."""


@dataclass(frozen=True)
class Entry:
    question: int  # 1-based position in the conversation's qa list
    original_gold: str
    corrected_gold: str | None  # None: dropped
    reason: str
    source: str
    question_text: str | None = None

    @property
    def dropped(self) -> bool:
        return self.corrected_gold is None


@dataclass(frozen=True)
class Overlay:
    path: Path
    benchmark: str
    conversation: str
    name: str
    version: int
    description: str
    source: str
    sha256: str
    entries: tuple[Entry, ...]

    @property
    def label(self) -> str:
        return f"{self.name}-v{self.version}"

    def provenance(self) -> dict:
        """What a result scored under this overlay records: name, version, the file's sha256 and path."""
        return {
            "name": self.name,
            "version": self.version,
            "sha256": self.sha256,
            "benchmark": self.benchmark,
            "conversation": self.conversation,
            "file": str(self.path),
        }

    def dropped(self) -> tuple[int, ...]:
        return tuple(e.question for e in self.entries if e.dropped)

    def by_question(self) -> dict[int, Entry]:
        return {e.question: e for e in self.entries}


def shipped() -> list[str]:
    """The overlays in the checkout, as names for `fsmem.gold_overlay` (e.g. locomo/d2-v1)."""
    return sorted(str(p.relative_to(ROOT).with_suffix("")) for p in ROOT.glob("*/*.yaml"))


def resolve(spec: str | Path) -> Path:
    """A shipped overlay's name (`locomo/d2-v1`) or a path to a YAML file -> the file."""
    text = str(spec)
    path = Path(text) if text.endswith((".yaml", ".yml")) else ROOT / f"{text}.yaml"
    if not path.is_file():
        raise ConfigError(
            f"fsmem.gold_overlay: {text!r}: no overlay file {path}; shipped overlays: {shipped()} "
            "(or give a path to a .yaml file)"
        )
    return path


def short(value) -> str:
    """`repr(value)` cut to SHOWN characters, so a hostile or huge value cannot flood a log line."""
    text = repr(value)
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text)} characters)"


def _text(value, where: str, key: str, empty: bool = False) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise GoldOverlayError(f"{where}: {key!r} must be text, got {type(value).__name__} {short(value)}")
    value = str(value).strip()
    if not value and not empty:
        raise GoldOverlayError(f"{where}: {key!r} is empty")
    return value


def _entry(raw, where: str) -> Entry:
    if not isinstance(raw, dict):
        raise GoldOverlayError(f"{where}: expected a mapping with keys {list(ENTRY_KEYS)}, got {short(raw)}")
    missing = [k for k in ENTRY_KEYS if k not in raw]
    unknown = sorted(map(short, set(raw) - set(ENTRY_KEYS) - set(OPTIONAL_ENTRY_KEYS)))
    if missing or unknown:
        raise GoldOverlayError(
            f"{where}: missing keys {missing}, unknown keys {unknown} "
            f"(expected {list(ENTRY_KEYS)} and optionally {list(OPTIONAL_ENTRY_KEYS)})"
        )
    q = raw["question"]
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        raise GoldOverlayError(f"{where}: 'question' must be a 1-based question number, got {short(q)}")
    corrected = _text(raw["corrected_gold"], where, "corrected_gold")
    text = raw.get("question_text")
    return Entry(
        q,
        _text(raw["original_gold"], where, "original_gold"),
        None if corrected == DROP else corrected,
        _text(raw["reason"], where, "reason"),
        _text(raw["source"], where, "source"),
        None if text is None else _text(text, where, "question_text"),
    )


def load(spec: str | Path) -> Overlay:
    """Read and check the structure of an overlay (not yet against the data: `check`)."""
    from tailmem.fsmem import frontmatter_safe

    path = resolve(spec)
    if path.stat().st_size > MAX_OVERLAY_CHARS * 4:  # refused before it is read (UTF-8: at most 4 bytes a character)
        raise GoldOverlayError(f"{path}: {path.stat().st_size} bytes; an overlay has at most {MAX_OVERLAY_CHARS}")
    blob = path.read_bytes()
    try:
        # anchors and aliases refused: safe_load expands them, so a 3 KB file could build gigabytes
        doc = frontmatter_safe.load(blob.decode("utf-8"), MAX_OVERLAY_CHARS)
    except UnicodeDecodeError as exc:
        raise GoldOverlayError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start + 1})") from None
    except frontmatter_safe.FrontmatterError as exc:
        raise GoldOverlayError(f"{path}: not valid YAML for an overlay: {exc}") from None
    if not isinstance(doc, dict):
        raise GoldOverlayError(f"{path}: expected a mapping with keys {list(TOP_KEYS)}")
    missing = [k for k in TOP_KEYS if k not in doc]
    unknown = sorted(map(short, set(doc) - set(TOP_KEYS)))
    if missing or unknown:
        raise GoldOverlayError(f"{path}: missing keys {missing}, unknown keys {unknown} (expected {list(TOP_KEYS)})")
    version = doc["version"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise GoldOverlayError(f"{path}: 'version' must be a positive integer, got {short(version)}")
    if not isinstance(doc["entries"], list) or not doc["entries"]:
        raise GoldOverlayError(f"{path}: 'entries' must be a non-empty list")
    entries, seen = [], {}
    for i, raw in enumerate(doc["entries"]):
        where = f"{path}: entry {i + 1}" + (
            f" (question {short(raw['question'])})" if isinstance(raw, dict) and "question" in raw else ""
        )
        e = _entry(raw, where)
        if e.question in seen:
            raise GoldOverlayError(f"{where}: question {e.question} is already corrected by entry {seen[e.question]}")
        seen[e.question] = i + 1
        entries.append(e)
    top = {k: _text(doc[k], str(path), k) for k in ("benchmark", "conversation", "name", "description", "source")}
    return Overlay(
        path,
        top["benchmark"],
        top["conversation"],
        top["name"],
        version,
        top["description"],
        top["source"],
        hashlib.sha256(blob).hexdigest(),
        tuple(entries),
    )


def check_target(overlay: Overlay, benchmarks: list[str], conversations: list[str], data: str | Path = "?") -> None:
    """The overlay names a benchmark and a conversation that exist: a misspelt one would otherwise match no run,
    and every run would be scored on the standard gold while the user believes it corrected."""
    if overlay.benchmark not in benchmarks:
        raise GoldOverlayError(f"{overlay.path}: benchmark {short(overlay.benchmark)} is unknown; known: {benchmarks}")
    if overlay.conversation not in conversations:
        raise GoldOverlayError(
            f"{overlay.path}: conversation {short(overlay.conversation)} is not in {data} "
            f"({overlay.benchmark}); known: {conversations}"
        )


def check(overlay: Overlay, benchmark: str, conversation: str, qa, data_file: str | Path = "?") -> None:
    """The overlay fits this conversation of this benchmark file: every question exists, and its gold (and
    question text, when given) is the one the overlay says it corrects."""
    if (overlay.benchmark, overlay.conversation) != (benchmark, conversation):
        raise GoldOverlayError(
            f"{overlay.path}: corrects {short(overlay.benchmark)} {short(overlay.conversation)}, but the run "
            f"scores {benchmark} {conversation}"
        )
    for i, e in enumerate(overlay.entries):
        where = f"{overlay.path}: entry {i + 1} (question {e.question})"
        if e.question > len(qa):
            raise GoldOverlayError(
                f"{where}: {data_file} {conversation} has only {len(qa)} questions (known: 1 to {len(qa)})"
            )
        q = qa[e.question - 1]
        if str(q.answer).strip() != e.original_gold:
            raise GoldOverlayError(
                f"{where}: original_gold {short(e.original_gold)} does not match the gold in "
                f"{data_file} ({conversation} qa[{e.question - 1}]): {short(str(q.answer).strip())}"
            )
        if e.question_text is not None and q.question.strip() != e.question_text:
            raise GoldOverlayError(
                f"{where}: question_text {short(e.question_text)} does not match {data_file} "
                f"({conversation} qa[{e.question - 1}]): {short(q.question.strip())}"
            )


def positions(rows: list[dict], qa) -> list[int]:
    """Each answer row's 1-based number in the conversation's qa list, found by (question, category) in file
    order (a question asked twice takes its occurrences in turn); rows of a cut or stratified run match too."""
    pending: dict[tuple[str, int], deque] = defaultdict(deque)
    for n, q in enumerate(qa, 1):
        pending[(q.question, int(q.category))].append(n)
    out = []
    for r in rows:
        key = (r["question"], int(r["category"]))
        if not pending[key]:
            raise DataError(
                f"answers row {r.get('qid')}: question {r['question']!r} (category {r['category']}) is "
                "not in the conversation's QA list"
            )
        out.append(pending[key].popleft())
    return out


def apply(rows: list[dict], overlay: Overlay, qa, score) -> list[dict]:
    """Answer rows scored under the overlay: dropped questions left out; a corrected gold replaces `gold`
    (the old one kept as `gold_original`) and `f1` is rescored with `score(answer, gold, category)`. A judge
    verdict given against the old gold no longer holds: it becomes None, flagged `judge_stale`."""
    fixes = overlay.by_question()
    out = []
    for r, n in zip(rows, positions(rows, qa)):
        e = fixes.get(n)
        if e is None:
            out.append(r)
        elif not e.dropped:
            stale = r.get("judge_correct") is not None
            out.append(
                r
                | {
                    "gold": e.corrected_gold,
                    "gold_original": r["gold"],
                    "f1": score(r["answer"], e.corrected_gold, r["category"]),
                    **({"judge_correct": None, "judge_stale": True} if stale else {}),
                }
            )
    return out
