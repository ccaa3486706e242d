"""Shared fixtures: a small store inside a fenced folder whose surroundings the security tests hash."""

import hashlib
import os
from pathlib import Path

import pytest

from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.management import management


def tree_hash(root: Path) -> str:
    """Hash of every path, type, link target and content under `root` (the store's surroundings)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            h.update(str(p.relative_to(root)).encode())
            if p.is_symlink():
                h.update(b"L" + os.readlink(p).encode())
            elif p.is_file():
                h.update(b"F" + p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def fenced(tmp_path):
    """(store, outside folder) with a canary file outside the store and a symlink in the store pointing out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\ndescription: secret\n---\nCANARY-7f3a\n")
    store = Store(tmp_path / "store")
    m = management(store)
    assert m.call("create", {"path": "people/calvin.md", "description": "Calvin's life",
                             "content": "# Calvin\n## 25 May, 2023 (session 3)\n- [D3:1] Calvin: I bought a Ferrari.\n"}).ok
    os.symlink(outside, store.root / "escape")
    os.symlink(outside / "secret.md", store.root / "people" / "link.md")
    return store, outside, tmp_path
