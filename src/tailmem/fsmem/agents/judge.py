"""The judge: correctness 0/1 against the gold answer, and citation support 0 / 0.5 / 1 from the cited files.
Model-only: offline runs are scored by the benchmark's own metric and leave the judge columns empty. A reply the
judge's JSON rule cannot read scores None and leaves the mean, so each is counted (`Verdict.unparsed`) and logged:
a run where every reply was unreadable must not look like a run with a judged mean."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from tailmem.fsmem.agents.accounting import Meter
from tailmem.fsmem.agents.models import compact, prompt
from tailmem.fsmem.agents.searcher import check_citations
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.reading import numbered
from tailmem.roles import JUDGE

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verdict:
    correct: float | None
    citation: float | None
    tokens: int
    episode: dict | None = None  # the judge's accounting (Episode.to_json), for the cost tables
    unparsed: int = 0  # of the two replies (correctness, citation), those the rule could not read


def _score(text: str, key: str, allowed: tuple[float, ...]) -> float | None:
    m = re.search(r"\{.*\}", text or "", re.S)
    try:
        value = float(json.loads(m.group(0))[key]) if m else None
    except (ValueError, KeyError, TypeError):
        value = None
    return value if value in allowed else None


CITED_CHARS = 12_000  # the cited contents the judge reads
CITED_CHARS_COMPACT = 3_000  # the embedded model's (about 800 tokens: 3,000 characters cost it ~30 s per verdict)
CITED_LINES_AROUND = 4  # the compact judge reads a line citation as the cited lines and this many either side


def cited_text(
    store: Store | None, citations: tuple[str, ...], limit: int = CITED_CHARS, around: int | None = None
) -> str:
    """The contents the citations point at, resolved through the store's path gate. An invalid citation (no such
    file, line or section: searcher.check_citations) shows no contents, only that it was not found: a citation
    of what does not exist is itself evidence of bad attribution. `around`: a citation naming lines shows those
    lines and `around` either side, numbered, instead of the file from its top. Why: the embedded judge reads
    the first 3,000 characters of a file, so a cited line further down was never shown to it (a LoCoMo session
    file is 3-10k characters), and the whole file costs it ~30 s a verdict."""
    if store is None:
        return "\n".join(citations)
    parts = []
    for c in check_citations(store, citations):
        if not c.valid:
            parts.append(f"== {c.text} == (not found in the store: {c.problem})")
        elif around is not None and c.lines is not None:
            lines = store.read(c.path).splitlines()
            lo, hi = max(1, c.lines[0] - around), min(len(lines), c.lines[1] + around)
            parts.append(f"== {c.path} (lines {lo}-{hi}) ==\n{numbered(lines[lo - 1 : hi], lo)}")
        else:
            parts.append(f"== {c.path} ==\n{store.read(c.path)}")
    return "\n".join(parts)[:limit]


def judge(client, question: str, gold: str, answer: str, citations: tuple[str, ...], store: Store | None) -> Verdict:
    meter = Meter(JUDGE, str(client.model), None)
    r1 = client.chat(
        [{"role": "user", "content": prompt("judge_correctness", question=question, gold=gold, answer=answer)}]
    )
    meter.add_usage(r1.usage)
    small = compact(client)  # the embedded model reads ~30 tokens/s: a window around cited lines, 3,000 chars at most
    limit, around = (CITED_CHARS_COMPACT, CITED_LINES_AROUND) if small else (CITED_CHARS, None)
    r2 = client.chat(
        [
            {
                "role": "user",
                "content": prompt(
                    "judge_citation",
                    question=question,
                    answer=answer,
                    citations="; ".join(citations),
                    cited=cited_text(store, citations, limit, around),
                ),
            }
        ]
    )
    meter.add_usage(r2.usage)
    ep = meter.close()
    correct, citation = _score(r1.content, "correct", (0.0, 1.0)), _score(r2.content, "citation", (0.0, 0.5, 1.0))
    for reply, value, key in ((r1.content, correct, "correct"), (r2.content, citation, "citation")):
        if value is None:
            log.warning(
                "judge %s: unparsable %s reply %r (expected JSON with %r); left out of the mean and "
                "counted as judge_unparsed",
                client.model,
                key,
                (reply or "")[:120],
                key,
            )
    return Verdict(
        correct,
        citation,
        ep.prompt_tokens + ep.completion_tokens,
        ep.to_json(),
        int(correct is None) + int(citation is None),
    )
