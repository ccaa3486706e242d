"""The management agent: integrates one chunk per build episode into a store through the management harness.

Programmatic builder: files every turn into `people/<speaker>.md` and into `topics/<topic>.md` for each topic
it mentions, under a dated heading per session, each line keeping its source locator (`[D3:1]`).
"""

from __future__ import annotations

from collections import defaultdict

from tailmem.fsmem.agents import loop
from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.agents.models import prompt
from tailmem.fsmem.chunks import Chunk
from tailmem.fsmem.dates import session_heading
from tailmem.fsmem.tools.base import Harness
from tailmem.fsmem.topics import topics_of

AGENT = "programmatic-builder"


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.strip().lower()).strip("_") or "unknown"


def integrate_programmatic(chunk: Chunk, harness: Harness) -> Episode:
    meter = Meter("builder", AGENT, harness)
    meter.rounds += 1
    harness.call("view", {"path": ""})  # survey, as a model would
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
    meter.rounds += 1
    for path, lines in by_file.items():
        harness.call("append_section", {"path": path, "heading": heading, "text": "\n".join(lines),
                                        "description": descriptions[path]})
    return meter.close()


def integrate_model(client, chunk: Chunk, harness: Harness, max_rounds: int) -> Episode:
    survey = harness.call("view", {"path": ""}).output
    system = prompt("management")
    user = f"Current store (names and descriptions):\n{survey}\n\nNew chunk to integrate:\n{chunk.render()}"
    _, episode, _ = loop.run(client, "builder", system, user, harness, max_rounds, final_answer_on_cap=False)
    return episode
