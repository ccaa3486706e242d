"""The `llm` group: the model of each role (`roles`, a mapping role -> RoleGroup), prices, budget, cache.

Every role key may also be set group-wide (`llm.<key>`): a role's unset key (MISSING) inherits it. That merge, and
the rules tying roles, backends and models together, are `tailmem.llm.settings.read_settings`, which turns this
group into the runtime `LLMSettings` (`plain` gives it the group without its unset keys); `check` runs both on
the composed config. (Not `OmegaConf.to_object`: an unset role key is MISSING by design, which it refuses.)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems, plain  # noqa: F401  (plain: the group without its unset keys)


@dataclass
class RoleGroup:
    """One role's model settings (llm.settings.RoleSettings says what each does); MISSING = inherit llm.<key>."""

    backend: str = MISSING
    model: Optional[str] = MISSING
    agent: Optional[str] = MISSING
    base_url: Optional[str] = MISSING
    api_key_env: str = MISSING
    api_key: Optional[str] = MISSING
    params: Dict[str, Any] = MISSING
    family: Optional[str] = MISSING
    temperature: Optional[float] = MISSING
    max_output_tokens: Optional[int] = MISSING
    task_max_output_tokens: Dict[str, int] = MISSING
    reasoning_effort: Optional[str] = MISSING
    endpoint_key: Optional[str] = MISSING
    compact_prompt_tokens: Optional[int] = MISSING
    tool_output_max_chars: int = MISSING
    recorded_backend: str = MISSING
    structured_outputs: Optional[str] = MISSING
    model_path: Optional[str] = MISSING
    model_sha256: Optional[str] = MISSING
    n_gpu_layers: int = MISSING
    kv_prefix_cache: bool = MISSING
    n_ctx: int = MISSING
    n_threads: int = MISSING
    concurrency: int = MISSING
    retries: int = MISSING
    backoff_s: float = MISSING
    backoff_max_s: float = MISSING
    timeout_s: float = MISSING
    requests_per_minute: Optional[int] = MISSING
    tokens_per_minute: Optional[int] = MISSING
    choose_retries: int = MISSING


ROLE_KEYS = tuple(f.name for f in fields(RoleGroup))


def check_role(p: Problems, role: RoleGroup) -> None:
    """The ranges of one role's (or the group-wide) keys that read_settings does not check itself."""
    from tailmem.llm.settings import BACKENDS

    p.one_of("backend", role.backend, BACKENDS)
    p.one_of("recorded_backend", role.recorded_backend, BACKENDS)
    if role.base_url is not None and not str(role.base_url).startswith(("http://", "https://", "???")):
        p.check("base_url", role.base_url, "expected an http(s):// URL or null")
    for name in ("n_gpu_layers", "retries", "choose_retries"):
        p.integer(name, getattr(role, name), lo=0)
    for name in ("n_ctx", "n_threads", "concurrency"):
        p.integer(name, getattr(role, name), lo=1)
    p.number("backoff_s", role.backoff_s, lo=0)
    p.number("backoff_max_s", role.backoff_max_s, lo=0)
    p.number("timeout_s", role.timeout_s, lo=0, lo_open=True)


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
    cache_path: str = MISSING
    cache_layout: str = "file"
    encoding: str = MISSING
    # model -> {input, cached_input, output} in US dollars per million tokens. Not Dict[str, a Price dataclass]:
    # OmegaConf refuses a whole mapping assigned by an override (`+llm.prices.default={input: 1.0, ...}`) to a
    # dataclass-typed value; `check` reads each number's range, read_settings that all three are there.
    prices: Dict[str, Any] = field(default_factory=dict)
    prices_file: Optional[str] = MISSING
    budget: Budget = MISSING
    model_families: Optional[List[FamilyPattern]] = MISSING
    roles: Dict[str, RoleGroup] = field(default_factory=dict)


class _Keys:
    """Attribute access to a role's keys, unset ones MISSING (what `check_role` reads)."""

    def __init__(self, tree: dict):
        self.tree = tree

    def __getattr__(self, name):
        return self.tree.get(name, MISSING)


def check(llm: dict) -> list[str]:
    """The ranges of the group-wide and every role's keys, then read_settings' rules (plain data: `plain`)."""
    from tailmem.errors import ConfigError
    from tailmem.llm.settings import read_settings

    p = Problems("llm")
    check_role(p, _Keys(llm))
    for model, price in (llm.get("prices") or {}).items():
        for name in ("input", "cached_input", "output"):
            p.number(f"prices.{model}.{name}", (price or {}).get(name), lo=0)
    budget = llm.get("budget") or {}
    p.number("budget.max_dollars", budget.get("max_dollars"), lo=0, null=True)
    p.integer("budget.max_tokens", budget.get("max_tokens"), lo=0, null=True)
    for name, role in (llm.get("roles") or {}).items():
        rp = Problems(f"llm.roles.{name}")
        check_role(rp, _Keys(role or {}))
        p.lines += rp.lines
    if not p.lines:
        try:
            read_settings({"llm": llm})
        except ConfigError as exc:
            p.lines += str(exc).splitlines()
    return p.lines
