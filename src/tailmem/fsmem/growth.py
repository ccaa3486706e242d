"""The growth atlas of a store built one chunk per episode (paper 2, section 4.4 and appendix D.7): from the
per-chunk snapshots, how files, sections and bytes grow, how many files each chunk creates, edits and deletes
(a rename shows as a delete plus a create), and whether the files of the early chunks survive to the end."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from tailmem.fsmem.snapshots import SnapshotLog

HEADING = re.compile(rb"^#{1,6}\s", re.M)
CHUNK_LABEL = re.compile(r"chunk_(\d+)$")


@dataclass(frozen=True)
class Step:
    """The store after chunk `chunk` (1-based)."""

    chunk: int
    files: int
    sections: int
    bytes: int
    creates: int
    edits: int
    deletes: int
    early_alive: float  # share of the early files still present (same path) after this chunk

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Survival:
    early_chunks: int  # chunks counted as early
    early_files: int  # distinct paths that existed after any early chunk
    survived: int  # of those, present in the last snapshot
    unchanged: int  # of those, present with the bytes they had at the end of the early phase

    @property
    def share(self) -> float:
        return self.survived / self.early_files if self.early_files else float("nan")


def chunk_labels(log: SnapshotLog) -> list[str]:
    """Snapshot labels of the chunks, in chunk order (`chunk_0001`, ...)."""
    return sorted(
        (lb for lb in log.labels() if CHUNK_LABEL.match(lb)), key=lambda lb: int(CHUNK_LABEL.match(lb).group(1))
    )


def atlas(log: SnapshotLog, early_fraction: float = 0.25) -> tuple[list[Step], Survival]:
    labels = chunk_labels(log)
    n_early = max(1, round(early_fraction * len(labels))) if labels else 0
    sections: dict[str, int] = {}

    def n_sections(digest: str) -> int:
        if digest not in sections:
            sections[digest] = len(HEADING.findall((log.folder / "objects" / digest).read_bytes()))
        return sections[digest]

    snaps = [log.load(lb) for lb in labels]
    early: set[str] = set()
    for s in snaps[:n_early]:
        early |= set(s.files)
    steps, prev = [], {}
    for i, s in enumerate(snaps, 1):
        cur = s.files
        steps.append(
            Step(
                chunk=i,
                files=len(cur),
                sections=sum(n_sections(d) for d in cur.values()),
                bytes=s.bytes,
                creates=sum(1 for p in cur if p not in prev),
                edits=sum(1 for p in cur if p in prev and prev[p] != cur[p]),
                deletes=sum(1 for p in prev if p not in cur),
                early_alive=sum(1 for p in early if p in cur) / len(early) if early else float("nan"),
            )
        )
        prev = cur
    last = snaps[-1].files if snaps else {}
    at_early = snaps[n_early - 1].files if snaps else {}
    survival = Survival(
        n_early,
        len(early),
        sum(1 for p in early if p in last),
        sum(1 for p in early if p in last and at_early.get(p) == last[p]),
    )
    return steps, survival
