"""Every config key with its typed reader, checked when the DAG is composed and again when a stage starts.

Why: a bad value (`rollout.steps=zero`, `llm.retries=-1`) or a misspelt key (`+graph.nn=200`) must fail in a
second with one line naming the key, the value and what was expected, before any job runs; not inside a job
after its upstream work ran, and not silently.

The schema maps key patterns (`*` = any one key) to readers. Where a stage already has a typed reader, the
schema calls it (`Probe`, or a group check for rules that tie several keys together: graph families, memory
controllers, the llm group), so each rule has one definition. `validate(cfg)` collects every error and raises
one ConfigError with a line per error.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tailmem.calibration.settings import RULES as CALIBRATION
from tailmem.config_types import (AnyOf, Bool, Checked, Choice, Int, ListOf, Map, Num, Probe, Reader, Str, Url,
                                  check)
from tailmem.configs import config_dir
from tailmem.errors import ConfigError
from tailmem.llm.settings import SELF_CHECKED
from tailmem.accesslog.settings import RULES as AUDIT_LOG  # audit_log (issue 31)
from tailmem.stages.audit_settings import RULES as AUDIT
from tailmem.stats.settings import RULES as STATS

WORKFLOW = "workflow"  # the `stage` value of the config a DAG is composed from (tailmem.workflow)


# ---------------------------------------------------------------- rules shared with the stages' readers

def _rollout(**kwargs) -> None:
    from tailmem.rollout.settings import RolloutSettings

    RolloutSettings(**kwargs)


def _llm_role(key: str) -> Callable[[Any], None]:
    """Probe of llm.settings.read_settings for a role key it range-checks (group-wide llm.<key> is merged into
    every role, so the rule is the same)."""

    def read(value):
        from tailmem.llm.settings import read_settings

        role = {"backend": "programmatic", key: value}
        read_settings({"llm": {"name": "probe", "cache_path": "probe.sqlite", "roles": {"judge": role}}})

    return read


def _model_families(value) -> None:
    from tailmem.llm.params import read_families

    read_families(value)


def _arm(value) -> None:
    from tailmem.control.arms import overrides

    if not isinstance(value, str):
        raise ConfigError(f"control.arm={value!r}: expected an arm name such as graph_memory-compact")
    overrides(value)


def _names(module: str, attr: str) -> Callable[[], list[str]]:
    """A registry's names, imported when first needed (stage start-up imports only what it runs)."""

    def names():
        import importlib

        return list(getattr(importlib.import_module(module), attr))

    return names


def _categories(benchmark: str) -> list[int]:
    """Categories a run may answer: LoCoMo's 1-5 (5, adversarial, opts into LoCoMo's own rule; issue 16)."""
    from tailmem.data.locomo import CATEGORIES
    from tailmem.fsmem.benchmarks import category_names

    return list(CATEGORIES) if benchmark == "locomo" else list(category_names(benchmark))


SEED = Probe(lambda v: _rollout(seed=v), "an integer >= 0")
TAU = Num(lo=0)  # CTMC's rank exponent: 0 = uniform allocation
POSITIVE = Int(lo=1)
FAMILY = Str(_names("tailmem.graphworld.families", "FAMILIES"))
DESIGN = Probe(lambda v: _rollout(retrieval=v), "a retrieval design of tailmem.rollout.settings.DESIGNS")
POLICY = Probe(lambda v: _rollout(policy=v), "a policy of tailmem.rollout.settings.POLICIES")
BENCHMARK = Str(_names("tailmem.fsmem.benchmarks", "BENCHMARKS"))
FS_VARIANT = Str(_names("tailmem.fsmem.variants", "VARIANTS"))
HARNESS = Str(_names("tailmem.fsmem.harnesses", "HARNESSES"))
ENCODING = Str(_names("tailmem.control.arms", "ENCODINGS"))


def _min_states() -> int:
    from tailmem.graphworld.families import MIN_STATES

    return MIN_STATES


