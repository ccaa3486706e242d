"""Dispatch `python -m tailmem <stage> overrides...` to a stage function through Hydra.

Stages are registered by dotted path so that start-up imports only the stage that runs.
Plain commands (no Hydra config) take their own argv.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

from tailmem.configs import config_dir  # also importable as tailmem.cli.config_dir until its importers move
from tailmem.errors import TailmemError
from tailmem.lazy import resolve
from tailmem.registry import STAGES as REGISTRY

# stage name -> "module:function", declared in tailmem.registry; each function is given the composed config and
# (tailmem.stages.typed_stage) reads it as the typed objects of its groups.
STAGES: dict[str, str] = {name: st.target for name, st in REGISTRY.items()}

# command name -> "module:function"; each function takes argv (list of str) and returns an exit code.
COMMANDS: dict[str, str] = {
    "cache": "tailmem.llm.cache_cli:main",
    "llm_check": "tailmem.llm.check:main",
    "llm_cost": "tailmem.llm.estimate:main",
    "data": "tailmem.data.fetch:main",
    "audit-log": "tailmem.cli_audit_log:main",  # the `audit_log` stage on one external log
}

log = logging.getLogger("tailmem")


def process_age_s() -> float | None:
    """Seconds since this process started (Linux /proc; None elsewhere). What a stage spent before its own work
    (interpreter, imports, config composition) is this age when the stage function is called. A job forked by
    the warm server (tailmem.warmstart) counts from its client's start instead, so both paths time alike."""
    t0 = os.environ.get("TAILMEM_JOB_T0")
    if t0:
        try:
            return max(0.0, time.time() - float(t0))
        except ValueError:
            pass
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


TIMING = (
    "tailmem timing: startup {startup:.2f} s, total {total:.2f} s"  # one line per stage log; benchmarks/bench_dag.py
)


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


def _run_stage(stage: str, cfg) -> int:
    """Validate `cfg`, run the stage on it and log its timing line; 1 on a TailmemError (logged)."""
    try:
        from tailmem.settings.schema import validate

        # ranges and the open groups' keys of the stage's own groups (Hydra checked types and keys), before any work
        validate(cfg, groups=REGISTRY[stage].groups)
        fn = resolve(STAGES[stage])
        startup, t0 = process_age_s(), time.perf_counter()
        fn(cfg)
        if startup is not None:
            log.info(TIMING.format(startup=startup, total=startup + time.perf_counter() - t0))
    except TailmemError as exc:
        log.error("%s: %s", stage, exc)
        return 1
    return 0


def _compose(stage: str, overrides: list[str]):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir()), job_name=f"tailmem_{stage}"):
        return compose(config_name="config", overrides=[*overrides, f"stage={stage}"])


def warm_up() -> None:
    """Compose and validate one config in the warm server (tailmem.warmstart) before it forks jobs: a process's
    first composition also builds Hydra's override parser and lazy imports, and its first validation the schema
    tables, which every forked job paid again (smoke DAG: 37.0 -> 27.5 s of start-up over its 154 jobs)."""
    from tailmem.settings.schema import validate

    validate(_compose("graphworld", ["scale=smoke"]))


def _compose_once(stage: str, overrides: list[str]) -> int:
    """A plain run (no Hydra flag such as -m or --cfg): compose the config once with Hydra's compose API and set
    up logging as `hydra/job_logging: stdout` does. hydra.main composes twice (once to pick the run mode), about
    0.4 s per composition on every job; the run writes nothing else (hydra.run.dir is `.`, no output subdir)."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from tailmem.settings.schema import explain

    try:
        cfg = _compose(stage, overrides)
    except (HydraException, OmegaConfBaseException) as exc:
        print(f"tailmem {stage}: error: {explain(exc, overrides)}", file=sys.stderr)
        return 1
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    return _run_stage(stage, cfg)


def run_hydra(stage: str, overrides: list[str]) -> int:
    """Run one stage: composed once for a plain run, under hydra.main when a Hydra flag asks for it (multirun
    -m sweeps, --cfg, --info, ...), so those work as in any Hydra app."""
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per HTTP request drowns the stage log
    if not any(o.startswith("-") for o in overrides):
        return _compose_once(stage, overrides)
    import hydra
    from omegaconf import DictConfig

    status = {"code": 0}

    @hydra.main(version_base="1.3", config_path=str(config_dir()), config_name="config")
    def _app(cfg: DictConfig) -> None:
        status["code"] = _run_stage(stage, cfg)

    saved = sys.argv
    sys.argv = [f"tailmem {stage}", *overrides, f"stage={stage}"]
    try:
        _app()
    except SystemExit as exc:  # hydra exits on a bad override with its own message
        return int(exc.code or 0) if isinstance(exc.code, int) else 1
    finally:
        sys.argv = saved
    return status["code"]
