"""Provenance saved beside every artifact: the resolved config and what produced it, so any number can be traced to
the code (git commit, dirty flag, diff hash), the config (digest of the groups the stage reads), the packages
(pinned and installed versions), the agents (model or programmatic agent per role) and the data (sha256 per file).

Git and package facts are computed once per process and data hashes once per (path, size, mtime), so a stage pays
for them once however many artifacts it writes.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig, OmegaConf

import tailmem
from tailmem.artifacts import write_text
from tailmem.errors import DataError, TailmemError
from tailmem.paths import CONFIG_FILE, META_FILE
from tailmem.records.provenance import RunMeta
from tailmem.roles import (
    BUILDER,
    EXECUTOR,
    JUDGE,
    POLICY,
    PREDICTOR,
    SEARCHER,
    contrast_policies,
    model_free,
    tail_policy,
)

if TYPE_CHECKING:
    from tailmem.settings.stage_settings import StageSettings

REPO_ROOT = Path(__file__).resolve().parents[2]  # the checkout an editable install runs from
DISTRIBUTION = "tailmem"
_CHUNK = 1 << 20


# --- code: git commit, dirty flag, diff hash ------------------------------------------------------------------


def _git(root: Path, *commands: tuple[str, ...]) -> list[bytes]:
    """Run git `commands` in `root` at the same time (process starts dominate: run together they cost one);
    the outputs in order, or CalledProcessError for the first that failed."""
    # GIT_OPTIONAL_LOCKS=0: `git status` must not take the index lock while other processes commit.
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    procs = [
        subprocess.Popen(["git", "-C", str(root), *c], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for c in commands
    ]
    outs = [p.communicate(timeout=30) for p in procs]
    for c, p, (out, err) in zip(commands, procs, outs):
        if p.returncode:
            raise subprocess.CalledProcessError(p.returncode, ["git", *c], out, err)
    return [out for out, _ in outs]


@functools.lru_cache(maxsize=None)
def code_state(root: Path = REPO_ROOT) -> dict:
    """{commit, dirty, diff_sha256, reason} of the git checkout at `root`.

    dirty = tracked changes against HEAD or untracked (not ignored) files; diff_sha256 hashes `git diff HEAD
    --binary` plus each untracked file's path and content, so it changes whenever the working tree does. Outside a
    git checkout (an installed wheel, a tarball) or without git, commit and dirty are null and `reason` says why.
    """
    root = Path(root).resolve()
    state: dict[str, Any] = {"commit": None, "dirty": None, "diff_sha256": None, "reason": None}
    if not (root / ".git").exists():
        return {**state, "reason": f"{root} is not a git checkout (no .git in it)"}
    try:  # two processes, run together: status (with the HEAD commit in its header) and the diff
        status, diff = _git(
            root, ("status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"), ("diff", "HEAD", "--binary")
        )
    except FileNotFoundError:
        return {**state, "reason": "git is not installed"}
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        err = (getattr(exc, "stderr", b"") or b"").decode(errors="replace").strip()[:200]
        return {**state, "reason": f"{root} cannot be read by git ({err})"}
    entries = [e for e in status.decode().split("\0") if e]
    n = next((i for i, e in enumerate(entries) if not e.startswith("# ")), len(entries))  # headers come first
    head = next((e.split()[2] for e in entries[:n] if e.startswith("# branch.oid ")), None)
    status = entries[n:]
    untracked, skip = [], False
    for entry in status:  # a rename ("2 ...") is followed by its original path
        if not skip and entry.startswith("? "):
            untracked.append(entry[2:])
        skip = entry.startswith("2 ") and not skip
    state["commit"] = head
    state["dirty"] = bool(status)
    state["untracked_files"] = len(untracked)
    if state["dirty"]:
        h = hashlib.sha256(diff)
        for rel in sorted(untracked):
            path = root / rel
            h.update(b"\0untracked\0" + rel.encode() + b"\0")
            h.update((file_sha256(path) if path.is_file() else "not-a-file").encode())
        state["diff_sha256"] = h.hexdigest()
    return state


# --- packages: the pins of the installed distribution and what is installed ------------------------------------

_REQ = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:==\s*([^\s;,]+))?")
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


_VERSION = re.compile(r"^Version:\s*(\S+)", re.M)


def _installed(name: str) -> str | None:
    """The installed version of `name`, read from its metadata's header lines only (parsing a whole METADATA
    file, long description and all, is what makes `importlib.metadata.version` slow)."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    m = _VERSION.search(text.split("\n\n", 1)[0])
    return m.group(1) if m else dist.version


