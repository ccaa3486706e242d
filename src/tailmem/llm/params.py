"""The one place a role's settings become request parameters, by model family.

Why: reasoning models (OpenAI's o-series and gpt-5 family, and servers that copy their API) refuse `max_tokens`
and any temperature but the default, and take `max_completion_tokens` and `reasoning_effort` instead; other
chat models take `temperature` and `max_tokens`. A stage never passes sampling parameters itself: it names its
role (and, for restructuring, its task) and this module writes the parameters.

    reasoning: {max_completion_tokens: cap, reasoning_effort: effort}     (no temperature)
    standard:  {temperature: temperature, max_tokens: cap}

A model's family is `llm.roles.<role>.family` when set, else the first `llm.model_families` pattern (a shell
glob, matched case-insensitively against the model name and against its last `/` segment) that matches it, else
`standard`. DEFAULT_FAMILIES (tailmem.settings.llm) is the shipped table (configs/llm/offline.yaml repeats it).
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from tailmem.errors import ConfigError

# the model families, the shipped table and the reader of `llm.model_families`: the settings' names, which check them
from tailmem.settings.llm import DEFAULT_FAMILIES, FAMILIES, read_families


def families(llm) -> tuple[tuple[str, str], ...]:
    """(glob, family) pairs of the llm group's `model_families` (tailmem.settings.llm.LLMGroup, whose checks read
    each entry), first match wins; DEFAULT_FAMILIES where the group leaves it null or unset."""
    entries = llm.model_families
    if not isinstance(entries, (list, tuple)):
        return read_families(None)
    return read_families([{"pattern": e.pattern, "family": e.family} for e in entries])


def family_of(model: str, families=DEFAULT_FAMILIES, override: str | None = None) -> str:
    """The family of `model`: the role's explicit `family`, else the first matching pattern, else standard."""
    if override is not None:
        if override not in FAMILIES:
            raise ConfigError(f"family {override!r}; expected one of {FAMILIES} or null (by llm.model_families)")
        return override
    name = (model or "").lower()
    for pattern, fam in families:
        if fnmatchcase(name, pattern) or fnmatchcase(name.rsplit("/", 1)[-1], pattern):
            return fam
    return "standard"


def output_cap(settings, task: str | None = None) -> int | None:
    """The role's output-token cap for `task` (e.g. restructure), else its max_output_tokens."""
    caps = settings.task_max_output_tokens or {}
    if task is not None and task in caps:
        return caps[task]
    return settings.max_output_tokens


def request_params(settings, family: str, task: str | None = None) -> dict:
    """The sampling parameters a request of this role carries, then the role's own `params` on top."""
    cap = output_cap(settings, task)
    out: dict = {}
    if family == "reasoning":
        if cap is not None:
            out["max_completion_tokens"] = int(cap)
        if settings.reasoning_effort is not None:
            out["reasoning_effort"] = settings.reasoning_effort
    else:
        if settings.temperature is not None:
            out["temperature"] = float(settings.temperature)
        if cap is not None:
            out["max_tokens"] = int(cap)
    return {**out, **(settings.params or {})}


# -- a refused parameter, named by the config key that sets it --------------------------------------------------
_REFUSED = [
    re.compile(p, re.I)
    for p in (
        r"unsupported (?:parameter|value)[^']*'([a-z_]+)'",
        r"'([a-z_]+)' is not supported",
        r"unrecognized request argument supplied: ([a-z_]+)",
        r"([a-z_]+) is not (?:a )?(?:supported|permitted|allowed)",
        r"unknown parameter:? '?([a-z_]+)",
        r"'?([a-z_]+)'? is too large",
    )
]


def refused_parameter(message: str) -> str | None:
    """The request parameter a 400 names as unsupported, if it names one."""
    for pattern in _REFUSED:
        m = pattern.search(message or "")
        if m:
            return m.group(1)
    return None


def config_key(role: str, param: str, settings, family: str) -> str:
    """What to change when the server refuses `param`: the key that put it into the request."""
    if param in (settings.params or {}):
        return f"llm.roles.{role}.params.{param}"
    switch = f"llm.roles.{role}.family ({family} now; or a pattern in llm.model_families)"
    own = {
        "temperature": "temperature=null",
        "reasoning_effort": "reasoning_effort=null",
        "max_tokens": "max_output_tokens",
        "max_completion_tokens": "max_output_tokens",
    }
    if param in own:
        return f"{switch}, or llm.roles.{role}.{own[param]}"
    return switch
