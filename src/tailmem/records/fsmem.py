"""The filesystem-memory study's per-run artifacts: a built store's `build.json` (stage `fsmem_build`) and an
answer set's `answers.json` (stage `fsmem_answer`). Their inner lists stay JSON objects: an episode is
`fsmem.agents` Episode.to_json, a row one question's answer, trace and costs (columns vary with the judge); the
top level is typed here. PersonaMem's own build and answer caches (fsmem.personamem, stages.personamem), reused
while their content key matches, and the stores' snapshot manifests are the records after them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from tailmem.artifacts import read_json
from tailmem.records.base import Record


@dataclass(frozen=True)
class FsmemBuild(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "filesystem-memory build.json"
    rule: ClassVar[str] = "fsmem_store"  # the Snakemake rule that writes it

    benchmark: str
    conversation: str
    variant: str
    agent: str  # the builder's label
    replicate: int
    build_harness: str
    sandbox: dict | None  # fsmem.harnesses.sandbox_provenance: the sandbox a sandboxed harness ran under
    reorganizer_harness: str | None
    store: dict  # fsmem.store.Store.stats
    episodes: list[dict]
    tool_calls: int
    tokens: int
    dollars: float


@dataclass(frozen=True)
class FsmemAnswers(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "filesystem-memory answers.json"
    rule: ClassVar[str] = "fsmem_answers"  # the Snakemake rule that writes it

    benchmark: str
    conversation: str
    variant: str
    harness: str
    sandbox: dict | None
    tool_outputs: dict | None  # fsmem.tool_outputs.write's reference to the calls' recorded outputs
    rows: list[dict]
    gold_overlay: dict | None = None  # the gold overlay the rows were scored under (main's i30-gold); None: none


@dataclass(frozen=True)
class PersonaMemBuild(Record):
    """A PersonaMem context's `build.json` (stage `fsmem_personamem`): the stores built for one context and variant,
    one per question end index, reused while `key` (a digest of everything the build depends on) matches."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "PersonaMem context build.json"
    rule: ClassVar[str] = "fsmem_personamem"
    cache: ClassVar[bool] = True  # under results/fsmem/personamem, beside the rule's outputs

    key: str
    variant: str
    context: str
    agent: str  # the builder's label
    build_harness: str
    ends: list[int]
    stores: dict  # end index -> fsmem.store.Store.stats of the store a question ending there reads
    episodes: list[dict]
    tool_calls: int
    tokens: int
    dollars: float


@dataclass(frozen=True)
class PersonaMemAnswers(Record):
    """A PersonaMem variant's `answers.json` (stage `fsmem_personamem`): one row per question, reused while `key`
    (the builds' keys, the questions, searcher and harness settings) matches."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "PersonaMem answers.json"
    rule: ClassVar[str] = "fsmem_personamem"
    cache: ClassVar[bool] = True

    key: str
    tier: str
    variant: str
    harness: str
    sandbox: dict | None
    rows: list[dict]


@dataclass(frozen=True)
class SnapshotManifest(Record):
    """One snapshot of a store (`fsmem.snapshots.SnapshotLog`): `snapshots/manifests/<label>.json`, each store path
    with the sha256 of its blob under `snapshots/objects/`. Written by the stages that build stores (fsmem_store,
    the study's store rules, fsmem_personamem, alfworld_skills); growth curves and the site read them back."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "store snapshot manifest"
    rule: ClassVar[str] = "fsmem_store"

    label: str
    files: dict[str, str]  # store path -> sha256 of its bytes
    bytes: int

    @classmethod
    def rebuild(cls, path: str | os.PathLike) -> str:
        store = Path(path).parent.parent.parent  # <store folder>/snapshots/manifests/<label>.json
        return (
            f"Rebuild it: delete {store} and rerun the rule that built that store (`snakemake --cores 2 <target> "
            f"--forcerun <rule>`: {cls.rule}, a fsmem study store rule, fsmem_personamem or alfworld_skills)"
        )


def read_answer_set(path: str | os.PathLike) -> FsmemAnswers | PersonaMemAnswers:
    """An answers.json of either study: a PersonaMem set (it has `tier`) or a LoCoMo-shaped one, through its
    record (the site's answer pages take both)."""
    data = read_json(path)
    cls = PersonaMemAnswers if isinstance(data, dict) and "tier" in data else FsmemAnswers
    return cls.from_json(data, path)
