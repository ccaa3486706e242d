"""The `llm` group: the model of each role (`roles`, a mapping role -> RoleGroup), prices, budget, cache.

Every role key may also be set group-wide (`llm.<key>`): a role's unset key (MISSING) inherits it, and
`tailmem.llm.group.role_settings` returns a role with that merge done. So this object keeps unset keys unset: it is
built from the composed group by `read` (not `OmegaConf.to_object`, which refuses a MISSING value), and
`__post_init__` checks the ranges of every key that is set and the prices. The price table lives here, beside the
schema, because the schema's checks run it, and so do the names the keys accept (model families, efforts,
structured-output modes), which the model code (tailmem.llm) imports from here.

A role's backend is a name the backends' registry (`tailmem.llm.backends.base.KINDS`) registers, a new backend by
its row alone (docs/extending.md), and its kind's traits tie it to the role's other keys (a model to play, no
served constraints on weights in process). The registry sits above the settings, so those rules and the merge they
read (`role_settings`) are the model code's (tailmem.llm.group): they run wherever the model code reads the group
and where the composed config is checked whole (tailmem.validation).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from tailmem.errors import ConfigError
from tailmem.roles import ROLES, player_label
from tailmem.settings.checks import Problems, Unread, plain

# the values of llm.roles.<role>.structured_outputs (how tailmem.llm.structured sends a constraint)
STRUCTURED_MODES = ("gbnf", "vllm", "json_schema")
FAMILIES = ("reasoning", "standard")  # a model's request parameters (tailmem.llm.params)
EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "none")
# `llm.model_families` when null: first match wins; a model matching none is `standard`. gpt-5 chat variants are not
# reasoning models. configs/llm/offline.yaml repeats it.
DEFAULT_FAMILIES: tuple[tuple[str, str], ...] = (
    ("gpt-5*-chat*", "standard"),
    ("gpt-5*", "reasoning"),
    ("o1*", "reasoning"),
    ("o3*", "reasoning"),
    ("o4*", "reasoning"),
)
CACHE_LAYOUTS = ("file", "shards")  # tailmem.llm.cache (one SQLite file), tailmem.llm.cache_shards (a file per process)

# The value of each role key that offline.yaml, the base every preset extends, leaves unset group-wide (a preset
# that needs another value sets it, as embedded.yaml sets n_ctx). They are not written into offline.yaml because
# the composed `llm` group is part of every model stage's config digest: a key added there changes the digests and
# reruns every artifact. This is their only copy.
UNSET_IN_PRESETS = {
    "model": None,
    "agent": None,
    "api_key": None,
    "recorded_backend": "openai",
    "model_path": None,
    "model_sha256": None,
    "n_gpu_layers": 0,
    "kv_prefix_cache": True,
    "n_ctx": 2048,
    "n_threads": 2,
    "server_slots": None,
}


@dataclass
class RoleGroup:
    """One role's model settings; MISSING = inherit llm.<key>. Where each key is read: configs/llm/offline.yaml."""

    backend: str = MISSING
    model: Optional[str] = MISSING
    agent: Optional[str] = MISSING  # programmatic agent that stands in when backend == programmatic
    base_url: Optional[str] = MISSING  # openai: null -> $OPENAI_BASE_URL -> https://api.openai.com/v1
    api_key_env: str = MISSING
    api_key: Optional[str] = MISSING  # prefer api_key_env; a literal key here ends up in saved configs
    params: Dict[str, Any] = MISSING  # merged over the family's parameters (seed, extra_body...)
    family: Optional[str] = MISSING  # reasoning | standard; null -> by llm.model_families (tailmem.llm.params)
    temperature: Optional[float] = MISSING  # standard family only; null -> not sent
    max_output_tokens: Optional[int] = MISSING  # max_tokens (standard) or max_completion_tokens (reasoning)
    task_max_output_tokens: Dict[str, int] = MISSING  # per task, e.g. {restructure: 100000}
    reasoning_effort: Optional[str] = MISSING  # reasoning family only; null -> not sent (the provider's default)
    endpoint_key: Optional[str] = MISSING  # cache identity of the endpoint; null -> base URL + served model id
    compact_prompt_tokens: Optional[int] = MISSING  # tool loop: compact the transcript past this many tokens
    tool_output_max_chars: int = MISSING  # tool loop: safety cap on one tool output (file views are not clipped)
    recorded_backend: str = MISSING  # replay: the backend whose recorded calls are answered
    # openai: the embedded backend's constraints sent through the server's structured-output parameters
    # (gbnf | vllm | json_schema; tailmem.llm.structured); null: the model answers freely
    structured_outputs: Optional[str] = MISSING
    model_path: Optional[str] = MISSING  # local / instruct: GGUF file; null -> the shipped model named `model`
    model_sha256: Optional[str] = MISSING  # instruct: sha256 of model_path (checked before loading; the cache key)
    n_gpu_layers: int = MISSING  # instruct: layers offloaded to a GPU (a CUDA build of llama-cpp-python)
    kv_prefix_cache: bool = MISSING  # instruct: the system prompt's KV saved on disk, shared by jobs (kv_prefix.py)
    n_ctx: int = MISSING
    n_threads: int = MISSING
    concurrency: int = MISSING
    retries: int = MISSING
    backoff_s: float = MISSING
    backoff_max_s: float = MISSING
    timeout_s: float = MISSING
    # openai: the requests the server decodes at once (llama-cpp-python's server: 1); no more are in flight, and
    # each waits for its answer without a read time-out (tailmem.llm.slots). null: not known (a hosted API)
    server_slots: Optional[int] = MISSING
    requests_per_minute: Optional[int] = MISSING  # openai: sends per minute here (tailmem.llm.pacing); null: no cap
    tokens_per_minute: Optional[int] = MISSING  # openai: prompt + output-cap tokens per minute; null: no cap
    choose_retries: int = MISSING  # re-asks when a chat model's reply names no valid option

    def check(self, p: Problems) -> None:
        """The ranges of the keys that are set (unset ones are checked where they are inherited from). The backends'
        names are the backends' registry's (tailmem.llm.group.kind_problems)."""
        if self.base_url is not None and not str(self.base_url).startswith(("http://", "https://", MISSING)):
            p.check("base_url", self.base_url, "expected an http(s):// URL or null")
        for name in ("n_gpu_layers", "retries", "choose_retries"):
            p.integer(name, getattr(self, name), lo=0)
        for name in ("n_ctx", "n_threads", "concurrency"):
            p.integer(name, getattr(self, name), lo=1)
        p.number("backoff_s", self.backoff_s, lo=0)
        p.number("backoff_max_s", self.backoff_max_s, lo=0)
        p.number("timeout_s", self.timeout_s, lo=0, lo_open=True)
        p.one_of("family", self.family, FAMILIES, null=True)
        p.one_of("reasoning_effort", self.reasoning_effort, EFFORTS, null=True)
        p.one_of("structured_outputs", self.structured_outputs, STRUCTURED_MODES, null=True)
        p.number("temperature", self.temperature, 0, 2, null=True)
        p.integer("max_output_tokens", self.max_output_tokens, lo=1, null=True)
        p.integer("compact_prompt_tokens", self.compact_prompt_tokens, lo=1000, null=True)
        p.integer("tool_output_max_chars", self.tool_output_max_chars, lo=1000)
        p.integer("requests_per_minute", self.requests_per_minute, lo=1, null=True)
        p.integer("tokens_per_minute", self.tokens_per_minute, lo=1, null=True)
        p.integer("server_slots", self.server_slots, lo=1, null=True)
        caps = self.task_max_output_tokens
        if isinstance(caps, dict):
            for task, cap in caps.items():
                p.integer(f"task_max_output_tokens.{task}", cap, lo=1)
        elif caps != MISSING:
            p.check("task_max_output_tokens", caps, "expected a mapping task -> cap")


