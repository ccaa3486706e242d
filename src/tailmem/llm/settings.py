"""The `llm` config group read into typed, frozen settings, so a wrong key fails at start-up and names itself."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from tailmem.errors import ConfigError
from tailmem.llm.backends.base import BACKENDS, KINDS, kind_of
from tailmem.llm.params import EFFORTS, FAMILIES, read_families
from tailmem.roles import ROLES, model_free, player_label

# How a served model takes the embedded backend's constraints (tailmem.llm.structured, which builds each request);
# named here so that reading the settings never loads the embedded backend's grammar code.
STRUCTURED_OUTPUTS = ("gbnf", "vllm", "json_schema")
CACHE_LAYOUTS = ("file", "shards")  # tailmem.llm.cache (one SQLite file), tailmem.llm.cache_shards (a file per process)


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float


@dataclass(frozen=True)
class RoleSettings:
    """One role's model. Keys left out inherit the group-level value of the same name."""

    role: str
    backend: str
    model: str | None = None
    agent: str | None = None  # programmatic agent that stands in when backend == programmatic
    base_url: str | None = None  # openai: null -> $OPENAI_BASE_URL -> https://api.openai.com/v1
    api_key_env: str = "OPENAI_API_KEY"
    api_key: str | None = None  # prefer api_key_env; a literal key here ends up in saved configs
    params: dict = field(default_factory=dict)  # merged over the family's parameters (seed, extra_body...)
    family: str | None = None  # reasoning | standard; null -> by llm.model_families (tailmem.llm.params)
    temperature: float | None = 0.0  # standard family only; null -> not sent
    max_output_tokens: int | None = 8192  # max_tokens (standard) or max_completion_tokens (reasoning)
    task_max_output_tokens: dict = field(default_factory=dict)  # per task, e.g. {restructure: 100000}
    reasoning_effort: str | None = None  # reasoning family only; null -> not sent (the provider's default)
    endpoint_key: str | None = None  # cache identity of the endpoint; null -> base URL + served model id
    compact_prompt_tokens: int | None = 96_000  # tool loop: compact the transcript past this many prompt tokens
    tool_output_max_chars: int = 400_000  # tool loop: safety cap on one tool output (file views are not clipped)
    recorded_backend: str = "openai"  # replay: the backend whose recorded calls are answered
    # openai: the embedded backend's constraints sent through the server's structured-output parameters
    # (gbnf | vllm | json_schema; tailmem.llm.structured); null: the model answers freely
    structured_outputs: str | None = None
    model_path: str | None = None  # local / instruct: GGUF file; null -> the shipped model named `model`
    model_sha256: str | None = None  # instruct: sha256 of model_path (checked before loading; the cache key)
    n_gpu_layers: int = 0  # instruct: layers offloaded to a GPU (a CUDA build of llama-cpp-python)
    kv_prefix_cache: bool = True  # instruct: the system prompt's KV saved on disk, shared by jobs (kv_prefix.py)
    n_ctx: int = 2048
    n_threads: int = 2
    concurrency: int = 8
    retries: int = 5
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    timeout_s: float = 120.0
    requests_per_minute: int | None = None  # openai: sends per minute here (tailmem.llm.pacing); null: no cap
    tokens_per_minute: int | None = None  # openai: prompt + output-cap tokens per minute; null: no cap
    choose_retries: int = 1  # re-asks when a chat model's reply names no valid option

    @property
    def label(self) -> str:
        """What a result row names: the model, or the programmatic agent."""
        return player_label(self.role, self.backend, self.model, self.agent, served=bool(self.structured_outputs))


@dataclass(frozen=True)
class LLMSettings:
    name: str
    cache_path: Path
    prices: dict[str, Price]
    max_dollars: float | None
    max_tokens: int | None
    encoding: str
    roles: dict[str, RoleSettings]
    families: tuple = ()  # (glob, family) pairs from llm.model_families, first match wins
    cache_layout: str = "file"  # file: one SQLite file; shards: a folder of per-process files (shared filesystems)

    def price(self, model: str) -> Price:
        """The price of `model`, else the `default` entry; a model with neither is a config error."""
        if model in self.prices:
            return self.prices[model]
        if "default" in self.prices:
            return self.prices["default"]
        raise ConfigError(f"llm.prices has no entry for model {model!r} and no `default` entry")


