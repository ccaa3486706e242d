"""The provenance `meta.json` every stage writes beside its artifacts (`tailmem.provenance.save_provenance`): what
produced them (code, config digest, packages, agents, data sha256s, host and time) and what the stage adds of its
own (its agent, controller, judge, ...). The site's provenance page reads them all."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from tailmem.errors import ArtifactError
from tailmem.records.base import VERSION_KEY, Record


@dataclass(frozen=True)
class RunMeta(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "provenance meta.json"
    rule: ClassVar[str] = ""  # every stage writes one: its rule is the one that wrote the folder

    stage: str | None
    seed: int | None
    tailmem_version: str
    code: dict  # commit, dirty, diff_sha256, reason (provenance.code_state)
    config_digest: str
    config_groups: list[str]
    packages: dict
    agents: dict
    data: dict  # name -> sha256 and bytes of each benchmark file read
    python: str
    host: str
    platform: str
    finished_at: str
    extra: dict = dataclasses.field(default_factory=dict)  # the stage's own keys, written beside the others

    def to_json(self) -> dict[str, Any]:
        body = super().to_json()
        extra = body.pop("extra")
        return {**body, **extra}  # the stage's keys stay top-level, as meta.json always had them

    @classmethod
    def from_json(cls, data: Any, path: str | os.PathLike = "<json>") -> "RunMeta":
        if not isinstance(data, dict):
            raise ArtifactError(f"{path}: expected a {cls.kind} (a JSON object), got {type(data).__name__}")
        fields = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        own = {k: v for k, v in data.items() if k in fields or k == VERSION_KEY}
        return super().from_json({**own, "extra": {k: v for k, v in data.items() if k not in own}}, path)

    @classmethod
    def rebuild(cls, path: str | os.PathLike) -> str:
        folder = Path(path).parent
        return (
            f"Rebuild it: `snakemake --cores 2 <target> --forcerun <rule>` (the rule that writes {folder}, the "
            f"target you ran), or delete {folder} and run it again"
        )
