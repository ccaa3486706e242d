"""The fast path of a random-walk rollout: one numba loop over the world's CSR arrays.

Same rules and same uniforms as `retrieval.Retriever` + `policy.RandomWalk` (see retrieval.py for the rules);
the tests check that both give identical access counts. The kernel runs episodes [first, stop) and keeps its
memory (counts, stored flags, the visit history in `states`) in the arrays it is given, so a caller can run a long
horizon in chunks (for a progress bar) without changing a single draw. The start-state rules are those of
`settings.STARTS` (see loop.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

NONE, RECENCY, MATE_UNIFORM, AWARE_FREQUENCY = 0, 1, 2, 3
DESIGN_CODES = {
    "none": NONE,
    "recency": RECENCY,
    "state_mate_uniform": MATE_UNIFORM,
    "state_aware_frequency": AWARE_FREQUENCY,
}
UNIFORM_START, FIXED_START, CONTINUE_START = 0, 1, 2
START_CODES = {"uniform": UNIFORM_START, "fixed": FIXED_START, "continue": CONTINUE_START}


@njit(cache=True)
def walk_kernel(
    indptr,
    targets,
    design,
    k,
    start_rule,
    steps,
    first,
    stop,
    start_u,
    policy_u,
    retrieval_u,
    states,
    actions,
    episode,
    access_step,
    access_item,
    counts,
    stored,
    seen_at,
    n_access,
):
    """Run episodes first..stop-1; fill the step and access arrays; return the new number of accesses.

    `seen_at[item] == t` marks items already taken by recency at step t (a set without clearing).
    """
    n = len(indptr) - 1
    max_degree = 0
    for s in range(n):
        max_degree = max(max_degree, indptr[s + 1] - indptr[s])
    candidates = np.empty(max_degree, dtype=np.int64)
    a = n_access
    for e in range(first, stop):
        if start_rule == CONTINUE_START and e > 0:
            s = targets[actions[e * steps - 1]]  # where the previous episode's last action led
        else:
            s = min(int(start_u[0 if start_rule == FIXED_START else e] * n), n - 1)
        for i in range(steps):
            t = e * steps + i
            states[t] = s
            episode[t] = e
            # the visit: the current item is accessed and stored
            access_step[a] = t
            access_item[a] = s
            a += 1
            counts[s] += 1
            stored[s] = True
            # retrieval
            if design == RECENCY:
                for j in range(t - 1, max(0, t - k) - 1, -1):
                    item = states[j]
                    if item != s and seen_at[item] != t:
                        seen_at[item] = t
                        access_step[a] = t
                        access_item[a] = item
                        a += 1
                        counts[item] += 1
            elif design == MATE_UNIFORM or design == AWARE_FREQUENCY:
                m = 0
                total = 0
                for edge in range(indptr[s], indptr[s + 1]):
                    v = targets[edge]
                    if stored[v]:
                        candidates[m] = v
                        m += 1
                        total += counts[v] + 1
                for j in range(min(k, m)):
                    u = retrieval_u[t, j]
                    if design == MATE_UNIFORM:
                        index = min(int(u * m), m - 1)
                    else:
                        target = u * total
                        index = m - 1
                        cumulative = 0
                        for x in range(m):
                            cumulative += counts[candidates[x]] + 1
                            if cumulative > target:
                                index = x
                                break
                        total -= counts[candidates[index]] + 1
                    item = candidates[index]
                    for x in range(index, m - 1):  # remove the pick, keep the order of the rest
                        candidates[x] = candidates[x + 1]
                    m -= 1
                    access_step[a] = t
                    access_item[a] = item
                    a += 1
                    counts[item] += 1
            # the random-walk policy: action floor(u * degree), then move
            degree = indptr[s + 1] - indptr[s]
            edge = indptr[s] + min(int(policy_u[t] * degree), degree - 1)
            actions[t] = edge
            s = targets[edge]
    return a
