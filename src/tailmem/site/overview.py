"""The overview page's content: every table of the scale grouped by study, every figure, and the run's provenance
gathered from the `meta.json` files beside the artifacts."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import quote

from tailmem import outputs
from tailmem.errors import ArtifactError
from tailmem.records.provenance import RunMeta
from tailmem.roles import EXECUTOR, JUDGE, PROGRAMMATIC, model_free
from tailmem.site.markdown import Block, parse
from tailmem.site.model import Section

log = logging.getLogger(__name__)


@dataclass
class TableView:
    stem: str
    blocks: list[Block]
    row_link: Callable


@dataclass
class Group:
    title: str
    anchor: str
    tables: list[TableView] = field(default_factory=list)


# Which list a table's rows open, and the columns whose value becomes that list's filter (column -> filter key).
_LINKS = (
    (
        ("locomo_", "realtalk_", "fsmem_"),
        "fsmem",
        {"variant": "variant", "harness": "harness", "benchmark": "benchmark"},
    ),
    (("longmemeval_",), "longmemeval", {"arm": "arm", "question_type": "question_type", "dataset": "dataset"}),
    (("table4_", "table5_", "table6_", "claims_ctmc"), "control", {"arm": "arm"}),
    (("alfworld_",), "alfworld", {"arm": "arm", "variant": "arm", "protocol": "protocol", "family": "family"}),
)


def _group_of(stem: str) -> tuple[int, str]:
    if stem in outputs.RANDOM_WALK_TABLES + outputs.CALIBRATION_TABLES:
        return 0, "Paper 1 · random walk and tail audits"
    if stem in outputs.CONTROL_TABLES:
        return 1, "Paper 1 · controller study"
    if stem in outputs.LONGMEMEVAL_TABLES:
        return 2, "Paper 1 · LongMemEval"
    if stem.startswith(("locomo_", "realtalk_", "fsmem_")):
        return 3, "Paper 2 · filesystem memory"
    if stem.startswith("alfworld_"):
        return 4, "ALFWorld"
    return 5, "Other tables"


def _order(stem: str) -> tuple:
    for names in (
        outputs.RANDOM_WALK_TABLES + outputs.CALIBRATION_TABLES,
        outputs.CONTROL_TABLES,
        outputs.LONGMEMEVAL_TABLES,
    ):
        if stem in names:
            return (names.index(stem), stem)
    return (99, stem)


def row_linker(stem: str, sections: dict[str, Section]) -> Callable:
    """A function (header, cells) -> the filtered list its row's items are in, or None when no column names a value
    that list has (so no link leads to an empty list)."""
    for prefixes, key, columns in _LINKS:
        if stem.startswith(prefixes) and key in sections:
            section = sections[key]
            values = {f: set(section.values(f)) for f in set(columns.values())}

            def link(header: list[str], cells: list[str], section=section, columns=columns, values=values):
                parts = []
                for col, cell in zip(header, cells):
                    f = columns.get(col.strip())
                    if f and cell in values.get(f, ()):
                        parts.append(f"{f}={quote(cell, safe='')}")
                return f"{section.key}/index.html#{'&'.join(parts)}" if parts else None

            return link
    return lambda header, cells: None


def tables(tables_dir: Path, sections: dict[str, Section]) -> list[Group]:
    groups: dict[int, Group] = {}
    for md in sorted(tables_dir.glob("*.md"), key=lambda p: (_group_of(p.stem)[0], _order(p.stem))):
        rank, title = _group_of(md.stem)
        group = groups.setdefault(rank, Group(title, f"g{rank}"))
        try:
            blocks = parse(md.read_text(encoding="utf-8"))
        except OSError:
            continue
        group.tables.append(TableView(md.stem, blocks, row_linker(md.stem, sections)))
    return [groups[k] for k in sorted(groups)]


def provenance(results: Path, skip: tuple[Path, ...]) -> dict:
    """Commits, working-tree state, agents per role and, per stage, the artifacts' commits and config digests."""
    commits: Counter = Counter()
    dirty: Counter = Counter()
    roles: dict[str, set] = defaultdict(set)
    stages: dict[str, dict] = {}
    n = 0
    for path in sorted(results.rglob("*meta.json")):
        if any(path.is_relative_to(s) for s in skip) or "logs" in path.relative_to(results).parts[:1]:
            continue
        try:
            meta = RunMeta.read(path).to_json()
        except (OSError, ArtifactError) as exc:  # an old or foreign file: said in the log, left out of the counts
            log.warning("site: provenance of %s left out: %s", path.parent, exc)
            continue
        n += 1
        code = meta.get("code") or {}
        commit = (code.get("commit") or "unknown")[:12]
        commits[commit] += 1
        dirty["dirty" if code.get("dirty") else "clean" if code.get("dirty") is False else "unknown"] += 1
        for role, a in (meta.get("agents") or {}).items():
            if isinstance(a, dict) and a.get("agent"):
                roles[role].add(
                    a["agent"]
                    if model_free(a.get("backend", PROGRAMMATIC))
                    else f"{a.get('backend')}:{a.get('model') or a['agent']}"
                )
        st = stages.setdefault(
            meta.get("stage") or "?",
            {
                "stage": meta.get("stage") or "?",
                "n": 0,
                "commits": set(),
                "digests": set(),
                "agents": set(),
                "finished": "",
            },
        )
        st["n"] += 1
        st["commits"].add(commit)
        if meta.get("config_digest"):
            st["digests"].add(meta["config_digest"])
        for key in ("agent", "model", EXECUTOR, "curator", "retriever", JUDGE):
            if isinstance(meta.get(key), str) and meta[key]:
                st["agents"].add(meta[key])
        st["finished"] = max(st["finished"], str(meta.get("finished_at") or ""))
    rows = []
    for st in sorted(stages.values(), key=lambda s: s["stage"]):
        rows.append(
            {**st, "commits": sorted(st["commits"]), "digests": sorted(st["digests"]), "agents": sorted(st["agents"])}
        )
    return {
        "n_meta": n,
        "commits": commits.most_common(),
        "dirty": dirty.most_common(),
        "roles": sorted((r, sorted(a)) for r, a in roles.items()),
        "stages": rows,
    }
