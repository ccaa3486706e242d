"""The three judges are three different rules: on planted answers they disagree the way their descriptions say
(a long rambling answer passes gist and fails strict), and the model judges send the answer stages' own requests,
so the call cache can answer them."""

import pytest

from tailmem.errors import ConfigError
from tailmem.judges import panel
from tailmem.judges.panel import Item, locomo_item, rule_verdict

GOLD = "Lena adopted a rescue dog named Biscuit"
RAMBLE = (
    "Well, thinking back over all of our chats, there was a lot going on that spring: the move, the new job, "
    "the long trip to the coast with her sister, and somewhere in all of that Lena adopted a rescue dog named "
    "Biscuit, which she talked about at length, along with the garden and the neighbours."
)


def verdicts(item):
    return {j: rule_verdict(j, item) for j in panel.JUDGES}


def test_long_rambling_answer_passes_gist_and_per_type_fails_strict():
    item = locomo_item("What pet did Lena get?", GOLD, RAMBLE, 3, 4)
    assert verdicts(item) == {"paper": False, "per_type": True, "gist": True}


def test_concise_answer_passes_all_and_a_half_answer_only_gist():
    assert verdicts(locomo_item("What pet did Lena get?", GOLD, "Lena adopted a rescue dog named Biscuit.", 3, 4)) == {
        "paper": True,
        "per_type": True,
        "gist": True,
    }
    assert verdicts(locomo_item("What pet did Lena get?", GOLD, "Lena got a rescue dog", 3, 4)) == {
        "paper": False,
        "per_type": False,
        "gist": True,
    }
    assert verdicts(locomo_item("What pet did Lena get?", GOLD, "a cat", 3, 4)) == {
        "paper": False,
        "per_type": False,
        "gist": False,
    }


def test_per_type_temporal_count_off_by_one():
    """LongMemEval's temporal rule 4: a count one off still counts; the strict and gist rules read words."""
    item = Item("How many days did the trip take?", "18 days", "It took 19 days.", "q1", "temporal-reasoning")
    assert item.kind == "temporal"
    assert verdicts(item) == {"paper": False, "per_type": True, "gist": True}


def test_abstention_questions_need_an_abstaining_answer():
    item = Item(
        "What is my cat's name?",
        "You did not mention this information.",
        "I don't know.",
        "q2_abs",
        "single-session-user",
    )
    assert item.kind == "abstention" and all(verdicts(item).values())
    assert not any(verdicts(Item(item.question, item.gold, "Your cat is Tom.", "q2_abs", item.qtype)).values())


def test_locomo_temporal_category_gets_temporal_rules():
    assert locomo_item("When?", "7 May 2023", "7 May 2023", 1, 2).kind == "temporal"
    assert locomo_item("Who?", "Lena", "Lena", 1, 1).kind == "default"


def test_model_requests_are_the_answer_stages_own():
    """paper = the fsmem judge's correctness prompt with no task; per_type = LongMemEval's judge_prompt with its task."""
    from tailmem.data.longmemeval import Question
    from tailmem.fsmem.agents.models import prompt
    from tailmem.haystack.answer import JUDGE_TASK
    from tailmem.haystack.judge import judge_prompt

    item = Item("How many days?", "18", "19 days", "q1", "temporal-reasoning")
    paper = panel.request("paper", item)
    assert paper == {
        "messages": [
            {
                "role": "user",
                "content": prompt("judge_correctness", question=item.question, gold=item.gold, answer=item.answer),
            }
        ]
    }
    q = Question("q1", "temporal-reasoning", item.question, "2023/05/01", item.gold, (), ())
    assert panel.request("per_type", item) == {
        "messages": [{"role": "user", "content": judge_prompt(q, "19 days")}],
        "task": JUDGE_TASK,
    }
    gist = panel.request("gist", item)["messages"][0]["content"]
    assert "gist" in gist and item.answer in gist and "$" not in gist


def test_replies_read_by_each_judges_rule():
    assert panel.read("paper", 'ok {"correct": 1}') == 1.0 and panel.read("paper", "yes") is None
    assert panel.read("per_type", "Yes.") == 1.0 and panel.read("gist", "No") == 0.0


def test_judge_names_checked():
    assert panel.check_judges(["paper", "gist"]) == ["paper", "gist"]
    with pytest.raises(ConfigError, match="judges.names"):
        panel.check_judges(["paper", "lenient"])
    with pytest.raises(ConfigError, match="at least two"):
        panel.check_judges(["paper"])


def test_a_model_judge_sends_its_items_together(tmp_path):
    """Judge sensitivity's verdicts are independent: min(concurrency, items) in flight against the strict server
    (200 ms a reply), the verdicts of one at a time."""
    from llm_testkit import FakeServer, llm_cfg
    from tailmem.llm import get_client

    items = [Item(f"Question {i}?", GOLD, RAMBLE if i % 2 else GOLD, f"q{i}", "single-session-user") for i in range(8)]
    runs = {}
    with FakeServer(latency_s=0.2, reasoning=False, reply=lambda body: '{"correct": 1}') as server:
        for concurrency in (1, 4):
            cfg = llm_cfg(tmp_path / f"c{concurrency}", server.base_url, concurrency=concurrency)
            (tmp_path / f"c{concurrency}").mkdir()
            server.max_active = 0
            verdicts_ = panel.judge_all(get_client(cfg, "judge", "judge_sensitivity"), "paper", items)
            runs[concurrency] = (server.max_active, [(v.correct, v.reply) for v in verdicts_])
    assert runs[1][0] == 1 and runs[4][0] == 4
    assert runs[4][1] == runs[1][1] and {v for v, _ in runs[4][1]} == {1.0}
