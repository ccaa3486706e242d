"""The roles a model may play, who plays each, and the labels a role's player goes by in paths and tables.

A role's name is at once a config key (`llm.roles.<role>`), a column of the call cache, a table column and a
folder segment, and a role played by no model is named the same way in all of them (`programmatic`, or
`programmatic-<agent>` for the agent that stands in). Deciding these in one place keeps a stage, the DAG that
scheduled it and the table that reads its rows from disagreeing about a folder or a column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from omegaconf import DictConfig

POLICY = "policy"  # picks the next action of a graph-world walk
PREDICTOR = "predictor"  # predicts the next state for the controller
BUILDER = "builder"  # builds a memory store (fsmem; ALFWorld's skill curator)
SEARCHER = "searcher"  # answers from a store (fsmem, LongMemEval; ALFWorld's skill retriever)
EXECUTOR = "executor"  # acts in ALFWorld
JUDGE = "judge"  # grades an answer against the gold one
ROLES = (POLICY, PREDICTOR, BUILDER, SEARCHER, EXECUTOR, JUDGE)

# The label of a role played by no model, and the name of the backend that plays none.
PROGRAMMATIC = "programmatic"
# Appended to a model's label where a served copy of it plays the role under the embedded backend's constraints
# (`structured_outputs`, llm=served): the same model as the embedded run but another run, so its rows and folders
# are its own.
SERVED_SUFFIX = "-served"


def programmatic_agent(name: str) -> str:
    """The label of the programmatic agent `name` (a role, or an agent such as `curator`): `programmatic-<name>`,
    so `is_programmatic` tells it from a model's name."""
    return f"{PROGRAMMATIC}-{name}"


def is_programmatic(agent: str | None) -> bool:
    """An agent label that names no model (`programmatic`, `programmatic-searcher`, empty)."""
    return not agent or str(agent).startswith(PROGRAMMATIC)


def model_free(backend: str | None) -> bool:
    """Whether a role on `backend` is played by a programmatic agent rather than a model."""
    return backend == PROGRAMMATIC


def plays_model(client) -> bool:
    """Whether `client` (a role's LLM client, or None where the caller has none) is a model."""
    return client is not None and not model_free(getattr(client, "backend", PROGRAMMATIC))


def player_label(
    role: str, backend: str, model: str | None = None, agent: str | None = None, served: bool = False
) -> str:
    """What a result row names as `role`'s player: the model (with SERVED_SUFFIX where `served`: a served model under
    the embedded backend's constraints), or the programmatic agent (the configured one, else `programmatic-<role>`)."""
    if model_free(backend):
        return agent or programmatic_agent(role)
    return f"{model}{SERVED_SUFFIX}" if served else str(model)


def client_label(client, role: str) -> str:
    """What a result row names as `role`'s player given its client, None where no model plays it."""
    return programmatic_agent(role) if client is None else str(client.model)


def _entry(cfg: DictConfig, role: str):
    """`llm.roles.<role>` of the composed config `cfg` (or its plain data), None where the group or the role is
    absent."""
    llm = cfg.get("llm")
    roles = llm.get("roles") if llm is not None else None
    return roles.get(role) if roles is not None else None


def configured_backend(cfg: DictConfig, role: str) -> str:
    """The backend the config's llm group gives `role`; programmatic where the group or the role is absent (an
    offline config has no models). Read from the composed config (a stage passes its settings' `composed`), so a
    stage and its DAG read the same."""
    r = _entry(cfg, role)
    return PROGRAMMATIC if r is None else r.get("backend", PROGRAMMATIC)


def configured_model(cfg: DictConfig, role: str) -> str | None:
    """The model the config's llm group puts in `role`, None where a programmatic agent plays it."""
    r = _entry(cfg, role)
    if r is None or model_free(r.get("backend", PROGRAMMATIC)):
        return None
    return str(r.get("model"))


def configured_served(cfg: DictConfig, role: str) -> bool:
    """Whether a model plays `role` under the embedded backend's constraints sent to a server (`structured_outputs`,
    set at the role or for the whole llm group as llm=served does; a role's own null turns it off)."""
    r = _entry(cfg, role)
    if r is None or model_free(r.get("backend", PROGRAMMATIC)):
        return False
    if "structured_outputs" in r:
        return bool(r.get("structured_outputs"))
    return bool(cfg.get("llm").get("structured_outputs"))


def tail_policy(cfg: "DictConfig") -> str:
    """The policy whose tails stand beside the random walk's: `scale.control.tail_policy`, else the controller
    study's trajectory source (`semantic`, or `llm` where a model plays the policy role)."""
    c = cfg.scale.control
    return str(getattr(c, "tail_policy", None) or c.policy)


def contrast_policies(cfg: "DictConfig") -> list[str]:
    """The policies whose tails paper 1 contrasts: the random walk, then `tail_policy`."""
    return list(dict.fromkeys(["random_walk", tail_policy(cfg)]))
