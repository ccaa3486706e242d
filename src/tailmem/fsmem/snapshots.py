"""Content-addressed snapshots, one per chunk: a manifest maps paths to blob hashes, so an unchanged file
costs nothing to keep again and growth curves can be read back for any chunk."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from tailmem.artifacts import read_json, write_json
from tailmem.fsmem.store import Store


@dataclass(frozen=True)
class Snapshot:
    label: str
    files: dict  # store path -> sha256 of its bytes
    bytes: int


class SnapshotLog:
    """Blobs under `objects/<sha256>`, one manifest per label under `manifests/<label>.json`."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        (self.folder / "objects").mkdir(parents=True, exist_ok=True)
        (self.folder / "manifests").mkdir(parents=True, exist_ok=True)

    def take(self, store: Store, label: str) -> Snapshot:
        files, total = {}, 0
        for path in store.files():
            data = (store.root / path).read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            blob = self.folder / "objects" / digest
            if not blob.exists():
                tmp = blob.with_name(f".{digest}.tmp")
                tmp.write_bytes(data)
                os.replace(tmp, blob)
            files[path] = digest
            total += len(data)
        write_json(self.folder / "manifests" / f"{label}.json", {"label": label, "files": files, "bytes": total})
        return Snapshot(label, files, total)

    def labels(self) -> list[str]:
        return sorted(p.stem for p in (self.folder / "manifests").glob("*.json"))

    def load(self, label: str) -> Snapshot:
        data = read_json(self.folder / "manifests" / f"{label}.json")
        return Snapshot(data["label"], data["files"], data["bytes"])

    def alias(self, label: str, new_label: str) -> Snapshot:
        """Record an existing snapshot under a second label (costs one manifest; the blobs are shared)."""
        snap = self.load(label)
        write_json(self.folder / "manifests" / f"{new_label}.json", {"label": new_label, "files": snap.files,
                                                                     "bytes": snap.bytes})
        return Snapshot(new_label, snap.files, snap.bytes)

    def restore(self, label: str, dest: str | os.PathLike) -> Store:
        """Materialise a snapshot as a store at `dest` (for growth curves and audits)."""
        snap = self.load(label)
        store = Store(dest)
        for path, digest in snap.files.items():
            target = store.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((self.folder / "objects" / digest).read_bytes())
        return store
