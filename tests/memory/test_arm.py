"""Arm names: one grammar, parsed in one module (tailmem.memory.arm_names), refused when spelled two ways."""

import re
from pathlib import Path

import pytest

from tailmem.control import arms as control_arms
from tailmem.errors import ConfigError
from tailmem.haystack.arms import NO_EVIDENCE, ctmc_name
from tailmem.memory import arm_names, ctmc
from tailmem.memory.arm_names import ENCODINGS, ORDERS
from tailmem.memory.arm_names import ArmName as Arm
from tailmem.memory.controllers import CONTROLLERS

SRC = Path(__file__).resolve().parents[2] / "src" / "tailmem"


@pytest.mark.parametrize(
    "name",
    [
        "ctmc-compact-verbose",  # two encodings: main kept both overrides, the last silently winning
        "ctmc-compact-tau1-rank-shuffled",  # two orders
        "ctmc-tau1-compact-rank",  # reordered: a second folder name for the same arm
        "ctmc-compact-tau1.0-rank",  # a second spelling of tau = 1
    ],
)
def test_an_arm_spelled_a_second_way_is_refused_not_silently_read(name):
    with pytest.raises(ConfigError, match=re.escape(repr(name))):
        arm_names.graph_overrides(name)


def test_every_arm_the_studies_name_parses_back_to_its_own_name():
    names = [
        *control_arms.table4_arms(),
        *control_arms.table5_arms(),
        *control_arms.table6_arms(),
        *control_arms.tau_arms([0.0, 0.5, 2.0]),
        "graph_memory",
        ctmc_name(0.5),
        ctmc_name(1.0),
        NO_EVIDENCE,
        "full_history",
        "flat_retrieval",
    ]
    for name in names:
        assert str(Arm.parse(name)) == name


def test_parsed_parts():
    assert Arm.parse("ctmc-verbose-tau1.5-reversed-matched") == Arm("ctmc", "verbose", 1.5, "reversed", True)
    assert Arm.parse(ctmc_name(0.25)) == Arm("ctmc", ratio=0.25)
    assert Arm.parse(NO_EVIDENCE) == Arm("graph_memory", no_evidence=True)
    assert Arm.parse("graph_memory-compact").encoding == "compact"


@pytest.mark.parametrize(
    "name, says",
    [
        ("magic-compact", "unknown controller 'magic'"),
        ("graph_memory-tau2", "CTMC's parts"),
        ("ctmc-compact-taux", "'taux' is not tau<number>"),
        ("ctmc-compact-taunan", "finite number"),
        ("graph_memory-big", "unknown part 'big'"),
        ("ctmc-no_evidence", "Graph Memory's part"),
    ],
)
def test_a_bad_arm_names_itself_and_the_valid_parts(name, says):
    with pytest.raises(ConfigError, match=re.escape(says)) as err:
        Arm.parse(name)
    assert repr(name) in str(err.value)


def test_the_grammar_lists_match_their_owners():
    assert ORDERS == ctmc.ORDERS
    assert ENCODINGS == control_arms.ENCODINGS
    assert all("-" not in c for c in CONTROLLERS)


def test_no_module_but_memory_arm_splits_an_arm_name_on_hyphens():
    """The five `arm.split("-")` of issue 30 (and `split("-r")`) stay gone: names are read by Arm.parse."""
    pattern = re.compile(r"""split\(\s*["']-""")
    home = SRC / "memory" / "arm.py"
    offenders = [
        f"{p.relative_to(SRC)}:{i}"
        for p in SRC.rglob("*.py")
        if p != home
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