@functools.lru_cache(maxsize=None)
def package_versions(distribution: str = DISTRIBUTION) -> dict:
    """{name: {pinned, installed, extra}} for every requirement of `distribution` (pyproject's dependencies and
    extras); installed is null when the package is absent (an extra not installed)."""
    try:
        reqs = importlib.metadata.requires(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return {"reason": f"distribution {distribution!r} is not installed (pip install -e .)"}
    out = {}
    for req in reqs:
        spec, _, marker = req.partition(";")
        m = _REQ.match(spec)
        if not m:
            continue
        extra = _EXTRA.search(marker)
        out[m.group(1)] = {
            "pinned": m.group(2),
            "installed": _installed(m.group(1)),
            "extra": extra.group(1) if extra else None,
        }
    return out


# --- data: sha256 per file, cached by (path, size, mtime) ----------------------------------------------------

_SHA256: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes; recomputed only when its path, size or mtime changes."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError as exc:
        raise DataError(f"{path}: cannot hash a data file that is not there ({exc.strerror})") from exc
    if not path.is_file():
        raise DataError(f"{path}: expected a data file, found a folder; pass the files read")
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _SHA256:
        h = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
        _SHA256[key] = h.hexdigest()
    return _SHA256[key]


def data_records(files: Iterable[str | os.PathLike], data_dir: str | os.PathLike | None = None) -> dict:
    """{name: {sha256, bytes}} per file read; a file under `data_dir` is named relative to it, so two machines
    with the data in different places record the same names."""
    base = Path(data_dir).resolve() if data_dir else None
    out = {}
    for f in dict.fromkeys(Path(p) for p in files):
        full = f.resolve()
        name = str(full.relative_to(base)) if base is not None and full.is_relative_to(base) else str(full)
        out[name] = {"sha256": file_sha256(f), "bytes": full.stat().st_size}
    return dict(sorted(out.items()))


# --- config: digest of the groups a stage reads (tailmem.digests) -----------------------------------------


def config_record(cfg: StageSettings, groups: Sequence[str] | None = None) -> tuple[list[str], str]:
    """(groups, digest) of the stage's settings `cfg`: its own groups and digest (its memory arms included), the
    pair the DAG computes for its jobs; or, for a stage that records a narrower set, `groups` with
    `digests.config_digest` of the composed config."""
    from tailmem import digests

    if groups is None:
        return list(cfg.groups), digests.config_digest(cfg.composed, cfg.groups, arms=cfg.arms)
    return list(groups), digests.config_digest(cfg.composed, groups)


# --- agents: model or programmatic agent per role ------------------------------------------------------------


def agents(cfg: DictConfig) -> dict:
    """{role: {backend, agent, preset, structured_outputs}} from the llm group of the composed config `cfg`: agent =
    the model, or the programmatic agent standing in; preset = the llm group's name (embedded, served, openai...),
    so a table from a served model and one from the embedded model never read alike; structured_outputs = how a
    served model was constrained. Read from the composed config, so a stage that does not list `llm` still names
    the agents of its run."""
    if not cfg.get("llm"):
        return {}
    from tailmem.llm.group import roles, settings

    try:
        llm = settings(cfg)
        played = roles(llm)
    except TailmemError as exc:  # a stage that never calls a model must not fail on an llm setting it ignores
        return {"error": str(exc)}
    return {
        role: {"backend": r.backend, "agent": r.label, "preset": llm.name, "structured_outputs": r.structured_outputs}
        for role, r in played.items()
    }


def _played(a: dict) -> str:
    """One role's agent in a footer: the model (or programmatic agent), the backend and, where set, the constraint."""
    if model_free(a["backend"]):
        return a["agent"]
    how = a["backend"] + (f" {a['structured_outputs']}" if a.get("structured_outputs") else "")
    return f"{a['agent']} ({how})"


# The roles whose outputs a stage's rows rest on, by the config groups the stage reads (each names its study's
# players). The policy role is not here: whether it played depends on which graph-world policies walked
# (`walked_policies`): the random walk is no agent, the semantic proxy is the programmatic one whatever the llm
# group configures, and only the `llm` policy is the configured policy role.
GROUP_ROLES = {
    "control": (PREDICTOR,),  # the controller study's predictions
    "fsmem": (BUILDER, SEARCHER, JUDGE),  # stores, answers, verdicts
    "longmemeval": (SEARCHER, JUDGE),
    "alfworld": (BUILDER, SEARCHER, EXECUTOR),  # the skill curator and retriever, the ReAct executor
    "judges": (JUDGE,),
    "model_roles": (PREDICTOR, BUILDER, SEARCHER, EXECUTOR, JUDGE),  # the roles the role probe measures
}


def walked_policies(cfg: DictConfig, groups: Sequence[str]) -> set[str]:
    """The graph-world policies whose walks the rows of a stage reading `groups` come from: a run's own policy (the
    `policy` group); the runs a report enumerates from the scale: the random-walk tables' tail contrast (`rollout`),
    the controller study's trajectories and Table 3's tail policy (`control`)."""
    from tailmem.stage import POLICY_GROUP

    walked = set()
    if POLICY_GROUP in groups and cfg.get(POLICY_GROUP) is not None:
        walked.add(str(cfg[POLICY_GROUP].name))
    if "scale" in groups and "rollout" in groups:
        walked.update(contrast_policies(cfg))
    if "scale" in groups and "control" in groups:
        walked.update({tail_policy(cfg), str(cfg.scale.control.policy)})
    return walked


def players(cfg: DictConfig, groups: Sequence[str], roles: dict) -> dict[str, str]:
    """{role: who played it} for the roles the rows of a stage reading `groups` rest on (`roles`: `agents` of the
    config): the configured agent, or for the policy the agents of the policies that walked (the configured policy
    role for `llm`, the programmatic semantic agent for the `semantic` proxy, none for the random walk)."""
    from tailmem.agents.graphworld import POLICY_AGENT

    resting = {r for g in groups for r in GROUP_ROLES.get(g, ())}
    out = {r: _played(roles[r]) for r in roles if r in resting and r != POLICY}
    walked = walked_policies(cfg, groups)
    policy = [_played(roles[POLICY])] if "llm" in walked and POLICY in roles else []
    policy += [POLICY_AGENT] if "semantic" in walked else []
    if policy:
        out[POLICY] = " and ".join(dict.fromkeys(policy))
    return {r: out[r] for r in roles if r in out}  # in the config's role order


# --- what gets written -----------------------------------------------------------------------------------------


def provenance(
    cfg: StageSettings, data_files: Iterable[str | os.PathLike] = (), groups: Sequence[str] | None = None
) -> dict:
    """The machine-independent part of meta.json of the stage's settings `cfg`: code, config digest, packages,
    agents, data."""
    used, digest = config_record(cfg, groups)
    return {
        "code": dict(code_state()),  # a copy: the cached record stays as git reported it
        "config_digest": digest,
        "config_groups": used,
        "packages": package_versions(),
        "agents": agents(cfg.composed),
        "data": data_records(data_files, cfg.composed.get("data_dir")),
    }


def packages_line(versions: dict | None = None) -> str:
    """The pinned packages in a few words: how many are installed at their pin, which are not (name, pin, installed),
    and a digest of the whole {name: installed} map, so two footers with the same digest ran the same versions."""
    versions = package_versions() if versions is None else versions
    if "reason" in versions:
        return f"packages: unknown ({versions['reason']})"
    installed = {n: v["installed"] for n, v in sorted(versions.items()) if v["installed"] is not None}
    off = [
        f"{n} {v['installed']} (pinned {v['pinned']})"
        for n, v in sorted(versions.items())
        if v["installed"] is not None and v["pinned"] and v["installed"] != v["pinned"]
    ]
    digest = hashlib.sha256(json.dumps(installed, sort_keys=True).encode()).hexdigest()[:12]
    state = f"{len(installed) - len(off)} of {len(installed)} installed at their pin"
    return f"packages: {state}" + (f", not: {', '.join(off)}" if off else "") + f" (versions digest `{digest}`)"


def data_line(records: dict | None) -> str:
    """The data files read, each with the first 12 hex digits of its sha256 (the full digests are in meta.json);
    None: the caller did not list them here."""
    if records is None:
        return "data: sha256 per file in the meta.json beside this table"
    if not records:
        return "data: no benchmark file read"
    return "data: " + ", ".join(f"{name} sha256 `{r['sha256'][:12]}`" for name, r in records.items())


def table_footer(
    cfg: StageSettings, groups: Sequence[str] | None = None, data_files: Iterable[str | os.PathLike] | None = None
) -> str:
    """One Markdown line under a table: commit, dirty flag (diff hash), config digest, the agent of each role the
    table's rows rest on (`players`; the other configured roles named as not played), the package versions and the
    sha256 of each data file read (`data_files`; None: not listed in the footer).
    A stage that reads benchmark files passes the same list to `save_provenance`."""
    code = code_state()
    if code["commit"] is None:
        where = f"commit unknown ({code['reason']})"
    else:
        where = f"commit `{code['commit'][:12]}`" + (
            f" (dirty, diff sha256 `{code['diff_sha256'][:12]}`)" if code["dirty"] else " (clean)"
        )
    used, digest = config_record(cfg, groups)
    roles = agents(cfg.composed)
    if roles and "error" not in roles:
        preset = next(iter(roles.values())).get("preset")
        played = players(cfg.composed, used, roles)
        idle = [r for r in roles if r not in played]
        who = f"agents (llm={preset}): " + (", ".join(f"{r} {a}" for r, a in played.items()) or "none played")
        who += f"; configured, not played: {', '.join(idle)}" if idle else ""
    else:
        who = f"agents: {roles.get('error', 'no llm group')}"
    data = data_line(None if data_files is None else data_records(data_files, cfg.composed.get("data_dir")))
    return f"Provenance: {where}; config digest `{digest}` ({', '.join(used)}); {who}; {packages_line()}; {data}."


def save_provenance(
    out: Path,
    cfg: StageSettings,
    prefix: str = "",
    data_files: Iterable[str | os.PathLike] = (),
    groups: Sequence[str] | None = None,
    **extra: Any,
) -> None:
    """Write `config.yaml` (the stage's composed config, resolved) and `meta.json` into `out`: stage, seed, code,
    config digest, packages, agent per role, sha256 of each data file in `data_files`, host and time, plus `extra`.

    `prefix` names them apart where several stages share one folder (`results/tables/`).
    """
    composed = cfg.composed
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / f"{prefix}{CONFIG_FILE}", OmegaConf.to_yaml(composed, resolve=True))
    meta = RunMeta(
        stage=composed.get("stage"),
        seed=composed.get("seed"),
        tailmem_version=tailmem.__version__,
        **provenance(cfg, data_files, groups),
        python=sys.version.split()[0],
        host=socket.gethostname(),
        platform=platform.platform(),
        finished_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        extra=extra,
    )
    meta.write(out / f"{prefix}{META_FILE}")
