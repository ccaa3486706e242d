"""Three judges of one answer against its gold: the paper's setting, a LongMemEval-style per-type judge and a
lenient "gist" judge, each played by the configured judge role.

Why three: judged accuracy is known to swing with the judge (the same LoCoMo answers reported at 91% under one
judge prompt and 35% under another), so a claim read off one judge is only as good as that judge. The judges:

- `paper`: paper 2's correctness judge, the prompt the fsmem answer stage sends (configs/prompts/fsmem/
  judge_correctness.md), read by its JSON rule (1 / 0, anything else unparsed);
- `per_type`: LongMemEval's per-type rules (configs/prompts/longmemeval/judge_*.md, chosen by question type as
  `tailmem.haystack.judge` chooses them), read the official way ("yes" in the reply). A LoCoMo temporal
  question (category 2) gets the temporal rules, every other LoCoMo question the default ones;
- `gist`: ours (configs/prompts/judges/judge_gist.md): right when the response conveys the main point of the
  correct answer, whatever its length, wording or extra material; read like `per_type`.

The paper and per-type prompts are the very requests the answer stages send, so the call cache
(`tailmem.llm.cache`) answers them for free wherever those stages already judged; only the rest are new calls.

Offline (the judge role is the programmatic agent) each judge is a token rule that keeps its judge's character,
so the offline table compares three different rules, not one rule three times. Tokens are LoCoMo's normalised,
Porter-stemmed words (`tailmem.metrics.locomo_f1`) without stop words; "content" = the gold's tokens:

- `paper` (strict): every content token of the gold is in the response, and the response is concise (at most
  `STRICT_LENGTH_FACTOR` times the gold's token count plus `STRICT_LENGTH_SLACK`): a grader that wants the fact,
  not the fact buried in a paragraph;
- `per_type`: by type, as LongMemEval's rules read: abstention = the response abstains; temporal = every number of
  the gold is in the response, a single count within one of it (rule 4 of judge_temporal.md), else every content
  token; preference = at least half the content tokens (a rubric, not a string); default and knowledge-update =
  every content token, at any length;
- `gist` (lenient): at least half the content tokens at any length (abstention: the response abstains).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tailmem.errors import ConfigError
from tailmem.settings.judges import JUDGES  # the judges `judges.names` may list, named by the group's schema

KINDS = ("default", "temporal", "knowledge_update", "preference", "abstention")
STRICT_LENGTH_FACTOR, STRICT_LENGTH_SLACK = 3, 3
GIST_SHARE = 0.5
GIST_TASK = "judge_gist"  # the judge role's task for the gist judge (llm.task_max_output_tokens may cap it)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_STOP = frozenset(
    "a an the and or of to in on at for from by with is are was were be been it its this that as "
    "he she they his her their i you we my your our".split()
)
# LongMemEval question types -> the kind of rule; `tailmem.haystack.judge.TEMPLATES` names the same split
_LME_KIND = {
    "temporal-reasoning": "temporal",
    "knowledge-update": "knowledge_update",
    "single-session-preference": "preference",
}
LOCOMO_TEMPORAL = 2  # LoCoMo's temporal category (tailmem.data.locomo.CATEGORIES)


@dataclass(frozen=True)
class Item:
    """One answer to judge. `qid` and `qtype` are LongMemEval's (they choose the per-type prompt); a LoCoMo item
    carries a LongMemEval type standing for its category."""

    question: str
    gold: str
    answer: str
    qid: str
    qtype: str

    @property
    def kind(self) -> str:
        if "_abs" in self.qid:
            return "abstention"
        return _LME_KIND.get(self.qtype, "default")


def locomo_item(question: str, gold, answer: str, qid, category: int) -> Item:
    """A LoCoMo (or REALTALK) answer as an item: its temporal category gets LongMemEval's temporal rules."""
    qtype = "temporal-reasoning" if int(category) == LOCOMO_TEMPORAL else "single-session-user"
    return Item(str(question), str(gold), str(answer or ""), f"locomo-{qid}", qtype)


def check_judges(names) -> list[str]:
    names = [str(n) for n in names]
    bad = [n for n in names if n not in JUDGES]
    if bad or len(names) < 2:
        raise ConfigError(
            f"judges.names: {names}; expected at least two of {list(JUDGES)}" + (f" ({bad} unknown)" if bad else "")
        )
    return names


