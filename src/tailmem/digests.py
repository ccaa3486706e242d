"""When a stage's artifact is still current: the two digests of what it depends on, the config groups it reads
and the code it runs.

- the *config digest*: sha256 of the canonical JSON of the resolved config of the stage's groups (defaults +
  overrides, so a comment-only YAML edit changes nothing), minus the keys a job sets from its wildcards;
- the *code digest*: sha256 over the syntax trees (`ast.dump`, so comments and formatting do not count) of every
  `tailmem` module the stage imports, found by a static walk of `import` statements from the stage module
  (imports inside functions included), plus the prompt files under `configs/prompts/<group>/` of its groups.

A stage's record (tailmem.stage.Stage) names its groups and gives its config digest from here; provenance records
the same digests, and the workflow computes them for every job of the DAG. This module names no stage module.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from tailmem.lazy import resolve
from tailmem.source_closure import PACKAGE_ROOT, file_digest, import_closure

if TYPE_CHECKING:
    from omegaconf import DictConfig

# Top-level keys that move artifacts or data but do not change a number: in a digest, a path derived from one
# of them (`${data_dir}/locomo/...`) counts as the placeholder `<data_dir>/locomo/...`, the same on any machine.
GLOBAL_KEYS = ("results_dir", "figures_dir", "data_dir")
# Keys that only point a job at its input artifacts (set by Snakemake); never part of a digest.
PATH_KEYS = ("control.world", "control.matched_from", "control.plan_file")


# -- config digest -------------------------------------------------------------------------------------------
def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def _drop(tree: dict, dotted: str) -> None:
    head, _, rest = dotted.partition(".")
    if head not in tree:
        return
    if not rest:
        tree.pop(head)
    elif isinstance(tree[head], dict):
        _drop(tree[head], rest)


def _set(tree: dict, dotted: str, value: Any) -> None:
    head, _, rest = dotted.partition(".")
    if not rest:
        tree[head] = value
        return
    if not isinstance(tree.get(head), dict):
        tree[head] = {}
    _set(tree[head], rest, value)


def digest_view(cfg):
    """A copy of `cfg` with the global folders as placeholders, as every digest sees it (one deep copy of the
    whole config: a DAG takes it once, not once per stage)."""
    import copy

    from omegaconf import DictConfig

    if isinstance(cfg, DictConfig):
        cfg = copy.deepcopy(cfg)
        for key in GLOBAL_KEYS:
            if key in cfg:
                cfg[key] = f"<{key}>"
    return cfg


def base_payload(cfg: DictConfig, groups: Iterable[str], arms: str | None = None) -> dict:
    """The resolved `groups` of the composed config `cfg` as plain data (global folders as placeholders,
    input-path keys dropped); for a stage that builds several memory arms (`arms`), those arms' settings as it will
    build them. A stage digests the config its settings came from (`cfg.composed`), the one the DAG digests."""
    return view_payload(digest_view(cfg), groups, arms)


def view_payload(view, groups: Iterable[str], arms: str | None = None) -> dict:
    """`base_payload` of a config already passed through `digest_view`."""
    from omegaconf import DictConfig, OmegaConf

    out: dict[str, Any] = {}
    for group in groups:
        node = view.get(group)
        out[group] = OmegaConf.to_container(node, resolve=True) if isinstance(node, DictConfig) else node
    for key in PATH_KEYS:
        _drop(out, key)
    if arms:
        out["memory_arms"] = resolve(arms)(view)
    return out


def with_sets(payload: dict, sets: Iterable[tuple[str, str]]) -> dict:
    """`payload` with a job's own overrides (`key`, `value` strings, parsed as Hydra parses plain values) set
    in the groups it holds."""
    import copy

    import yaml

    out = copy.deepcopy(payload)
    for key, value in sets:
        if key.split(".", 1)[0] in out and key not in PATH_KEYS:
            _set(out, key, yaml.safe_load(value) if value != "" else "")
    return out


def digest_of(payload: dict) -> str:
    """sha256 (hex, first 16) of a payload's canonical JSON."""
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()[:16]


def config_digest(cfg: DictConfig, groups: Iterable[str], arms: str | None = None) -> str:
    """What a job's numbers depend on in the config, as a digest of `base_payload`. A stage computes it from
    the config it runs with; the workflow gets the same value from the DAG's config plus the job's overrides."""
    return digest_of(base_payload(cfg, groups, arms))


# -- code digest: the import closure of a stage module (tailmem.source_closure) -----------------------------


def source_files(module: str, groups: Iterable[str], config_root: Path | None = None) -> tuple[Path, ...]:
    """What the code digest of the stage in `module` reading `groups` covers: the module's import closure, the
    data files of the packages in it and its groups' prompt files."""
    files = list(import_closure(module))
    # A package's data files (`<package>/data/*.yaml`: the papers' numbers, the tables' words) count as its code.
    folders = sorted({p.parent / "data" for p in files if (p.parent / "data").is_dir()})
    files.extend(f for d in folders for f in sorted(d.glob("*.yaml")))
    if config_root is None:
        from tailmem.configs import config_dir

        config_root = config_dir()
    for group in groups:
        folder = Path(config_root) / "prompts" / group
        if folder.is_dir():
            files.extend(sorted(p for p in folder.rglob("*") if p.is_file()))
    return tuple(files)


@cache
def code_digest(module: str, groups: tuple[str, ...], config_root: Path | None = None) -> str:
    """sha256 (hex, first 16) of the source the stage in `module` reading `groups` runs (see `source_files`);
    paths count relative to the package or the config folder, so a clone elsewhere gets the same digest."""
    if config_root is None:
        from tailmem.configs import config_dir

        config_root = config_dir()
    h = hashlib.sha256()
    for path in source_files(module, groups, config_root):
        root = PACKAGE_ROOT if path.is_relative_to(PACKAGE_ROOT) else Path(config_root)
        h.update(f"{path.relative_to(root)}\0{file_digest(path)}\n".encode())
    return h.hexdigest()[:16]
