"""One episode: reset a game, then per step retrieve memory (a controller builds the block), act, observe and
write memory, until the game is won or the step cap is reached. Records success, invalid actions, tokens per
step and which memory items were placed in context (the access audit's counts).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tailmem.llm.backends.base import ContextOverflow
from tailmem.memory.marks import line_marks
from tailmem.memory.tokens import TokenCounter
from tailmem.records.alfworld import AlfworldEpisodeCache
from tailmem.studies.alfworld.play.env import GameEnv
from tailmem.studies.alfworld.play.executor import StepInput
from tailmem.studies.alfworld.play.games import Game
from tailmem.studies.alfworld.play.goal import parse_goal, seen_objects
from tailmem.studies.alfworld.play.observations import LocationMemory

log = logging.getLogger("tailmem")

_ARRIVE = re.compile(r"You (?:arrive at|open the) ([a-z]+ \d+)\.")
_PICK = re.compile(r"You pick up the ([a-z]+ \d+) from the ([a-z]+ \d+)\.")
_MOVE = re.compile(r"You move the ([a-z]+ \d+) to the ([a-z]+ \d+)\.")
NOTHING = "Nothing happens."


@dataclass(frozen=True)
class EpisodeRecord:
    """The outcome of one game. `loaded` is False when the game could not be loaded (see `error`)."""

    split: str
    id: str
    family: str
    loaded: bool
    success: bool = False
    steps: int = 0
    invalid: int = 0
    goal: str = ""
    memory_tokens: int = 0  # sum over steps of the memory block's tokens
    context_tokens: int = 0  # sum over steps of the whole execution prompt (guidance, memory, observation, actions)
    guidance_tokens: int = 0
    prompt_tokens: int = 0  # model executor only: billed tokens
    completion_tokens: int = 0
    accesses: dict = field(default_factory=dict)  # location -> times placed in context
    trajectory: tuple = ()  # ((action, feedback), ...)
    error: str = ""
    agent: str = ""
    start: str = ""  # the first observation (the room and the task), before step 1
    blocks: tuple = ()  # per step, (memory block, its line marks from tailmem.memory.marks): for the site
    context_overflow: bool = False  # a prompt outgrew the model's context window: the game ended there, lost

    def to_json(self) -> dict:
        d = asdict(self)
        d["trajectory"] = [list(t) for t in self.trajectory]
        d["blocks"] = [list(b) for b in self.blocks]
        return d

    @classmethod
    def from_json(cls, d: dict) -> "EpisodeRecord":
        d = dict(d)
        d["trajectory"] = tuple(tuple(t) for t in d.get("trajectory", ()))
        d["blocks"] = tuple(tuple(b) for b in d.get("blocks", ()))
        return cls(**d)


def run_episode(
    game: Game,
    game_file: str | Path,
    executor,
    controller,
    counter: TokenCounter,
    guidance: str = "",
    max_steps: int = 50,
) -> EpisodeRecord:
    """Play `game` once; a load failure is returned as a record with `loaded=False` and the error."""
    try:
        env = GameEnv(game_file, max_steps=max_steps)
        obs = env.reset()
        goal = parse_goal(obs.text)
    except Exception as exc:  # noqa: BLE001 - reported by game id, the chain goes on
        return EpisodeRecord(
            game.split, game.id, game.family, False, error=f"{type(exc).__name__}: {exc}"[:500], agent=executor.agent
        )
    executor.reset()
    memory = LocationMemory()
    where: str | None = None
    mem_tokens = ctx_tokens = invalid = 0
    gtok = counter(guidance) if guidance else 0
    traj, blocks = [], []
    text = start = obs.text
    won = overflow = False
    step = 0
    try:
        for step in range(1, max_steps + 1):
            prompt = controller.build(memory.store, memory.query(step, where, goal), counter)
            memory.store.touch(prompt.accessed, step)
            blocks.append((prompt.text, line_marks(prompt, memory.store.items)))
            mem_tokens += prompt.tokens
            ctx_tokens += gtok + prompt.tokens + counter(goal.text) + counter(text) + counter.lines(obs.admissible)
            action = executor.act(StepInput(goal, text, obs.admissible, prompt.text, guidance, step))
            valid = action in obs.admissible
            obs = env.step(action)
            text = obs.text
            invalid += (not valid) or text.strip() == NOTHING
            executor.observe(action, text)
            traj.append((action, text))
            if m := _ARRIVE.search(text):
                where = m.group(1)
                memory.observe(step, where, seen_objects(text), action)
            if m := _PICK.search(text):
                memory.moved(m.group(1), m.group(2), None)
            if m := _MOVE.search(text):
                memory.moved(m.group(1), None, m.group(2))
            if obs.won:
                won = True
                break
            if obs.done:
                break
    except ContextOverflow as exc:  # this game is lost and counted; the chain's other games still run
        overflow = True
        log.warning("alfworld game %s: ended at step %d, %s", game.id, step, exc)
    finally:
        env.close()
    names = {i: loc for loc, i in memory.ids.items()}
    accesses = {names[i]: c for i, c in memory.store.access_count.items()}
    for loc in memory.ids:  # every stored item counts, accessed or not
        accesses.setdefault(loc, 0)
    usage = getattr(executor, "usage", [])
    return EpisodeRecord(
        game.split,
        game.id,
        game.family,
        True,
        won,
        step,
        int(invalid),
        goal.text,
        mem_tokens,
        ctx_tokens,
        gtok,
        sum(u.prompt_tokens for u in usage),
        sum(u.completion_tokens for u in usage),
        accesses,
        tuple(traj),
        agent=executor.agent,
        start=start,
        blocks=tuple(blocks),
        context_overflow=overflow,
    )


# What plays an episode besides its inputs: the code of these modules (and what they import) and the game engine.
EPISODE_CODE = (
    "tailmem.studies.alfworld.play.episode",
    "tailmem.studies.alfworld.play.executor",
    "tailmem.studies.alfworld.play.speedup",
    "tailmem.memory.controllers",
)


@functools.cache
def code_version() -> str:
    """Digest of the episode code and the alfworld/textworld versions: a cached episode played by other code
    (an older commit, an edited executor) is never reused, so a cache cannot make two machines disagree."""
    from importlib.metadata import version

    from tailmem.source_closure import PACKAGE_ROOT, file_digest, import_closure

    h = hashlib.sha256(f"alfworld {version('alfworld')} textworld {version('textworld')}\n".encode())
    for path in sorted({f for m in EPISODE_CODE for f in import_closure(m)}):  # code, not comments or docstrings
        h.update(f"{path.relative_to(PACKAGE_ROOT)}\0{file_digest(path)}".encode())
    return h.hexdigest()[:16]


def episode_key(game: Game, settings: dict, guidance: str, max_steps: int, agent: str) -> str:
    """Content key of an episode: same game, controller, guidance, cap, agent and code -> same outcome."""
    blob = json.dumps(
        {
            "game": game.key,
            "settings": settings,
            "guidance": guidance,
            "max_steps": max_steps,
            "agent": agent,
            "code": code_version(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def cached(cache_dir: Path | None, key: str, play) -> EpisodeRecord:
    """Reuse a programmatic episode played before with the same key (cells of the study share many)."""
    if cache_dir is None:
        return play()
    path = Path(cache_dir) / key[:2] / f"{key}.json"
    hit = AlfworldEpisodeCache.read_cache(path)
    if hit is not None and hit.key == key:
        return EpisodeRecord.from_json(hit.episode)
    rec = play()
    if rec.loaded:
        AlfworldEpisodeCache(key=key, episode=rec.to_json()).write(path)
    return rec
