"""LongMemEval's judged accuracy: a model says yes or no to each answer with a prompt chosen by question type.

The prompts (configs/prompts/longmemeval/judge_*.md) follow LongMemEval's evaluation in our own words: a default
check, leniency for off-by-one counts in temporal reasoning, the updated answer for knowledge updates, a rubric
for preferences, and "did it notice the question is unanswerable" for abstention. Models phrase a verdict in
many ways ("Yes.", "**No**", "Answer: yes", "yes, because ..."), so the parser reads the first yes/no word
after dropping markup; a reply with neither is unparsed (None), counted apart rather than scored as wrong.
"""

from __future__ import annotations

import re

from tailmem.data.longmemeval import Question
from tailmem.longmemeval.answer import prompt_template

_TEMPLATE = {
    "temporal-reasoning": "judge_temporal",
    "knowledge-update": "judge_knowledge_update",
    "single-session-preference": "judge_preference",
}
_VERDICT = re.compile(r"\b(not correct|not true|yes|no|incorrect|correct|true|false)\b")
_POSITIVE = {"yes", "correct", "true"}


def template_name(question: Question) -> str:
    if question.abstention:
        return "judge_abstention"
    return _TEMPLATE.get(question.qtype, "judge_default")


def judge_prompt(question: Question, response: str) -> str:
    return prompt_template(template_name(question)).safe_substitute(
        question=question.question, gold=question.answer, response=response)


def parse_verdict(reply: str | None) -> bool | None:
    """True for yes, False for no, None when the reply says neither (markup and case ignored)."""
    text = re.sub(r"[*_`#>\"']", " ", (reply or "").lower())
    m = _VERDICT.search(text)
    return None if m is None else m.group(1) in _POSITIVE


def judge_many(client, questions: list[Question], responses: list[str]) -> list[bool | None]:
    """One yes/no verdict per (question, response), the calls run concurrently by the client."""
    requests = [{"messages": [{"role": "user", "content": judge_prompt(q, r)}], "temperature": 0.0, "max_tokens": 8}
                for q, r in zip(questions, responses)]
    return [parse_verdict(r.content) for r in client.chat_many(requests)]
