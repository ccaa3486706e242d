"""Stage `model_roles`: how well the model played each role of the slice, against a stated floor, before any of
its numbers is read as a paper's claim.

Why: a 1.5B model can produce a table full of numbers while failing the role (a searcher that never looks up, a
judge that marks a right answer wrong). Each role gets a probe figure measured on the slice's own artifacts, so
no model time is spent twice, except the judge, whose probe is its own: the judge scores LoCoMo gold answers
(labelled correct) and the gold answers of other questions of the same category (labelled wrong), and its
agreement with those labels is what its judged accuracies are worth.

- searcher (the loop probe): the LoCoMo questions answered over the filesystem stores (the answer is only in the
  store): share that looked up before answering, share answered correctly (official F1 >= 0.5), malformed tool
  calls per round, share that hit the round cap;
- builder: the management agent's store-building rounds: malformed or missing calls per round;
- predictor: the controller study's steps whose prompt held the needed transition (evidence coverage): accuracy;
- judge: agreement with the labels above;
- executor: ALFWorld games won and admissible actions (where the episodes record them);
- policy: its own probe (`policy_probe`), a short rollout on the first world of the slice's policy runs: how often
  it takes a path its memory says leads closer to the goal, beside the semantic proxy asked on the same
  observations and a uniform pick (reference rows), and the replies that named no option.
A row whose figure is on the wrong side of its floor says `below floor`; the note names those roles. A second
table, `model_claims`, lists every row of the slice's claims tables with its verdict, interval and units, the roles
the model played to produce it, and which of those are below floor, so no verdict is read without the roles
under it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs, paths
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.control import ControlSteps
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild
from tailmem.records.model_roles import PolicyProbeRows
from tailmem.report.table_io import write_table
from tailmem.roles import BUILDER, EXECUTOR, JUDGE, POLICY, PREDICTOR, PROGRAMMATIC, SEARCHER, plays_model
from tailmem.rollout.semantic import LLMPolicy, Semantic
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage

log = logging.getLogger(__name__)
CORRECT_F1 = 0.5  # an answer "correct" for the loop probe: official LoCoMo F1 at least this


def _row(role: str, figure: str, value: float | None, n: int, floor: float, higher_is_better: bool = True) -> dict:
    if value is None or n == 0:
        verdict = "no items"
    elif higher_is_better:
        verdict = "ok" if value >= floor else "below floor"
    else:
        verdict = "ok" if value <= floor else "below floor"
    return {
        "role": role,
        "figure": figure,
        "value": value,
        "items": n,
        "floor": f"{'>=' if higher_is_better else '<='} {floor:g}",
        "verdict": verdict,
    }


def searcher_rows(answer_files: list[Path], floors) -> list[dict]:
    rows = []
    for f in answer_files:
        if f.exists():
            rows += [r for r in FsmemAnswers.read(f).rows if r.get("variant") not in ("closed_book", "chunk_retrieval")]
    n = len(rows)
    rounds = sum(int(r.get("search_rounds") or 0) for r in rows)
    looked = sum(bool(r.get("search_looked_up")) for r in rows) / n if n else None  # a call that found content
    correct = sum(float(r.get("f1") or 0) >= CORRECT_F1 for r in rows) / n if n else None
    malformed = sum(int(r.get("search_malformed_calls") or 0) for r in rows) / rounds if rounds else None
    capped = sum(bool(r.get("search_capped")) for r in rows) / n if n else None
    return [
        _row(SEARCHER, "looked up before answering (share of questions)", looked, n, floors.searcher_looked_up),
        _row(SEARCHER, f"answered correctly (share with F1 >= {CORRECT_F1})", correct, n, floors.searcher_correct),
        _row(SEARCHER, "malformed tool calls per round", malformed, rounds, floors.malformed_per_round, False),
        _row(SEARCHER, "hit the round cap (share of questions)", capped, n, floors.capped, False),
    ]


def builder_rows(build_files: list[Path], floors) -> list[dict]:
    episodes = []
    for f in build_files:
        if f.exists():
            episodes += [e for e in FsmemBuild.read(f).episodes if not str(e.get("agent", "")).startswith(PROGRAMMATIC)]
    # a builder must write with its tools: a reply that is no call (free text, or a call cut off at the output
    # cap) was refused by the loop and is a failed round, like a call naming no tool or refused arguments
    refused = sum(int(e.get("refused_answers") or 0) for e in episodes)
    rounds = sum(int(e.get("rounds") or 0) for e in episodes) + refused
    errors = sum(int(e.get("malformed_calls") or 0) for e in episodes) + refused
    return [
        _row(
            BUILDER,
            "malformed or missing tool calls per round",
            errors / rounds if rounds else None,
            rounds,
            floors.malformed_per_round,
            False,
        )
    ]


def predictor_rows(step_files: list[Path], floors) -> list[dict]:
    frames = [ControlSteps.read(f, columns=["correct", "covered"]).frame for f in step_files if f.exists()]
    steps = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["correct", "covered"])
    steps = steps.dropna()
    covered = steps[steps["covered"].astype(bool)]
    acc = float(covered["correct"].astype(float).mean()) if len(covered) else None
    return [
        _row(
            PREDICTOR,
            "accuracy when the prompt holds the transition",
            acc,
            len(covered),
            floors.predictor_with_evidence,
        )
    ]


def judge_probe(cfg: StageSettings, items: int, floors) -> list[dict]:
    """The judge's agreement with labelled answers: gold (correct) and another question's gold (wrong)."""
    from tailmem.data.locomo import load, questions
    from tailmem.fsmem.agents.judge import _score
    from tailmem.fsmem.agents.models import client_for, prompt

    client = client_for(cfg, JUDGE, "model_roles")
    if client is None or items == 0:
        return [_row(JUDGE, "agreement with labelled answers", None, 0, floors.judge_agreement)]
    conv = load(cfg.fsmem.data_file, cfg.fsmem.conversation)
    by_cat: dict[int, list] = {}
    for q in questions(conv, tuple(cfg.fsmem.categories)):
        by_cat.setdefault(q.category, []).append(q)
    picked, i = [], 0
    while len(picked) < items and any(len(v) > i for v in by_cat.values()):  # round robin over categories
        picked += [v[i] for v in by_cat.values() if len(v) > i][: items - len(picked)]
        i += 1
    asked = []  # (request, the verdict a right judge gives): independent calls, sent together (chat_many)
    for q in picked:
        same = [o for o in by_cat[q.category] if o.answer != q.answer]
        wrong = same[(picked.index(q) * 7 + 3) % len(same)].answer if same else None
        for answer, label in ((q.answer, 1.0), (wrong, 0.0)):
            if answer is None:
                continue
            content = prompt(  # the judge's correctness call alone
                "judge_correctness", question=q.question, gold=str(q.answer), answer=str(answer)
            )
            asked.append(({"messages": [{"role": "user", "content": content}]}, label))
    replies = client.chat_many([request for request, _ in asked])
    agree, n, unreadable = 0, 0, 0
    for reply, (_, label) in zip(replies, asked):
        correct = _score(reply.content, "correct", (0.0, 1.0))
        n += 1
        unreadable += correct is None
        agree += correct == label
    return [
        _row(
            JUDGE,
            "agreement with labelled answers (gold: correct; another question's gold: wrong)",
            agree / n if n else None,
            n,
            floors.judge_agreement,
        ),
        _row(JUDGE, "unreadable verdicts (share)", unreadable / n if n else None, n, floors.unreadable, False),
    ]


WARM_UP_PER_STATE = 2  # random-walk steps per state of the world before the model plays, so its memory holds paths


def _reference(role: str, figure: str, value: float | None, n: int) -> dict:
    """A row that stands beside a role's figure (another player on the same items): it has no floor."""
    return {**_row(role, figure, value, n, 0.0), "floor": "-", "verdict": "reference" if n else "no items"}


