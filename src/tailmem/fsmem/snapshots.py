"""Content-addressed snapshots, one per chunk: a manifest maps paths to blob hashes, so an unchanged file
costs nothing to keep again and growth curves can be read back for any chunk."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tailmem.fsmem.errors import FsmemError, ToolError
from tailmem.fsmem.store import Store
from tailmem.records.fsmem import SnapshotManifest

_HEX64 = re.compile(r"[0-9a-f]{64}")


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
        SnapshotManifest(label, files, total).write(self.folder / "manifests" / f"{label}.json")
        return Snapshot(label, files, total)

    def labels(self) -> list[str]:
        return sorted(p.stem for p in (self.folder / "manifests").glob("*.json"))

    def load(self, label: str) -> Snapshot:
        data = SnapshotManifest.read(self.folder / "manifests" / f"{label}.json")
        return Snapshot(data.label, data.files, data.bytes)

    def alias(self, label: str, new_label: str) -> Snapshot:
        """Record an existing snapshot under a second label (costs one manifest; the blobs are shared)."""
        snap = self.load(label)
        SnapshotManifest(new_label, snap.files, snap.bytes).write(self.folder / "manifests" / f"{new_label}.json")
        return Snapshot(new_label, snap.files, snap.bytes)

    def restore(self, label: str, dest: str | os.PathLike) -> Store:
        """Materialise a snapshot as a store at `dest` (for growth curves and audits). Manifest paths go through
        the store's path gate and every blob is checked against its hash, so a damaged or hand-edited
        manifest cannot write outside `dest`."""
        snap = self.load(label)
        store = Store(dest)
        manifest = self.folder / "manifests" / f"{label}.json"
        for path, digest in snap.files.items():
            if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
                raise FsmemError(f"{manifest}: file {path!r}: blob name {digest!r} is not a sha256 hex digest")
            try:
                rel = store.relpath(path)  # a manifest path stays inside the store, like every agent path
            except ToolError as exc:
                raise FsmemError(f"{manifest}: {exc}") from None
            data = (self.folder / "objects" / digest).read_bytes()
            if hashlib.sha256(data).hexdigest() != digest:
                raise FsmemError(f"{self.folder / 'objects' / digest}: content does not match its sha256 name")
            store.mkdirs(str(PurePosixPath(rel).parent))
            store.resolve(rel).write_bytes(data)
        return store
