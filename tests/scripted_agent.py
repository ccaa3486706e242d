"""A scripted stand-in for a chat model behind the test server (`llm_testkit.FakeServer(agent=...)`).

It reads each OpenAI request the way a model would — system prompt, offered tools, transcript — and answers
with real tool calls: the management agent files every turn of its chunk under the speaker's file (through
`append_section`, or `bash` when that is the only tool), the search agent greps a distinctive word of the
question and answers with the line it found and its citation, the judge compares the answer with the gold. So
the model paths of the filesystem stages do real work on real stores without a real model.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex

STOP = {
    "what",
    "when",
    "where",
    "which",
    "does",
    "did",
    "have",
    "with",
    "that",
    "this",
    "from",
    "about",
    "their",
    "they",
    "would",
    "could",
    "there",
    "were",
    "your",
    "answer",
    "options",
    "letter",
    "best",
    "option",
}
TURN = re.compile(r"^\[([A-Za-z]*\d+:\d+)\] ([^:]+): (.*)$")
HIT = re.compile(r"^(?:\./)?([^:\s]+\.md):(\d+):(.*)$")


def _call(name: str, arguments: dict, n: int) -> dict:
    digest = hashlib.sha256(json.dumps([name, arguments, n], sort_keys=True).encode()).hexdigest()[:10]
    return {"id": f"call_{digest}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _tool_message(calls: list[dict]) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _text(content: str) -> dict:
    return {"role": "assistant", "content": content}


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "unknown"


def _build(user: str, tools: set[str]) -> dict:
    """File each turn of the chunk under `people/<speaker>.md`, one section per chunk header."""
    chunk = user.split("chunk to integrate:", 1)[-1].strip().splitlines()
    heading = chunk[0].split(", chunk")[0] if chunk else "Chunk"
    by_file: dict[str, list[str]] = {}
    for line in chunk[1:]:
        m = TURN.match(line.strip())
        if m:
            by_file.setdefault(f"people/{_slug(m.group(2))}.md", []).append(f"- {line.strip()}")
    calls = []
    for i, (path, lines) in enumerate(sorted(by_file.items())):
        text = "\n".join(lines)
        if "append_section" in tools:
            calls.append(
                _call(
                    "append_section",
                    {"path": path, "heading": heading, "text": text, "description": f"What {path[7:-3]} said, by date"},
                    i,
                )
            )
        elif "bash" in tools:
            cmd = (
                f"mkdir -p people; f={shlex.quote(path)}; [ -f \"$f\" ] || printf -- '---\\ndescription: %s\\n---\\n' "
                f'{shlex.quote("What " + path[7:-3] + " said, by date")} > "$f"; '
                f"printf '\\n## %s\\n%s\\n' {shlex.quote(heading)} {shlex.quote(text)} >> \"$f\""
            )
            calls.append(_call("bash", {"command": cmd}, i))
    return _tool_message(calls) if calls else _text("Nothing to file.")


def _search(question: str, tools: set[str], rounds: int) -> dict | None:
    """First round: one probe with the question's rarest-looking word through whichever tool is offered."""
    if rounds:
        return None
    ws = sorted(_words(question), key=len, reverse=True)
    word = ws[0] if ws else "the"
    if "grep" in tools:
        return _tool_message([_call("grep", {"pattern": f"(?i){word}"}, 0)])
    if "bash" in tools:
        return _tool_message([_call("bash", {"command": f"grep -rni -m 5 {shlex.quote(word)} . || true"}, 0)])
    if "search" in tools:
        return _tool_message([_call("search", {"query": question[:200]}, 0)])
    if "retrieve" in tools:
        return _tool_message([_call("retrieve", {"query": question[:200]}, 0)])
    return None


def _answer(question: str, found: str) -> dict:
    """Answer with the first hit line (or option best matching it) and cite it."""
    hits = [m for m in (HIT.match(line.strip()) for line in found.splitlines()) if m]
    options = re.findall(r"^\(([a-h])\) (.*)$", question, flags=re.M)
    if options:
        seen = set(_words(found))
        best = max(options, key=lambda o: len(set(_words(o[1])) & seen))
        return _text(f"ANSWER: ({best[0]})\nCITATIONS: " + "; ".join(f"{m.group(1)}:{m.group(2)}" for m in hits[:2]))
    if not hits:
        return _text("ANSWER: not found in memory\nCITATIONS:")
    path, line, text = hits[0].groups()
    said = text.split(": ", 1)[-1][:160]
    return _text(f"ANSWER: {said}\nCITATIONS: {path}:{line}")


def agent(body: dict) -> dict:
    """The assistant message for one chat-completions request."""
    messages = body["messages"]
    system = str(messages[0].get("content") or "")
    user = next(str(m.get("content") or "") for m in messages if m["role"] == "user")
    tools = {t["function"]["name"] for t in body.get("tools") or []}
    rounds = sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    if "memory store" in system and "maintain" in system:  # management agent
        return _build(user, tools) if rounds == 0 and tools else _text("Integrated the chunk.")
    if "reorganize" in system.lower():
        return _tool_message([_call("view", {"path": ""}, 0)]) if rounds == 0 and tools else _text("Reorganized.")
    if "Ground truth:" in user:  # correctness judge
        gold = re.search(r"Ground truth: (.*)", user).group(1)
        response = re.search(r"Response: (.*)", user).group(1)
        return _text(json.dumps({"correct": int(bool(set(_words(gold)) & set(_words(response))))}))
    if "grade the citations" in user or "grade the citations" in system:
        cited = user.split("Cited contents:", 1)[-1]
        return _text(json.dumps({"citation": 0 if "not found in the store" in cited or "==" not in cited else 1}))
    question = user.split("Question:", 1)[-1].strip()
    probe = _search(question.split("Options:")[0], tools, rounds) if tools else None
    if probe is not None:
        return probe
    if not tools:
        return _text("ANSWER: I do not know\nCITATIONS:")
    found = "\n".join(str(m.get("content") or "") for m in messages if m["role"] == "tool")
    return _answer(question, found)
