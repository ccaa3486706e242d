"""Comparing two runs' artifacts byte for byte, with the fields that say when, where or how fast a job ran taken
out (shared by the determinism test and the cluster test)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

# The smoke scale cut to one world per role: one family and size for the random-walk tables, one LongMemEval
# dataset, one filesystem-memory variant; the controller study keeps its 13 arms (one trajectory).
SLICE = [
    "scale.families=[uniform]",
    "scale.sizes=[30]",
    "scale.retrieval_families=[uniform]",
    "scale.retrieval_size=30",
    "longmemeval.datasets=[oracle]",
    "fsmem.variants=[verbatim]",
]
# The rule kinds of that slice: the programmatic chain of each study the smoke DAG holds but ALFWorld's.
SLICE_RULES = {
    "graphworld",
    "rollout",
    "audit",
    "tables_random_walk",
    "figures_random_walk",
    "control",
    "control_report",
    "longmemeval_run",
    "longmemeval_report",
    "fsmem_store",
    "fsmem_answers",
    "fsmem_table",
}
TARGETS = ["tables_random_walk", "figures_random_walk", "control_report", "longmemeval", "fsmem_locomo"]
# Fields that record when, where or how fast a job ran, not what it computed.
TIMING_KEY = re.compile(r"^(host|finished_at)$|(^|_)(latency|elapsed|wall|duration)(_s|_seconds)?$")


def normalised(path: Path, mask_code: bool = False) -> bytes:
    """A file's bytes, JSON without timing fields (and without `code` when `mask_code`), Markdown with its
    provenance footer masked when `mask_code` (the footer names the working tree)."""
    data = path.read_bytes()
    if path.suffix == ".json":

        def strip(x):
            if isinstance(x, dict):
                return {
                    k: strip(v) for k, v in x.items() if not TIMING_KEY.search(k) and not (mask_code and k == "code")
                }
            return [strip(v) for v in x] if isinstance(x, list) else x

        return json.dumps(strip(json.loads(data)), sort_keys=True).encode()
    if mask_code and path.suffix == ".md":
        return re.sub(rb"(?m)^Provenance: .*$", b"Provenance: (masked)", data)
    return data


def artifacts(root: Path) -> dict[str, Path]:
    """Every file under results/ and figures/ but the rules' logs."""
    out = {}
    for top in ("results", "figures"):
        for p in (root / top).rglob("*"):
            rel = p.relative_to(root)
            if p.is_file() and "logs" not in rel.parts:
                out[str(rel)] = p
    return out


def differing(a: Path, b: Path, mask_code: bool = False) -> tuple[list[str], list[str]]:
    """(files only one run wrote, files both wrote whose normalised bytes differ)."""
    fa, fb = artifacts(a), artifacts(b)
    only = sorted(set(fa) ^ set(fb))
    differ = [k for k in sorted(set(fa) & set(fb)) if normalised(fa[k], mask_code) != normalised(fb[k], mask_code)]
    return only, differ


def tree_state(repo_root: Path) -> str:
    """A hash of the checkout's uncommitted state (provenance and the rules' code digests depend on it)."""
    h = hashlib.sha256()
    for args in (["rev-parse", "HEAD"], ["diff", "HEAD", "--binary"], ["status", "--porcelain", "-uall"]):
        done = subprocess.run(
            ["git", "-C", str(repo_root), *args], capture_output=True, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
        )
        h.update(done.stdout)
    return h.hexdigest()
