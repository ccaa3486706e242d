"""LoCoMo predictions in the layout of LoCoMo's task_eval: per conversation, `{"sample_id", "qa": [...]}` where each
QA entry keeps the benchmark's `question`, `answer`, `evidence`, `category` and adds `<model>_prediction` for each
model (here: each filesystem-memory variant), so `eval_question_answering(file, "<model>_prediction")` scores it.
Only the questions that were answered are listed, in the conversation's order.
"""

from __future__ import annotations

from collections import defaultdict, deque

from tailmem.data.locomo import Conversation


def prediction_key(model: str) -> str:
    return f"{model}_prediction"


def predictions(conv: Conversation, answers: dict[str, list[dict]]) -> dict:
    """`answers` maps a model name to its answers.json rows (question, category, answer); every model must have
    answered the same questions."""
    by_model: dict[str, dict[tuple[str, int], deque]] = {}
    for model, rows in answers.items():
        d: dict[tuple[str, int], deque] = defaultdict(deque)
        for r in rows:
            d[(r["question"], int(r["category"]))].append(str(r["answer"]))
        by_model[model] = d
    counts = {m: sum(len(v) for v in d.values()) for m, d in by_model.items()}
    if len(set(counts.values())) > 1:
        raise ValueError(f"LoCoMo export of {conv.sample_id}: models answered different numbers of questions {counts}")
    qa = []
    for q in conv.qa:
        key = (q.question, int(q.category))
        have = [m for m, d in by_model.items() if d.get(key)]
        if not have:
            continue
        if len(have) != len(by_model):
            raise ValueError(f"LoCoMo export of {conv.sample_id}: question {q.question!r} answered by {have} only")
        entry = {"question": q.question, "answer": q.answer, "evidence": list(q.evidence), "category": q.category}
        for m, d in by_model.items():
            entry[prediction_key(m)] = d[key].popleft()
        qa.append(entry)
    left = {m: sum(len(v) for v in d.values()) for m, d in by_model.items()}
    if any(left.values()):
        raise ValueError(f"LoCoMo export of {conv.sample_id}: rows not in the conversation's QA list: {left}")
    return {"sample_id": conv.sample_id, "qa": qa}
