"""The search agent: a cited answer from a fixed store through a read-only harness.

Programmatic searcher: survey the tree once, grep the question's distinctive tokens, score lines by how many
rare tokens they hit, read the best lines and their dated section, and extract a short answer with citations.
It uses whichever read tools the harness offers: grep/toc/view (Center), search (Center+BM25), bash (Shell),
retrieve (chunk retrieval), or none (closed-book).

Citations are checked against the store the answer came from (`check_citations`): a model may cite files or
sections that do not exist, and such a citation must neither count as one nor look like one.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass

from tailmem.fsmem.agents import loop
from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.agents.builder import survey
from tailmem.fsmem.agents.models import search_prompt
from tailmem.fsmem.dates import DAY
from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.store import Store
from tailmem.fsmem.terms import STOPWORDS, stem, terms, words
from tailmem.fsmem.tools.base import Harness
from tailmem.fsmem.tools.reading import headings
from tailmem.roles import SEARCHER, programmatic_agent

AGENT = programmatic_agent(SEARCHER)
QUESTION_WORDS = {
    "what",
    "when",
    "where",
    "who",
    "which",
    "how",
    "why",
    "did",
    "does",
    "do",
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "would",
    "could",
    "can",
    "will",
    "kind",
    "type",
    "many",
    "much",
}
YES_NO = ("is ", "are ", "does ", "do ", "did ", "would ", "could ", "can ", "has ", "have ", "was ", "will ")
LIST_CUES = ("what are", "which", "what kind", "what type", "what things", "what activities", "what items")
HIT = re.compile(r"^(?:\./)?([^:\n]+):(\d+):(.*)$")
LOCATOR = re.compile(r"\[(D\d+:\d+)\]")
RELATIVE = [
    ("yesterday", "the day before"),
    ("last weekend", "the weekend before"),
    ("last week", "the week before"),
    ("last month", "the month before"),
    ("last year", "the year before"),
    ("next month", "the month after"),
    ("this weekend", "the weekend of"),
    ("next week", "the week after"),
]


@dataclass(frozen=True)
class Answer:
    text: str  # what the metric scores
    citations: tuple[str, ...]
    raw: str  # the agent's full reply
    episode: Episode


@dataclass(frozen=True)
class Line:
    path: str
    number: int
    text: str
    score: float = 0.0


def keywords(question: str) -> list[str]:
    seen, out = set(), []
    for w in words(question):
        if w in STOPWORDS or w in QUESTION_WORDS or len(w) < 3 or w in seen:
            continue
        seen.add(w)
        out.append(w)
    return out


def _probe_grep(harness: Harness, word: str) -> list[Line]:
    pat = rf"\b{re.escape(stem(word)[: max(4, len(stem(word)))])}"
    if "grep" in harness.tools:
        out = harness.call("grep", {"pattern": pat, "max_results": 200}).output
    else:
        # sorted by file and line: `grep -r` walks folders in directory order, which differs between copies
        cmd = f"grep -rniE {shlex.quote(pat)} . | sort -t: -k1,1 -k2,2n | head -200"
        out = harness.call("bash", {"command": cmd}).output
    hits = []
    for raw in out.splitlines():
        m = HIT.match(raw)
        if m:
            hits.append(Line(m.group(1), int(m.group(2)), m.group(3)))
    return hits


def _section_date(harness: Harness, line: Line) -> str:
    """The date of the dated heading above a line (or the file's first dated line)."""
    if "toc" in harness.tools:
        out = harness.call("toc", {"path": line.path}).output
        heads = [(int(m.group(1)), m.group(2)) for m in re.finditer(r"^\s+(\d+) #+ (.*)$", out, re.M)]
    else:
        out = harness.call("bash", {"command": f"grep -n '^#' {shlex.quote(line.path)}"}).output
        heads = [(int(m.group(1)), m.group(2)) for m in re.finditer(r"^(\d+):#+ (.*)$", out, re.M)]
    above = [t for n, t in heads if n <= line.number and DAY.search(t)]
    m = DAY.search(above[-1]) if above else None
    return m.group(1) if m else ""


def _read(harness: Harness, line: Line) -> None:
    if "view" in harness.tools:
        harness.call("view", {"path": line.path, "view_range": [line.number, line.number]})
    else:
        harness.call("bash", {"command": f"sed -n '{line.number}p' {shlex.quote(line.path)}"})


def _statement(text: str) -> str:
    text = LOCATOR.sub("", text).strip().lstrip("-").strip()
    return re.sub(r"^[A-Z][\w .'-]{0,30}:\s", "", text)


def extract(question: str, best: list[Line], date: str) -> str:
    """A short answer from the best lines: a date for 'when', yes/no, else the words the question lacks."""
    q = question.lower()
    if not best:
        return "No information available"
    top = _statement(best[0].text)
    if q.startswith("when") or "what date" in q or "what year" in q or "what month" in q:
        low = top.lower()
        for cue, phrase in RELATIVE:
            if cue in low and date:
                return f"{phrase} {date}"
        return date or top
    if q.startswith(YES_NO):
        return "Yes"
    qterms = set(terms(question))

    def residual(text: str) -> str:
        sentences = re.split(r"(?<=[.!?])\s+", _statement(text))
        sent = max(sentences, key=lambda s: len(set(terms(s)) & qterms))
        kept = [
            w
            for w in re.findall(r"[A-Za-z0-9']+", sent)
            if w.lower() not in STOPWORDS and stem(w.lower()) not in qterms and w.lower() not in QUESTION_WORDS
        ]
        return " ".join(kept[:10])

    if q.startswith(LIST_CUES):
        parts = [residual(b.text) for b in best[:3]]
        return ", ".join(p for p in parts if p) or top
    return residual(best[0].text) or top


def answer_programmatic(question: str, harness: Harness) -> Answer:
    meter = Meter(SEARCHER, AGENT, harness)
    if not harness.tools:  # closed-book: no store to read
        meter.rounds += 1
        return Answer("No information available", (), "No information available", meter.close())
    kws = keywords(question)
    if "retrieve" in harness.tools:
        meter.rounds += 1
        out = harness.call("retrieve", {"query": question}).output
        lines, chunk_date = [], {}
        current, date = "", ""
        for raw in out.splitlines():
            if raw.startswith("chunks/"):
                current = raw.strip()
            elif raw.startswith("Session "):
                m = DAY.search(raw)
                date = m.group(1) if m else ""
            elif LOCATOR.match(raw):
                lines.append(Line(current, len(lines) + 1, raw))
                chunk_date[(current, len(lines))] = date
        qterms = set(terms(question))
        scored = sorted(
            (Line(ln.path, ln.number, ln.text, len(set(terms(ln.text)) & qterms)) for ln in lines),
            key=lambda ln: -ln.score,
        )
        best = [ln for ln in scored if ln.score > 0][:3]
        date = chunk_date.get((best[0].path, best[0].number), "") if best else ""
    else:
        meter.rounds += 1
        survey(harness)  # once: `view ""`, or its bash equivalent on the Shell harness
        if "search" in harness.tools:
            harness.call("search", {"query": question, "k": 5})
        meter.rounds += 1
        hits_by_word = {w: _probe_grep(harness, w) for w in kws[:6]}
        total = max(1, sum(len(h) for h in hits_by_word.values()))
        scores: dict[tuple[str, int], float] = {}
        texts = {}
        for w, hits in hits_by_word.items():
            if not hits:
                continue
            weight = math.log(1 + total / len(hits))
            for h in {(x.path, x.number): x for x in hits}.values():
                scores[(h.path, h.number)] = scores.get((h.path, h.number), 0.0) + weight
                texts[(h.path, h.number)] = h.text
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        seen_text, best = set(), []
        for (path, number), score in ranked:
            key = LOCATOR.search(texts[(path, number)])
            key = key.group(1) if key else texts[(path, number)]
            if key in seen_text:
                continue
            seen_text.add(key)
            best.append(Line(path, number, texts[(path, number)], score))
            if len(best) == 3:
                break
        date = ""
        if best:
            meter.rounds += 1
            for b in best:
                _read(harness, b)
            date = _section_date(harness, best[0])
    text = extract(question, best, date)
    chunked = "retrieve" in harness.tools  # a chunk is cited by its file: its line numbers count the tool output
    cites = tuple(
        (b.path if chunked else f"{b.path}:{b.number}") + (f" [{m.group(1)}]" if (m := LOCATOR.search(b.text)) else "")
        for b in best
    )
    raw = f"ANSWER: {text}\nCITATIONS: {'; '.join(cites)}"
    return Answer(text, cites, raw, meter.close())


def parse_reply(reply: str) -> tuple[str, tuple[str, ...]]:
    """Split a model reply into the answer (scored) and its citations, following the search prompt's format."""
    m = re.search(r"ANSWER:\s*(.*?)(?:\n\s*CITATIONS:|\Z)", reply, re.S | re.I)
    text = (m.group(1) if m else reply).strip()
    c = re.search(r"CITATIONS:\s*(.*)\Z", reply, re.S | re.I)
    cites = tuple(x.strip() for x in re.split(r"[;\n]", c.group(1)) if x.strip()) if c else ()
    return text, tuple(x for x in cites if x.lower().rstrip(".") != "none")  # closed book: "CITATIONS: none"


def answer_model(client, question: str, harness: Harness, form: str, max_rounds: int) -> Answer:
    system = search_prompt(client, form, harness)  # compact for the embedded model (agents.models)
    reply, ep, _ = loop.run(client, SEARCHER, system, f"Question: {question}", harness, max_rounds)
    text, cites = parse_reply(reply)
    return Answer(text, cites, reply, ep)


# -- citations against the store ------------------------------------------------------------------------------
MD_PATH = re.compile(r"\.md(?=$|[\s:#`'\"),;\]])")
LINE_ANCHOR = re.compile(r"(?::\s*L?|#L)(\d+)(?:\s*-\s*L?(\d+))?")
SHELL_ROOT = "/memory/"  # where the Shell harness mounts the store


@dataclass(frozen=True)
class CitationCheck:
    """One citation as checked against the store: `problem` says why it names nothing there (None: it is valid)."""

    text: str
    path: str | None  # the store file it names, when it names one
    problem: str | None
    lines: tuple[int, int] | None = None  # the lines it names (first, last; 1-based, frontmatter counted)

    @property
    def valid(self) -> bool:
        return self.problem is None


def _slug(title: str) -> str:
    """A heading as a markdown anchor (`## 25 May, 2023` -> `25-may-2023`)."""
    return re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", title.lower()).strip())


def _has_section(text: str, anchor: str) -> bool:
    """Whether `path#anchor` names a section: a heading as read_section finds it (exact, else substring, any
    case), its markdown anchor, or a number n for the n-th heading."""
    want = anchor.lstrip("#").strip().lower()
    titles = [t.lower() for _, _, t in headings(text)]
    if want.isdigit():
        return want in titles or 1 <= int(want) <= len(titles)
    return not want or any(t == want or want in t or _slug(t) == want for t in titles)


def _file_text(store: Store, path: str) -> str | None:
    try:
        return store.read(path)
    except (ToolError, OSError):
        return None


def check_citation(store: Store, text: str) -> CitationCheck:
    """Whether a citation names an existing file of the store and, where it gives one, a line (`path:5`,
    `path:5-7`, `path#L5`) or section (`path#heading`) that file has. Locators (`[D3:1]`) after it are not
    anchors. Lenient on form (backticks, a leading `/` or `/memory/`), strict on existence."""
    t = text.strip().rstrip(".")
    m = MD_PATH.search(t)
    if not m:
        return CitationCheck(text, None, "names no .md file")
    named, rest = t[: m.end()].strip("`'\"( "), t[m.end() :].lstrip("`'\")")
    for path in dict.fromkeys((named, named.split()[-1])):  # "see people/a.md:3" names people/a.md
        path = path[len(SHELL_ROOT) :] if path.startswith(SHELL_ROOT) else path.lstrip("/")
        body = _file_text(store, path)
        if body is not None:
            path = store.relpath(path)
            break
    else:
        return CitationCheck(text, None, f"no file {named!r} in the store")
    if line := LINE_ANCHOR.match(rest):
        lo, hi, n = int(line.group(1)), int(line.group(2) or line.group(1)), len(body.splitlines())
        if not 1 <= lo <= hi <= n:
            return CitationCheck(text, path, f"{path}: no line {line.group(0).lstrip(':#')} (it has {n})")
        return CitationCheck(text, path, None, (lo, hi))
    elif rest.startswith("#"):
        anchor = rest[1:].split(" [")[0].strip()
        if not _has_section(body, anchor):
            return CitationCheck(text, path, f"{path} has no section {anchor!r}")
    return CitationCheck(text, path, None)


def check_citations(store: Store, citations) -> tuple[CitationCheck, ...]:
    """Each citation of an answer, in order, against the store it was answered from."""
    return tuple(check_citation(store, c) for c in citations)


INVALID_CITATIONS_NOTE = (
    "`invalid citations` = citations naming no file of the store, or a line or section the "
    "file does not have (fsmem.agents.searcher.check_citations), summed over the row's answers; "
    "the judge is never shown them as cited text."
)


def invalid_citation_count(rows) -> float:
    """The invalid citations of answer records (`invalid_citations`); NaN if a record was never checked (written
    before the field existed), since 0 would claim its citations were found."""
    values = [r.get("invalid_citations") for r in rows]
    if any(v is None or v != v for v in values):
        return math.nan
    return int(sum(values))
