"""The reorganizer: rewrites a verbatim store in place (condense | preserve).

A model reorganizer works through the build harness (management tools, + ranked search, or bash). The
programmatic one always uses the management tools (`variants.build` hands it those and records it in
build.json): its rule-based rewrite is a fixed function of the store, whatever tools carry it out.
Programmatic: moves every session file's turns into `people/<speaker>.md` under dated headings and deletes the
session files. `preserve` keeps every turn verbatim; `condense` keeps only substantive turns, cut to the
sentences that carry names, numbers or the first statement (the lossy default the paper describes).
"""

from __future__ import annotations

import re
from collections import defaultdict

from tailmem.fsmem.agents import loop
from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.agents.builder import slug, survey, system_prompt
from tailmem.fsmem.terms import terms
from tailmem.fsmem.tools.base import Harness
from tailmem.roles import BUILDER, programmatic_agent

AGENT = programmatic_agent("reorganizer")
TURN = re.compile(r"^\[(D\d+:\d+)\] ([^:]+): (.*)$")
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def condense(text: str) -> str:
    sentences = SENTENCE.split(text)
    keep = [s for i, s in enumerate(sentences) if i == 0 or re.search(r"\d|(?<!^)\b[A-Z][a-z]+", s)]
    return " ".join(keep)


def reorganize_programmatic(harness: Harness, mode: str, session_files: list[str]) -> Episode:
    meter = Meter(BUILDER, AGENT, harness)
    meter.rounds += 1
    harness.call("view", {"path": ""})
    meter.rounds += 1
    filed: dict[tuple[str, str], list[str]] = defaultdict(list)
    speakers = {}
    for path in session_files:
        text = harness.call("view", {"path": path}).output
        heading = ""
        for raw in text.splitlines():
            line = raw.split("\t", 1)[1] if "\t" in raw else raw
            if line.startswith("# "):
                heading = line[2:].strip()
            m = TURN.match(line)
            if not m:
                continue
            locator, speaker, said = m.groups()
            if mode == "condense":
                if len(terms(said)) < 4:
                    continue
                said = condense(said)
            speakers[slug(speaker)] = speaker
            filed[(slug(speaker), heading)].append(f"- [{locator}] {speaker}: {said}")
    meter.rounds += 1
    for (who, heading), lines in filed.items():
        harness.call(
            "append_section",
            {
                "path": f"people/{who}.md",
                "heading": heading,
                "text": "\n".join(lines),
                "description": f"What {speakers[who]} said, did and shared, by date",
            },
        )
    meter.rounds += 1
    for path in session_files:
        harness.call("delete", {"path": path})
    return meter.close()


def reorganize_model(client, harness: Harness, mode: str, max_rounds: int, passes: int) -> list[Episode]:
    rule = (
        "Preserve every factual detail and every source locator; restructure without dropping content."
        if mode == "preserve"
        else ""
    )
    episodes = []
    for n in range(1, passes + 1):
        current = survey(harness)
        system = system_prompt(harness, "reorganize", strategy_rule=rule)
        user = f"Pass {n} of {passes}. Current store:\n{current}\n\nReorganize it in place; reply DONE when it needs no more work."
        text, ep, _ = loop.run(
            client, BUILDER, system, user, harness, max_rounds, final_answer_on_cap=False, task="restructure"
        )  # paper 2's restructuring output cap (C.1)
        episodes.append(ep)
        if text.strip().upper().startswith("DONE") and ep.tool_calls == 0:
            break
    return episodes
