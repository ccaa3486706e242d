"""What one LLM-policy step costs with the embedded model (llm=embedded): today's one-turn prompt against the episode
chat (tailmem.rollout.semantic.LLMPolicy), on the same observations, in the same run. Prints, never asserts.

The trajectory is the semantic proxy's (tailmem.rollout.semantic.Semantic: it explores and avoids going back, so
the agent keeps moving; the greedy model itself falls into two-state loops under either layout, where the one-turn
prompt repeats exactly and is answered from the call cache). At every step both layouts are asked about the same
observation, one after the other (so a busy machine slows both alike); the proxy's choice is the move. The two
layouts' prompts are of different kinds, so each keeps its own llama.cpp context and KV prefix. Per layout: model
calls, prompt tokens sent and evaluated per call (evaluated = not served from the KV prefix kept from the previous
call of the same kind; InstructBackend.evaluated) and wall seconds per call (the policy's choose: the call, the
cache write, the prompt building). The call cache starts empty.

    python benchmarks/bench_policy_step.py                      # modular, 80 states, 2 x 30 steps, 1 thread
    python benchmarks/bench_policy_step.py --n 100 --steps 40 --threads 2
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

LAYOUTS = ("one-turn", "chat")


class Both:
    """Asks both layouts at every step (timed, with the backend's evaluated and sent prompt tokens, and whether a
    call was made); moves as the proxy chooses; all three observe every move."""

    name = "llm"

    def __init__(self, policies: dict, proxy, client):
        self.policies, self.proxy, self.client = policies, proxy, client
        self.steps: dict[str, list[tuple[float, int, int, bool]]] = {k: [] for k in policies}

    def choose(self, obs, u):
        backend = self.client._impl  # the embedded backend: its evaluated and sent prompt-token counters
        for layout, policy in self.policies.items():
            evaluated, sent, misses = backend.evaluated, backend.sent_tokens, self.client.misses
            start = time.perf_counter()
            policy.choose(obs, u)
            seconds = time.perf_counter() - start
            called = self.client.misses > misses
            self.steps[layout].append((seconds, backend.evaluated - evaluated, backend.sent_tokens - sent, called))
        return self.proxy.choose(obs, u)

    def observe(self, obs, action, next_state):
        for policy in (*self.policies.values(), self.proxy):
            policy.observe(obs, action, next_state)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=80, help="states of the modular world")
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--steps", type=int, default=30, help="steps per episode")
    ap.add_argument("--threads", type=int, default=1, help="llm.n_threads (the main job runs two model jobs x 1)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from tailmem.graphworld.build import world_from_config
    from tailmem.llm import get_client
    from tailmem.roles import POLICY
    from tailmem.rollout.run import rollout
    from tailmem.rollout.semantic import LLMPolicy, Semantic
    from tailmem.settings.rollout import RetrievalGroup, RolloutGroup
    from tailmem.workflow import compose_config, graph_option

    graph = {**graph_option("modular"), "n": args.n}  # the shipped modular family (configs/graph/modular.yaml)
    world = world_from_config(graph, seed=args.seed)
    length = RolloutGroup(episodes=args.episodes, steps=args.steps, start="uniform")
    retrieval = RetrievalGroup(name="recency", k=5)
    with tempfile.TemporaryDirectory() as tmp:  # an empty call cache: every new prompt is a model call
        overrides = ["llm=embedded", f"llm.cache_path={Path(tmp) / 'calls.sqlite'}", f"llm.n_threads={args.threads}"]
        client = get_client(compose_config("smoke", overrides), POLICY, "bench")
        policies = {k: LLMPolicy(world, args.seed, client, one_turn=k == "one-turn") for k in LAYOUTS}
        both = Both(policies, Semantic(world, args.seed), client)
        start = time.perf_counter()
        trace = rollout(world, length, retrieval, args.seed, policy=both)
        wall = time.perf_counter() - start
    rows = []
    for layout in LAYOUTS:
        called = [(s, e, n) for s, e, n, c in both.steps[layout] if c]
        seconds, evaluated, sent = (list(x) for x in zip(*called))
        rows.append(
            (
                layout,
                len(called),
                statistics.mean(sent),
                statistics.mean(evaluated),
                statistics.median(evaluated),
                statistics.mean(seconds),
                statistics.median(seconds),
                sum(s for s, _, _, _ in both.steps[layout]),
            )
        )
    chat = policies["chat"]
    print(
        f"policy step, embedded model, {args.threads} thread(s): modular n={world.n}, {args.episodes} x {args.steps} "
        f"steps, recency k=5, the semantic proxy's moves; both layouts asked at every step (per model call below)"
    )
    head = f"{'layout':9s} {'calls':>5s} {'sent/call':>9s} {'evaluated/call':>14s} {'(median)':>8s} {'s/call':>7s} "
    print(head + f"{'(median)':>8s} {'total s':>7s}")
    for layout, calls, sent, ev, ev_med, sec, sec_med, total in rows:
        print(f"{layout:9s} {calls:5d} {sent:9.0f} {ev:14.1f} {ev_med:8.0f} {sec:7.2f} {sec_med:8.2f} {total:7.0f}")
    (_, _, _, ev_old, _, s_old, _, _), (_, _, _, ev_new, _, s_new, _, _) = rows
    print(f"ratio one-turn / chat: evaluated tokens {ev_old / ev_new:.2f}x, seconds {s_old / s_new:.2f}x")
    print(f"{trace.total_steps} steps, {wall:.0f} s in all; the chat's replies that named no option: {chat.malformed}")


if __name__ == "__main__":
    main()
