"""Reaching the language-model layer: a client per role, or None when the role runs programmatically.

`tailmem.llm` is imported lazily so the offline path never needs it.
"""

from __future__ import annotations

from pathlib import Path
from string import Template


def client_for(cfg, role: str, stage: str):
    """The role's LLM client, or None if no model is configured (backend 'programmatic' or no llm layer)."""
    try:
        from tailmem.llm import get_client
    except ImportError:
        return None
    client = get_client(cfg, role, stage)
    return None if getattr(client, "backend", "programmatic") == "programmatic" else client


def label(client, role: str) -> str:
    """What a result row names: the model, or the programmatic agent of the role."""
    return f"programmatic-{role}" if client is None else str(client.model)


def prompt(name: str, folder: str = "fsmem", **values) -> str:
    """A prompt file from configs/prompts/<folder>/ (fsmem; alfworld for the skill setting), $placeholders filled."""
    from tailmem.configs import config_dir

    path = Path(config_dir()) / "prompts" / folder / f"{name}.md"
    if not path.exists():
        from tailmem.fsmem.errors import FsmemError

        raise FsmemError(f"{path}: prompt file not found")
    return Template(path.read_text()).safe_substitute(**values)