_ROLE_KEYS = {f.name for f in fields(RoleSettings)} - {"role"}
# Role keys whose values `read_settings` range-checks itself: the request parameters it turns into a request by
# model family (tailmem.llm.params) and paper 2's run settings. The config schema takes this list from here.
SELF_CHECKED = (
    "family",
    "temperature",
    "max_output_tokens",
    "reasoning_effort",
    "compact_prompt_tokens",
    "tool_output_max_chars",
    "requests_per_minute",
    "tokens_per_minute",
)
# Role keys whose null, written at the role, means "not sent" / "off" rather than "inherit the group's value".
NULLABLE = {
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
_GROUP_KEYS = {
    "name",
    "cache_path",
    "cache_layout",
    "prices",
    "prices_file",
    "budget",
    "encoding",
    "roles",
    "defaults",
    "model_families",
}


def _plain(node) -> dict:
    """A DictConfig (resolved) or a dict, as a plain dict without its unset keys (tailmem.settings.llm)."""
    from tailmem.settings.checks import plain

    return plain(node)


def price_entries(llm) -> dict:
    """{model: {input, cached_input, output}}: `llm.prices`, overridden by the YAML file `llm.prices_file` (model
    names with dots, such as gpt-5.4-nano, cannot be keys of a command-line override, but can be in a file)."""
    llm = _plain(llm) or {}
    out = dict(llm.get("prices") or {})
    path = llm.get("prices_file")
    if path:
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


def prices_of(cfg) -> dict:
    """The price table of the whole config `cfg` (empty without an llm group), for stages that price episodes."""
    from tailmem.settings.checks import composed

    cfg = composed(cfg)
    llm = cfg.get("llm") if hasattr(cfg, "get") else None
    return price_entries(llm) if llm else {}


def read_settings(cfg) -> LLMSettings:
    """Read `cfg.llm` (cfg is the whole config) into LLMSettings; unknown keys raise ConfigError naming them.
    A stage's settings (tailmem.settings.stage) already hold it."""
    if isinstance(getattr(cfg, "llm", None), LLMSettings):
        return cfg.llm
    llm = _plain(cfg.get("llm") if hasattr(cfg, "get") else cfg["llm"])
    if not llm:
        raise ConfigError("config has no `llm` group; add `- llm: offline` to the defaults list")
    unknown = set(llm) - _GROUP_KEYS - _ROLE_KEYS
    if unknown:
        raise ConfigError(
            f"llm has unknown key(s) {sorted(unknown)}; expected some of {sorted(_GROUP_KEYS | _ROLE_KEYS)}"
        )
    shared = {k: v for k, v in llm.items() if k in _ROLE_KEYS and v is not None}
    roles: dict[str, RoleSettings] = {}
    for role, spec in (llm.get("roles") or {}).items():
        if role not in ROLES:
            raise ConfigError(f"llm.roles.{role}: unknown role; expected one of {ROLES}")
        spec = dict(spec or {})
        bad = set(spec) - _ROLE_KEYS
        if bad:
            raise ConfigError(
                f"llm.roles.{role} has unknown key(s) {sorted(bad)}; expected some of {sorted(_ROLE_KEYS)}"
            )
        merged = {**shared, **{k: v for k, v in spec.items() if v is not None or k in NULLABLE}}
        merged["params"] = {**(shared.get("params") or {}), **(spec.get("params") or {})}
        merged["task_max_output_tokens"] = {
            **(shared.get("task_max_output_tokens") or {}),
            **(spec.get("task_max_output_tokens") or {}),
        }
        backend = merged.get("backend")
        if backend not in BACKENDS:
            raise ConfigError(f"llm.roles.{role}.backend is {backend!r}; expected one of {BACKENDS}")
        if not model_free(backend) and not merged.get("model"):
            raise ConfigError(f"llm.roles.{role}.model is required for backend {backend!r}")
        _check_role(role, merged)
        roles[role] = RoleSettings(role=role, **merged)
    prices = {}
    for model, p in price_entries(llm).items():
        try:
            prices[model] = Price(float(p["input"]), float(p["cached_input"]), float(p["output"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"llm.prices.{model} needs numbers input, cached_input, output ({exc})") from exc
    budget = llm.get("budget") or {}
    bad = set(budget) - {"max_dollars", "max_tokens"}
    if bad:
        raise ConfigError(f"llm.budget has unknown key(s) {sorted(bad)}; expected max_dollars, max_tokens")
    cache_path = llm.get("cache_path")
    if not cache_path:
        raise ConfigError("llm.cache_path is required (e.g. ${results_dir}/llm_cache.sqlite)")
    layout = llm.get("cache_layout") or "file"
    if layout not in CACHE_LAYOUTS:
        raise ConfigError(f"llm.cache_layout is {layout!r}; expected one of {CACHE_LAYOUTS}")
    return LLMSettings(
        name=str(llm.get("name", "custom")),
        cache_layout=str(layout),
        cache_path=Path(os.path.expanduser(str(cache_path))),
        prices=prices,
        max_dollars=None if budget.get("max_dollars") is None else float(budget["max_dollars"]),
        max_tokens=None if budget.get("max_tokens") is None else int(budget["max_tokens"]),
        encoding=str(llm.get("encoding", "o200k_base")),
        roles=roles,
        families=read_families(llm.get("model_families")),
    )


def _positive(role: str, key: str, value, minimum: int = 1) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < minimum):
        raise ConfigError(f"llm.roles.{role}.{key} is {value!r}; expected an integer >= {minimum} or null")


def _check_role(role: str, s: dict) -> None:
    """Ranges of the run-setting keys, so a typo in a value fails before the first call."""
    if s.get("family") is not None and s["family"] not in FAMILIES:
        raise ConfigError(f"llm.roles.{role}.family is {s['family']!r}; expected one of {FAMILIES} or null")
    if s.get("reasoning_effort") is not None and s["reasoning_effort"] not in EFFORTS:
        raise ConfigError(
            f"llm.roles.{role}.reasoning_effort is {s['reasoning_effort']!r}; expected one of {EFFORTS} or null"
        )
    t = s.get("temperature")
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 2):
        raise ConfigError(f"llm.roles.{role}.temperature is {t!r}; expected a number in [0, 2] or null")
    mode = s.get("structured_outputs")
    if mode is not None:
        if mode not in STRUCTURED_OUTPUTS:
            raise ConfigError(
                f"llm.roles.{role}.structured_outputs is {mode!r}; expected one of {STRUCTURED_OUTPUTS} or null"
            )
        kind = kind_of(s["backend"])
        played = KINDS.get(s.get("recorded_backend", RoleSettings.recorded_backend)) if kind.replays else kind
        if played is not None and played.embedded:  # weights in process: their grammar is their own
            raise ConfigError(
                f"llm.roles.{role}.structured_outputs={mode} is for a served model (backend openai); backend "
                f"{s.get('backend')!r} constrains its own decoding or none: set it to null"
            )
    _positive(role, "max_output_tokens", s.get("max_output_tokens"))
    _positive(role, "compact_prompt_tokens", s.get("compact_prompt_tokens"), 1000)
    _positive(role, "tool_output_max_chars", s.get("tool_output_max_chars"), 1000)
    _positive(role, "requests_per_minute", s.get("requests_per_minute"))
    _positive(role, "tokens_per_minute", s.get("tokens_per_minute"))
    caps = s.get("task_max_output_tokens") or {}
    if not isinstance(caps, dict):
        raise ConfigError(f"llm.roles.{role}.task_max_output_tokens must map a task to a cap, got {caps!r}")
    for task, cap in caps.items():
        _positive(role, f"task_max_output_tokens.{task}", cap)
