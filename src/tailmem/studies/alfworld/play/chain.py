"""Protocols of the skill setting: tasks in one fixed order; the store used for task k is built only from the
tasks before k in its chain. `three_chain` cuts the order into three consecutive chains and resets the store at
each; `full_chain` runs one chain over all tasks; `reversed_chain` runs one chain over the same tasks in the
reverse order, the store never reset (paper 2 section 4.4: does what the store gains depend on which tasks come
first?). A task's `index` is its position in its protocol's chain order (`chain_order`).

The chain seed (`alfworld.seed`) is the outer level of the skill claims: seed 0 plays the fixed order, seed s > 0
a permutation of it drawn from numpy's PCG64 (the same on any machine), so what a store gains is measured over
several task orders, not one; the reversed chain reverses the seeded order.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from tailmem.fsmem.store import Store
from tailmem.settings.alfworld import PROTOCOLS as NAMES
from tailmem.studies.alfworld.play.curator import sources
from tailmem.studies.alfworld.play.episode import EpisodeRecord
from tailmem.studies.alfworld.play.games import Game


@dataclass(frozen=True)
class Protocol:
    """How a protocol runs the fixed order: cut into `chains` consecutive chains (the store reset at each),
    after reversing it when `reverse`."""

    chains: int
    reverse: bool = False


# How each protocol `alfworld.protocols` may name runs: one entry per name of the group's schema, in its order.
PROTOCOLS = {"three_chain": Protocol(3), "full_chain": Protocol(1), "reversed_chain": Protocol(1, reverse=True)}
assert tuple(PROTOCOLS) == NAMES, f"play.chain.PROTOCOLS {list(PROTOCOLS)} != tailmem.settings.alfworld {NAMES}"


@dataclass(frozen=True)
class TaskRecord:
    """One task of a chain: outcome, costs per role and the store it was given."""

    index: int  # position in the fixed order (0-based)
    chain: int
    id: str
    family: str
    ran: bool
    success: bool
    steps: int
    invalid: int
    error: str
    store_sources_max: int  # the latest task the store held when task `index` ran (-1: none)
    store_files: int  # after curating this task
    store_bytes: int
    retrieval_chars: int
    retrieval_files: int
    guidance_tokens: int
    execution_tokens: int  # prompt tokens of the executor over the episode
    curation_chars: int
    context_overflow: bool = False  # the executor's prompt outgrew the model's context window (the task is lost)


def seeded_order(order: list, seed: int = 0) -> list:
    """The fixed order for seed 0, else its permutation by seed `seed`."""
    if int(seed) == 0:
        return list(order)
    import numpy as np

    return [order[i] for i in np.random.default_rng(int(seed)).permutation(len(order))]


def chain_order(order: list[Game], protocol: str, seed: int = 0) -> list[Game]:
    """The tasks in the order the protocol plays them under chain seed `seed`."""
    order = seeded_order(order, seed)
    return list(reversed(order)) if PROTOCOLS[protocol].reverse else order


def segments(order: list[Game], protocol: str, seed: int = 0) -> list[list[Game]]:
    """The protocol's chains over the fixed `order` (permuted by `seed`), in play order."""
    n = PROTOCOLS[protocol].chains
    order = chain_order(order, protocol, seed)
    size = -(-len(order) // n)
    return [order[i : i + size] for i in range(0, len(order), size)] or [[]]


def run_chain(
    order: list[Game],
    protocol: str,
    store_root: Path,
    retrieve: Callable,
    attempt: Callable,
    curate: Callable,
    progress=None,
    seed: int = 0,
) -> list[TaskRecord]:
    """`retrieve(store, game) -> Retrieved`, `attempt(game, guidance) -> EpisodeRecord`,
    `curate(store, k, game, episode) -> chars written`."""
    out: list[TaskRecord] = []
    index = 0
    for c, seg in enumerate(segments(order, protocol, seed)):
        if store_root.exists():
            shutil.rmtree(store_root)
        store = Store(store_root)
        for game in seg:
            held = sources(store)
            got = retrieve(store, game)
            ep: EpisodeRecord = attempt(game, got.guidance)
            written = curate(store, index, game.id, ep) if ep.loaded else 0
            st = store.stats()
            out.append(
                TaskRecord(
                    index,
                    c,
                    game.id,
                    game.family,
                    ep.loaded,
                    ep.success,
                    ep.steps,
                    ep.invalid,
                    ep.error,
                    max(held, default=-1),
                    st["files"],
                    st["bytes"],
                    got.chars_read,
                    len(got.files),
                    ep.guidance_tokens,
                    ep.context_tokens,
                    written,
                    ep.context_overflow,
                )
            )
            index += 1
            if progress is not None:
                progress.update(1)
    return out


def to_rows(records: list[TaskRecord]) -> list[dict]:
    return [asdict(r) for r in records]
