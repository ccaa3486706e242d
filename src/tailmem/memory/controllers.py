"""The memory controllers of paper 1 (Tables 4-6), one small class each behind one interface:

    controller.build(store, query, counter) -> Prompt

Each chooses candidates from the store (its retrieval rule) and spends its budget on them (its allocation).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from tailmem.errors import ConfigError
from tailmem.memory import ctmc
from tailmem.memory.items import MemoryItem, MemoryStore
from tailmem.memory.prompt import Prompt
from tailmem.memory.query import Query
from tailmem.memory.render import greedy_items, history_block
from tailmem.memory.tokens import TokenCounter

_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


@dataclass
class Controller(ABC):
    """Common settings: the encoding of items and a token budget for the memory block (None = unbounded), as
    tailmem.memory.budget.resolve gives it (a budget counting the whole prompt reaches `build` per step, in
    `Query.budget`)."""

    encoding: str = "compact"
    budget: int | None = field(default=None, metadata={"min": 1})  # a field's range: tailmem.memory.group

    name = "controller"

    @abstractmethod
    def build(self, store: MemoryStore, query: Query, counter: TokenCounter) -> Prompt: ...

    def cap(self, query: Query) -> int | None:
        """This step's budget for the memory block: the query's when the caller fixes one (the controller study's
        replay: `MemoryBudget.for_step`, already floored at 0), else the controller's."""
        return self.budget if query.budget is None else int(query.budget)


@dataclass
class FullHistory(Controller):
    """Every history record so far: the prompt grows with the horizon."""

    name = "full_history"

    def build(self, store, query, counter):
        return history_block(store.history, self.encoding, counter, self.name)


@dataclass
class SlidingWindow(Controller):
    """The last `window` history records."""

    window: int = field(default=40, metadata={"min": 1})
    name = "sliding_window"

    def build(self, store, query, counter):
        return history_block(store.history[-self.window :], self.encoding, counter, self.name)


@dataclass
class FlatRetrieval(Controller):
    """The `k` items whose words overlap the query most (no structure, no statistics)."""

    k: int = field(default=5, metadata={"min": 1})
    name = "flat_retrieval"
    _words: dict = None  # id -> (item, word set), rebuilt when an item changes

    def build(self, store, query, counter):
        if self._words is None:
            self._words = {}
        q = words(query.text)
        scored = []
        for item_id, item in store.items.items():
            cached = self._words.get(item_id)
            if cached is None or cached[0] is not item:
                cached = (item, words(" ".join(item.verbose)))
                self._words[item_id] = cached
            w = cached[1]
            scored.append((-len(q & w) / (len(w) ** 0.5 or 1.0), item_id))
        scored.sort()
        chosen = [store.items[i] for _, i in scored[: self.k]]
        return greedy_items(chosen, self.encoding, counter, self.cap(query), self.name)


@dataclass
class FrequencyCache(Controller):
    """The `k` most accessed items so far."""

    k: int = field(default=5, metadata={"min": 1})
    name = "frequency_cache"

    def build(self, store, query, counter):
        top = sorted(store.items, key=lambda i: (-store.access_count.get(i, 0), i))[: self.k]
        return greedy_items([store.items[i] for i in top], self.encoding, counter, self.cap(query), self.name)


@dataclass
class RecencyCache(Controller):
    """The `k` most recently accessed items."""

    k: int = field(default=5, metadata={"min": 1})
    name = "recency_cache"

    def build(self, store, query, counter):
        top = sorted(store.items, key=lambda i: (-store.last_access.get(i, -1), i))[: self.k]
        return greedy_items([store.items[i] for i in top], self.encoding, counter, self.cap(query), self.name)


