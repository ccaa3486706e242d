"""The curator (management role) of the skill setting: after each task it writes what the task taught into the
store, through the fsmem management tools. Every line it writes names its source task (`task k`), which is how
the no-leakage audit reads a store.

Variants (paper 2, section 3): `episode_log` keeps each trajectory verbatim; `curated_skills` distils successful
trajectories into one procedure per goal family and failures into lessons; `curated_skills_memory` and
`guidance_synthesis` also keep where objects of each kind were found.

Two curators: `ProgrammaticCurator` (deterministic, per variant) and `ModelCurator` (one management-agent episode
per task through the same tools, prompted per variant family from configs/prompts/alfworld/).
"""

from __future__ import annotations

import re

from tailmem.fsmem.agents import models
from tailmem.fsmem.agents.accounting import Episode
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.management import append_section, management
from tailmem.roles import BUILDER, programmatic_agent
from tailmem.settings.alfworld import VARIANTS  # the skill settings, named by the group's schema
from tailmem.studies.alfworld.play.episode import EpisodeRecord
from tailmem.studies.alfworld.play.games import SHORT
from tailmem.studies.alfworld.play.goal import kind, parse_goal

WITH_MEMORY = ("curated_skills_memory", "guidance_synthesis")
_TAKE = re.compile(r"^take ([a-z]+) \d+ from ([a-z]+) \d+$")
_VERB = re.compile(r"^(clean|heat|cool) ([a-z]+) \d+ with ([a-z]+) \d+$")
_USE = re.compile(r"^use ([a-z]+) \d+$")
_MOVE = re.compile(r"^move ([a-z]+) \d+ to ([a-z]+) \d+$")
SOURCE = re.compile(r"\btask (\d+)\b")
# The model curator's prompt per variant; the memory variants add the observations-memory fragment.
CURATOR_PROMPTS = {
    "episode_log": "curator_episode_log",
    "curated_skills": "curator_skills",
    "curated_skills_memory": "curator_skills",
    "guidance_synthesis": "curator_skills",
}
# Write tools and the argument that carries the text they write (the model curator's cost proxy).
WRITTEN_ARG = {"create": "content", "str_replace": "new_str", "insert": "text", "append_section": "text"}


def prompt(name: str, **values) -> str:
    """A prompt file from configs/prompts/alfworld/, with $placeholders filled."""
    return models.prompt(name, folder="alfworld", **values)


def render_trajectory(ep: EpisodeRecord, max_feedback: int = 300) -> str:
    lines = [f"> {a}\n{fb.strip()[:max_feedback]}" for a, fb in ep.trajectory]
    return "\n".join(lines)


def procedure(ep: EpisodeRecord) -> list[str]:
    """The successful trajectory's key steps, with instances generalised to kinds ("the object")."""
    g = parse_goal(ep.goal)
    steps = ["Search the receptacles for the object, opening closed ones; memory of visited places saves steps."]
    for a, _ in ep.trajectory:
        if m := _TAKE.match(a):
            steps.append(f"take the {m.group(1)} (the object) from the {m.group(2)} where it is.")
        elif m := _VERB.match(a):
            steps.append(f"go to the {m.group(3)} and {m.group(1)} the object with the {m.group(3)}.")
        elif m := _USE.match(a):
            steps.append(f"carry the object to the {m.group(1)} and use the {m.group(1)}.")
        elif m := _MOVE.match(a):
            steps.append(f"go to the {m.group(2)} and move the object to the {m.group(2)}.")
    if g.count > 1:
        steps.append("Repeat for the second object; do not take back the one already placed.")
    return steps


def found_at(ep: EpisodeRecord) -> dict[str, list[str]]:
    """Object kind -> receptacle kinds it was seen at or taken from, in this episode."""
    out: dict[str, list[str]] = {}
    for a, fb in ep.trajectory:
        if m := _TAKE.match(a):
            out.setdefault(m.group(1), []).append(m.group(2))
        at = re.search(r"You (?:arrive at|open the) ([a-z]+ \d+)\.", fb)
        seen = re.search(r"you see (.+?)\.(?:\s|$)", fb)
        if at and seen:
            for obj in re.findall(r"([a-z]+) \d+", seen.group(1)):
                out.setdefault(obj, []).append(kind(at.group(1)))
    return out


