"""The management agent: integrates one chunk per build episode into a store through its build harness.

Programmatic builder: files every turn into `people/<speaker>.md` and into `topics/<topic>.md` for each topic
it mentions, under a dated heading per session, each line keeping its source locator (`[D3:1]`). Its plan does
not depend on the harness, only its expression does: on the file-tool harnesses (center, center_bm25) one
`append_section` call per file; on the Shell harness bash commands (heredocs appending or writing the file)
that leave byte-identical files, because both compute the new text with `management.section_text`.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shlex
from collections import defaultdict
from posixpath import dirname

from tailmem.fsmem.agents import loop
from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.agents.models import compact, prompt, role_prompt
from tailmem.fsmem.chunks import Chunk
from tailmem.fsmem.dates import session_heading
from tailmem.fsmem.errors import FsmemError
from tailmem.fsmem.store import render
from tailmem.fsmem.tools.base import Harness
from tailmem.fsmem.tools.management import section_text
from tailmem.fsmem.topics import topics_of
from tailmem.roles import BUILDER, programmatic_agent

AGENT = programmatic_agent(BUILDER)
# The Shell harness's answer to `view ""`: every file with its size and description (bash builtins per file; the
# sandbox has no /etc, so Debian's `awk` alternative link does not resolve there).
SURVEY = (
    "find . -type f -name '*.md' -printf '%P\\t%s\\n' | sort | while IFS=$'\\t' read -r f n; do d=; i=0; "
    "while [ $i -lt 5 ] && IFS= read -r l; do i=$((i+1)); case $l in description:*) d=${l#description: }; break;; "
    'esac; done < "$f"; printf \'%s  (%s bytes) - %s\\n\' "$f" "$n" "$d"; done'
)
READ_PAGE_BYTES = 9000  # base64 of a page stays under the sandbox's 16,000-character output cap
HASH_LINE = re.compile(r"^([0-9a-f]{64})  (.+)$")


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.strip().lower()).strip("_") or "unknown"


def is_shell(harness: Harness) -> bool:
    return "bash" in harness.tools


def survey(harness: Harness) -> str:
    """The store's names and descriptions, through whichever harness the agent has."""
    if is_shell(harness):
        return harness.call("bash", {"command": SURVEY}).output
    return harness.call("view", {"path": ""}).output


def _output(text: str) -> str:
    """A bash tool output without the `[exit n]` line and what follows it."""
    return text.rsplit("\n[exit ", 1)[0]


