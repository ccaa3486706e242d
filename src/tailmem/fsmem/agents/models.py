"""Reaching the language-model layer: a client per role, or None when the role runs programmatically.

The client (`tailmem.llm.get_client`) is imported when a role asks for one, so the offline path opens none; what a
role's client is played as is read off its kind's traits (`tailmem.llm.backends.base.client_kind`), never its name.
"""

from __future__ import annotations

from string import Template

from tailmem.llm.backends.base import client_kind
from tailmem.roles import client_label, plays_model


def client_for(cfg, role: str, stage: str):
    """The role's LLM client, or None if no model is configured (backend `programmatic` or no llm layer)."""
    try:
        from tailmem.llm import get_client
    except ImportError:
        return None
    client = get_client(cfg, role, stage)
    return client if plays_model(client) else None


def label(client, role: str) -> str:
    """What a result row names: the model, or the programmatic agent of the role."""
    return client_label(client, role)


def prompt(name: str, folder: str = "fsmem", **values) -> str:
    """A prompt file from configs/prompts/<folder>/ (fsmem; alfworld for the skill setting), $placeholders filled."""
    from tailmem.config_files import config_folder

    path = config_folder() / "prompts" / folder / f"{name}.md"
    if not path.exists():
        from tailmem.fsmem.errors import FsmemError

        raise FsmemError(f"{path}: prompt file not found")
    return Template(path.read_text()).safe_substitute(**values)


# -- compact prompts for a small embedded model ----------------------------------------------------------------
# The prompts above are written for large models (paper 2's contracts). A 1.5B instruct model does better with a
# short, concrete method and pays for every prompt token on 2 CPU cores, so a role played as it is (`compact`: the
# instruct backend, a replay of its calls, or a model served under its constraints: llm=served) gets `<name>_compact.md`
# where one exists. A compact search prompt carries the store's file list (names and descriptions): it is the same
# for every question over a store, so it sits in the stable prefix (system, tools) whose KV cache the next question
# reuses, and saves the survey round.
COMPACT_SUFFIX = "_compact"
TREE_MAX_CHARS = 4000  # the file list in a compact search prompt; past it the model is told to `view` the rest


def compact(client) -> bool:
    """Whether the role is played as the embedded instruct backend plays it: by a model whose replies are decoded
    under the answers and tool calls it may give (its kind `constrains_answers`: that backend, a replay of its
    calls, or a served model under its constraints, `structured_outputs`, llm=served). Such a model gets the compact
    prompts and tool forms, so a served run is the same experiment as the embedded one."""
    return client_kind(client).constrains_answers


def prompt_exists(name: str, folder: str = "fsmem") -> bool:
    from tailmem.config_files import config_folder

    return (config_folder() / "prompts" / folder / f"{name}.md").exists()


def role_prompt(client, name: str, folder: str = "fsmem", **values) -> str:
    """The role's prompt `name`, or its compact variant for an embedded instruct model."""
    if compact(client) and prompt_exists(name + COMPACT_SUFFIX, folder):
        name += COMPACT_SUFFIX
    return prompt(name, folder, **values)


def file_list(harness) -> str:
    """The store's files with their descriptions, read without a tool call (not charged to the agent's reads)."""
    text = harness.tools["view"].fn(path="")
    if len(text) <= TREE_MAX_CHARS:
        return text
    cut = text[:TREE_MAX_CHARS].rsplit("\n", 1)[0]
    return f"{cut}\n... ({text.count(chr(10)) - cut.count(chr(10))} more files: view '' lists them all)"


def search_prompt(client, form: str, harness) -> str:
    """The search agent's system prompt for a variant's form (filesystem, chunks, closed_book). The compact
    filesystem prompt is written for the Center tools, so another harness (bash) keeps the full one."""
    name = f"search_{form}"
    if not compact(client) or (form == "filesystem" and not {"grep", "view"} <= set(harness.tools)):
        return prompt(name)
    values = {"tools": ", ".join(harness.small_tools())}
    if form == "filesystem":
        values["tree"] = file_list(harness)
    return role_prompt(client, name, **values)