class ProgrammaticCurator:
    """Deterministic curation by variant; one call per finished task, writing through management tools."""

    agent = programmatic_agent("curator")

    def __init__(self, variant: str):
        if variant not in VARIANTS:
            raise ValueError(f"alfworld.variant: {variant!r}; expected one of {VARIANTS}")
        self.variant = variant

    def curate(self, store: Store, k: int, game_id: str, ep: EpisodeRecord) -> int:
        """Write task k into the store; returns characters written (the curation cost proxy)."""
        if self.variant == "no_store" or not ep.loaded:
            return 0
        short = SHORT[ep.family]
        g = parse_goal(ep.goal)
        outcome = "success" if ep.success else "failure"
        written = 0
        if self.variant == "episode_log":
            text = f"source: task {k} ({game_id}), {outcome} in {ep.steps} steps\n\n{render_trajectory(ep)}\n"
            append_section(
                store,
                f"episodes/{k:03d}-{short}-{g.obj}.md",
                "Trajectory",
                text,
                description=f"task {k} ({short}): {ep.goal} - {outcome}",
            )
            return len(text)
        path = f"skills/{short}.md"
        if ep.success:
            if not (store.root / path).exists():
                steps = "\n".join(f"{i}. {s}" for i, s in enumerate(procedure(ep), 1))
                text = f"{steps}\n(first shown by task {k})\n"
                append_section(store, path, "Procedure", text, description=f"how to solve '{short}' tasks: {ep.goal}")
                written += len(text)
            line = f"- task {k}: {ep.goal} - solved in {ep.steps} steps\n"
            append_section(store, path, "Sources", line)
            written += len(line)
        else:
            searched = sorted({kind(a[len("go to ") :]) for a, _ in ep.trajectory if a.startswith("go to ")})
            line = (
                f"- task {k}: {ep.goal} - failed after {ep.steps} steps; searched {', '.join(searched)}. "
                f"Check the procedure's appliance and look where such objects were found before.\n"
            )
            append_section(
                store, f"notes/{short}-lessons.md", "Lessons", line, description=f"lessons from failed '{short}' tasks"
            )
            written += len(line)
        if self.variant in WITH_MEMORY:
            for obj, places in sorted(found_at(ep).items()):
                line = f"- {obj} found at: {', '.join(sorted(set(places)))} (task {k})\n"
                append_section(
                    store,
                    "memory/objects.md",
                    obj,
                    line,
                    description="where objects of each kind were seen or taken, by task",
                )
                written += len(line)
        return written


def curator_system(variant: str, tools: str) -> str:
    """The model curator's system prompt for a variant."""
    memory = "\n" + prompt("curator_skills_memory") if variant in WITH_MEMORY else ""
    return prompt(CURATOR_PROMPTS[variant], tools=tools, memory=memory)


def task_message(k: int, game_id: str, ep: EpisodeRecord, current: str) -> str:
    """What the model curator sees of task k: number, game, goal, outcome, the store's survey, the trajectory."""
    outcome = f"success in {ep.steps} steps" if ep.success else f"failure after {ep.steps} steps"
    return (
        f"Task number: {k} (cite it as `(task {k})`)\nGame: {game_id}\nGoal family: {SHORT[ep.family]}\n"
        f"Goal: {ep.goal}\nOutcome: {outcome}\n\nCurrent store (names and descriptions):\n{current}\n\n"
        f"Trajectory:\n{render_trajectory(ep)}\n"
    )


class ModelCurator:
    """Model-driven curation: one management-agent episode per finished task, through the fsmem management
    tools over the chain's store (which refuse any path outside it). `episodes` keeps each task's accounting."""

    def __init__(self, variant: str, client, max_rounds: int):
        if variant not in VARIANTS:
            raise ValueError(f"alfworld.variant: {variant!r}; expected one of {VARIANTS}")
        self.variant, self.client, self.max_rounds = variant, client, max_rounds
        self.agent = str(client.model)
        self.episodes: list[tuple[int, Episode]] = []

    def curate(self, store: Store, k: int, game_id: str, ep: EpisodeRecord) -> int:
        """Task k into the store by the model; returns characters its successful write calls carried."""
        from tailmem.fsmem.agents import loop

        if self.variant == "no_store" or not ep.loaded:
            return 0
        harness = management(store)
        current = harness.call("view", {"path": ""}).output
        start = len(harness.trace)
        system = curator_system(self.variant, ", ".join(harness.tools))
        _, episode, _ = loop.run(
            self.client,
            BUILDER,
            system,
            task_message(k, game_id, ep, current),
            harness,
            self.max_rounds,
            final_answer_on_cap=False,
        )
        self.episodes.append((k, episode))
        return sum(
            len(args.get(WRITTEN_ARG[name], ""))
            for name, args, ok in harness.trace[start:]
            if ok and name in WRITTEN_ARG and isinstance(args.get(WRITTEN_ARG[name], ""), str)
        )


def sources(store: Store) -> set[int]:
    """Every task a store's files cite (the no-leakage audit)."""
    out: set[int] = set()
    for f in store.files():
        out |= {int(n) for n in SOURCE.findall(store.read(f))}
        out |= {int(n) for n in re.findall(r"^episodes/(\d+)-", f)}
    return out
