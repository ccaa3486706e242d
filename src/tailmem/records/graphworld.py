"""A graph world's `world.json` (stage `graphworld`): the CSR arrays, state texts and action names of one world.
The file's keys are these fields; what they must satisfy (a connected simple graph) `graphworld.world.World`
checks when it loads one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from tailmem.records.base import Record


@dataclass(frozen=True)
class WorldFile(Record):
    # 2: the files before it carried `format: "tailmem.world/1"` instead of a format_version
    format_version: ClassVar[int] = 2
    kind: ClassVar[str] = "graph world world.json"
    rule: ClassVar[str] = "graphworld"  # the Snakemake rule that writes it

    family: str
    n: int
    seed: int
    params: dict[str, Any]
    construction: dict[str, Any]  # how the graph was drawn (draws, repairs, regions)
    n_edges: int
    indptr: list[int]
    targets: list[int]
    action_names: list[str]
    state_texts: list[str]
    community: list[int] | None
