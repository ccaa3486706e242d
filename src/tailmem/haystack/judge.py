"""LongMemEval's judged accuracy: a model says yes or no to each answer with a prompt chosen by question type.

The prompts (configs/prompts/longmemeval/judge_*.md) state LongMemEval's acceptance rules (src/evaluation/
evaluate_qa.py) in our own words, rule by rule; docs/longmemeval.md maps each of our sentences to the official one.
The type is chosen as the official script chooses it: abstention when the question id contains `_abs`, else by
question type (single-session-user, single-session-assistant and multi-session share the default rules).

Two readings of the judge's reply:
- `official_verdict`, the default for reported accuracy: correct iff the lower-cased reply contains "yes"
  anywhere (so "Correct." and an empty reply are wrong, and "yes" inside another word counts).
- `parse_verdict`, ours, a labelled extra: the first yes/no/correct/incorrect/true/false word after dropping
  markup; a reply with none of them is unparsed (None), counted apart rather than scored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tailmem.data.longmemeval import Question
from tailmem.haystack.answer import JUDGE_TASK, chat_in_prefix_order, prompt_template

TEMPLATES = {
    "single-session-user": "judge_default",
    "single-session-assistant": "judge_default",
    "multi-session": "judge_default",
    "temporal-reasoning": "judge_temporal",
    "knowledge-update": "judge_knowledge_update",
    "single-session-preference": "judge_preference",
}
_VERDICT = re.compile(r"\b(not correct|not true|yes|no|incorrect|correct|true|false)\b")
_POSITIVE = {"yes", "correct", "true"}


@dataclass(frozen=True)
class Verdict:
    """One judge reply read both ways."""

    reply: str
    official: bool  # LongMemEval's rule: "yes" in the lower-cased reply
    ours: bool | None  # first verdict word; None = unparsed
    seconds: float | None = None  # the judge call's latency (the recorded one when served from the cache)


def template_name(question: Question) -> str:
    if "_abs" in question.qid:
        return "judge_abstention"
    if question.qtype not in TEMPLATES:
        raise ValueError(
            f"LongMemEval judge: question {question.qid!r} has type {question.qtype!r}; "
            f"expected one of {sorted(TEMPLATES)}"
        )
    return TEMPLATES[question.qtype]


def judge_prompt(question: Question, response: str) -> str:
    return prompt_template(template_name(question)).safe_substitute(
        question=question.question, gold=question.answer, response=response
    )


def official_verdict(reply: str | None) -> bool:
    """LongMemEval's reading: the stripped, lower-cased reply contains 'yes'."""
    return "yes" in (reply or "").strip().lower()


def parse_verdict(reply: str | None) -> bool | None:
    """Ours: True for yes, False for no, None when the reply says neither (markup and case ignored)."""
    text = re.sub(r"[*_`#>\"']", " ", (reply or "").lower())
    m = _VERDICT.search(text)
    return None if m is None else m.group(1) in _POSITIVE


def read_reply(reply: str | None, seconds: float | None = None) -> Verdict:
    return Verdict(reply or "", official_verdict(reply), parse_verdict(reply), seconds)


def judge_many(client, questions: list[Question], responses: list[str]) -> list[Verdict]:
    """One verdict per (question, response). The prompts put the rules and the question first and the response
    last, and are sent in prefix order (`answer.chat_in_prefix_order`): the arms' answers to one question share
    everything but the response, which is all an in-process model evaluates anew."""
    # params: the judge role's (its cap for JUDGE_TASK when set)
    requests = [
        {"messages": [{"role": "user", "content": judge_prompt(q, r)}], "task": JUDGE_TASK}
        for q, r in zip(questions, responses)
    ]
    return [read_reply(r.content, float(r.latency_s)) for r in chat_in_prefix_order(client, requests)]