class ProbedPolicy(LLMPolicy):
    """The LLM policy, with the semantic proxy asked on every observation the model is asked (its answer is
    recorded, not taken). A random walk plays the first `warm_up` steps (the proxy, goal-directed, circles near
    its start and leaves little memory), so the memory the model then reads holds paths. Both policies draw their
    goals from the same seed at the same steps and see the same moves, so they pursue the same goal."""

    def __init__(self, world, seed: int, client, warm_up: int):
        super().__init__(world, seed, client)
        self.proxy = Semantic(world, seed)
        self.warm_up = warm_up
        self.asked: list[tuple[int, int, dict[int, int], int, int, int]] = []  # state, goal, known, offered, picks

    def choose(self, obs, u: float) -> int:
        goal = self.goal(obs.episode)
        if obs.t < self.warm_up:
            self.proxy.goal(obs.episode)  # draws as the proxy's choose would, so the two goals stay the same
            return min(int(u * len(obs.actions)), len(obs.actions) - 1)  # the random walk's rule
        known = dict(self.known.get(obs.state, {}))
        proxy = self.proxy.choose(obs, 1.0)  # its choice, never its uniform exploration
        calls = self.calls
        chosen = super().choose(obs, u)
        if self.calls == calls:
            return chosen  # the model was not asked (an exploring step, or one action left)
        offered = self.allowed(obs)  # the options the model was offered (the tabu rule's)
        known = {a: nxt for a, nxt in known.items() if a in offered}
        self.asked.append((obs.state, goal, known, len(offered), chosen, proxy))
        return chosen

    def observe(self, obs, action: int, next_state: int) -> None:
        self.proxy.observe(obs, action, next_state)
        super().observe(obs, action, next_state)


