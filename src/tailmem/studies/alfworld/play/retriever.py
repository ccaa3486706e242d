"""The retrieval (search) role of the skill setting: from the store, the guidance the executor sees for a task.

The executor cannot open files; retrieval reads through the fsmem read tools and hands over text. Episode log:
BM25 over whole files (top k, read in full). Curated stores: route by name to the family's skill and lessons
files (plus the object's section of the observations memory). Guidance synthesis reads the same as curated
skills + memory, then writes a short task-specific guidance with its sources.

`retrieve_model`: a search-agent episode over the store through the Center harness (read-only tools). The model
chooses what to read; what the executor gets keeps the variants apart as above: the first k files the agent
opened, verbatim, except for guidance synthesis, whose guidance is the agent's own written answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.fsmem.agents.accounting import Episode
from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.ranked import FileIndex
from tailmem.fsmem.tools.reading import read_section
from tailmem.roles import SEARCHER
from tailmem.studies.alfworld.play.games import SHORT
from tailmem.studies.alfworld.play.goal import Goal
from tailmem.studies.alfworld.play.guidance import priors

NO_EXPERIENCE = "No relevant experience in memory."


@dataclass(frozen=True)
class Retrieved:
    guidance: str
    chars_read: int  # characters of store text the retriever read (its cost proxy)
    files: tuple[str, ...]
    episode: Episode | None = None  # the search agent's accounting (tokens, tool calls) when a model retrieved


def retrieve(variant: str, store: Store | None, goal: Goal, family: str, k: int = 3) -> Retrieved:
    if variant == "no_store" or store is None or not store.files():
        return Retrieved("", 0, ())
    listing = "\n".join(f"{e.path} - {e.description}" for e in store.entries())
    read = len(listing)
    if variant == "episode_log":
        hits = [p for p, _ in FileIndex(store).search(goal.text, k=k)]
        texts = [store.read(p) for p in hits]
        read += sum(len(t) for t in texts)
        return Retrieved("\n\n".join(texts), read, tuple(hits))
    short = SHORT[family]
    files = [p for p in (f"skills/{short}.md", f"notes/{short}-lessons.md") if (store.root / p).exists()]
    texts = [store.read(p) for p in files]
    if variant in ("curated_skills_memory", "guidance_synthesis") and (store.root / "memory/objects.md").exists():
        try:
            texts.append(read_section(store, "memory/objects.md", goal.obj))
            files.append("memory/objects.md")
        except ToolError:
            pass
    read += sum(len(t) for t in texts)
    raw = "\n\n".join(texts)
    if variant != "guidance_synthesis":
        return Retrieved(raw, read, tuple(files))
    return Retrieved(synthesise(raw, goal, files), read, tuple(files))


def synthesise(raw: str, goal: Goal, files: list[str]) -> str:
    """Short guidance for this task from what was read; the no-experience sentence if nothing applies."""
    p = priors(raw, goal)
    lines = []
    if p.search:
        lines.append(f"- {goal.obj} found at: {', '.join(p.search[:4])} (look there first).")
    if p.appliance and goal.verb:
        lines.append(f"- {goal.verb} the {goal.obj} with the {p.appliance}, then go to the {goal.target}.")
    if goal.tool:
        lines.append(f"- take the {goal.obj} to the {goal.tool} and use the {goal.tool}.")
    if not lines:
        return NO_EXPERIENCE
    return "\n".join(lines + [f"(from {', '.join(files)})"])


def retrieve_model(
    client, variant: str, store: Store | None, goal: Goal, family: str, max_rounds: int, k: int = 3
) -> Retrieved:
    """Guidance for the goal from one search-agent episode; `files` are the store files its tools opened."""
    from tailmem.fsmem.agents import loop
    from tailmem.fsmem.tools.center import center
    from tailmem.studies.alfworld.play.curator import prompt

    if variant == "no_store" or store is None or not store.files():
        return Retrieved("", 0, ())
    harness = center(store)
    listing = harness.call("view", {"path": ""}).output
    start = len(harness.trace)
    system = prompt("retriever", tools=", ".join(harness.tools), no_experience=NO_EXPERIENCE)
    user = (
        f"Goal of the next task: {goal.text}\nGoal family: {SHORT[family]}\n\n"
        f"Store (names and descriptions):\n{listing}\n\nWrite the guidance for this task."
    )
    text, episode, _ = loop.run(client, SEARCHER, system, user, harness, max_rounds)
    known = set(store.files())
    opened = []
    for _, args, ok in harness.trace[start:]:
        path = str(args.get("path", "")).strip("/")
        if ok and path in known and path not in opened:
            opened.append(path)
    read = len(listing) + episode.chars_read
    if variant == "guidance_synthesis":
        return Retrieved(text.strip(), read, tuple(opened), episode)
    handed = opened[:k]
    return Retrieved("\n\n".join(store.read(p) for p in handed), read, tuple(handed), episode)
