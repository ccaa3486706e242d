"""Run one stage on a config composed by Hydra: what `python -m tailmem <stage>` and a command that runs a stage
(`python -m tailmem audit-log`) share.

The CLI's dispatch table (tailmem.cli) names those commands, so a command that ran its stage through the CLI would
import the table that names it; both import this module instead.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

from tailmem.configs import config_dir
from tailmem.errors import TailmemError
from tailmem.registry import STAGES

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


def _run_stage(stage: str, cfg) -> int:
    """Validate `cfg`, run the stage on it and log its timing line; 1 on a TailmemError (logged)."""
    try:
        from tailmem.validation import validate

        # ranges and the open groups' keys of the stage's own groups (Hydra checked types and keys), before any work
        validate(cfg, groups=STAGES[stage].groups)
        fn = STAGES[stage].function()
        startup, t0 = process_age_s(), time.perf_counter()
        fn(cfg)
        if startup is not None:
            log.info(TIMING.format(startup=startup, total=startup + time.perf_counter() - t0))
    except TailmemError as exc:
        log.error("%s: %s", stage, exc)
        return 1
    return 0


def compose_stage(stage: str, overrides: list[str]):
    """The config of `stage` with `overrides`, composed once with Hydra's compose API, from the config files' loads
    and merged prefixes this process (or the warm server that forked it) already made (tailmem.compose_cache)."""
    from hydra import compose, initialize_config_dir

    from tailmem import compose_cache

    with compose_cache.active():
        with initialize_config_dir(version_base="1.3", config_dir=str(config_dir()), job_name=f"tailmem_{stage}"):
            return compose(config_name="config", overrides=[*overrides, f"stage={stage}"])


def _compose_once(stage: str, overrides: list[str]) -> int:
    """A plain run (no Hydra flag such as -m or --cfg): compose the config once with Hydra's compose API and set
    up logging as `hydra/job_logging: stdout` does. hydra.main composes twice (once to pick the run mode), about
    0.4 s per composition on every job; the run writes nothing else (hydra.run.dir is `.`, no output subdir)."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from tailmem.validation import explain

    try:
        cfg = compose_stage(stage, overrides)
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
