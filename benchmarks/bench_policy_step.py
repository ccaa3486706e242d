"""What one LLM-policy step costs with the embedded model (llm=embedded): today's one-turn prompt against the episode
chat (tailmem.rollout.semantic.LLMPolicy), on the same observations, in the same run. Prints, never asserts.

At every step both layouts are asked about the same observation, one after the other (so a busy machine slows both
alike): the chat's answer is the move, the one-turn layout's is discarded (its prompt holds no earlier reply, so
what it sees is the same whichever layout moves). The two are prompts of different kinds, so each keeps its own
llama.cpp context and KV prefix. Per layout: prompt tokens sent and evaluated per step (evaluated = not served
from the KV prefix kept from the previous call of the same kind; InstructBackend.evaluated) and wall seconds per
step (the policy's choose: the call, the cache write, the prompt building). The call cache starts empty.

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
    """Asks both layouts at every step (timed, with the backend's evaluated and sent prompt tokens); moves as the
    chat answered; both observe every move."""

    name = "llm"

    def __init__(self, policies: dict, backend):
        self.policies, self.backend = policies, backend
        self.steps: dict[str, list[tuple[float, int, int]]] = {k: [] for k in policies}  # (seconds, evaluated, sent)

    def choose(self, obs, u):
        for layout, policy in self.policies.items():
            evaluated, sent = self.backend.evaluated, self.backend.sent_tokens
            start = time.perf_counter()
            action = policy.choose(obs, u)
            seconds = time.perf_counter() - start
            self.steps[layout].append((seconds, self.backend.evaluated - evaluated, self.backend.sent_tokens - sent))
        return action  # the last layout's: the chat's

    def observe(self, obs, action, next_state):
        for policy in self.policies.values():
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
    from tailmem.rollout.semantic import LLMPolicy
    from tailmem.settings.rollout import RetrievalGroup, RolloutGroup
    from tailmem.workflow import compose_config, graph_option

    graph = {**graph_option("modular"), "n": args.n}  # the shipped modular family (configs/graph/modular.yaml)
    world = world_from_config(graph, seed=args.seed)
    length = RolloutGroup(episodes=args.episodes, steps=args.steps, start="uniform")
    retrieval = RetrievalGroup(name="recency", k=5)
    with tempfile.TemporaryDirectory() as tmp:  # an empty call cache: every step is a model call
        overrides = ["llm=embedded", f"llm.cache_path={Path(tmp) / 'calls.sqlite'}", f"llm.n_threads={args.threads}"]
        client = get_client(compose_config("smoke", overrides), POLICY, "bench")
        policies = {k: LLMPolicy(world, args.seed, client, one_turn=k == "one-turn") for k in LAYOUTS}
        both = Both(policies, client._impl)  # the embedded backend: its evaluated and sent prompt-token counters
        start = time.perf_counter()
        trace = rollout(world, length, retrieval, args.seed, policy=both)
        wall = time.perf_counter() - start
    rows = []
    for layout in LAYOUTS:
        seconds, evaluated, sent = (list(x) for x in zip(*both.steps[layout]))
        rows.append(
            (
                layout,
                len(seconds),
                statistics.mean(sent),
                statistics.mean(evaluated),
                statistics.median(evaluated),
                statistics.mean(seconds),
                statistics.median(seconds),
                sum(seconds),
            )
        )
    chat = policies["chat"]
    print(
        f"policy step, embedded model, {args.threads} thread(s): modular n={world.n}, {args.episodes} x {args.steps} "
        f"steps, recency k=5; both layouts asked at every step, the chat's answer moves"
    )
    head = f"{'layout':9s} {'steps':>5s} {'sent/step':>9s} {'evaluated/step':>14s} {'(median)':>8s} {'s/step':>7s} "
    print(head + f"{'(median)':>8s} {'total s':>7s}")
    for layout, steps, sent, ev, ev_med, sec, sec_med, wall in rows:
        print(f"{layout:9s} {steps:5d} {sent:9.0f} {ev:14.1f} {ev_med:8.0f} {sec:7.2f} {sec_med:8.2f} {wall:7.0f}")
    (_, _, _, ev_old, _, s_old, _, _), (_, _, _, ev_new, _, s_new, _, _) = rows
    print(f"ratio one-turn / chat: evaluated tokens {ev_old / ev_new:.2f}x, seconds {s_old / s_new:.2f}x")
    print(
        f"chat: {chat.calls} model calls, {chat.malformed} replies that named no option; {trace.total_steps} steps, {wall:.0f} s in all"
    )


if __name__ == "__main__":
    main()