ROLE_KEYS = tuple(f.name for f in fields(RoleGroup))
# Role keys whose null, written at the role, means "not sent" / "off" rather than "inherit the group's value".
NULLABLE = frozenset(
    {
        "family",
        "temperature",
        "max_output_tokens",
        "reasoning_effort",
        "endpoint_key",
        "compact_prompt_tokens",
        "requests_per_minute",
        "tokens_per_minute",
        "structured_outputs",
        "server_slots",
    }
)


@dataclass
class Budget:
    max_dollars: Optional[float] = MISSING  # null: no cap
    max_tokens: Optional[int] = MISSING


@dataclass
class FamilyPattern:
    pattern: str = MISSING  # a glob over model names
    family: str = MISSING  # reasoning | standard (tailmem.llm.params)


@dataclass
class LLMGroup(RoleGroup):
    name: str = MISSING
    cache_path: str = MISSING  # resolved (and `~` expanded) by `cache_path` below
    cache_layout: str = "file"
    encoding: str = MISSING
    # model -> {input, cached_input, output} in US dollars per million tokens. Not Dict[str, a Price dataclass]:
    # OmegaConf refuses a whole mapping assigned by an override (`+llm.prices.default={input: 1.0, ...}`) to a
    # dataclass-typed value; the checks read each number's range and that all three are there.
    prices: Dict[str, Any] = field(default_factory=dict)
    prices_file: Optional[str] = MISSING
    budget: Budget = MISSING
    model_families: Optional[List[FamilyPattern]] = MISSING
    roles: Dict[str, RoleGroup] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Every key's range (the group-wide ones and each role's), then the prices (prices_file included), so a
        wrong setting fails at start-up and names itself. The rules on each role's merged keys need the backends'
        kinds: tailmem.llm.group checks them."""
        p = Problems("llm")
        self.check(p)
        for model, price in (self.prices or {}).items():
            for name in ("input", "cached_input", "output"):
                p.number(f"prices.{model}.{name}", (price or {}).get(name), lo=0)
        if self.budget != MISSING:
            p.number("budget.max_dollars", self.budget.max_dollars, lo=0, null=True)
            p.integer("budget.max_tokens", self.budget.max_tokens, lo=0, null=True)
        if self.cache_path == MISSING or not self.cache_path:
            p.add("llm.cache_path is required (e.g. ${results_dir}/llm_cache.sqlite)")
        p.one_of("cache_layout", self.cache_layout, CACHE_LAYOUTS)
        for name, role in self.roles.items():
            if name not in ROLES:
                p.add(f"llm.roles.{name}: unknown role; expected one of {ROLES}")
            else:
                rp = Problems(f"llm.roles.{name}")
                role.check(rp)
                p.lines += rp.lines
        p.raise_any()
        try:
            prices(self)
        except ConfigError as exc:
            p.lines += str(exc).splitlines()
        p.raise_any()


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float


def _label(self) -> str:
    """What a result row names: the model, or the programmatic agent."""
    return player_label(self.role, self.backend, self.model, self.agent, served=bool(self.structured_outputs))


# One role's keys after inheritance: the role's name and RoleGroup's fields (what each means is written there),
# frozen, every value set. Built by `tailmem.llm.group.role_settings` only, so it has no defaults of its own.
Role = dataclasses.make_dataclass(
    "Role",
    [("role", str), *((f.name, f.type) for f in dataclasses.fields(RoleGroup))],
    frozen=True,
    namespace={"label": property(_label), "__module__": __name__},
)


def is_set(value) -> bool:
    """Whether a key has a value: not the schema's MISSING (an unset role key inherits the group's)."""
    return not (isinstance(value, str) and value == MISSING)


def cache_path(llm: LLMGroup) -> Path:
    """The call cache's file (`~` expanded; a shards layout keeps its folder beside it)."""
    return Path(os.path.expanduser(str(llm.cache_path)))


