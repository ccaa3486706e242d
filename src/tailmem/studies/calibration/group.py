"""How the search gets the `calibration` group: the schema's own object (tailmem.settings.calibration), whose
checks cover its ranges and the rules tying its keys together."""

from __future__ import annotations

from tailmem.settings.calibration import CalibrationGroup
from tailmem.settings.checks import typed


def settings(cfg) -> CalibrationGroup:
    """The `calibration` group of `cfg`, checked by its schema (every error names its key)."""
    return typed(cfg, "calibration", CalibrationGroup)
