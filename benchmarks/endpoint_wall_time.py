"""The paper model slice's wall time against an endpoint of stated throughput, and what it takes to get under one hour
(prints, never asserts).

Why: a served model is bound by two things, not one. The server's capacity bounds the whole slice (every prompt
token prefilled at the endpoint's aggregate rate, every output token decoded on one of its parallel slots), and
each sequential chain of calls bounds its own job however fast the server is: a chain of n calls takes n times one
call's latency. The longest chains decide the wall time once the capacity is large:

    rollout run      the LLM policy's episodes x steps in one job (episodes are independent; steps are not)
    ALFWorld cell    an episode_log cell's games x steps (each game reads the log the earlier ones wrote)
    fsmem            the agent-curated store's build (chunk after chunk), then its questions' searcher and judge calls
    controller arm   each claim arm's planned predictions (independent of each other)

Per-call prompt and output tokens come from a measured slice's call cache (`calls` rows: prompt, cached and output
tokens per role and stage); the call counts are the target slice's units over the measured slice's units
(benchmarks/plan_model_slice.py). A call's latency at the endpoint is overhead + prompt / prompt rate + output /
decode rate per request; the capacity bound is all prompt tokens over the aggregate prompt rate plus all output tokens
over (decode rate x parallel requests). Two schedules are printed: as coded where a job sends one call at a time
(each job's calls are a chain), and with the independent units of every job in flight together (only the chains
above remain).

    python benchmarks/endpoint_wall_time.py --cache results/smoke/model/llm_cache.sqlite --measured smoke_model \
        --prompt-tps 30000 --decode-tps 40 --parallel 32
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

from tailmem.roles import BUILDER, EXECUTOR, JUDGE, POLICY, PREDICTOR, SEARCHER

sys.path.insert(0, str(Path(__file__).resolve().parent))
from plan_model_slice import ALFWORLD_VALID_SEEN, LOCOMO_CONV50_QUESTIONS, units  # noqa: E402

HOUR = 3600.0
# Per-call tokens where the measured cache holds no call of a role and stage (a slice whose design check knew
# every planned answer without a call has no predictor rows): a memory block prompt and a state code.
FALLBACK = (300.0, 0.0, 4.0)


# How a chain is cut into shorter ones that run side by side, where it is not a matter of sending units together.
SPLIT = {
    "ALFWorld episode_log cell": "the games split among independent logs, each read by its own games: a design change",
    "fsmem agent-curated build, then answers": "the conversation's sessions built into separate stores, or fewer build "
    "calls per chunk; the answers are independent once the store is built",
}


@dataclass
class Rate:
    """Measured per-call tokens of one (role, stage) and its call counts in the measured and target slices."""

    role: str
    stage: str
    measured_calls: int
    prompt: float
    cached: float
    output: float
    factor: float
    measured: bool = True  # False: FALLBACK tokens stand in for a role and stage the cache has no call of

    @property
    def calls(self) -> float:
        return self.measured_calls * self.factor


@dataclass
class Endpoint:
    prompt_tps: float  # aggregate prompt tokens per second
    decode_tps: float  # output tokens per second of one request
    parallel: int  # requests the endpoint serves at once
    overhead_s: float  # per request: network, queueing, scheduling
    prefix_cache: bool  # prompt tokens the embedded run reused (cached) are not prefilled again

    def prefill(self, prompt: float, cached: float) -> float:
        return max(prompt - cached, 0.0) if self.prefix_cache else prompt

    def latency(self, prompt: float, cached: float, output: float) -> float:
        return self.overhead_s + self.prefill(prompt, cached) / self.prompt_tps + output / self.decode_tps


def alfworld_games(cfg) -> int:
    a = cfg.alfworld
    if list(a.subsets) == ["smoke"]:
        return len(a.smoke_games)
    return a.max_games if a.max_games is not None else ALFWORLD_VALID_SEEN


def slice_units(cfg, stage: str) -> float:
    """plan_model_slice.units, with ALFWorld counted as games x steps x cells (variants x arms x protocols) and the
    smoke subset's own games."""
    if stage.startswith("alfworld"):
        a = cfg.alfworld
        return float(alfworld_games(cfg) * a.max_steps * len(a.variants) * len(a.arms_run) * len(a.protocols))
    return units(cfg, stage)