SIZE = Int(lo=_min_states)  # a graph size: the bound of graph.n (graphworld.families.MIN_STATES)


# A memory controller's settings (configs/memory/, and ALFWorld's arms): names, encoding, rank_by, order and
# which keys a controller takes are checked by memory.controllers.make_controller; the ranges here.
MEMORY = {
    "name": Checked("memory.controllers.make_controller"),
    "label": Str(),
    "encoding": Checked("memory.controllers.make_controller"),
    "budget": AnyOf(POSITIVE, Str(["matched"]), null=True),
    "tau": TAU,
    "order": Checked("memory.controllers.make_controller"),
    "rank_by": Checked("memory.controllers.make_controller"),
    "k": POSITIVE,
    "window": POSITIVE,
    "older": Int(lo=0),
    "seed": SEED,
}

# One role's model settings (llm.settings.RoleSettings); each may also be set group-wide as llm.<key>.
ROLE = {
    "backend": Str(_names("tailmem.llm.settings", "BACKENDS")),
    "model": Str(null=True),
    "agent": Str(null=True),
    "base_url": Url(null=True),
    "api_key_env": Str(),
    "api_key": Str(null=True),
    "params": Map(),
    "recorded_backend": Str(_names("tailmem.llm.settings", "BACKENDS")),
    "model_path": Str(null=True),
    "model_sha256": Str(null=True),
    "n_gpu_layers": Int(lo=0),
    "kv_prefix_cache": Bool(),
    "n_ctx": POSITIVE,
    "n_threads": POSITIVE,
    "concurrency": POSITIVE,
    "retries": Int(lo=0),
    "backoff_s": Num(lo=0),
    "backoff_max_s": Num(lo=0),
    "timeout_s": Num(lo=0, lo_open=True),
    "choose_retries": Int(lo=0),
    # request parameters and run settings: the LLM layer owns their rules (read_settings checks them)
    **{k: Probe(_llm_role(k), f"a valid llm.{k} (tailmem.llm.settings)", null=True) for k in SELF_CHECKED},
    "task_max_output_tokens": Probe(_llm_role("task_max_output_tokens"), "a mapping task -> integer >= 1"),
    "endpoint_key": Str(null=True),
}

DOLLARS = Num(lo=0)
ACCESS_UNITS = ("file", "section")


