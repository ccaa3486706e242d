"""The report's data files (`tailmem/report/data/*.yaml`, shipped with the package): the papers' published numbers
and the tables' words, kept out of the code that computes the tables so a reader checks them against the paper in
one place, and a change of wording never touches a computation.

YAML lists come back as tuples (a printed range such as "6-12" is a fixed pair, not something to append to).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import yaml

from tailmem.errors import TailmemError


class ReportDataError(TailmemError):
    """A report data file that is missing or not what its reader expects; the message names the file and key."""


def _frozen(value):
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def path(name: str):
    """The data file `name` inside the package: "paper1.yaml" is the report toolkit's (`tailmem/report/data/`),
    "<study>/<file>" a study's own words (`tailmem/studies/<study>/data/<file>`), beside the tables it fills."""
    study, _, file = name.rpartition("/")
    if study:
        return resources.files("tailmem.studies") / study / "data" / file
    return resources.files("tailmem.report") / "data" / name


@cache
def load(name: str) -> dict:
    """The mapping in data file `name`, lists as tuples; read once per process."""
    where = path(name)
    try:
        data = yaml.safe_load(where.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise ReportDataError(f"{where}: report data file missing (is the package installed with its data?)") from e
    except yaml.YAMLError as e:
        raise ReportDataError(f"{where}: not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise ReportDataError(f"{where}: expected a mapping at the top, got {type(data).__name__}")
    return _frozen(data)


def section(name: str, key: str):
    """`key` of data file `name`; a missing key fails naming both."""
    data = load(name)
    if key not in data:
        raise ReportDataError(f"{path(name)}: no key {key!r} (has {sorted(data)})")
    return data[key]