# -- the offline rules -------------------------------------------------------------------------------------------
def _tokens(text: str) -> list[str]:
    from tailmem.metrics.locomo_f1 import _stemmer, normalize

    return [_stemmer.stem(w) for w in normalize(text).split() if w not in _STOP]


def _numbers(text: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(str(text).replace(",", ""))]


def _share(gold: list[str], answer: list[str]) -> float:
    if not gold:
        return 0.0
    have = set(answer)
    return sum(t in have for t in gold) / len(gold)


def _abstains(answer: str) -> bool:
    from tailmem.haystack.metrics import abstains

    return abstains(answer)


def _temporal(item: Item, gold: list[str], answer: list[str]) -> bool:
    want, got = _numbers(item.gold), _numbers(item.answer)
    if not want:
        return _share(gold, answer) == 1.0
    if len(want) == 1 and re.search(r"\bhow (many|long)\b", item.question.lower()):
        return any(abs(g - want[0]) <= 1 for g in got)  # a count off by one still counts (judge_temporal.md rule 4)
    return all(w in got for w in want)


def rule_verdict(judge: str, item: Item) -> bool:
    """The offline rule of `judge` on one item (module docstring)."""
    gold, answer = _tokens(item.gold), _tokens(item.answer)
    if item.kind == "abstention":
        return _abstains(item.answer)
    if judge == "paper":
        concise = len(answer) <= STRICT_LENGTH_FACTOR * len(gold) + STRICT_LENGTH_SLACK
        return bool(gold) and _share(gold, answer) == 1.0 and concise
    if judge == "per_type":
        if item.kind == "temporal":
            return _temporal(item, gold, answer)
        if item.kind == "preference":
            return _share(gold, answer) >= GIST_SHARE
        return bool(gold) and _share(gold, answer) == 1.0
    if judge == "gist":
        return _share(gold, answer) >= GIST_SHARE
    raise ConfigError(f"judges.names: unknown judge {judge!r}; expected one of {list(JUDGES)}")


# -- the model judges --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """One judge's reading of one item: 1.0 / 0.0, None when the reply could not be read."""

    correct: float | None
    reply: str | None = None
    seconds: float | None = None
    from_cache: bool | None = None


def _lme_question(item: Item):
    from tailmem.data.longmemeval import Question

    return Question(item.qid, item.qtype, item.question, "", item.gold, (), ())


def request(judge: str, item: Item) -> dict:
    """The chat request `judge` sends for `item` (a chat_many request dict)."""
    if judge == "paper":  # exactly the fsmem answer stage's request (no task), so its cached verdict is reused
        from tailmem.fsmem.agents.models import prompt

        return {
            "messages": [
                {
                    "role": "user",
                    "content": prompt("judge_correctness", question=item.question, gold=item.gold, answer=item.answer),
                }
            ]
        }
    if judge == "per_type":  # exactly tailmem.haystack.judge.judge_many's request
        from tailmem.haystack.answer import JUDGE_TASK
        from tailmem.haystack.judge import judge_prompt

        return {
            "messages": [{"role": "user", "content": judge_prompt(_lme_question(item), item.answer)}],
            "task": JUDGE_TASK,
        }
    if judge == "gist":
        from tailmem.fsmem.agents.models import prompt

        return {
            "messages": [
                {
                    "role": "user",
                    "content": prompt(
                        "judge_gist", "judges", question=item.question, gold=item.gold, response=item.answer
                    ),
                }
            ],
            "task": GIST_TASK,
        }
    raise ConfigError(f"judges.names: unknown judge {judge!r}; expected one of {list(JUDGES)}")


def read(judge: str, reply: str | None) -> float | None:
    """The judge's reading of its reply (module docstring)."""
    if judge == "paper":
        from tailmem.fsmem.agents.judge import _score

        return _score(reply or "", "correct", (0.0, 1.0))
    from tailmem.haystack.judge import official_verdict

    return float(official_verdict(reply))


def judge_all(client, judge: str, items: list[Item]) -> list[Verdict]:
    """Every item under `judge`: its offline rule when `client` is None (the programmatic judge), else the model,
    the requests sent in shared-prefix order (`longmemeval.answer.chat_in_prefix_order`)."""
    if client is None:
        return [Verdict(float(rule_verdict(judge, it))) for it in items]
    from tailmem.haystack.answer import chat_in_prefix_order

    replies = chat_in_prefix_order(client, [request(judge, it) for it in items])
    return [Verdict(read(judge, r.content), r.content, float(r.latency_s), bool(r.from_cache)) for r in replies]
