"""LongMemEval sized for a small in-process model (issue 28), without a model: which arms run, turns cut to a few
words, a total question cap, requests sent in prefix order one at a time to an in-process backend, the run's
seconds and KV-reuse counters in rows and summary, and the measured reduction computed from such rows."""

import pandas as pd
import pytest

from tailmem.data.longmemeval import Question, Session, Turn
from tailmem.errors import ConfigError
from tailmem.haystack import answer as A
from tailmem.haystack.arms import ARM_FAMILIES, families, make_arms
from tailmem.haystack.haystack_memory import CLIPPED, build_store, clip
from tailmem.haystack.judge import judge_many, judge_prompt
from tailmem.haystack.metrics import evidence_coverage
from tailmem.haystack.retrieval import rank
from tailmem.llm.records import ChatResponse, Usage
from tailmem.records.longmemeval import LongMemEvalSummary
from tailmem.workflow import compose_config


def lme(**over):
    cfg = compose_config("smoke", [f"longmemeval.{k}={v}" for k, v in over.items()])
    return cfg.longmemeval


# ------------------------------------------------------------------------------------------------------ arms


def test_arms_key_picks_families_in_the_fixed_order():
    assert families(lme()) == list(ARM_FAMILIES)  # the default: every family, today's arms
    arms = make_arms(lme(arms="[ctmc,graph_memory]", ctmc_ratios="[1.0,0.5]", primary_ratio=0.5))
    assert [a.name for a in arms] == ["graph_memory", "ctmc-r1", "ctmc-r0.5"]  # Graph Memory first: CTMC reads it


def test_ctmc_without_graph_memory_and_empty_arms_are_refused():
    from omegaconf import OmegaConf

    with pytest.raises(ConfigError, match="ctmc needs graph_memory"):
        make_arms(lme(arms="[ctmc]"))
    with pytest.raises(ConfigError, match="non-empty list"):  # the schema refuses an empty list
        lme(arms="[]")
    with pytest.raises(ConfigError, match="no arm to run"):  # and make_arms does too, for a config built in code
        make_arms(OmegaConf.create({**OmegaConf.to_container(lme(), resolve=True), "arms": []}))
    with pytest.raises(Exception, match="longmemeval.arms"):  # the schema names the key and the families
        lme(arms="[graph_memory,ctmcc]")


# -------------------------------------------------------------------------------------------------- turn cut

LONG = "word " * 30 + "Tokyo at the end."


def question():
    s0 = Session(
        "a", "2023/01/01", (Turn("user", "My sister moved to Tokyo last year.", True), Turn("assistant", LONG))
    )
    s1 = Session("b", "2023/01/02", (Turn("user", "I like tea. " * 20, False),))
    return Question("q1", "single-session-user", "Where did my sister move?", "2023/02/01", "Tokyo", ("a",), (s0, s1))


def test_clip_keeps_the_first_words_and_marks_the_cut():
    assert clip("a  b\nc") == "a b c"  # None: whole, flattened
    assert clip("a b c d", 2) == "a b" + CLIPPED and clip("a b", 2) == "a b"


def test_turn_words_cuts_items_and_history_and_coverage_looks_for_the_cut_turn():
    q = question()
    store = build_store(q, q.sessions, rank(q.sessions, q.question), turn_words=5)
    text = "\n".join(store.items[0].lines("compact"))
    assert "Tokyo at the end" not in text and "word word word word word" + CLIPPED in text
    assert all(len(r.compact.split(": ", 1)[1].split()) <= 6 for r in store.history)  # 5 words + the mark
    assert evidence_coverage(q, text, turn_words=5) == 1.0  # the (short) evidence turn is there, cut form
    long_evidence = Question(
        q.qid,
        q.qtype,
        q.question,
        q.date,
        q.answer,
        q.answer_session_ids,
        (Session("a", "2023/01/01", (Turn("user", LONG, True),)),),
    )
    cut = "\n".join(
        build_store(long_evidence, long_evidence.sessions, rank(long_evidence.sessions, "x"), 5)
        .items[0]
        .lines("compact")
    )
    assert evidence_coverage(long_evidence, cut, turn_words=5) == 1.0
    assert evidence_coverage(long_evidence, cut) == 0.0  # whole-turn coverage cannot find a cut turn


