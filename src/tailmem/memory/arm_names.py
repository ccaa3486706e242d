"""An arm's name, parsed once: which controller, which encoding, and the variant that sets it apart.

Arm names are folder names, Snakemake wildcards and table rows, so they stay plain strings on disk; this module
is the one place that reads them and writes them. The grammar is one for every benchmark, its parts in a fixed
order (so one arm has one name, and a reordered or repeated part is refused rather than silently read):

    <controller>[-<encoding>][-tau<tau>][-<order>][-matched][-r<ratio>][-no_evidence]

`controller` is a key of `memory.controllers.CONTROLLERS`; `tau`, `order`, `matched` and `r<ratio>` are CTMC's
(its allocation temperature, rank order, a budget pinned to Graph Memory's measured tokens, a budget share of
Graph Memory's on LongMemEval); `no_evidence` is Graph Memory on a haystack without its answer-bearing turns.
The graph-world arms are `graph_memory-compact`, `ctmc-compact-tau1-rank-matched`; LongMemEval's `graph_memory`,
`ctmc-r0.5`. (ALFWorld's arms are named entries of `alfworld.arms`, each naming its controller in `name`.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tailmem.errors import ConfigError
from tailmem.memory.budget import KEY as BUDGET_KEY
from tailmem.memory.budget import MATCHED  # the part `-matched` asks for `memory.budget: matched`
from tailmem.settings.memory import ENCODINGS  # the encodings the memory group and longmemeval.encoding accept

SEPARATOR = "-"
ORDERS = ("rank", "shuffled", "reversed")  # memory.ctmc.ORDERS (checked equal in tests/memory/test_arm.py)
NO_EVIDENCE = "no_evidence"
GRAMMAR = "<controller>[-<encoding>][-tau<tau>][-<order>][-matched][-r<ratio>][-no_evidence]"


@dataclass(frozen=True)
class ArmName:
    """A parsed arm name. `controller` and `encoding` pick the settings; the other fields are the variant."""

    controller: str
    encoding: str | None = None
    tau: float | None = None
    order: str | None = None
    matched: bool = False
    ratio: float | None = None
    no_evidence: bool = False

    def __post_init__(self):
        self._check(str(self))

    @classmethod
    def parse(cls, name: str) -> ArmName:
        """The arm `name` stands for; a name outside the grammar, or not in its canonical spelling, raises
        ConfigError naming the name and the parts it may have."""
        name = str(name)
        controller, *rest = name.split(SEPARATOR)
        fields: dict = {"controller": controller}
        for part in rest:
            key, value = _read_part(name, part)
            if key in fields:
                raise ConfigError(f"arm {name!r}: {part!r} repeats its {key}; expected {GRAMMAR}")
            fields[key] = value
        arm = cls(**fields)
        if str(arm) != name:
            raise ConfigError(
                f"arm {name!r}: not its canonical spelling (parts in order, numbers as %g); "
                f"the name is {str(arm)!r} ({GRAMMAR})"
            )
        return arm

    def __str__(self) -> str:
        parts = [self.controller]
        if self.encoding is not None:
            parts.append(self.encoding)
        if self.tau is not None:
            parts.append(f"tau{float(self.tau):g}")
        if self.order is not None:
            parts.append(self.order)
        if self.matched:
            parts.append(MATCHED)
        if self.ratio is not None:
            parts.append(f"r{float(self.ratio):g}")
        if self.no_evidence:
            parts.append(NO_EVIDENCE)
        return SEPARATOR.join(parts)

    @property
    def name(self) -> str:
        return str(self)

    def _check(self, name: str) -> None:
        if self.controller not in _controllers():
            raise ConfigError(f"arm {name!r}: unknown controller {self.controller!r}; expected one of {_controllers()}")
        if SEPARATOR in self.controller:
            raise ConfigError(f"arm {name!r}: controller {self.controller!r} holds {SEPARATOR!r}, the parts' separator")
        if self.encoding is not None and self.encoding not in ENCODINGS:
            raise ConfigError(f"arm {name!r}: encoding {self.encoding!r}; expected one of {ENCODINGS}")
        if self.order is not None and self.order not in ORDERS:
            raise ConfigError(f"arm {name!r}: order {self.order!r}; expected one of {ORDERS}")
        ctmc_only = [k for k in ("tau", "order", "ratio") if getattr(self, k) is not None]
        ctmc_only += ["matched"] if self.matched else []
        if ctmc_only and self.controller != "ctmc":
            raise ConfigError(
                f"arm {name!r}: unknown part for {self.controller!r}: {ctmc_only} are CTMC's parts ({GRAMMAR})"
            )
        if self.no_evidence and self.controller != "graph_memory":
            raise ConfigError(f"arm {name!r}: {NO_EVIDENCE} is Graph Memory's part, not {self.controller!r}'s")
        for key in ("tau", "ratio"):
            value = getattr(self, key)
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise ConfigError(f"arm {name!r}: {key} = {value}; expected a finite number >= 0")


def _read_part(name: str, part: str) -> tuple[str, object]:
    """(field, value) of one part after the controller."""
    if part in ENCODINGS:
        return "encoding", part
    if part in ORDERS:
        return "order", part
    if part == MATCHED:
        return "matched", True
    if part == NO_EVIDENCE:
        return "no_evidence", True
    for prefix, key in (("tau", "tau"), ("r", "ratio")):
        if part.startswith(prefix):
            try:
                return key, float(part[len(prefix) :])
            except ValueError:
                raise ConfigError(f"arm {name!r}: {part!r} is not {prefix}<number>") from None
    raise ConfigError(
        f"arm {name!r}: unknown part {part!r}; expected an encoding {ENCODINGS}, tau<number>, "
        f"an order {ORDERS}, {MATCHED!r}, r<ratio> or {NO_EVIDENCE!r} ({GRAMMAR})"
    )


def _controllers() -> list[str]:
    from tailmem.memory.controllers import CONTROLLERS  # read at call time: a registered controller joins at once

    return sorted(CONTROLLERS)


def graph_overrides(arm: str) -> list[str]:
    """The Hydra overrides a controller-study arm name stands for (the `memory` group's keys on a graph-world
    replay); a bad name, or one with LongMemEval's parts, raises ConfigError naming it."""
    a = ArmName.parse(arm)
    if a.ratio is not None or a.no_evidence:
        raise ConfigError(f"arm {arm!r}: r<ratio> and no_evidence are LongMemEval's parts, not the graph world's")
    out = [f"memory={a.controller}"]
    if a.encoding is not None:
        out.append(f"memory.encoding={a.encoding}")
    if a.tau is not None:
        out.append(f"memory.tau={a.tau}")
    if a.order is not None:
        out.append(f"memory.order={a.order}")
    if a.matched:
        out.append(f"memory.{BUDGET_KEY}={MATCHED}")  # resolved by tailmem.memory.budget.resolve
    return out


def arm_problem(arm: str) -> str | None:
    """What is wrong with the arm name `control.arm` (None: nothing), as the arm parser says what it expected: the
    `control` group's check, run where the composed config is checked whole (tailmem.validation), since the parser
    reads the controllers, which sit above the settings."""
    try:
        graph_overrides(arm)
    except ConfigError as exc:
        text = str(exc)
        return text[text.index("expected ") :] if "expected " in text else text
    return None
