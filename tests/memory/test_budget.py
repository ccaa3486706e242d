"""The memory budget is resolved in one place (tailmem.memory.budget).

Finding: from configs/memory/*.yaml to a prompt the budget went through a dozen files, and the `matched` sentinel
was handled in several: the settings check swapped it for 1 to build a controller, control/arms.py wrote it, the
control stage compared against it and read the Graph Memory summary, the design check and LongMemEval each computed
their own matched tokens, and replay.py and the stage each decided whether the budget counted the whole prompt. Now
`resolve` turns an arm's settings and its reference's spend into a `MemoryBudget` and `for_step` turns a
whole-prompt budget into a step's memory tokens; nothing else reads the sentinel.
"""

import ast
from pathlib import Path

import pytest

import tailmem
from tailmem.errors import ConfigError
from tailmem.memory import budget as mb
from tailmem.memory.budget import MATCHED, MemoryBudget, SpentPerStep, resolve

SRC = Path(tailmem.__file__).parent
GM = SpentPerStep(tokens_per_step=155.6, memory_tokens_per_step=61.4)  # a Graph Memory arm's spend per step


def test_nominal_none_and_matched_budgets():
    assert resolve({"budget": 156}) == MemoryBudget(156, False)
    assert resolve({"budget": 156}, whole_prompt=True) == MemoryBudget(156, True)
    assert resolve({"name": "full_history"}).tokens is None and resolve({"budget": None}).tokens is None
    # matched: the reference's whole prompt when the budget counts it, else its memory block, to a whole token
    assert resolve({"budget": MATCHED}, whole_prompt=True, reference=GM).tokens == 156
    assert resolve({"budget": MATCHED}, reference=GM).tokens == 61
    assert resolve({"budget": MATCHED}, reference=GM, ratio=0.5).tokens == 31  # LongMemEval's ctmc-r0.5
    with pytest.raises(ConfigError, match="memory.budget=matched: no reference arm"):
        resolve({"budget": MATCHED}, whole_prompt=True)


@pytest.mark.parametrize("bad", [0, -5, "match", 1.5, True])
def test_a_bad_budget_names_the_key_and_what_is_expected(bad):
    assert mb.problem(bad) and "matched" in mb.problem(bad)
    with pytest.raises(ConfigError, match=r"memory\.budget="):
        resolve({"budget": bad})


def test_a_whole_prompt_budget_leaves_the_block_what_the_step_s_fixed_text_does_not_take():
    whole = MemoryBudget(156, whole_prompt=True)
    assert whole.for_step(90) == 66 and whole.for_step(200) == 0 and whole.scope == "prompt"
    block = MemoryBudget(156)
    assert block.for_step(90) == 156 and block.scope == "memory"
    assert MemoryBudget(None, whole_prompt=True).for_step(90) is None
    assert MemoryBudget(None, whole_prompt=True).scope == "memory"  # nothing to count: as the stage records it


def _is_sentinel(node) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_sentinel(e) for e in node.elts)
    return isinstance(node, ast.Constant) and node.value == MATCHED


def _sentinel_uses(path: Path) -> list[int]:
    """Lines of `path` that read or write the budget sentinel by its spelling: a comparison with "matched" (`==`,
    `in (...)`) or an override "...budget=matched". (An arm's `matched` field and a site row's `matched` column
    are other words.)"""
    out = []
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Compare) and any(_is_sentinel(x) for x in (n.left, *n.comparators)):
            out.append(n.lineno)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith(f"budget={MATCHED}"):
            out.append(n.lineno)
    return out


def test_only_the_budget_module_spells_the_matched_sentinel():
    """`matched` is written once (memory/budget.py: MATCHED); the settings check, the arms' overrides, the control
    stage, the design check, LongMemEval and the arm-name grammar import it instead of comparing strings."""
    spelled = {
        str(p.relative_to(SRC)): lines
        for p in sorted(SRC.rglob("*.py"))
        if (lines := _sentinel_uses(p)) and p != SRC / "memory" / "budget.py"
    }
    assert spelled == {}


def test_the_settings_check_builds_no_controller_with_a_stand_in_budget(monkeypatch):
    """The check used to build `memory.budget=matched` as budget 1; now the budget is checked by
    `memory.budget.problem` and the controller is built without it (no stand-in value)."""
    from tailmem.memory import controllers
    from tailmem.memory.group import check

    built = []
    real = controllers.make_controller
    monkeypatch.setattr(controllers, "make_controller", lambda s, **kw: built.append(dict(s)) or real(s, **kw))
    assert check({"name": "ctmc", "budget": MATCHED, "tau": 1.0}) == []
    assert built and all("budget" not in s for s in built)
    assert check({"name": "ctmc", "budget": "match"}) == [
        f"memory.budget='match': {mb.problem('match')}"
    ]  # a typo of the sentinel names the key and the values it may take
