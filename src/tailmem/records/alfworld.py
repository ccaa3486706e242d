"""ALFWorld's artifacts: a subset's regenerated-games `manifest.json` (stage `alfworld_games`), a memory cell's
`episodes.json` (`alfworld_memory`: one arm over the subset's games) and a skill cell's `chain.json`
(`alfworld_skills`: one protocol, variant and chain seed). Their inner lists stay JSON objects (an episode is
`studies.alfworld.play.episode.EpisodeRecord.to_json`, a task `studies.alfworld.play.chain.to_rows`); the top
level is typed here. Two caches follow: a regenerated game's `regenerated.json` and a programmatic episode played
before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.base import Record


@dataclass(frozen=True)
class AlfworldGames(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "ALFWorld games manifest.json"
    rule: ClassVar[str] = "alfworld_games"  # the Snakemake rule that writes it

    subset: str
    split: str
    games: list[dict]  # per listed game: studies.alfworld.play.regenerate's record, whether AlfredTWEnv collects it
    n: int
    ok: int
    excluded: list[dict]  # games.EXCLUDED among the listed: id, family, reason
    collected_by_AlfredTWEnv: int


@dataclass(frozen=True)
class AlfworldMemoryCell(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "ALFWorld memory cell episodes.json"
    rule: ClassVar[str] = "alfworld_memory"  # the Snakemake rule that writes it

    arm: str
    settings: dict  # the arm's controller settings (configs/memory/<name>.yaml with alfworld.arms on top)
    subset: str
    executor: str
    episodes: list[dict]
    model: dict | None  # a model executor's mode and seconds; None offline


@dataclass(frozen=True)
class AlfworldChain(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "ALFWorld skill cell chain.json"
    rule: ClassVar[str] = "alfworld_skills"  # the Snakemake rule that writes it

    protocol: str
    variant: str
    subset: str
    seed: int
    agents: dict  # executor, curator, retriever
    order: list[str]
    tasks: list[dict]
    episodes: dict  # game id -> the guidance, goal, start and trajectory it was played with
    model: dict | None  # a model executor's mode and seconds
    curation_episodes: list[dict] | None  # a model curator's episodes, by task index
    retrieval_episodes: list | None  # a model retriever's episodes


@dataclass(frozen=True)
class AlfworldRegenerated(Record):
    """A regenerated game's `regenerated.json` (stage `alfworld_games`), beside its game file: the outcome
    (`studies.alfworld.play.regenerate.Regenerated`'s fields) and the recipe it was made with; reused while the
    recipe matches."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "ALFWorld regenerated.json"
    rule: ClassVar[str] = "alfworld_games"
    cache: ClassVar[bool] = True  # one per game under the regenerated-games folder

    recipe: dict  # studies.alfworld.play.regenerate.recipe: seed, expert check, engine versions
    game: dict  # studies.alfworld.play.regenerate.Regenerated's fields


@dataclass(frozen=True)
class AlfworldEpisodeCache(Record):
    """A programmatic episode played before (`studies.alfworld.play.episode.cached`, stages `alfworld_memory` and
    `alfworld_skills`): `episodes/<key[:2]>/<key>.json`, reused by every cell that plays the same content key."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "ALFWorld episode cache"
    rule: ClassVar[str] = "alfworld_memory"
    cache: ClassVar[bool] = True

    key: str  # studies.alfworld.play.episode.episode_key
    episode: dict  # studies.alfworld.play.episode.EpisodeRecord.to_json
