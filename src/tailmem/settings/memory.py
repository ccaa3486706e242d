"""The `memory` group: one memory controller's settings, an open mapping whose schema is the controller's dataclass.

Why not one dataclass: a controller's settings are the fields of its class in `memory.controllers.CONTROLLERS`, so
adding a controller with a new setting touches its code and its `configs/memory/<name>.yaml` only (docs/extending.md).
The check that reads a group (or an ALFWorld arm) against those fields needs the controllers, which sit above the
settings, so it lives beside them (tailmem.memory.group) and runs where the composed config is checked whole
(tailmem.validation).

Here is what the other groups' checks need of memory without the controllers: the encodings an item is written in
(`memory.encoding`, an arm name's encoding part: tailmem.memory.arm_names, and `longmemeval.encoding`).
"""

from __future__ import annotations

ENCODINGS = ("verbose", "compact")
