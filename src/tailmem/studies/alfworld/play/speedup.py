"""Memoise TextWorld's grammar-template parsing and fact queries, the hot spots of an ALFWorld step.

TextWorld's PDDL text generator re-parses every template string with tatsu each time it renders a command or
feedback, and `Symbol.copy` deep-copies the whole game state inside each symbol's context only to replace that
context at once, each conditional re-parses its logic query, and `copy_context` deep-copies variable maps it only
ever extends (together ~0.4 s per kitchen step). The parse depends only on the template string, so we cache it
and hand out copies; symbol copies share the state, facts and entity infos, as `copy_context` already does. Each
fact query also sorted the facts of its signature afresh (a quarter of a step, ~25 ms): a state now keeps them
sorted until its facts change. Output text is unchanged; `tests/alfworld` checks a game's observations and
admissible commands with and without, step by step along a walk that opens, takes and moves things.

Loading a game is the other hot spot: TextWorld translates the game's PDDL to SAS with fast_downward four times
per game (twice when the game loads, twice again at reset; ~0.5 s each), the same text every time. The
translation is a pure function of (domain, problem, flags), so `install(sas_cache=folder)` keeps each result,
pickled, in memory and in `folder` (content-keyed, written atomically), and hands out a fresh unpickled copy:
a game set is translated once, whichever job plays it first.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

_INSTALLED = {"done": False}


def install(sas_cache: str | os.PathLike | None = None) -> None:
    """Patch textworld.envs.pddl.textgen and fast_downward's translation once per process (idempotent); with
    `sas_cache`, translations are also kept in that folder for the next process."""
    _install_sas_memo(sas_cache)
    if _INSTALLED["done"]:
        return
    from textworld.envs.pddl import textgen
    from textworld.logic import Rule

    original = textgen._parse_and_convert

    @functools.lru_cache(maxsize=4096)
    def parsed(start: str, rule_name: str, trace: bool) -> bytes:
        return pickle.dumps(original(start, rule_name=rule_name, trace=trace))

    def cached_parse(start, rule_name="symbols", trace=False, **kwargs):
        if kwargs or not isinstance(start, str):
            return original(start, rule_name=rule_name, trace=trace, **kwargs)
        return pickle.loads(parsed(start, rule_name, bool(trace)))  # a fresh copy, ~4x cheaper than deepcopy

    shared = ("state", "facts", "entity_infos")
    original_copy = textgen.Symbol.copy

    def light_copy(self, context):
        memo = {}
        ctx = self.context if isinstance(self.context, dict) else {}
        for key in shared:
            if key in ctx:
                memo[id(ctx[key])] = ctx[key]
        for key in shared:
            if key in context:
                memo[id(context[key])] = context[key]
        out = copy.deepcopy(self, memo)
        out.context = shallow_context(context)
        return out

    original_context = textgen.copy_context

    def shallow_context(context):  # the generator only adds keys to these dicts, never edits their values
        return {
            "state": context["state"],
            "facts": context["facts"],
            "variables": dict(context["variables"]),
            "mapping": dict(context["mapping"]),
            "entity_infos": context["entity_infos"],
        }

    original_query = textgen.query

    @functools.lru_cache(maxsize=4096)
    def rule_of(expression: str):  # textworld Rules are never modified after parsing
        return Rule.parse_conjunctive_query(expression)

    def cached_query(expression, context):
        contexts = []
        for mapping in context["state"].all_assignments(rule_of(expression), context["mapping"]):
            ctx = shallow_context(context)
            ctx["variables"].update({ph.name: ctx["entity_infos"][var.name] for ph, var in mapping.items()})
            ctx["mapping"].update(mapping)
            contexts.append(ctx)
        return contexts

    textgen.query = cached_query
    textgen._original_query = original_query
    textgen._parse_and_convert = cached_parse
    textgen._original_parse_and_convert = original
    textgen.copy_context = shallow_context
    textgen._original_copy_context = original_context
    textgen.Symbol.copy = light_copy
    textgen.Symbol._original_copy = original_copy

    class MemoRule:  # all textgen asks of `Rule`: a grammar rule's condition, parsed once per text
        parse_conjunctive_query = staticmethod(rule_of)

    textgen._original_Rule = textgen.Rule
    textgen.Rule = MemoRule
    _install_sorted_facts()
    _install_expert_memo()
    _INSTALLED["done"] = True


def _install_expert_memo() -> None:
    """Memoise the hand-coded expert's `remove_num_ids`, a pure function of one string.

    The expert strips the digits from every object name it compares (838,926 calls for two of the games it cannot
    win, four attempts each). Names repeat, so a cache answers nearly all of them with the original's own result:
    an attempt on those two games took 1.46x and 1.58x as long without it (benchmarks/bench_alfworld.py --expert)."""
    try:
        from alfworld.agents.expert import handcoded_expert
    except ImportError:  # the alfworld extra is not installed: nothing plays the expert
        return
    policy = handcoded_expert.BasePolicy
    if hasattr(policy, "_original_remove_num_ids"):  # installed already
        return
    original = policy.remove_num_ids
    memo = functools.lru_cache(maxsize=1 << 16)(lambda text: original(None, text))  # it never reads self
    policy.remove_num_ids = lambda self, text: memo(text)
    policy._original_remove_num_ids = original


def _uninstall_expert_memo() -> None:
    try:
        from alfworld.agents.expert import handcoded_expert
    except ImportError:
        return
    policy = handcoded_expert.BasePolicy
    if hasattr(policy, "_original_remove_num_ids"):
        policy.remove_num_ids = policy._original_remove_num_ids
        del policy._original_remove_num_ids


_SORTED = "_tailmem_sorted_facts"  # a State's memo: (predicate, types) -> its facts, sorted


def _install_sorted_facts() -> None:
    """Sort a state's facts of one signature once per state change, not once per query.

    `State._all_applicable_assignments` sorts the facts of each precondition's signature on every call, and the
    text generator queries the same state hundreds of times per step (~25% of a step). The replacement walks
    the same facts in the same sorted order, so it finds the same assignments in the same order; any add or
    remove drops the state's memo."""
    from textworld.logic import Signature, State

    def sorted_facts(state, name, types):
        memo = state.__dict__.setdefault(_SORTED, {})
        key = (name, types)
        facts = memo.get(key)
        if facts is None:
            facts = memo[key] = tuple(sorted(state.facts_with_signature(Signature(name, types))))
        return facts

    def assignments(self, rule, mapping, used_vars, new_phs_by_depth, depth):
        new_phs = new_phs_by_depth[depth]
        if depth >= len(rule.preconditions):  # only free placeholders are left, with no fact to match
            yield from self._all_assignments(new_phs, mapping, used_vars, False)
            return
        pred = rule.preconditions[depth]
        types = self._logic.types
        for subtypes in types.multi_subtypes([types.get(t) for t in pred.signature.types]):
            for prop in sorted_facts(self, pred.signature.name, tuple(t.name for t in subtypes)):
                if _bind(pred.parameters, prop.arguments, mapping, used_vars):
                    yield from assignments(self, rule, mapping, used_vars, new_phs_by_depth, depth + 1)
                for ph in new_phs:  # undo this fact's bindings, complete or not
                    used_vars.discard(mapping.pop(ph, None))

    def add_fact(self, prop):
        self.__dict__.pop(_SORTED, None)
        add_fact.original(self, prop)

    def remove_fact(self, prop):
        self.__dict__.pop(_SORTED, None)
        remove_fact.original(self, prop)

    add_fact.original, remove_fact.original = State.add_fact, State.remove_fact
    assignments.original = State._all_applicable_assignments
    State.add_fact, State.remove_fact, State._all_applicable_assignments = add_fact, remove_fact, assignments


