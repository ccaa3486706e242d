"""Where the ALFWorld artifacts live, from the templates in `tailmem.paths`, plus who played: the agent per role.

A cell run with another model must not overwrite the first: the memory and skill templates carry one
path segment per role that the cell depends on (`{executor}`; `{executor}/{builder}/{searcher}` for a skill
cell), each the role's model name or programmatic agent label made safe for a path. `agent_segments(cfg)` gives
them for the Snakemake rules (`expand(..., **agent_segments(CFG))`) and the stages alike: every function here takes
the composed config (a stage passes its settings' `composed`), so both read the same keys the same way.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from tailmem import paths, roles
from tailmem.settings.alfworld import ROLES  # the roles a model may play here, named by the group's schema

if TYPE_CHECKING:
    from omegaconf import DictConfig

GAME_FILES = "{results}/alfworld/games/files/{split}"  # regenerated game files, shared by every subset
EPISODES = "{results}/alfworld/episodes"  # content-keyed cache of programmatic episodes (the key names the agent)
SAS = "{results}/alfworld/sas"  # content-keyed cache of games' PDDL -> SAS translations (play.speedup)
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def segment(label: str) -> str:
    """`label` as one path segment: runs of characters other than letters, digits and `._+-` become `_`
    (`org/model:q4` -> `org_model_q4`); an empty or dot-only result is refused."""
    out = _UNSAFE.sub("_", str(label)).strip("_")
    if not out.strip("."):
        from tailmem.errors import ConfigError

        raise ConfigError(f"agent label {label!r}: expected a model name or agent label usable as a folder name")
    return out


def model_roles(cfg: DictConfig) -> tuple[str, ...]:
    """The ALFWorld roles a configured model may play (`alfworld.model_roles`, all three when absent); the others
    are played by their programmatic agents whatever the llm group says (a model slice can put the model in the
    executor's seat alone and keep the store's curation and retrieval fixed)."""
    a = cfg.get("alfworld") or {}
    chosen = a.get("model_roles")
    chosen = ROLES if chosen is None else tuple(str(r) for r in chosen)
    unknown = [r for r in chosen if r not in ROLES]
    if unknown:
        from tailmem.errors import ConfigError

        raise ConfigError(
            f"alfworld.model_roles: {unknown[0]!r} is not an ALFWorld role; expected some of {list(ROLES)}"
        )
    return chosen


def plays_model(cfg: DictConfig, role: str, client) -> bool:
    """Whether `role`'s client is a model that plays in ALFWorld (configured, and listed in alfworld.model_roles)."""
    return roles.plays_model(client) and role in model_roles(cfg)


def agent_labels(cfg: DictConfig) -> dict[str, str]:
    """The model (or programmatic agent) of each ALFWorld role, as the llm settings name it; a role left out of
    `alfworld.model_roles` is its programmatic agent, `programmatic-<role>` (the offline config's label)."""
    from tailmem.llm.group import roles as played
    from tailmem.llm.group import settings as llm_settings

    settings = played(llm_settings(cfg))
    playing = model_roles(cfg)
    return {
        r: settings[r].label if r in playing or roles.model_free(settings[r].backend) else roles.programmatic_agent(r)
        for r in ROLES
    }


def agent_segments(cfg: DictConfig) -> dict[str, str]:
    """`{executor, builder, searcher}` -> path segment, the fields the ALFWorld templates take."""
    return {r: segment(label) for r, label in agent_labels(cfg).items()}


def _fill(template: str, cfg: DictConfig, **keys) -> Path:
    # str.format ignores fields a template does not name, so every template gets every agent segment.
    return Path(template.format(results=cfg.results_dir, **agent_segments(cfg), **keys))


def games_dir(cfg: DictConfig, subset: str) -> Path:
    """A subset's games manifest folder."""
    return _fill(paths.ALFWORLD_GAMES, cfg, subset=subset)


def game_files_dir(cfg: DictConfig, split: str) -> Path:
    return _fill(GAME_FILES, cfg, split=split)


def episodes_dir(cfg: DictConfig) -> Path:
    return _fill(EPISODES, cfg)


def sas_dir(cfg: DictConfig) -> Path:
    return _fill(SAS, cfg)


def memory_dir(cfg: DictConfig, subset: str, arm: str) -> Path:
    """One memory-arm cell: depends on the executor."""
    return _fill(paths.ALFWORLD_MEMORY, cfg, subset=subset, arm=arm)


def skills_dir(cfg: DictConfig, subset: str, protocol: str, variant: str, seed: int = 0) -> Path:
    """One skill cell: depends on the executor, the curator (builder) and the retriever (searcher), and the
    chain seed."""
    return _fill(paths.ALFWORLD_SKILLS, cfg, subset=subset, protocol=protocol, skill_variant=variant, seed=int(seed))


def snapshot_label(when: str, game_id: str) -> str:
    """A skill cell's snapshot of its store `before` a task (what the task was given) or `after` curating it."""
    return f"{when}_{game_id.replace('/', '__')}"