def _graph_rules() -> dict[str, Reader]:
    """The keys of every graph option (configs/graph/), read with their family by check_graph_config."""
    keys = {"family", "n"} | {k for f in (config_dir() / "graph").glob("*.yaml") for k in _graph_option(f.stem)}
    return {f"graph.{k}": Checked("graphworld.families.check_graph_config") for k in sorted(keys)}


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Reader]:
    """Key pattern -> reader, for every key of every config group."""
    from tailmem.registry import STAGES

    rules: dict[str, Reader] = {
        "stage": Str(lambda: [*STAGES, WORKFLOW]),
        "seed": SEED,
        "data_dir": Str(),
        "results_dir": Str(),
        "figures_dir": Str(),
        "out": Str(null=True),
        "input": Str(null=True),
        "rollout.episodes": Probe(lambda v: _rollout(episodes=v), "an integer >= 1"),
        "rollout.steps": Probe(lambda v: _rollout(steps=v), "an integer >= 1"),
        "rollout.start": Probe(lambda v: _rollout(start=v), "a start-state rule of tailmem.rollout.settings.STARTS"),
        "control.arm": Probe(_arm, "an arm name (tailmem.control.arms)", null=True),
        "control.world": Str(null=True),
        "control.budget_from": Str(null=True),
        "control.tail_fraction": Num(lo=0, hi=1, lo_open=True),
        "model_roles.judge_probe_items": Int(lo=0),
        **{f"model_roles.floors.{k}": Num(lo=0, hi=1) for k in (
            "searcher_looked_up", "searcher_correct", "malformed_per_round", "capped", "predictor_with_evidence",
            "judge_agreement", "unreadable")},
        "control.predict_steps": Int(lo=1, null=True),
        "control.replay_steps": Int(lo=1, null=True),
        "control.predict_spread": Str(["even", "last"]),
        **_graph_rules(),
        "policy.name": POLICY,
        "retrieval.name": DESIGN,
        "retrieval.k": Probe(lambda v: _rollout(k=v), "an integer >= 0"),
        **{f"audit.{k}": r for k, r in AUDIT.items()},  # the audit stage's own reader (stages.audit_settings)
        # audit_log (issue 31): the typed group is tailmem.accesslog.settings.AuditLogSettings; its RULES per key
        **{f"audit_log.{k}": r for k, r in AUDIT_LOG.items()},
        **{f"stats.{k}": r for k, r in STATS.items()},  # the claims' intervals (stats.settings)
        **{f"calibration.{k}": r for k, r in CALIBRATION.items()},  # the protocol search (calibration.settings)
        **{f"memory.{k}": r for k, r in MEMORY.items()},
        # llm (llm.settings.read_settings checks roles, backends and models together)
        "llm.name": Str(),
        "llm.cache_path": Str(),
        "llm.encoding": Str(),
        "llm.prices.*.input": DOLLARS,
        "llm.prices.*.cached_input": DOLLARS,
        "llm.prices.*.output": DOLLARS,
        "llm.prices_file": Str(null=True),
        "llm.budget.max_dollars": Num(lo=0, null=True),
        "llm.budget.max_tokens": Int(lo=0, null=True),
        "llm.model_families": Probe(_model_families, "a list of {pattern, family}", null=True),
        **{f"llm.{k}": r for k, r in ROLE.items()},  # group-wide defaults of every role
        **{f"llm.roles.*.{k}": r for k, r in ROLE.items()},
        # fsmem (paper 2)
        "fsmem.benchmark": BENCHMARK,
        "fsmem.data_file": Str(),
        "fsmem.conversations": ListOf(Str()),
        "fsmem.conversation": Str(),
        "fsmem.variants": ListOf(FS_VARIANT),
        "fsmem.variant": FS_VARIANT,
        "fsmem.replicate": Int(lo=0),
        "fsmem.harness": HARNESS,
        "fsmem.build_harness": HARNESS,
        "fsmem.categories": ListOf(Choice(lambda: _categories("locomo"))),
        "fsmem.max_questions": Int(lo=1, null=True),
        "fsmem.stratified": Bool(),  # max_questions spread over the categories (stages.locomo.select_questions)
        "fsmem.max_sessions": Int(lo=1, null=True),  # first n sessions, questions with evidence there (fsmem.benchmarks)
        "fsmem.judge": Bool(),
        "fsmem.retrieval_k": POSITIVE,
        "fsmem.chunk.max_turns": POSITIVE,
        "fsmem.chunk.max_chars": POSITIVE,
        "fsmem.rounds.build": POSITIVE,
        "fsmem.rounds.search_curated": POSITIVE,
        "fsmem.rounds.search_other": POSITIVE,
        "fsmem.rounds.reorganize_passes": POSITIVE,
        "fsmem.shell.timeout_s": Num(lo=0, lo_open=True),
        "fsmem.shell.max_output_chars": POSITIVE,
        "fsmem.sandbox.allow_unsafe_fallback": Bool(),  # issue 13 (fsmem.variants reads it with the same rule)
        "fsmem.realtalk.data_dir": Str(),
        "fsmem.realtalk.chats": ListOf(Str(), null=True),
        "fsmem.realtalk.categories": ListOf(Choice(lambda: _categories("realtalk"))),
        "fsmem.personamem.data_dir": Str(),
        "fsmem.personamem.tiers": ListOf(Str(["32k", "128k", "1M"])),  # data.personamem: the official tiers
        "fsmem.personamem.max_questions": Int(lo=1, null=True),
        "fsmem.personamem.contexts": Int(lo=1, null=True),
        "fsmem.personamem.variants": ListOf(FS_VARIANT, null=True),
        "fsmem.personamem.block_messages": POSITIVE,
        "fsmem.study.benchmarks": ListOf(BENCHMARK),
        "fsmem.study.variants": ListOf(FS_VARIANT),
        "fsmem.study.harness_variants": ListOf(FS_VARIANT),
        "fsmem.study.harnesses": ListOf(HARNESS, null=True),
        "fsmem.study.harness_benchmarks": ListOf(BENCHMARK, empty=True),  # []: no harness study (a smoke slice)
        "fsmem.study.harness_conversations": POSITIVE,
        "fsmem.study.strength.benchmark": BENCHMARK,
        "fsmem.study.strength.variant": FS_VARIANT,
        "fsmem.study.strength.harness": HARNESS,
        "fsmem.study.strength.builders": ListOf(Str()),
        "fsmem.study.strength.searchers": ListOf(Str()),
        "fsmem.study.replicates.count": POSITIVE,
        "fsmem.study.replicates.benchmark": BENCHMARK,
        "fsmem.study.replicates.variant": FS_VARIANT,
        "fsmem.study.replicates.harness": HARNESS,
        "fsmem.study.replicates.conversations": POSITIVE,
        "fsmem.study.growth_variant": FS_VARIANT,
        "fsmem.study.early_fraction": Num(lo=0, hi=1, lo_open=True),
        # stages.fsmem_access.UNITS (importing that stage loads the audit stack; a test keeps the two equal)
        "fsmem.study.access_unit": ListOf(Str(ACCESS_UNITS)),
        # ALFWorld (paper 1 observation memory, paper 2 skill setting)
        "alfworld.data_root": Str(),
        "alfworld.subsets": ListOf(Str(lambda: ["smoke", *_names("tailmem.alfworld.games", "SPLITS")()])),
        "alfworld.subset": Str(lambda: ["smoke", *_names("tailmem.alfworld.games", "SPLITS")()]),
        "alfworld.max_games": Int(lo=1, null=True),
        "alfworld.seeds": ListOf(Int(lo=0)),
        "alfworld.seed": Int(lo=0),
        "alfworld.max_steps": POSITIVE,
        "alfworld.model_executor": Str(_names("tailmem.alfworld.executor", "EXECUTORS")),
        "alfworld.model_roles": ListOf(Str(_names("tailmem.alfworld.layout", "ROLES"))),
        "alfworld.smoke_games": ListOf(Str()),
        "alfworld.regenerate.seed": SEED,
        "alfworld.regenerate.expert_check": Bool(),
        **{f"alfworld.arms.*.{k}": r for k, r in MEMORY.items()},
        "alfworld.arms_run": ListOf(Str()),
        "alfworld.arm": Checked("the alfworld group check"),
        "alfworld.executor_arm": Checked("the alfworld group check"),
        "alfworld.variants": ListOf(Str(_names("tailmem.alfworld.curator", "VARIANTS"))),
        "alfworld.protocols": ListOf(Str(_names("tailmem.alfworld.chain", "PROTOCOLS"))),
        "alfworld.variant": Str(_names("tailmem.alfworld.curator", "VARIANTS")),
        "alfworld.protocol": Str(_names("tailmem.alfworld.chain", "PROTOCOLS")),
        "alfworld.retrieval_k": POSITIVE,
        "alfworld.curator_rounds": POSITIVE,
        "alfworld.retriever_rounds": POSITIVE,
        "alfworld.claims.order_margin": Num(lo=0, hi=1),
        "alfworld.claims.min_tie_games": POSITIVE,
        # LongMemEval (paper 1 Figure 8)
        "longmemeval.files.*": Str(),
        "longmemeval.datasets": ListOf(Str()),
        "longmemeval.dataset": Checked("the longmemeval group check"),
        "longmemeval.seeds": ListOf(SEED),
        "longmemeval.max_per_type": Int(lo=1, null=True),
        "longmemeval.max_questions": Int(lo=1, null=True),
        "longmemeval.arms": ListOf(Str(_names("tailmem.longmemeval.arms", "ARM_FAMILIES"))),
        "longmemeval.turn_words": Int(lo=1, null=True),
        "longmemeval.encoding": ENCODING,
        "longmemeval.candidates": POSITIVE,
        "longmemeval.graph_budget": POSITIVE,
        "longmemeval.ctmc_ratios": ListOf(Num(lo=0, hi=1, lo_open=True)),
        "longmemeval.primary_ratio": Num(lo=0, hi=1, lo_open=True),
        # non-inferiority margin of CTMC's accuracy and coverage vs Graph Memory (docs/longmemeval.md)
        "longmemeval.noninferiority_margin": Num(lo=0, hi=1),
        "longmemeval.tau": TAU,
        "longmemeval.flat_k": POSITIVE,
        "longmemeval.recall_ks": ListOf(POSITIVE),
        "longmemeval.min_overlap": Num(lo=0, hi=1),
        "longmemeval.judge": Bool(),
        # questions answered again without their gold evidence: the reader must respond to its context
        "longmemeval.context_check": Int(lo=0, null=True),
        # scale: what the DAG enumerates
        "scale.name": Str(),
        "scale.model_slice": Str(null=True),
        "scale.families": ListOf(FAMILY),
        "scale.sizes": ListOf(SIZE),
        "scale.seeds": ListOf(SEED),
        "scale.table_retrieval": DESIGN,
        "scale.retrieval_designs": ListOf(DESIGN),
        "scale.retrieval_families": ListOf(FAMILY),
        "scale.retrieval_size": SIZE,
        "scale.control.policy": POLICY,
        "scale.control.retrieval": DESIGN,
        "scale.control.families": ListOf(FAMILY),
        "scale.control.size": SIZE,
        "scale.control.seeds": ListOf(SEED),
        "scale.control.taus": ListOf(TAU),
    }
    return rules


