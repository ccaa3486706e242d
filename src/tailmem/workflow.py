"""Glue between Snakemake and Hydra: compose the config a DAG is built from, route overrides to stages, and
give each job its command and its config digest.

The Snakefile enumerates its targets from the same composed config the stages read, so the DAG and the
stages can never disagree about sizes, seeds or folders. A job's config digest is taken of the same resolved
groups its stage will see (the stage records it in `meta.json`), so editing a default in `configs/` reruns
exactly the jobs whose groups it changes.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from omegaconf import DictConfig

from tailmem.configs import config_dir
from tailmem.digests import GLOBAL_KEYS, base_payload, code_digest, digest_of, digest_view, view_payload, with_sets
from tailmem.errors import ConfigError
from tailmem.registry import stage as get_stage

# What a rule runs: `python -m tailmem <stage>` through the warm server (tailmem.warmstart; TAILMEM_WARMSTART=0
# runs it cold, in the job's own process).
JOB_RUNNER = "python -m tailmem.warmstart"


def compose_config(scale: str, overrides: Sequence[str] = ()) -> DictConfig:
    """The resolved primary config for `scale` plus `overrides`; a bad key fails here, before any job runs.

    Hydra refuses an unknown key or a wrong type as it composes (the schema, tailmem.settings); the ranges and
    the open groups' checks follow (`validate`, one line per problem)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from tailmem import compose_cache
    from tailmem.validation import explain, validate

    GlobalHydra.instance().clear()
    try:
        with compose_cache.active(), initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[f"scale={scale}", *overrides, "stage=workflow"])
    except (HydraException, OmegaConfBaseException) as exc:
        raise explain(exc, overrides) from exc
    finally:
        GlobalHydra.instance().clear()
    validate(cfg, overrides, graph_option=graph_option)
    return cfg


def graph_option(family: str) -> dict:
    """The keys and defaults of `configs/graph/<family>.yaml` ({} when there is no such option)."""
    path = config_dir() / "graph" / f"{family}.yaml"
    return dict(_yaml(path, path.stat().st_mtime_ns)) if path.exists() else {}


def override_key(override: str) -> str:
    """The dotted key an override sets: `+a.b=1` -> `a.b`, `graph=modular` -> `graph`."""
    return override.lstrip("+~").split("=", 1)[0].strip()


def stage_overrides(overrides: Iterable[str], groups: Iterable[str], family: str | None = None) -> list[str]:
    """The overrides whose top-level key is one of `groups` (or a global key).

    With `family`, a job's graph family comes from its wildcard: `graph=<option>` is dropped and `graph.<key>`
    reaches only families whose config has that key (`graph.degree=6` changes uniform worlds, not scale-free); sizes come from `scale.sizes`.
    """
    wanted = set(groups) | set(GLOBAL_KEYS)
    picked = [o for o in overrides if override_key(o).split(".", 1)[0] in wanted]
    if family is None:
        return picked
    keys = graph_keys(family)
    out = []
    for o in picked:
        key = override_key(o)
        if key in ("graph", "graph.n", "graph.family") or (
            key.startswith("graph.") and key.split(".", 1)[1] not in keys
        ):
            continue
        out.append(o)
    return out


def graph_keys(family: str) -> frozenset[str]:
    """The keys of `configs/graph/<family>.yaml`."""
    path = config_dir() / "graph" / f"{family}.yaml"
    if not path.exists():
        raise ConfigError(f"graph.family={family!r}: no config {path}")
    return frozenset(_yaml(path, path.stat().st_mtime_ns))


@lru_cache(maxsize=None)
def _yaml(path, mtime_ns: int) -> dict:
    """Read once per DAG (every rollout, audit and control job asks), again if the file changes."""
    import yaml

    return yaml.safe_load(path.read_text()) or {}


def group_schema(group: str):
    """The dataclass of a config group (tailmem.settings.schema.Settings), or None for an open group."""
    import dataclasses

    from tailmem.settings.schema import Settings, _dataclass_of

    return _dataclass_of(Settings, group) if group in {f.name for f in dataclasses.fields(Settings)} else None


def split_override(override: str) -> tuple[str, str]:
    """`a.b=1` -> ("a.b", "1")."""
    key, _, value = override.partition("=")
    return key.strip(), value


def _is_group(key: str) -> bool:
    return "." not in key and (config_dir() / key).is_dir()


@dataclass(frozen=True)
class Job:
    """What one Snakemake job runs: its shell command (without `out=`/`input=` paths) and its digests."""

    cmd: str
    config: str
    code: str