def executor_output(cfg, measured, output: float) -> tuple[float, str]:
    """The executor's output tokens per call at the target: measured, or its cap where the target's executor writes
    a reasoned action (react) and the measured one named an option by number (choose)."""
    mine, theirs = measured.alfworld.get("model_executor"), cfg.alfworld.get("model_executor")
    if mine == theirs:
        return output, ""
    cap = float(cfg.llm.roles.executor.get("max_output_tokens") or cfg.llm.max_output_tokens)
    return cap, f"executor output per call at its cap ({cap:.0f}): measured `{mine}`, target `{theirs}`"


def measured_rates(cache: Path, measured, target) -> tuple[dict[tuple[str, str], Rate], list[str]]:
    """The per-call tokens of each (role, stage) and the notes on what was not measured as the target runs it."""
    with sqlite3.connect(cache) as conn:
        rows = conn.execute(
            "SELECT role, stage, COUNT(*), AVG(prompt_tokens), AVG(cached_tokens), AVG(completion_tokens) "
            "FROM calls GROUP BY role, stage"
        ).fetchall()
    out, notes = {}, []
    for role, stage, n, prompt, cached, output in rows:
        factor = slice_units(target, stage) / max(slice_units(measured, stage), 1e-9)
        if role == EXECUTOR:
            output, note = executor_output(target, measured, output)
            if note and note not in notes:
                notes.append(note)
        out[(role, stage)] = Rate(role, stage, n, prompt, cached, output, factor)
    if (PREDICTOR, "control") not in out:
        calls = units(target, "control")
        out[(PREDICTOR, "control")] = Rate(PREDICTOR, "control", int(calls), *FALLBACK, 1.0, measured=False)
        notes.append(
            f"no predictor call in the cache: the controller study's {calls:,.0f} planned predictions at "
            f"{FALLBACK[0]:.0f} prompt and {FALLBACK[2]:.0f} output tokens each"
        )
    return out, notes


def per_call(rates: dict, role: str, stage_prefix: str) -> tuple[tuple[float, float, float], bool]:
    """((prompt, cached, output) per call, measured?) of a role over the stages starting with `stage_prefix`."""
    hits = [r for (ro, st), r in rates.items() if ro == role and st.startswith(stage_prefix)]
    n = sum(r.measured_calls for r in hits)
    if not n:
        return FALLBACK, False
    avg = [sum(getattr(r, k) * r.measured_calls for r in hits) / n for k in ("prompt", "cached", "output")]
    return (avg[0], avg[1], avg[2]), all(r.measured for r in hits)