def required() -> list[str]:
    """Keys every composed config has: all but the option-dependent ones (a graph family's and a memory
    controller's keys, read with their option) and the group-wide defaults of the llm roles (each optional)."""
    optional = {f"llm.{k}" for k in ROLE}
    return [k for k in schema() if "*" not in k and k.split(".", 1)[0] not in ("graph", "memory") and k not in optional]


# ---------------------------------------------------------------- key lookup (paths are tuples: model names have dots)

KeyPath = tuple  # a key as its parts: ("llm", "prices", "gpt-5.4-mini", "input")


def _parts(key: str | KeyPath) -> KeyPath:
    return tuple(key.split(".")) if isinstance(key, str) else tuple(key)


def _match(pattern: KeyPath, key: KeyPath) -> bool:
    return len(pattern) == len(key) and all(a == "*" or a == b for a, b in zip(pattern, key))


@functools.lru_cache(maxsize=1)
def _patterns() -> list[tuple[KeyPath, Reader]]:
    return [(_parts(p), r) for p, r in schema().items()]


def rule_for(key: str | KeyPath) -> Reader | None:
    """The reader of a key (dotted, or its parts), or None when no config group defines it."""
    key = _parts(key)
    exact = schema().get(".".join(key))
    if exact is not None:
        return exact
    return next((r for p, r in _patterns() if "*" in p and _match(p, key)), None)


