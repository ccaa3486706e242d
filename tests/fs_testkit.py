"""Test kit for the filesystem-memory tests: a hash of a whole tree, to prove nothing around a store changed.
(A module, not a conftest helper: `from conftest import ...` is ambiguous once several test folders have one.)"""

import hashlib
import os
from pathlib import Path


def tree_hash(root: Path) -> str:
    """Hash of every path, type, link target and content under `root`."""
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
            else:
                h.update(b"D")
    return h.hexdigest()


def conv50_overrides(results: Path, data_dir: Path, questions: int) -> list[str]:
    """The stage overrides of a small fsmem run: the verbatim store of LoCoMo conv-50, `questions` of its questions."""
    return [
        "scale=smoke",
        f"results_dir={results}",
        f"data_dir={data_dir}",
        "fsmem.benchmark=locomo",
        "fsmem.conversation=conv-50",
        "fsmem.variant=verbatim",
        f"fsmem.max_questions={questions}",
    ]