def chains(cfg, measured, rates: dict, ep: Endpoint, build_calls: int | None) -> list[dict]:
    """The target slice's longest sequential chains, as coded (one call at a time per job) and with independent
    units side by side: {name, calls_coded, calls_concurrent, seconds per call, measured?}."""
    out = []
    if cfg.scale.control.get("tail_policy") == "llm" or cfg.scale.control.policy == "llm":
        tok, ok = per_call(rates, POLICY, "rollout")
        eps, steps = cfg.rollout.episodes, cfg.rollout.steps
        out.append(dict(name="rollout run (LLM policy)", coded=eps * steps, concurrent=steps, tok=tok, measured=ok))
    a = cfg.alfworld
    if "episode_log" in a.variants:
        tok, ok = per_call(rates, EXECUTOR, "alfworld")
        n = alfworld_games(cfg) * a.max_steps
        out.append(dict(name="ALFWorld episode_log cell", coded=n, concurrent=n, tok=tok, measured=ok))
    if "agent_curated" in cfg.fsmem.variants:
        btok, bok = per_call(rates, BUILDER, "fsmem_build")
        stok, sok = per_call(rates, SEARCHER, "fsmem_answer")
        jtok, jok = per_call(rates, JUDGE, "fsmem_answer")
        q = cfg.fsmem.max_questions if cfg.fsmem.max_questions is not None else LOCOMO_CONV50_QUESTIONS
        per_q = {}
        for role in (SEARCHER, JUDGE):
            r = rates.get((role, "fsmem_answer"))
            # calls per question and variant in the measured slice (its round caps: see the note printed below)
            per_q[role] = (
                r.measured_calls / max(units(measured, "fsmem_answer"), 1) / len(measured.fsmem.variants) if r else 1.0
            )
        build = build_calls if build_calls else _build_calls(rates, cfg)
        answer = q * (per_q[SEARCHER] + per_q[JUDGE])
        lat_b = ep.latency(*btok)
        lat_a = (per_q[SEARCHER] * ep.latency(*stok) + per_q[JUDGE] * ep.latency(*jtok)) / max(
            per_q[SEARCHER] + per_q[JUDGE], 1e-9
        )
        per_question = per_q[SEARCHER] + per_q[JUDGE]
        out.append(
            dict(
                name="fsmem agent-curated build, then answers",
                coded=build + answer,
                concurrent=build + per_question,
                seconds=((build * lat_b + answer * lat_a), (build * lat_b + per_question * lat_a)),
                measured=bok and sok and jok,
            )
        )
    tok, ok = per_call(rates, PREDICTOR, "control")
    c = cfg.control
    if c.plan:
        arm = c.plan_calls * 2 + c.plan_sample * 0.05 * (c.replay_steps or 500)
    else:
        arm = c.predict_steps or c.replay_steps or cfg.rollout.episodes * cfg.rollout.steps
    out.append(dict(name="controller arm (planned predictions)", coded=arm, concurrent=1, tok=tok, measured=ok))
    for ch in out:
        if "seconds" not in ch:
            lat = ep.latency(*ch["tok"])
            ch["seconds"] = (ch["coded"] * lat, ch["concurrent"] * lat)
    return out