# ----------------------------------------------------------------------------------------------- prefix order


class FakeClient:
    """Records the order of chat calls; `backend` decides sequential (instruct) or chat_many."""

    model = "fake"

    def __init__(self, backend="instruct", reply=lambda text: "Tokyo"):
        self.backend, self.reply, self.calls, self.batches = backend, reply, [], []

        class Impl:
            evaluated, sent_tokens, seconds_in_model = 0, 0, 0.0

        self._impl = Impl()
        self._last = ""

    def chat(self, messages, tools=None, task=None, **params):
        text = messages[0]["content"]
        shared = next((i for i, (a, b) in enumerate(zip(text, self._last)) if a != b), min(len(text), len(self._last)))
        self._last = text
        self.calls.append((text, task, params))
        self._impl.sent_tokens += len(text)
        self._impl.evaluated += len(text) - shared
        return ChatResponse(self.reply(text), (), Usage(len(text), shared, 2), self.model, False, 0.5)

    def chat_many(self, requests):
        self.batches.append([r["messages"][0]["content"] for r in requests])
        return [
            self.chat(r["messages"], r.get("tools"), **{k: v for k, v in r.items() if k not in ("messages", "tools")})
            for r in requests
        ]


def test_prefix_order_sorts_so_neighbours_share_prefixes():
    keys = ["b-x", "a-1", "b-y", "a-2"]
    assert A.prefix_order(keys) == [1, 3, 0, 2]


def test_in_process_backend_is_called_one_at_a_time_in_prefix_order_answers_in_request_order():
    reqs = [{"messages": [{"role": "user", "content": c}], "seed": 3} for c in ("zeta", "alpha", "beta")]
    client = FakeClient(reply=lambda text: text.upper())
    out = A.chat_in_prefix_order(client, reqs)
    assert [r.content for r in out] == ["ZETA", "ALPHA", "BETA"]
    assert [c[0] for c in client.calls] == ["alpha", "beta", "zeta"] and not client.batches
    assert all(c[2] == {"seed": 3} for c in client.calls)
    remote = FakeClient(backend="openai", reply=lambda text: text.upper())
    assert [r.content for r in A.chat_in_prefix_order(remote, reqs)] == ["ZETA", "ALPHA", "BETA"]
    assert remote.batches == [["alpha", "beta", "zeta"]]  # one chat_many, in prefix order


def test_model_answerer_records_seconds_and_tokens_and_names_its_task():
    client = FakeClient()
    answerer = A.ModelAnswerer(client, seed=1)
    (a,) = answerer.answer_many([answerer.request("S0 2023\n  0U: Tokyo", "Where?", "2023/02/01")])
    assert a.text == "Tokyo" and client.calls[0][1] == A.ANSWER_TASK and client.calls[0][2] == {"seed": 1}
    assert a.accounting() == {
        "answer_seconds": 0.5,
        "answer_prompt_tokens": a.prompt_tokens,
        "answer_cached_tokens": 0,
        "answer_completion_tokens": 2,
        "answer_from_cache": False,
        "answer_context_overflow": False,
    }
    assert A.Answer("x", "programmatic-answerer").accounting() == {}


def test_judge_prompts_put_the_response_last_so_arms_share_the_rest():
    q = question()
    one, two = judge_prompt(q, "Tokyo"), judge_prompt(q, "Paris")
    cut = one.index("Assistant's response: ")
    assert one[:cut] == two[:cut] and one.index("Rules:") < one.index("Question:") < cut
    client = FakeClient(reply=lambda text: "yes" if "response: Tokyo" in text else "no")
    verdicts = judge_many(client, [q, q], ["Tokyo", "Paris"])
    assert [v.official for v in verdicts] == [True, False] and verdicts[0].seconds == 0.5
    assert [c[1] for c in client.calls] == ["longmemeval_judge"] * 2
    assert client._impl.evaluated < client._impl.sent_tokens - cut  # the second call reused the shared prefix