class Dag:
    """The composed config of one scale and the user's overrides, and the jobs built from it.

    A job is a stage plus its own overrides (group choices such as `graph=modular`, keys such as `seed=1`);
    its command passes the stage only the user's overrides of the groups it reads, and its config digest is
    taken of those groups resolved as the stage will resolve them. Hydra composes once per DAG (about 0.5 s a
    composition); a job's group choice is read from its option file plus the user's overrides of that group,
    which equals Hydra's composition for option files without interpolations or package headers (checked for
    every shipped option in tests/test_rerun_digests.py) and falls back to a Hydra composition otherwise.
    """

    def __init__(self, scale: str, overrides: Sequence[str] = ()):
        self.scale = scale
        self.overrides = list(overrides)
        self.cfg = compose_config(scale, self.overrides)
        self._view = digest_view(self.cfg)
        self._payloads: dict[tuple, dict] = {}
        self._options: dict[tuple, object] = {}

    def option_payload(self, group: str, option: str, family: str | None = None):
        """The resolved node of `group` when the job chooses `option` (plain data)."""
        key = (group, option, family)
        if key not in self._options:
            self._options[key] = self._read_option(group, option, family)
        return self._options[key]

    def _read_option(self, group: str, option: str, family: str | None):
        import yaml
        from omegaconf import OmegaConf

        mine = [
            o
            for o in stage_overrides(self.overrides, [group], family if group == "graph" else None)
            if override_key(o).startswith(group + ".")
        ]
        path = config_dir() / group / f"{option}.yaml"
        text = path.read_text() if path.is_file() else ""
        if not text or "${" in text or "@package" in text or any(o.startswith("~") for o in mine):
            base = [o for o in self.overrides if override_key(o).split(".", 1)[0] != group]
            cfg = compose_config(self.scale, [*base, *mine, f"{group}={option}"])
            return base_payload(cfg, [group])[group]
        node = OmegaConf.create(yaml.safe_load(text) or {})
        schema = group_schema(group)
        if schema is not None:  # the values typed as Hydra types them (a float field's `10` is 10.0)
            node = OmegaConf.merge(OmegaConf.structured(schema), node)
        for o in mine:
            k, v = split_override(o.lstrip("+"))
            OmegaConf.update(node, k.split(".", 1)[1], yaml.safe_load(v) if v != "" else "", force_add=True)
        return OmegaConf.to_container(node, resolve=True)

    @lru_cache(maxsize=None)
    def job(self, stage: str, args: tuple[str, ...] = (), family: str | None = None) -> Job:
        """The command and digests of `stage` run with the job overrides `args` (graph overrides filtered to
        the keys of `family`, as the stage receives them)."""
        st = get_stage(stage)
        passed = [f"scale={self.scale}", *stage_overrides(self.overrides, st.groups, family), *args]
        cmd = " ".join([JOB_RUNNER, stage, *map(shlex.quote, passed)])
        key = (st.groups, st.arms)
        if key not in self._payloads:
            self._payloads[key] = view_payload(self._view, st.groups, st.arms)
        payload = dict(self._payloads[key])
        sets = []
        for arg in args:
            k, v = split_override(arg)
            if _is_group(k):
                if k in st.groups:
                    payload[k] = self.option_payload(k, v, family)
            else:
                sets.append((k, v))
        return Job(cmd, digest_of(with_sets(payload, sets)), code_digest(st.module, st.groups))


def wildcard_patterns() -> dict[str, str]:
    """Snakemake `wildcard_constraints` for every named wildcard, generated from the Python registries, so a
    name unknown to the code never matches a rule (a harness added to `fsmem.harnesses.HARNESSES` matches at once)."""
    from tailmem.fsmem.benchmarks import BENCHMARKS
    from tailmem.fsmem.harnesses import HARNESSES
    from tailmem.fsmem.variants import VARIANTS
    from tailmem.graphworld.families import FAMILIES
    from tailmem.settings.rollout import DESIGNS, POLICIES

    def one_of(names) -> str:
        return "|".join(sorted(map(str, names), key=len, reverse=True))

    segment = r"[^/]+"
    return dict(
        n=r"\d+",
        seed=r"\d+",
        replicate=r"[1-9]\d*",  # replicate 0 is the main store (paths.replicate_dir)
        family=one_of(FAMILIES),
        policy=one_of(POLICIES),
        retrieval=one_of(DESIGNS),
        bench=one_of(BENCHMARKS),
        variant=one_of(VARIANTS),
        harness=one_of(HARNESSES),
        bharness=one_of(HARNESSES),
        conv=segment,
        arm=segment,
        builder=segment,
        searcher=segment,
        dataset=segment,
        subset=segment,
        protocol=segment,
        skill_variant=segment,
        agent=segment,
        predictor=segment,
        executor=segment,  # ALFWorld: the executor's agent label (tailmem.studies.alfworld.play.layout.agent_segments)
    )