def _is_prefix(key: str | KeyPath) -> bool:
    """Some key lies under `key` (it is a mapping of the schema, not a leaf)."""
    key = _parts(key)
    return any(len(p) > len(key) and _match(p[: len(key)], key) for p, _ in _patterns())


def _suggest(key: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def unknown(key: str, candidates: Iterable[str] | None = None) -> str:
    """The error line of a key no config group defines, with the closest existing key."""
    if candidates is None:
        candidates = [p for p in schema() if "*" not in p]
    return f"{key}: unknown key{_suggest(key, candidates)}"


def leaves(tree: dict, prefix: KeyPath = ()) -> list[tuple[KeyPath, Any]]:
    """(key parts, value) of every leaf; a mapping the schema reads whole (a Map, a wrong-typed value) is a leaf."""
    out = []
    for name, value in tree.items():
        key = (*prefix, str(name))
        if isinstance(value, dict) and value and rule_for(key) is None:
            out.extend(leaves(value, key))
        else:
            out.append((key, value))
    return out


# ---------------------------------------------------------------- group checks: rules that tie keys together

def _config_error(call: Callable[[], Any], rename: Callable[[str], str] = lambda s: s) -> list[str]:
    try:
        call()
    except ConfigError as exc:
        return [rename(line) for line in str(exc).splitlines()]
    return []


def _graph_option(family: str) -> dict:
    """The keys and defaults of configs/graph/<family>.yaml ({} when there is no such option)."""
    path = config_dir() / "graph" / f"{family}.yaml"
    return dict(_yaml(str(path), path.stat().st_mtime_ns)) if path.exists() else {}


@functools.lru_cache(maxsize=64)
def _yaml(path: str, mtime_ns: int) -> dict:
    """A YAML file's content, read again when the file changes (the DAG composes the config many times)."""
    import yaml

    with open(path) as fh:
        return yaml.safe_load(fh) or {}


def _graph(cfg: dict, overrides: Sequence[str] | None) -> list[str]:
    from tailmem.graphworld.families import FAMILIES, check_graph_config

    graph = dict(cfg.get("graph") or {})
    errors = []
    family = graph.get("family")
    if family in FAMILIES and cfg.get("stage") != WORKFLOW:
        own = ["family", "n", *FAMILIES[family].keys]
        for key in sorted(set(graph) - set(own)):
            owners = [f.stem for f in sorted((config_dir() / "graph").glob("*.yaml")) if key in _graph_option(f.stem)]
            errors.append(f"graph.{key}: not a key of graph family {family!r} (its keys: "
                          f"{', '.join('graph.' + k for k in own)}); it is a key of {', '.join(owners)}")
    errors += _config_error(lambda: check_graph_config(graph))
    if cfg.get("stage") != WORKFLOW:
        return errors
    # The DAG builds a world per family x size of the scale; graph.<key> overrides reach the families that
    # have the key (tailmem.workflow.stage_overrides), each family's other keys are its option's defaults.
    from tailmem.workflow import override_key

    changed = {override_key(o).split(".", 1)[1] for o in overrides or () if override_key(o).startswith("graph.")}
    scale = cfg.get("scale") or {}
    control = scale.get("control") or {}
    grid = [("scale.families", f, "scale.sizes", n) for f in scale.get("families") or [] for n in scale.get("sizes") or []]
    grid += [("scale.retrieval_families", f, "scale.retrieval_size", scale.get("retrieval_size"))
             for f in scale.get("retrieval_families") or []]
    grid += [("scale.control.families", f, "scale.control.size", control.get("size")) for f in control.get("families") or []]
    failed: set[str] = set()
    for fkey, family, nkey, n in grid:
        if family in failed:
            continue  # one line per family: its first failing size
        params = {**_graph_option(family), "family": family, "n": n}
        params.update({k: graph[k] for k in FAMILIES[family].keys if k in changed and k in graph})
        lines = _config_error(lambda p=params: check_graph_config(p),
                              lambda line, f=family, n=n, a=fkey, b=nkey: f"{line} [graph family {f} from {a}, "
                                                                          f"graph.n={n} from {b}]")
        if lines:
            failed.add(family)
            errors += lines
    return errors


def _memory(settings: dict, prefix: str, arm: bool = False) -> list[str]:
    """make_controller's checks of one controller's settings; an arm (`arm=True`) is first completed from
    configs/memory/<name>.yaml by memory.arms.arm_settings, as the stages build it."""
    from tailmem.memory.controllers import make_controller

    def rename(line: str) -> str:
        if line.startswith(("memory.", "memory=")):  # memory.<key>: ..., or memory=<name>: ... (arm_settings)
            return prefix + ("name=" if line[6] == "=" else "") + line[7:]
        return f"{prefix.rstrip('.')}: {line}"

    def build():
        full = dict(settings)
        if arm:
            from tailmem.memory.arms import arm_settings

            full = arm_settings(full.pop("name", None), **full)
        make_controller(full)

    return _config_error(build, rename)


def _llm(cfg: dict) -> list[str]:
    from tailmem.llm.settings import read_settings

    return _config_error(lambda: read_settings(cfg))


def _alfworld(cfg: dict) -> list[str]:
    a = cfg.get("alfworld") or {}
    arms = a.get("arms") or {}
    errors = []
    for name, settings in arms.items():
        errors += _memory(settings or {}, f"alfworld.arms.{name}.", arm=True)
    for key in ("arm", "executor_arm"):
        if a.get(key) not in arms:
            errors.append(f"alfworld.{key}={a.get(key)!r}: expected one of alfworld.arms {list(arms)}")
    for i, name in enumerate(a.get("arms_run") or []):
        if name not in arms:
            errors.append(f"alfworld.arms_run={a['arms_run']!r}: item {i} ({name!r}): expected one of alfworld.arms "
                          f"{list(arms)}")
    return errors


def _longmemeval(cfg: dict) -> list[str]:
    lme = cfg.get("longmemeval") or {}
    files = list((lme.get("files") or {}))
    errors = []
    if lme.get("dataset") not in files:
        errors.append(f"longmemeval.dataset={lme.get('dataset')!r}: expected one of longmemeval.files {files}")
    for i, name in enumerate(lme.get("datasets") or []):
        if name not in files:
            errors.append(f"longmemeval.datasets={lme['datasets']!r}: item {i} ({name!r}): expected one of "
                          f"longmemeval.files {files}")
    ratios = [float(r) for r in lme.get("ctmc_ratios") or []]
    if lme.get("primary_ratio") is not None and float(lme["primary_ratio"]) not in ratios:
        errors.append(f"longmemeval.primary_ratio={lme['primary_ratio']!r}: expected one of longmemeval.ctmc_ratios "
                      f"{ratios}")
    return errors


def _calibration(cfg: dict) -> list[str]:
    from tailmem.calibration.settings import settings

    return _config_error(lambda: settings(cfg))


# group -> check; a group's check runs only when its keys passed their own readers
GROUP_CHECKS: dict[str, Callable[[dict, Sequence[str] | None], list[str]]] = {
    "calibration": lambda cfg, _: _calibration(cfg),
    "graph": _graph,
    "memory": lambda cfg, _: _memory(cfg.get("memory") or {}, "memory."),
    "llm": lambda cfg, _: _llm(cfg),
    "alfworld": lambda cfg, _: _alfworld(cfg),
    "longmemeval": lambda cfg, _: _longmemeval(cfg),
}
# a group check that reads another group's keys waits for that group too
AFTER = {"graph": ("graph", "scale")}


# ---------------------------------------------------------------- entry points

def _plain(cfg) -> dict:
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    if isinstance(cfg, DictConfig):
        try:
            return OmegaConf.to_container(cfg, resolve=True)  # type: ignore[return-value]
        except OmegaConfBaseException as exc:  # an interpolation that does not resolve names its key
            raise ConfigError(f"{getattr(exc, 'full_key', '') or 'config'}: {exc}".splitlines()[0]) from exc
    return dict(cfg)


def _scope(tree: dict) -> set[str] | None:
    """The groups whose values a stage reads (tailmem.registry), or None (all) for the DAG's config."""
    stage = tree.get("stage")
    if stage == WORKFLOW:
        return None
    from tailmem.registry import STAGES

    return set(STAGES[stage].groups) if stage in STAGES else None


def errors(cfg, overrides: Sequence[str] | None = None) -> list[str]:
    """Every error of the resolved config `cfg`, one line each (empty when the config is valid).

    Unknown keys are refused in every group. Values are read in every group when the DAG is composed
    (`stage: workflow`); a stage reads those of its own groups (the rest were read when its DAG was composed,
    and reading them would import every registry at each job's start).
    """
    tree = _plain(cfg)
    tree.pop("hydra", None)
    scope = _scope(tree)
    found: list[str] = []
    bad_groups: set[str] = set()
    for path, value in leaves(tree):
        key = ".".join(path)
        rule = rule_for(path)
        if rule is None:
            if isinstance(value, dict) and not value:
                continue  # an empty mapping (e.g. `roles: {}`) adds no key
            found.append(f"{key}={value!r}: expected a mapping (keys under {key})" if _is_prefix(path) else unknown(key))
        else:
            if scope is not None and len(path) > 1 and path[0] not in scope:
                continue
            problem = rule.problem(value)
            if problem is None:
                continue
            found.append(f"{key}={value!r}: {problem}")
        bad_groups.add(path[0])
    present = {".".join(path) for path, _ in leaves(tree)}
    for key in required():
        if key not in present and (scope is None or "." not in key or key.split(".", 1)[0] in scope):
            found.append(f"{key}: missing; expected {rule_for(key).describe()}")
            bad_groups.add(key.split(".", 1)[0])
    for group, check in GROUP_CHECKS.items():
        if group in tree and (scope is None or group in scope) and not bad_groups & set(AFTER.get(group, (group,))):
            found += check(tree, overrides)
    return list(dict.fromkeys(found))


def validate(cfg, overrides: Sequence[str] | None = None) -> None:
    """Raise one ConfigError listing every bad value and unknown key of `cfg`, one line each.

    `overrides` (the DAG's, when `cfg.stage` is `workflow`) say which graph keys reach which families.
    """
    found = errors(cfg, overrides)
    if found:
        raise ConfigError("\n".join(found))


def read(cfg, key: str) -> Any:
    """The value of `key` in `cfg`, checked by its rule: a typed reader of one key."""
    from omegaconf import OmegaConf

    value = OmegaConf.select(cfg, key, default=None) if OmegaConf.is_config(cfg) else _get(cfg, key)
    rule = rule_for(key)
    if rule is None:
        raise ConfigError(unknown(key))
    return check(key, value, rule)


def _get(tree: dict, key: str) -> Any:
    for part in key.split("."):
        tree = tree.get(part) if isinstance(tree, dict) else None
    return tree


def check_overrides(overrides: Sequence[str]) -> None:
    """Refuse a `key=value` override whose key no config group defines, before Hydra composes (Hydra's own
    message for it suggests appending the key with `+`, which would then run with the key ignored). An
    appended `+key=value` composes, so `validate` refuses it together with every other error."""
    groups = {p.name for p in config_dir().iterdir() if p.is_dir()} | {"hydra"}
    top = {p.split(".", 1)[0] for p in schema()}
    bad = []
    for o in overrides:
        if o.startswith(("~", "+")) or "=" not in o:
            continue
        key = o.lstrip("+").split("=", 1)[0].strip()
        if "/" in key or key.split(".", 1)[0] == "hydra" or key.startswith("@"):
            continue
        if "." not in key:
            if key not in groups and key not in top:
                bad.append(unknown(key, [*groups, *top]))
        elif rule_for(key) is None and not _is_prefix(key):
            bad.append(unknown(key))
    if bad:
        raise ConfigError("\n".join(dict.fromkeys(bad)))