# ---------------------------------------------------------------------------------------------- the stage


def test_round_robin_caps_the_total_across_types():
    from tailmem.studies.longmemeval.questions import round_robin

    class Q:
        def __init__(self, i, t):
            self.i, self.qtype = i, t

    qs = [Q(0, "a"), Q(1, "a"), Q(2, "b"), Q(3, "c"), Q(4, "b")]
    assert [q.i for q in round_robin(qs, 3)] == [0, 2, 3]  # one of each type first, file order kept
    assert [q.i for q in round_robin(qs, 4)] == [0, 1, 2, 3]
    assert [q.i for q in round_robin(qs, 9)] == [0, 1, 2, 3, 4]


@pytest.mark.slow
def test_stage_with_an_in_process_model_then_the_measured_reduction(tmp_path, data_dir, monkeypatch):
    import tailmem.llm
    from tailmem.studies.longmemeval import report as report_stage
    from tailmem.studies.longmemeval import run as stage

    clients = {}

    def get_client(cfg, role, stage=None):
        return clients.setdefault(role, FakeClient(reply=(lambda t: "yes") if role == "judge" else (lambda t: "2")))

    monkeypatch.setattr(tailmem.llm, "get_client", get_client)
    over = [
        f"results_dir={tmp_path}/results",
        f"figures_dir={tmp_path}/figures",
        f"data_dir={data_dir}",
        "llm=embedded",
        "longmemeval.dataset=oracle",
        "longmemeval.datasets=[oracle]",
        "longmemeval.seeds=[0]",
        "longmemeval.arms=[graph_memory,ctmc]",
        "longmemeval.ctmc_ratios=[1.0,0.5]",
        "longmemeval.primary_ratio=0.5",
        "longmemeval.graph_budget=800",
        "longmemeval.turn_words=40",
        "longmemeval.max_per_type=1",
        "longmemeval.max_questions=3",
        "longmemeval.context_check=0",
        "seed=0",
    ]  # arms only: the call counts below
    cfg = compose_config("smoke", over)
    stage.run(cfg)
    run = stage.run_dir(cfg, "oracle", 0)
    rows = pd.read_parquet(run / "rows.parquet")
    assert rows.qid.nunique() == 3 and rows.question_type.nunique() == 3  # one per type, three types
    assert set(rows.arm) == {"graph_memory", "ctmc-r1", "ctmc-r0.5"}
    assert rows.answer_seconds.eq(0.5).all() and rows.judge_seconds.eq(0.5).all() and rows.judge_correct.eq(1).all()
    assert rows.prompt_tokens.max() < 1200  # budget 800 and 40-word turns: a few hundred tokens of instructions more
    calls = [c[0] for c in clients["searcher"].calls]  # each question's three arms together, in prefix order
    per_question = [calls[i : i + 3] for i in range(0, len(calls), 3)]
    assert all(batch == sorted(batch) for batch in per_question)
    model = LongMemEvalSummary.read(run / "summary.json").model
    assert set(model["answer_seconds_per_arm"]) == {"graph_memory", "ctmc-r1", "ctmc-r0.5"}
    assert model["answer_seconds_per_question"] == pytest.approx(1.5) and model["judge_seconds_per_call"] == 0.5
    searcher = model["backend"]["searcher"]
    assert 0 < searcher["evaluated_tokens"] < searcher["sent_tokens"]  # arms of a question shared a prefix
    report_stage.report(compose_config("smoke", [*over, f"out={tmp_path}/tables"]))
    red = pd.read_csv(tmp_path / "tables" / "longmemeval_reduction.csv")
    assert set(red.arm) == {"ctmc-r1", "ctmc-r0.5"} and red.questions.eq(3).all()
    assert (red.token_reduction_pct > 0).all()