def policy_figures(world, retrieval, seed: int, client, steps: int) -> dict:
    """The policy's own figures on a rollout whose last `steps` steps the model plays (`ProbedPolicy`), one
    episode after about WARM_UP_PER_STATE x n steps of a random walk (whole episodes of `steps` steps).

    A step counts where the memory holds an option that leads closer to the goal: among the options whose next
    state the memory holds (the current state's known transitions, which every prompt shows), one whose next state
    is fewer shortest-path steps from the goal than the current state. On those steps: the share of the model's
    choices that are such an option, of the proxy's, and a uniform pick's expected share (such options / all)."""
    import networkx as nx

    from tailmem.rollout.run import rollout
    from tailmem.settings.rollout import RolloutGroup

    warm_up = -(-WARM_UP_PER_STATE * world.n // steps)  # episodes
    policy = ProbedPolicy(world, seed, client, warm_up=warm_up * steps)
    length = RolloutGroup(episodes=warm_up + 1, steps=steps, start="continue")
    rollout(world, length, retrieval, seed, policy=policy)
    graph, distance = world.to_networkx(), {}
    model, proxy, uniform = [], [], []
    for state, goal, known, degree, chosen, proxied in policy.asked:
        if goal not in distance:
            distance[goal] = nx.single_source_shortest_path_length(graph, goal)
        d = distance[goal]
        closer = {a for a, nxt in known.items() if d[nxt] < d[state]}
        if closer:
            model.append(chosen in closer)
            proxy.append(proxied in closer)
            uniform.append(len(closer) / degree)
    mean = (lambda xs: sum(xs) / len(xs)) if model else (lambda xs: None)
    return {
        "steps": len(model),
        "model": mean(model),
        "proxy": mean(proxy),
        "uniform": mean(uniform),
        "calls": policy.calls,
        "malformed": policy.malformed,
    }


def probe_world(scale):
    """The first world of the slice's policy runs (graph_runs.tail_contrast_runs: the first family at the contrast
    size and first contrast seed, under the control retrieval design), with its family's and design's shipped keys
    (configs/graph/<family>.yaml, configs/retrieval/<design>.yaml), as the rollout stage composes them."""
    import yaml

    from tailmem.config_files import config_folder
    from tailmem.graph_runs import contrast_worlds
    from tailmem.graphworld.build import world_from_config
    from tailmem.settings.rollout import RetrievalGroup

    c = scale.control
    family, design = scale.families[0], c.retrieval
    keys = yaml.safe_load((config_folder() / "graph" / f"{family}.yaml").read_text())
    k = yaml.safe_load((config_folder() / "retrieval" / f"{design}.yaml").read_text())["k"]
    size, seeds = contrast_worlds(c)
    seed = seeds[0]
    world = world_from_config({**keys, "family": family, "n": size}, seed=seed)
    return world, RetrievalGroup(name=design, k=int(k)), seed


def policy_probe(cfg: StageSettings, steps: int, floors) -> list[dict]:
    """The policy's rows (`policy_figures`): the model's share against a uniform pick's as its floor, the proxy's
    and the uniform pick's as references, and the replies that named no option (0 under the embedded grammar)."""
    from tailmem.llm import get_client

    client = get_client(cfg, POLICY, "model_roles")
    got = {"steps": 0, "model": None, "proxy": None, "uniform": None, "calls": 0, "malformed": 0}
    if plays_model(client) and steps > 0:
        world, retrieval, seed = probe_world(cfg.scale)
        got = policy_figures(world, retrieval, seed, client, steps)
    n, calls = got["steps"], got["calls"]
    closer = "a path its memory says leads closer to the goal (share of steps where one is offered)"
    return [
        _row(POLICY, f"took {closer}", got["model"], n, got["uniform"] or 0.0),
        _reference(POLICY, f"the semantic proxy on the same observations took {closer}", got["proxy"], n),
        _reference(POLICY, f"a uniform pick takes {closer} (expected)", got["uniform"], n),
        _row(
            POLICY,
            "replies that named no option (share of calls)",
            got["malformed"] / calls if calls else None,
            calls,
            floors.unreadable,
            False,
        ),
    ]


@typed_stage("policy_probe")
def run_policy_probe(cfg: StageSettings) -> None:
    """The policy's probe rows (`policy_probe`), written for model_roles to read. A stage of its own because it reads
    no product of the slice: Snakemake runs it beside the other model jobs, not alone after every claims table."""
    rows = policy_probe(cfg, int(cfg.model_roles.policy_probe_steps), cfg.model_roles.floors)
    PolicyProbeRows(rows).write(paths.POLICY_PROBE.format(results=cfg.results_dir))
    log.info("policy_probe: %d rows", len(rows))


# claims table (name prefix) -> the roles the model plays in its rows; a row's own text narrows some of them
CLAIM_ROLES = {
    outputs.CLAIMS_RANDOM_WALK: (POLICY,),
    outputs.CLAIMS_CTMC: (POLICY, PREDICTOR),
    outputs.FSMEM_STUDY_TABLES["fsmem_claims"]: (BUILDER, SEARCHER, JUDGE),
    outputs.CLAIMS_LONGMEMEVAL: (SEARCHER, JUDGE),
    outputs.CLAIMS_ALFWORLD: (EXECUTOR,),
}
CLAIM_COLUMNS = ("claim", "estimate", "ci_low", "ci_high", "n_units", "verdict", "reason", "judge_sensitive")


def _row_roles(table: str, row: pd.Series) -> list[str]:
    """The roles behind one claims row: a random-walk-only row rests on no model; only agent-curated rows on the
    builder; only judged metrics on the judge."""
    roles = next(r for prefix, r in CLAIM_ROLES.items() if table.startswith(prefix))
    text = " ".join(str(v) for v in row.values).lower()
    keep = []
    for role in roles:
        if (
            role == POLICY
            and table == outputs.CLAIMS_RANDOM_WALK
            and not any(w in text for w in ("semantic", "llm", "policy"))  # words of a table, not the role
        ):
            continue
        if role == BUILDER and "agent_curated" not in text:
            continue
        if role == JUDGE and table.startswith(outputs.FSMEM_STUDY_TABLES["fsmem_claims"]) and JUDGE not in text:
            continue
        keep.append(role)
    return keep


def claim_rows(tables: Path, below: set[str]) -> pd.DataFrame:
    """Every row of the slice's claims tables with the model roles it rests on and those below floor."""
    out = []
    for f in sorted(tables.glob("claims_*.csv")):
        table = f.stem
        if not any(table.startswith(p) for p in CLAIM_ROLES):
            continue
        for _, row in pd.read_csv(f).iterrows():
            roles = _row_roles(table, row)
            out.append(
                {
                    "table": table,
                    **{c: row.get(c) for c in CLAIM_COLUMNS},
                    "roles": ", ".join(roles) or "-",
                    "roles below floor": ", ".join(r for r in roles if r in below) or "-",
                }
            )
    return pd.DataFrame(out, columns=["table", *CLAIM_COLUMNS, "roles", "roles below floor"])


@typed_stage("model_roles")
def run(cfg: StageSettings) -> None:
    from tailmem.fsmem import run_list
    from tailmem.graph_runs import control_runs

    mr = cfg.model_roles
    out = paths.out_dir(cfg, paths.tables_dir(cfg))
    runs = list(dict.fromkeys(run_list.main_runs(cfg.composed) + run_list.harness_runs(cfg.composed)))
    answer_files = [r.answers_dir / paths.ANSWERS_FILE for r in runs]
    build_files = list(dict.fromkeys(r.build_dir / paths.BUILD_FILE for r in runs if r.variant == "agent_curated"))
    step_files = [r.folder(cfg.results_dir) / paths.STEPS_FILE for r in control_runs(cfg.composed)]
    rows = (
        searcher_rows(answer_files, mr.floors)
        + builder_rows(build_files, mr.floors)
        + predictor_rows(step_files, mr.floors)
        + judge_probe(cfg, int(mr.judge_probe_items), mr.floors)
        + PolicyProbeRows.read(paths.POLICY_PROBE.format(results=cfg.results_dir)).rows
    )
    df = pd.DataFrame(rows)
    below = sorted({r["role"] for r in rows if r["verdict"] == "below floor"})
    note = (
        "How the model played each role of this slice, measured before its numbers are read as claims: the "
        "searcher on the slice's LoCoMo questions over filesystem stores (answer only in the store), the builder "
        "on its store-building rounds, the predictor on the controller-study steps whose prompt held the needed "
        "transition, the judge on its own probe (gold answers labelled correct, another question's gold of the "
        "same category labelled wrong), the policy on its own probe (a short rollout after a random walk "
        "filled its memory: its floor is a uniform pick's share; the proxy asked on the same observations is a "
        "reference). `below floor`: the claims this role plays in this slice rest on a role "
        f"the model did not play adequately. Roles below floor: {', '.join(below) or 'none'}."
    )
    write_table(
        out,
        outputs.MODEL_ROLES,
        df,
        "Model roles: probe figures per role",
        note,
        table_footer(cfg, ("llm", "fsmem", "model_roles")),
    )
    save_provenance(
        out, cfg, prefix=f"{outputs.MODEL_ROLES}.", groups=("llm", "fsmem", "model_roles"), below_floor=below
    )
    claims = claim_rows(out, set(below))
    write_table(
        out,
        outputs.MODEL_CLAIMS,
        claims,
        "Model slice: every claims row with the roles it rests on",
        "Each row of this slice's claims tables (verdict, interval, units as there), the roles the model "
        "played to produce it, and those of them whose probe figure in `model_roles` is below its floor: "
        "a verdict resting on such a role says more about the model than about memory.",
        table_footer(cfg, ("llm", "fsmem", "model_roles")),
    )
    log.info("model_roles: %d figures, roles below floor: %s", len(rows), below or "none")
