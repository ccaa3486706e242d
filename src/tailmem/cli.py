"""Dispatch `python -m tailmem <stage> overrides...` to a stage function through Hydra.

Stages (tailmem.registry) and commands are named by dotted path so that start-up imports only what runs.
Plain commands (no Hydra config) take their own argv.
"""

from __future__ import annotations

import sys

from tailmem.errors import TailmemError
from tailmem.lazy import resolve
from tailmem.registry import STAGES
from tailmem.runner import compose_stage, run_hydra

# command name -> "module:function"; each function takes argv (list of str) and returns an exit code.
COMMANDS: dict[str, str] = {
    "cache": "tailmem.llm.cache_cli:main",
    "llm_check": "tailmem.llm.check:main",
    "llm_cost": "tailmem.llm.estimate:main",
    "data": "tailmem.data.fetch:main",
    "audit-log": "tailmem.cli:audit_log",  # the `audit_log` stage on one external log
}


def usage() -> str:
    return (
        "usage: python -m tailmem <stage> [key=value ...]   (Hydra overrides; -m for a multirun sweep)\n"
        f"stages: {', '.join(STAGES)}\n" + (f"commands: {', '.join(COMMANDS)}\n" if COMMANDS else "")
    )


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name in COMMANDS:
        try:
            return int(resolve(COMMANDS[name])(rest) or 0)
        except TailmemError as exc:
            print(f"tailmem {name}: error: {exc}", file=sys.stderr)
            return 1
    if name not in STAGES:
        print(f"tailmem: unknown stage {name!r}\n{usage()}", file=sys.stderr)
        return 2
    return run_hydra(name, rest)


def audit_log(argv: list[str]) -> int:
    """`python -m tailmem audit-log FILE --format F`: the `audit_log` stage on one log, its options made into the
    stage's overrides by the study (tailmem.studies.audit_log.command)."""
    from tailmem.studies.audit_log.command import stage_overrides

    return run_hydra("audit_log", stage_overrides(argv))


def warm_up() -> None:
    """Compose and validate one config in the warm server (tailmem.warmstart) before it forks jobs: a process's
    first composition also builds Hydra's override parser and lazy imports, and its first validation the schema
    tables, which every forked job paid again (smoke DAG: 37.0 -> 27.5 s of start-up over its 154 jobs)."""
    from tailmem import compose_cache
    from tailmem.validation import validate

    with compose_cache.learning():
        validate(compose_stage("graphworld", ["scale=smoke"]))


_LEARNED: set[tuple[str, ...]] = set()  # the config-group choices the warm server composed already


def learn(argv: list[str]) -> None:
    """In the warm server, after it forked the job `argv`: compose the job's config groups once more, keeping the
    merged prefixes (tailmem.compose_cache), so the next jobs that choose the same groups start from them (the
    smoke DAG's 207 jobs choose 39 sets of groups; one composition costs what 4 from a kept prefix do). Only the
    group choices are composed: a job's other overrides apply after the merge and change no prefix."""
    from tailmem import compose_cache
    from tailmem.configs import config_dir

    if not argv or argv[0] not in STAGES or any(o.startswith("-") for o in argv[1:]):
        return
    groups = {p.name for p in config_dir().iterdir() if p.is_dir()} | {"hydra"}
    chosen = tuple(
        o for o in argv[1:] if "=" in o and o.split("=", 1)[0].lstrip("+~").split("@")[0].split("/")[0] in groups
    )
    if chosen in _LEARNED:
        return
    _LEARNED.add(chosen)
    with compose_cache.learning():
        compose_stage(argv[0], list(chosen))
