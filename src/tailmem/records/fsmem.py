"""The filesystem-memory study's per-run artifacts: a built store's `build.json` (stage `fsmem_build`) and an
answer set's `answers.json` (stage `fsmem_answer`). Their inner lists stay JSON objects: an episode is
`fsmem.agents` Episode.to_json, a row one question's answer, trace and costs (columns vary with the judge); the
top level is typed here. PersonaMem's own build and answer caches (fsmem.personamem, stages.personamem) carry a
content key instead and are not these records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

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
