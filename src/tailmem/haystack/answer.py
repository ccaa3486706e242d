"""Answering a LongMemEval question from a memory block: a configured chat model, or a programmatic stand-in.

The model plays the `searcher` role (the project's question-answering role; no new role is added). Offline no
capable model exists, so the programmatic answerer returns the memory sentence that shares the most content
words with the question, and abstains when even that one shares under half of them. It is a floor, labelled in
every row; what it measures well is whether the memory block still holds the words the answer sits among.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from string import Template

from tailmem.errors import ConfigError, DataError
from tailmem.llm.backends.base import KINDS, ContextOverflow, client_kind
from tailmem.llm.parallel import in_process
from tailmem.roles import programmatic_agent

log = logging.getLogger("tailmem")

ABSTAIN = "That was not mentioned in our chats."
# Task names of LongMemEval's requests: a role's `task_max_output_tokens` may cap them (tailmem.llm.params); without
# an entry the role's own cap applies, and the request (its hash) is the same as without a task.
ANSWER_TASK, JUDGE_TASK = "longmemeval_answer", "longmemeval_judge"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_LINE_TAG = re.compile(
    r"^\s*(?:S\d+ [^:]*?\d\d:\d\d|\d+[UA]:|\[turn \d+\] \w+:|Session \d+ on [^,]*, turn \d+, \w+:)\s*"
)
_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    "a an the and or but of to in on at for from by with about as is are was were be been being do does did i my me "
    "we our you your it its this that these those what which who whom whose when where why how many much did have "
    "has had can could would should will shall may might any some there their they them he she his her so if then "
    "than too very just also not no yes into out up down over again more most other such only own same s t don "
    "now last first ago time".split()
)


def prompt_template(name: str) -> Template:
    from tailmem.config_files import config_folder

    path = config_folder() / "prompts" / "longmemeval" / f"{name}.md"
    if not path.exists():
        raise DataError(f"{path}: prompt file not found; expected configs/prompts/longmemeval/{name}.md")
    return Template(path.read_text())


def full_prompt(memory: str, question: str, date: str) -> str:
    """The whole prompt of one query, whose tokens Figure 8 counts."""
    return prompt_template("answer").safe_substitute(memory=memory, question=question, date=date)


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


@dataclass(frozen=True)
class Answer:
    text: str
    agent: str
    seconds: float | None = None  # a model's: latency of the call (the recorded one when served from the cache)
    prompt_tokens: int | None = None
    cached_tokens: int | None = None  # of prompt_tokens, served from the KV prefix of the previous call
    completion_tokens: int | None = None
    from_cache: bool | None = None
    context_overflow: bool = False  # the prompt outgrew the model's context window: no answer, scored as such

    def accounting(self) -> dict:
        """A model answer's row columns (`answer_*`); nothing for the programmatic answerer."""
        if self.seconds is None:
            return {}
        return {
            "answer_seconds": self.seconds,
            "answer_prompt_tokens": self.prompt_tokens,
            "answer_cached_tokens": self.cached_tokens,
            "answer_completion_tokens": self.completion_tokens,
            "answer_from_cache": self.from_cache,
            "answer_context_overflow": self.context_overflow,
        }


def prompt_key(request: dict) -> str:
    """A request's text, for ordering by shared prefix: its messages' contents in order."""
    return "\x00".join(str(m.get("content") or "") for m in request.get("messages", ()))


def prefix_order(keys: list[str]) -> list[int]:
    """Positions of `keys` in lexicographic order. Sorted strings place each next to the one it shares the longest
    prefix with (a depth-first walk of their trie), which maximises the prefix consecutive calls share."""
    return sorted(range(len(keys)), key=lambda i: (keys[i], i))


def chat_in_prefix_order(client, requests: list[dict]) -> list:
    """Responses to `requests`, in request order, sent in prefix order (None where the prompt overflowed the
    embedded model's context window).

    llama.cpp keeps the KV cache of the longest prefix a call shares with the previous one, so a model in this
    process (its kind `embedded`: tailmem.llm.parallel.in_process) is called one request at a time in
    `prefix_order`: chat_many's threads would reach its lock in any order. Other backends get chat_many in the same
    order (a server's prefix cache may use it).
    """
    order = prefix_order([prompt_key(r) for r in requests])
    if in_process(client):
        out: list = [None] * len(requests)
        for i in order:
            req = dict(requests[i])
            try:
                out[i] = client.chat(req.pop("messages"), req.pop("tools", None), **req)
            except ContextOverflow as exc:  # this arm's prompt only: the question's other arms still run
                log.warning("longmemeval: no answer, %s", exc)
        return out
    answers = client.chat_many([requests[i] for i in order])
    out = [None] * len(requests)
    for i, a in zip(order, answers):
        out[i] = a
    return out


class ProgrammaticAnswerer:
    """The sentence of the memory most overlapping the question; abstains below `min_overlap` of its words."""

    name = programmatic_agent("answerer")

    def __init__(self, min_overlap: float = 0.5):
        self.min_overlap = min_overlap

    def answer(self, memory: str, question: str, date: str) -> Answer:
        q = content_words(question)
        best, best_score = "", 0
        for sentence in _SENTENCE.split(memory):
            sentence = _LINE_TAG.sub("", sentence).strip()
            if not sentence:
                continue
            score = len(q & content_words(sentence))
            if score > best_score:  # ties keep the earlier sentence: the controller's order decides
                best, best_score = sentence, score
        if not q or best_score < self.min_overlap * len(q):
            return Answer(ABSTAIN, self.name)
        return Answer(best, self.name)


class ModelAnswerer:
    """A chat model answers from the memory block; `seed` goes into the request so seeds are distinct calls.
    Sampling parameters and the output cap are the searcher role's (tailmem.llm.params), never set here."""

    def __init__(self, client, seed: int = 0):
        kind = client_kind(client)
        if not kind.chats:
            chat = [k.name for k in KINDS.values() if k.plays_model and k.chats]
            raise ConfigError(
                f"llm.roles.searcher: LongMemEval answering needs a chat model ({', '.join(chat)}), not backend "
                f"{kind.name!r}, which only scores options; use the programmatic backend or llm=embedded offline"
            )
        self.client = client
        self.seed = seed
        self.name = f"{client.backend}:{client.model}"

    def request(self, memory: str, question: str, date: str) -> dict:
        """One answer's chat request; its output cap is the searcher role's, or its `task_max_output_tokens` entry
        for `ANSWER_TASK` when set (a small model's slice caps preference answers that run to the role's cap)."""
        return {
            "messages": [{"role": "user", "content": full_prompt(memory, question, date)}],
            "seed": self.seed,
            "task": ANSWER_TASK,
        }

    def answer_many(self, requests: list[dict]) -> list[Answer]:
        return [
            Answer("", self.name, 0.0, 0, 0, 0, False, context_overflow=True)
            if r is None
            else Answer(
                (r.content or "").strip(),
                self.name,
                float(r.latency_s),
                r.usage.prompt_tokens,
                r.usage.cached_tokens,
                r.usage.completion_tokens,
                bool(r.from_cache),
            )
            for r in chat_in_prefix_order(self.client, requests)
        ]
