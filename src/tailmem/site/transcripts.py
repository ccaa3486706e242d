"""Model transcripts read from the LLM call cache (`tailmem.llm.cache`): the cache is the one copy of every request
and answer, so the site looks a call up there instead of asking the stages to save transcripts twice.

Artifacts do not store request hashes, so a call is found by its role, stage and text it must contain (the question,
a memory block): the request is canonical JSON, so the text is searched in its JSON-escaped form. A tool loop sends
one request per round, each holding the rounds before it; the last one (most messages) is the whole transcript.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Call:
    hash: str
    role: str
    stage: str
    model: str
    messages: list
    response: dict
    prompt_tokens: int
    completion_tokens: int
    created: float

    @property
    def turns(self) -> list[dict]:
        """The request's messages then the answer, each {role, content, tool_calls}."""
        out = []
        for m in self.messages:
            out.append(
                {
                    "role": m.get("role", "?"),
                    "content": _text(m.get("content")),
                    "tool_calls": m.get("tool_calls") or [],
                    "name": m.get("name") or m.get("tool_call_id"),
                }
            )
        out.append(
            {
                "role": "assistant (answer)",
                "content": self.response.get("content") or "",
                "tool_calls": self.response.get("tool_calls") or [],
                "name": None,
            }
        )
        return out


def _text(content) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def _escaped(text: str) -> str:
    """`text` as it appears inside the canonical JSON of a request (`tailmem.llm.cache.canonical`)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


class Transcripts:
    """Read-only lookups in one call cache; a missing cache finds nothing."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path else None
        self._conn = None
        if self.path is not None and self.path.is_file():
            self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)

    @property
    def available(self) -> bool:
        return self._conn is not None

    def find(self, role: str, stage: str | None, needles: list[str]) -> list[Call]:
        """Calls of `role` (and `stage`, when given) whose request holds every needle, oldest first."""
        if self._conn is None or not needles:
            return []
        sql = (
            "SELECT hash, role, stage, model, request, response, prompt_tokens, completion_tokens, created "
            "FROM calls WHERE role = ?"
        )
        args: list = [role]
        if stage:
            sql += " AND stage = ?"
            args.append(stage)
        for n in needles:
            sql += " AND instr(request, ?) > 0"
            args.append(_escaped(n))
        sql += " ORDER BY created"
        try:
            rows = self._conn.execute(sql, args).fetchall()
        except sqlite3.Error:
            return []
        out = []
        for h, r, s, model, request, response, pt, ct, created in rows:
            try:
                req, resp = json.loads(request), json.loads(response)
            except ValueError:
                continue
            out.append(Call(h, r, s, model, req.get("messages") or [], resp, int(pt), int(ct), float(created)))
        return out

    def transcript(self, role: str, stage: str | None, needles: list[str]) -> tuple[Call | None, int]:
        """The fullest matching call (most messages; the latest on a tie) and how many calls matched."""
        calls = self.find(role, stage, needles)
        if not calls:
            return None, 0
        return max(calls, key=lambda c: (len(c.messages), c.created)), len(calls)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