def _bind(placeholders, arguments, mapping, used_vars) -> bool:
    """Extend `mapping` with a fact's arguments; False at the first placeholder bound elsewhere or variable used."""
    for ph, var in zip(placeholders, arguments):
        bound = mapping.get(ph)
        if bound is None:
            if var in used_vars:
                return False
            mapping[ph] = var
            used_vars.add(var)
        elif bound != var:
            return False
    return True


def _uninstall_sorted_facts() -> None:
    from textworld.logic import State

    for name in ("add_fact", "remove_fact", "_all_applicable_assignments"):
        setattr(State, name, getattr(State, name).original)


_SAS = {"folder": None, "memory": {}, "original": None}


def _install_sas_memo(folder) -> None:
    import fast_downward

    if folder is not None:
        _SAS["folder"] = Path(folder)
    if _SAS["original"] is not None:
        return
    original = fast_downward.pddl2sas

    def memo_pddl2sas(domain, problem, verbose=False, optimize=False):
        key = hashlib.sha256(repr((domain, problem, bool(verbose), bool(optimize))).encode()).hexdigest()
        blob = _SAS["memory"].get(key)
        path = _SAS["folder"] / f"{key}.pkl" if _SAS["folder"] is not None else None
        if blob is None and path is not None and path.is_file():
            blob = path.read_bytes()
        if blob is None:
            blob = pickle.dumps(original(domain, problem, verbose=verbose, optimize=optimize))
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as fh:
                    fh.write(blob)
                os.replace(fh.name, path)
        _SAS["memory"][key] = blob
        return pickle.loads(blob)  # a fresh (task, sas) every time: no game shares mutable objects with another

    fast_downward.pddl2sas = memo_pddl2sas
    _SAS["original"] = original


def uninstall() -> None:
    """Restore the original parser, translation and expert (for the equivalence tests)."""
    from textworld.envs.pddl import textgen

    if _SAS["original"] is not None:
        import fast_downward

        fast_downward.pddl2sas = _SAS["original"]
        _SAS.update(folder=None, memory={}, original=None)
    if _INSTALLED["done"]:
        textgen._parse_and_convert = textgen._original_parse_and_convert
        textgen.Symbol.copy = textgen.Symbol._original_copy
        textgen.copy_context = textgen._original_copy_context
        textgen.query = textgen._original_query
        textgen.Rule = textgen._original_Rule
        _uninstall_sorted_facts()
        _uninstall_expert_memo()
        _INSTALLED["done"] = False
