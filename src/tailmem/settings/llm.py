"""The `llm` group: the model of each role (`roles`, a mapping role -> RoleGroup), prices, budget, cache.

Every role key may also be set group-wide (`llm.<key>`): a role's unset key (MISSING) inherits it, and
`tailmem.llm.settings.role_settings` returns a role with that merge done. So this object keeps unset keys unset:
it is built from the composed group by `read` (not `OmegaConf.to_object`, which refuses a MISSING value), and
`__post_init__` checks the ranges of every key that is set, then the rules tying roles, backends and models
together on each role's merged keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems, plain


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
    requests_per_minute: Optional[int] = MISSING  # openai: sends per minute here (tailmem.llm.pacing); null: no cap
    tokens_per_minute: Optional[int] = MISSING  # openai: prompt + output-cap tokens per minute; null: no cap
    choose_retries: int = MISSING  # re-asks when a chat model's reply names no valid option

    def check(self, p: Problems) -> None:
        """The ranges of the keys that are set (unset ones are checked where they are inherited from)."""
        from tailmem.llm.backends.base import BACKENDS
        from tailmem.llm.params import EFFORTS, FAMILIES
        from tailmem.llm.settings import STRUCTURED_OUTPUTS

        p.one_of("backend", self.backend, BACKENDS)
        p.one_of("recorded_backend", self.recorded_backend, BACKENDS)
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
        p.one_of("structured_outputs", self.structured_outputs, STRUCTURED_OUTPUTS, null=True)
        p.number("temperature", self.temperature, 0, 2, null=True)
        p.integer("max_output_tokens", self.max_output_tokens, lo=1, null=True)
        p.integer("compact_prompt_tokens", self.compact_prompt_tokens, lo=1000, null=True)
        p.integer("tool_output_max_chars", self.tool_output_max_chars, lo=1000)
        p.integer("requests_per_minute", self.requests_per_minute, lo=1, null=True)
        p.integer("tokens_per_minute", self.tokens_per_minute, lo=1, null=True)
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
    cache_path: str = MISSING  # resolved (and `~` expanded) by tailmem.llm.settings.cache_path
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
        """Every key's range (the group-wide ones and each role's), then the rules on each role's merged keys and
        the prices (prices_file included), so a wrong setting fails at start-up and names itself."""
        from tailmem.errors import ConfigError
        from tailmem.llm.settings import CACHE_LAYOUTS, prices, role_settings
        from tailmem.roles import ROLES

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
            for name in self.roles:
                role_settings(self, name)
            prices(self)
        except ConfigError as exc:
            p.lines += str(exc).splitlines()
        p.raise_any()


def read(cfg) -> LLMGroup:
    """The `llm` group of `cfg` (the whole config: a composed one, a stage's settings, or plain data) as LLMGroup,
    its unset keys unset and its checks run; a key the schema does not have raises ConfigError naming it (Hydra
    refuses it at composition, plain data here)."""
    from tailmem.errors import ConfigError
    from tailmem.settings.checks import ComposedView, Unread

    if isinstance(cfg, ComposedView):  # a stage's settings: its `llm`, or Unread when its entry does not list it
        node = cfg.llm
    else:
        node = cfg.get("llm") if hasattr(cfg, "get") else cfg["llm"]
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
        from tailmem.llm.params import read_families

        read_families(llm["model_families"])  # each entry is {pattern, family}, of a known family
        llm["model_families"] = [FamilyPattern(str(e["pattern"]), str(e["family"])) for e in llm["model_families"]]
    return LLMGroup(**llm, roles=roles)


def check(cfg) -> list[str]:
    """Every problem of the `llm` group of the composed config `cfg`, one line each (tailmem.settings.schema)."""
    from tailmem.errors import ConfigError

    try:
        read(cfg)
    except ConfigError as exc:
        return str(exc).splitlines()
    return []