def price_entries(llm) -> dict:
    """{model: {input, cached_input, output}}: `llm.prices`, overridden by the YAML file `llm.prices_file` (model
    names with dots, such as gpt-5.4-nano, cannot be keys of a command-line override, but can be in a file).
    `llm` is the group: LLMGroup, or plain data."""
    if isinstance(llm, LLMGroup):
        table, path = llm.prices, llm.prices_file
    else:
        llm = plain(llm) or {}
        table, path = llm.get("prices"), llm.get("prices_file")
    out = dict(table or {})
    if path and is_set(path):
        import yaml

        path = Path(os.path.expanduser(str(path)))
        if not path.exists():
            raise ConfigError(f"llm.prices_file: {path} not found")
        try:
            extra = yaml.safe_load(path.read_text())
        except yaml.YAMLError as exc:
            raise ConfigError(f"llm.prices_file: {path} is not valid YAML ({exc})") from exc
        if not isinstance(extra, dict):
            raise ConfigError(f"llm.prices_file: {path} must map model names to {{input, cached_input, output}}")
        out.update(extra)
    return out


def prices(llm) -> dict[str, Price]:
    """The price table of the group (`price_entries`), each entry checked."""
    out = {}
    for model, p in price_entries(llm).items():
        try:
            out[model] = Price(float(p["input"]), float(p["cached_input"]), float(p["output"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"llm.prices.{model} needs numbers input, cached_input, output ({exc})") from exc
    return out


def price(table: dict[str, Price], model: str) -> Price:
    """The price of `model` in `table` (`prices`), else the `default` entry; a model with neither is a config
    error."""
    if model in table:
        return table[model]
    if "default" in table:
        return table["default"]
    raise ConfigError(f"llm.prices has no entry for model {model!r} and no `default` entry")


def read_families(entries) -> tuple[tuple[str, str], ...]:
    """`llm.model_families` (a list of {pattern, family}) as (glob, family) pairs; None -> DEFAULT_FAMILIES."""
    if entries is None:
        return DEFAULT_FAMILIES
    if not isinstance(entries, (list, tuple)):
        raise ConfigError(f"llm.model_families must be a list of {{pattern, family}}, got {type(entries).__name__}")
    out = []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or set(e) != {"pattern", "family"}:
            raise ConfigError(
                f"llm.model_families[{i}] must be {{pattern: <glob>, family: reasoning|standard}}, got {e!r}"
            )
        if e["family"] not in FAMILIES:
            raise ConfigError(f"llm.model_families[{i}].family is {e['family']!r}; expected one of {FAMILIES}")
        out.append((str(e["pattern"]).lower(), str(e["family"])))
    return tuple(out)


def read(cfg) -> LLMGroup:
    """The `llm` group of `cfg` (the whole config: a composed one, a stage's settings, or plain data) as LLMGroup,
    its unset keys unset and its checks run; a key the schema does not have raises ConfigError naming it (Hydra
    refuses it at composition, plain data here). The group is read as `typed` reads one: a mapping's `llm` key, or
    the `llm` attribute of a stage's settings (its typed group, or Unread when its entry does not list it)."""
    node = cfg.get("llm") if hasattr(cfg, "get") else cfg.llm
    if isinstance(node, Unread):
        raise node.refusal()
    if isinstance(node, LLMGroup):
        return node
    llm = plain(node) if node is not None else {}
    if not llm:
        raise ConfigError("config has no `llm` group; add `- llm: offline` to the defaults list")
    llm.pop("defaults", None)
    group_keys = sorted(f.name for f in fields(LLMGroup))
    unknown = set(llm) - set(group_keys)
    if unknown:
        raise ConfigError(f"llm has unknown key(s) {sorted(unknown)}; expected some of {group_keys}")
    roles = {}
    for role, spec in (llm.pop("roles", None) or {}).items():
        spec = dict(spec or {})
        bad = set(spec) - set(ROLE_KEYS)
        if bad:
            raise ConfigError(
                f"llm.roles.{role} has unknown key(s) {sorted(bad)}; expected some of {sorted(ROLE_KEYS)}"
            )
        roles[role] = RoleGroup(**spec)
    budget = dict(llm.get("budget") or {})  # no budget: no cap
    bad = set(budget) - {"max_dollars", "max_tokens"}
    if bad:
        raise ConfigError(f"llm.budget has unknown key(s) {sorted(bad)}; expected max_dollars, max_tokens")
    llm["budget"] = Budget(**{"max_dollars": None, "max_tokens": None, **budget})
    if llm.get("model_families") is not None:
        read_families(llm["model_families"])  # each entry is {pattern, family}, of a known family
        llm["model_families"] = [FamilyPattern(str(e["pattern"]), str(e["family"])) for e in llm["model_families"]]
    return LLMGroup(**llm, roles=roles)
