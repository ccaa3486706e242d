"""Shared fixtures: a small store inside a fenced folder whose surroundings the security tests hash."""

import os

import pytest

from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.management import management


@pytest.fixture
def fenced(tmp_path):
    """(store, outside folder) with a canary file outside the store and a symlink in the store pointing out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\ndescription: secret\n---\nCANARY-7f3a\n")
    store = Store(tmp_path / "store")
    m = management(store)
    assert m.call(
        "create",
        {
            "path": "people/calvin.md",
            "description": "Calvin's life",
            "content": "# Calvin\n## 25 May, 2023 (session 3)\n- [D3:1] Calvin: I bought a Ferrari.\n",
        },
    ).ok
    os.symlink(outside, store.root / "escape")
    os.symlink(outside / "secret.md", store.root / "people" / "link.md")
    return store, outside, tmp_path
