"""Which games exist: the official solvable eval sets, one `Game` per trial, grouped into six goal families.

The list comes from the data's `manifest_solvable.json` (every trial whose original game file was solvable), so
a game whose folder is missing or broken is still counted, reported by id and skipped, never silently lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import DataError

FAMILIES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)
SHORT = {"pick_and_place_simple": "put", "look_at_obj_in_light": "examine", "pick_clean_then_place_in_recep": "clean",
         "pick_heat_then_place_in_recep": "heat", "pick_cool_then_place_in_recep": "cool",
         "pick_two_obj_and_place": "puttwo"}
SPLITS = ("valid_seen", "valid_unseen")
MANIFEST = "manifest_solvable.json"


@dataclass(frozen=True)
class Game:
    """One trial: `id` is `<task>/<trial>` (unique within a split), `family` its goal family."""

    split: str
    id: str
    family: str

    @property
    def key(self) -> str:
        return f"{self.split}/{self.id}"


def manifest(alfworld_root: str | Path) -> list[Game]:
    path = Path(alfworld_root) / MANIFEST
    if not path.exists():
        raise DataError(f"{path}: missing; expected the list of solvable ALFWorld trials (see PROVENANCE.md)")
    try:
        rows = json.loads(path.read_text())
        games = [Game(r["split"], r["trial"], r["task_type"]) for r in rows]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: expected a list of {{split, trial, task_type}} rows ({exc})") from exc
    bad = [g for g in games if g.family not in FAMILIES]
    if bad:
        raise DataError(f"{path}: game {bad[0].key} has unknown family {bad[0].family!r}; expected one of {FAMILIES}")
    return games


def split_games(alfworld_root: str | Path, split: str) -> list[Game]:
    if split not in SPLITS:
        raise DataError(f"alfworld split {split!r}: expected one of {SPLITS}")
    return sorted((g for g in manifest(alfworld_root) if g.split == split), key=lambda g: g.id)


def interleaved(games: list[Game]) -> list[Game]:
    """The fixed family-interleaved order: round robin over FAMILIES, each family's games sorted by id.

    Every cell of the skill study runs the same order, so only the store differs between cells.
    """
    queues = {f: sorted((g for g in games if g.family == f), key=lambda g: g.id) for f in FAMILIES}
    out: list[Game] = []
    while any(queues.values()):
        for f in FAMILIES:
            if queues[f]:
                out.append(queues[f].pop(0))
    return out


def select(games: list[Game], ids: list[str] | None) -> list[Game]:
    """The games named by `ids` (in that order), or all; an unknown id is a DataError that names it."""
    if not ids:
        return games
    by_id = {g.id: g for g in games}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise DataError(f"alfworld.smoke_games: {missing[0]!r} is not a game of the manifest")
    return [by_id[i] for i in ids]
