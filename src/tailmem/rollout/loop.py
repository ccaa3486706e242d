"""The per-step agent loop in Python: retrieve, choose, move, observe. Any policy, any retrieval design.

This is the general path (a later LLM policy runs here, one Python call per step) and, driven by a networkx
graph, the reference for the numba fast path. At each step t in state s: the Retriever records the visit and
the retrieved items, the policy picks action a with the step's policy uniform, and the agent moves to the a-th
neighbour of s (ascending). Where an episode starts is the `start` rule (`settings.STARTS`): `uniform`, state
floor(u_start[e] * n) for episode e; `fixed`, every episode at the first episode's state floor(u_start[0] * n);
`continue`, the first episode at its draw, each later one where the previous episode's last action led (one
unbroken walk cut into episodes). Memory persists across episodes under every rule.
"""

from __future__ import annotations

from typing import Callable, Sequence

from tqdm import tqdm

from tailmem.rollout.policy import Observation, Policy
from tailmem.rollout.randomness import Uniforms
from tailmem.rollout.retrieval import Retriever
from tailmem.rollout.trace import Trace


def run_loop(
    n: int,
    neighbors: Callable[[int], Sequence[int]],
    names: Callable[[int], Sequence[str]],
    policy: Policy,
    retriever: Retriever,
    uniforms: Uniforms,
    progress: bool | None = False,
    start: str = "uniform",
) -> Trace:
    """Roll out `uniforms.episodes` x `uniforms.steps` steps; `neighbors(s)` must be ascending.

    `progress=None` shows a bar over episodes on a TTY only.
    """
    offsets = [0] * (n + 1)  # CSR offsets, so actions are recorded as edge indices like the kernel's
    for s in range(n):
        offsets[s + 1] = offsets[s] + len(neighbors(s))
    steps = uniforms.steps
    start_u, policy_u, retrieval_u = uniforms.start.tolist(), uniforms.policy.tolist(), uniforms.retrieval.tolist()
    states, actions, episode = [], [], []
    hide = None if progress is None else not progress  # tqdm: None hides the bar unless on a TTY
    state = 0
    for e in tqdm(range(uniforms.episodes), desc=f"rollout {policy.name}", unit="episode", disable=hide, leave=False):
        if not (start == "continue" and e > 0):  # `continue`: `state` is where the last episode ended
            state = min(int(start_u[0 if start == "fixed" else e] * n), n - 1)
        for i in range(steps):
            t = e * steps + i
            retrieved = retriever.step(t, state, retrieval_u[t])
            obs = Observation(t, e, state, tuple(names(state)), tuple(retrieved))
            action = policy.choose(obs, policy_u[t])
            next_state = neighbors(state)[action]
            policy.observe(obs, action, next_state)
            states.append(state)
            actions.append(offsets[state] + action)
            episode.append(e)
            state = next_state
    return Trace(states, actions, episode, retriever.access_step, retriever.access_item, retriever.counts)