@dataclass
class HierarchicalSummary(Controller):
    """The last `window` records verbatim, then one summary line for each of `older` earlier items."""

    window: int = field(default=10, metadata={"min": 1})
    older: int = field(default=30, metadata={"min": 0})
    name = "hierarchical_summary"

    def build(self, store, query, counter):
        recent = store.history[-self.window :]
        in_window = {i for r in recent for i in r.item_ids}
        older = [i for i in sorted(store.items, key=lambda i: -store.last_access.get(i, -1)) if i not in in_window][
            : self.older
        ]
        return history_block(
            recent, self.encoding, counter, self.name, extra=[store.items[i].summary for i in older], tail=older
        )


RANK_BY = ("access", "recency", "query")


def related_candidates(store: MemoryStore, query: Query, rank_by: str = "access") -> list[MemoryItem]:
    """The current item first, then the stored related items, most accessed (or most recent) first.

    `rank_by="query"` keeps the order of `query.related`, for callers whose candidates come ranked by a
    retriever (LongMemEval's BM25) rather than from a graph's neighbourhood.
    """
    ids = [i for i in query.related if i in store and i != query.current]
    if rank_by != "query":
        stats = store.access_count if rank_by == "access" else store.last_access
        ids.sort(key=lambda i: (-stats.get(i, 0), i))
    if query.current is not None and query.current in store:
        ids.insert(0, query.current)
    return [store.items[i] for i in ids]


@dataclass
class GraphMemory(Controller):
    """The current item and its stored graph neighbours, verbatim, while they fit the budget."""

    rank_by: str = "access"
    name = "graph_memory"

    def build(self, store, query, counter):
        return greedy_items(
            related_candidates(store, query, self.rank_by), self.encoding, counter, self.cap(query), self.name
        )


@dataclass
class CTMC(Controller):
    """Graph Memory's candidates, ranked, with rank r given budget share proportional to r^-tau (module ctmc)."""

    tau: float = field(default=1.0, metadata={"min": 0})  # 0 = uniform allocation
    order: str = "rank"
    rank_by: str = "access"
    seed: int = field(default=0, metadata={"min": 0})
    name = "ctmc"

    def __post_init__(self):
        self._rng = np.random.default_rng(self.seed)

    def build(self, store, query, counter):
        if self.budget is None:
            raise ConfigError("memory.budget: CTMC needs a token budget")
        ranked = related_candidates(store, query, self.rank_by)
        return ctmc.allocate(
            ranked, self.cap(query), self.tau, self.encoding, counter, order=self.order, rng=self._rng, name=self.name
        )


CONTROLLERS: dict[str, type[Controller]] = {
    c.name: c
    for c in (
        FullHistory,
        SlidingWindow,
        FlatRetrieval,
        FrequencyCache,
        RecencyCache,
        HierarchicalSummary,
        GraphMemory,
        CTMC,
    )
}


def make_controller(mem_cfg, seed: int = 0) -> Controller:
    """A controller from its Hydra group (`configs/memory/<name>.yaml`); a wrong key names itself."""
    settings = dict(mem_cfg)
    name = settings.pop("name", None)
    settings.pop("label", None)
    if name not in CONTROLLERS:
        raise ConfigError(f"memory.name: unknown controller {name!r}; expected one of {sorted(CONTROLLERS)}")
    cls = CONTROLLERS[name]
    if settings.get("encoding", "compact") not in ("verbose", "compact"):
        raise ConfigError(f"memory.encoding: expected 'verbose' or 'compact', got {settings['encoding']!r}")
    if settings.get("rank_by", "access") not in RANK_BY:
        raise ConfigError(f"memory.rank_by: expected one of {RANK_BY}, got {settings['rank_by']!r}")
    if cls is CTMC:
        settings.setdefault("seed", seed)
        if settings.get("order", "rank") not in ctmc.ORDERS:
            raise ConfigError(f"memory.order: expected one of {ctmc.ORDERS}, got {settings['order']!r}")
    fields = set(cls.__dataclass_fields__)
    unknown = sorted(set(settings) - fields)
    if unknown:
        raise ConfigError(
            f"memory.{unknown[0]}: not a setting of controller {name!r}; expected {sorted(fields - {'_words'})}"
        )
    return cls(**settings)