def write_commands(harness: Harness, path: str, data: str, mode: str) -> list[str]:
    """bash commands that leave `data` at `path`: mode `create` (never overwrites), `append` or `replace`.
    A quoted heredoc carries text verbatim; text it cannot carry (no final newline, NUL) goes as base64."""
    limit = getattr(harness, "max_command_chars", 4000) - 200
    q = shlex.quote(path)
    prefix = ""
    if mode == "create":
        prefix = (f"mkdir -p -- {shlex.quote(dirname(path))} && " if dirname(path) else "") + "set -C && "
    redirect = {"create": ">", "append": ">>", "replace": ">|"}[mode]  # >| overrides a noclobber set earlier
    delim = "TAILMEM_EOF"
    while f"\n{delim}\n" in f"\n{data}":
        delim += "_"
    if data.endswith("\n") and "\x00" not in data and len(data) <= limit:
        return [f"{prefix}cat {redirect} {q} <<'{delim}'\n{data}{delim}\n"]
    raw = data.encode("utf-8")
    step = max(3, int(limit * 0.74) // 3 * 3)  # base64 grows 4/3, plus a newline every 76 characters
    out, i = [], 0
    while i < len(raw) or not out:
        j = min(len(raw), i + step)
        while j < len(raw) and raw[j] & 0xC0 == 0x80:  # end parts on a character boundary: every part the
            j -= 1  # store syncs in between must be UTF-8 text
        part = base64.encodebytes(raw[i:j]).decode()
        first = not out
        out.append(f"{prefix if first else ''}base64 -d {redirect if first else '>>'} {q} <<'B64'\n{part}B64\n")
        i = j
    return out


def read_file(harness: Harness, path: str) -> str:
    """A file's text through bash, in base64 pages (the output cap would cut a plain `cat`)."""
    raw, offset = b"", 1
    while True:
        cmd = f"tail -c +{offset} -- {shlex.quote(path)} | head -c {READ_PAGE_BYTES} | base64 -w0"
        r = harness.call("bash", {"command": cmd})
        page = base64.b64decode(_output(r.output).strip() or b"")
        raw += page
        offset += len(page)
        if len(page) < READ_PAGE_BYTES:
            return raw.decode("utf-8", errors="replace")


def _append_through_bash(harness: Harness, heading: str, by_file: dict, descriptions: dict, known: dict) -> int:
    """Append each file's lines under `heading` with bash; returns the rounds used. `known` maps a path to the
    text this builder last left there; a sha256 probe checks it still holds, else the file is read back."""
    rounds = 1
    probe = harness.call(
        "bash", {"command": "sha256sum -- " + " ".join(map(shlex.quote, by_file)) + " 2>/dev/null; true"}
    )
    present = {m.group(2): m.group(1) for m in map(HASH_LINE.match, _output(probe.output).splitlines()) if m}
    stale = [
        p
        for p in by_file
        if p in present and hashlib.sha256(known.get(p, "\0").encode("utf-8")).hexdigest() != present[p]
    ]
    if stale:
        rounds += 1
        for p in stale:
            known[p] = read_file(harness, p)
    rounds += 1
    cmds = []
    for path, lines in by_file.items():
        old = known.get(path) if path in present else None
        new, _ = section_text(old, path, heading, "\n".join(lines), descriptions[path])
        if old is None:
            cmds += write_commands(harness, path, new, "create")
        elif new.startswith(old):
            cmds += write_commands(harness, path, new[len(old) :], "append")
        else:
            cmds += write_commands(harness, path, new, "replace")
        known[path] = new
    run_batched(harness, cmds)
    return rounds


def run_batched(harness: Harness, cmds: list[str]) -> None:
    """Run newline-terminated commands, as many per bash call as the command limit allows (one call per chunk
    as a rule, as a shell user would write it)."""
    limit, batch = getattr(harness, "max_command_chars", 4000), ""
    for c in cmds:
        if batch and len(batch) + len(c) > limit:
            harness.call("bash", {"command": batch})
            batch = ""
        batch += c
    if batch:
        harness.call("bash", {"command": batch})


def create_file(harness: Harness, path: str, description: str, content: str) -> None:
    """A new file, through `create` or through bash (byte-identical: both render the same frontmatter)."""
    if is_shell(harness):
        run_batched(harness, write_commands(harness, path, render(description, content), "create"))
    else:
        harness.call("create", {"path": path, "description": description, "content": content})


def integrate_programmatic(chunk: Chunk, harness: Harness, known: dict | None = None) -> Episode:
    """One build episode. `known` carries the Shell builder's record of what it wrote across episodes."""
    meter = Meter(BUILDER, AGENT, harness)
    meter.rounds += 1
    survey(harness)  # survey, as a model would
    heading = session_heading(chunk.session, chunk.date_time)
    by_file: dict[str, list[str]] = defaultdict(list)
    descriptions = {}
    for t in chunk.turns:
        line = f"- {t.render()}"
        person = f"people/{slug(t.speaker)}.md"
        by_file[person].append(line)
        descriptions[person] = f"What {t.speaker} said, did and shared, by date, with source locators"
        for topic in topics_of(t.text + " " + t.caption):
            path = f"topics/{topic}.md"
            by_file[path].append(line)
            descriptions[path] = f"Conversation facts about {topic}, by date, with source locators"
    if is_shell(harness):
        meter.rounds += _append_through_bash(harness, heading, by_file, descriptions, {} if known is None else known)
    elif "append_section" in harness.tools:
        meter.rounds += 1
        for path, lines in by_file.items():
            harness.call(
                "append_section",
                {"path": path, "heading": heading, "text": "\n".join(lines), "description": descriptions[path]},
            )
    else:
        raise FsmemError(f"build harness {harness.name!r} offers neither append_section nor bash")
    return meter.close()


# Prompts of the build roles on the Shell harness (configs/prompts/fsmem/): the store is at /memory, bash only.
SHELL_PROMPTS = {"management": "management_shell", "reorganize": "management_reorganize_shell"}
# The one tool the embedded builder is offered: its compact prompt files facts with append_section alone, and the
# schemas of the six other write tools were a third of its build prompt (the smoke slice's: 1,849 tokens, 1,209
# without them; ~23 s on a core whenever the disk holds no KV of the prefix). The reorganizer keeps them: it
# renames, merges and deletes.
COMPACT_BUILD_TOOLS = ("append_section",)


def system_prompt(harness: Harness, name: str = "management", client=None, **values) -> str:
    """A build role's prompt for this harness: the Shell variant, or the file-tool one naming its tools (its
    compact variant for the embedded model, `models.role_prompt`, when the harness offers append_section)."""
    if is_shell(harness):
        return prompt(SHELL_PROMPTS[name], **values)
    if "append_section" in harness.tools:
        offered = harness.small_tools() if compact(client) else list(harness.tools)
        return role_prompt(client, name, tools=", ".join(offered), **values)
    return prompt(name, tools=", ".join(harness.tools), **values)


def integrate_model(client, chunk: Chunk, harness: Harness, max_rounds: int) -> Episode:
    """One build episode of a model. Its first round must be a tool call that runs (`require_lookup`): a
    builder that only talks about filing files nothing. The embedded model is given the chunk's dated heading."""
    current = survey(harness)
    system = system_prompt(harness, client=client)
    user = f"Current store (names and descriptions):\n{current}\n\nNew chunk to integrate:\n{chunk.render()}"
    small_offer = None
    if compact(client) and "append_section" in harness.tools:
        user += f"\n\nHeading for this chunk's facts: {session_heading(chunk.session, chunk.date_time)}"
        small_offer = COMPACT_BUILD_TOOLS
    _, episode, _ = loop.run(
        client,
        BUILDER,
        system,
        user,
        harness,
        max_rounds,
        final_answer_on_cap=False,
        require_lookup=True,
        small_offer=small_offer,
    )
    return episode
