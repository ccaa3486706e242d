"""`python -m tailmem llm_check [overrides...]`: one tiny request per configured role before a paid run.

Why: a run should not discover on its first real call that the model refuses a parameter, cannot call tools, or
sits behind a server that drops the system prompt. For each role on an endpoint it reports the model and its
family, whether the role's request parameters were accepted (a refusal names the config key to change), whether
the model called an offered tool, the billed prompt tokens against the client's estimate, the context window
where the server reports one, and the price. The requests bypass the call cache and the budget: a few hundred
tokens per role.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from tailmem.errors import TailmemError
from tailmem.llm.backends.base import kind_of
from tailmem.llm.client import SHORT_RATIO
from tailmem.llm.tokens import count_message_tokens, count_tokens
from tailmem.roles import plays_model
from tailmem.settings.llm import price as priced

# A system prompt long enough that a server dropping it shows in the billed prompt tokens.
SYSTEM = (
    "You are checking a model endpoint for a research pipeline. Follow the user's instruction exactly and "
    "keep your reply short. " * 4
).strip()
PING = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answer a connectivity check.",
        "parameters": {
            "type": "object",
            "properties": {"token": {"type": "string", "description": "the word to echo"}},
            "required": ["token"],
        },
    },
}


@dataclass(frozen=True)
class RoleCheck:
    role: str
    backend: str
    model: str
    family: str
    params: str
    accepted: str  # "yes", or the error
    tools: str  # "yes" | "no" | "-"
    prompt: str  # billed / estimated prompt tokens
    context: str
    price: str

    @property
    def ok(self) -> bool:
        return self.accepted in ("yes", "-")


def check_role(client) -> RoleCheck:
    """Two requests through the role's backend (no cache, no budget): plain, then with a tool offered."""
    s, llm = client.settings, client._llm
    try:
        p = priced(client._prices, client.model)
        price = f"${p.input}/{p.cached_input}/{p.output} per M"
    except TailmemError as exc:
        price = f"none ({exc})"
    kind = kind_of(client.backend)
    if not kind.chats:  # a base model: it scores options only
        return RoleCheck(
            client.role,
            client.backend,
            client.model,
            "-",
            "-",
            "yes (scores options only; no chat, no tools)",
            "no",
            "-",
            str(s.n_ctx),
            "free",
        )
    if not kind.served:  # replay answers from the recording and sends nothing; the embedded model is in process
        return RoleCheck(
            client.role,
            client.backend,
            client.model,
            client.family or "-",
            json.dumps(client.params(), sort_keys=True),
            "-",
            "-",
            "-",
            "-",
            price,
        )
    params = client.params()
    impl = client._impl
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Reply with the single word OK."}]
    tools = "-"
    prompt = "-"
    try:
        reply = impl.chat(client.model, messages, None, params)
        accepted = "yes"
        estimate = count_message_tokens(messages, llm.encoding)
        prompt = f"{reply.usage.prompt_tokens}/{estimate}"
        if reply.usage.prompt_tokens < SHORT_RATIO * estimate:
            prompt += " (server dropped part of the prompt)"
        ask = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Call the ping tool with token OK. Do not reply in text."},
        ]
        try:
            r2 = impl.chat(client.model, ask, [PING], params)
            tools = "yes" if r2.tool_calls else "no (answered in text)"
            est2 = count_message_tokens(ask, llm.encoding) + count_tokens(json.dumps([PING]), llm.encoding)
            if r2.usage.prompt_tokens < SHORT_RATIO * est2:
                tools += f" (billed {r2.usage.prompt_tokens} of ~{est2} prompt tokens: tools dropped?)"
        except TailmemError as exc:
            tools = f"no ({exc})"
    except TailmemError as exc:
        accepted = str(exc)
    window = impl.context_window(client.model)
    return RoleCheck(
        client.role,
        client.backend,
        client.model,
        client.family,
        json.dumps(params, sort_keys=True),
        accepted,
        tools,
        prompt,
        "not reported" if window is None else str(window),
        price,
    )


def _compose(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    from tailmem.configs import config_dir

    with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
        return compose("config", overrides=overrides)


def run_checks(cfg) -> list[RoleCheck]:
    from tailmem.llm.client import get_client
    from tailmem.llm.group import settings

    out, first = [], {}  # an error shared by several roles (one model file) is printed once
    for role in settings(cfg).roles:
        try:
            client = get_client(cfg, role, stage="llm_check")
        except TailmemError as exc:
            said = first.setdefault(str(exc), role)
            error = str(exc) if said == role else f"the same error as role {said}"
            out.append(RoleCheck(role, "?", "?", "?", "-", error, "-", "-", "-", "-"))
            continue
        if not plays_model(client):
            continue
        out.append(check_role(client))
    return out


def report(checks: list[RoleCheck]) -> str:
    lines = []
    for c in checks:
        lines.append(f"{c.role}: {c.backend} {c.model} (family {c.family})")
        for key in ("params", "accepted", "tools", "prompt", "context", "price"):
            label = {"prompt": "prompt tokens billed/estimated", "context": "context window"}.get(key, key)
            lines.append(f"  {label}: {getattr(c, key)}")
    return (
        "\n".join(lines)
        if lines
        else "every role is programmatic: nothing to check (set llm=openai or a role's backend)"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tailmem llm_check", description=__doc__.splitlines()[0])
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. llm=openai llm.base_url=...")
    args = parser.parse_args(argv)
    checks = run_checks(_compose(args.overrides))
    print(report(checks))
    return 0 if all(c.ok for c in checks) else 1