def _build_calls(rates: dict, cfg) -> float:
    """The agent-curated build's builder calls at the target: measured builder calls scaled by the build rounds cap
    over the measured one (the chunk count is the conversation's, the same at every scale of one benchmark)."""
    r = rates.get((BUILDER, "fsmem_build"))
    return float(r.measured_calls * cfg.fsmem.rounds.build) if r else float(cfg.fsmem.rounds.build)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, default=Path("results/smoke/model/llm_cache.sqlite"))
    ap.add_argument("--measured", default="smoke_model", help="the scale whose slice made the cache")
    ap.add_argument("--target", default="paper_model")
    ap.add_argument("--prompt-tps", type=float, default=30_000.0, help="endpoint: prompt tokens/s, all requests")
    ap.add_argument("--decode-tps", type=float, default=40.0, help="endpoint: output tokens/s of one request")
    ap.add_argument("--parallel", type=int, default=32, help="endpoint: requests served at once")
    ap.add_argument("--overhead-s", type=float, default=0.05, help="per request: network and scheduling")
    ap.add_argument("--no-prefix-cache", action="store_true", help="prefill every prompt token (no prefix reuse)")
    ap.add_argument(
        "--build-calls",
        type=int,
        default=540,
        help="the agent-curated build's builder calls at the target (540: the paper slice's dry run, from its "
        "chunks and measured calls per chunk); 0: scale the measured build by the build rounds cap",
    )
    ap.add_argument("--goal-h", type=float, default=1.0)
    args = ap.parse_args()
    if not args.cache.exists():
        sys.exit(f"{args.cache}: no call cache; run a model slice first (snakemake model_all) or pass --cache")
    from tailmem.workflow import compose_config

    measured, target = compose_config(args.measured), compose_config(args.target)
    ep = Endpoint(args.prompt_tps, args.decode_tps, args.parallel, args.overhead_s, not args.no_prefix_cache)
    rates, notes = measured_rates(args.cache, measured, target)
    build = rates.get((BUILDER, "fsmem_build"))
    if build is not None and args.build_calls:  # the build's calls follow its chunks, not the questions
        build.factor = args.build_calls / build.measured_calls

    print(f"Endpoint: {ep.prompt_tps:,.0f} prompt tokens/s in all, {ep.decode_tps:g} output tokens/s per request, ")
    print(f"{ep.parallel} requests at once, {ep.overhead_s:g} s overhead per request, prefix cache {ep.prefix_cache}.")
    print(f"Per-call tokens measured in {args.cache} ({args.measured}); calls scaled to {args.target}.\n")
    print("| role | stage | prompt/call | reused/call | output/call | calls (target) | prefill h | decode h |")
    print("|---|---|---|---|---|---|---|---|")
    prefill_s = decode_s = calls = 0.0
    for r in sorted(rates.values(), key=lambda r: -r.calls * r.prompt):
        p = r.calls * ep.prefill(r.prompt, r.cached) / ep.prompt_tps
        d = r.calls * r.output / (ep.decode_tps * ep.parallel)
        prefill_s, decode_s, calls = prefill_s + p, decode_s + d, calls + r.calls
        print(
            f"| {r.role} | {r.stage} | {r.prompt:,.0f} | {r.cached:,.0f} | {r.output:,.1f} | {r.calls:,.0f} | "
            f"{p / HOUR:.2f} | {d / HOUR:.2f} |"
        )
    capacity = prefill_s + decode_s
    print(f"\nCapacity bound: {calls:,.0f} calls, {capacity / HOUR:.2f} h of endpoint time ({prefill_s / HOUR:.2f} h")
    print(f"prefill + {decode_s / HOUR:.2f} h decode over {ep.parallel} slots).\n")

    found = chains(target, measured, rates, ep, args.build_calls)
    print("| chain (one job) | calls, one at a time | h | calls, independent units together | h | tokens measured |")
    print("|---|---|---|---|---|---|")
    for ch in found:
        print(
            f"| {ch['name']} | {ch['coded']:,.0f} | {ch['seconds'][0] / HOUR:.2f} | {ch['concurrent']:,.0f} | "
            f"{ch['seconds'][1] / HOUR:.2f} | {'yes' if ch['measured'] else 'no (fallback per-call tokens)'} |"
        )
    r_m, r_t = measured.fsmem.rounds, target.fsmem.rounds
    if (r_m.search_curated, r_m.search_other) != (r_t.search_curated, r_t.search_other):
        notes.append(
            f"searcher calls per question as measured under round caps {r_m.search_curated}/{r_m.search_other}; "
            f"the target allows {r_t.search_curated}/{r_t.search_other}"
        )
    notes.append("prompt sizes as measured: a larger store, log or memory budget at the target makes prompts longer")
    for note in notes:
        print(f"Note: {note}.")
    goal = args.goal_h * HOUR
    for label, i in (("as coded (one call at a time per job)", 0), ("independent units in flight together", 1)):
        longest = max(found, key=lambda ch: ch["seconds"][i])
        wall = max(capacity, longest["seconds"][i])
        bound = "the endpoint's capacity" if capacity >= longest["seconds"][i] else longest["name"]
        print(f"\n{label}: about {wall / HOUR:.2f} h, bound by {bound}.")
        if wall <= goal:
            print(f"  Under {args.goal_h:g} h as it stands.")
            continue
        if capacity > goal:
            print(
                f"  The capacity alone is {capacity / HOUR:.2f} h: needs about {args.prompt_tps * prefill_s / goal:,.0f}"
                f" prompt tokens/s, or {decode_s / goal / (1 - min(prefill_s / goal, 0.99)):.1f}x the decode slots."
            )
        for ch in found:
            if ch["seconds"][i] > goal:
                k = ch["seconds"][i] / goal
                n = ch["coded" if i == 0 else "concurrent"]
                print(
                    f"  {ch['name']}: {ch['seconds'][i] / HOUR:.2f} h over {n:,.0f} calls in a row; cut it {k:.1f}x: "
                    f"{int(k) + 1} shorter chains side by side ({SPLIT.get(ch['name'], 'independent pieces')}), or "
                    f"each call {k:.1f}x faster ({goal / n:.2f} s a call: fewer output tokens, or a faster decode "
                    f"per request)."
                )


if __name__ == "__main__":
    main()
