"""`python -m tailmem llm_cost [--db SMOKE_CACHE] [--times STAGE=N ...] [overrides...]`: about what a run will cost.

Why: a user should see "about $X" before the first paid call. The calls a target makes and their token sizes are
measured, not guessed: run the target at smoke scale first (against the scripted loopback agent, a free local
server, or the real endpoint under a small `llm.budget.max_dollars`), then price that call cache's calls per
(role, stage) with the models and prices the paid run is configured with, times how many more calls each stage
will make at the target scale (`--times fsmem_answer=15.8` for 158 questions instead of 10). Cached input tokens
are priced as measured. The budget guard (`llm.budget`) still stops the real run at its cap. Without --db the calls
are those of every call cache the run of the overrides' scale recorded, its model slice's included
(tailmem.llm.cache_cli.run_caches), summed per (role, stage).
"""

from __future__ import annotations

import argparse
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import ConfigError, LLMError
from tailmem.roles import PROGRAMMATIC, model_free


@dataclass(frozen=True)
class Line:
    role: str
    stage: str
    model: str
    calls: float
    prompt: float
    cached: float
    output: float
    dollars: float


def measured(*dbs: Path) -> list[tuple]:
    """(role, stage, calls, prompt, cached, output tokens) summed over the recorded calls of the cache files."""
    sums: dict[tuple, list] = {}
    for db in dbs:
        if not db.exists():
            raise LLMError(f"no call cache at {db}; run the target at smoke scale first to measure its calls")
        with sqlite3.connect(db) as conn:
            for role, stage, *numbers in conn.execute(
                "SELECT role, stage, COUNT(*), SUM(prompt_tokens), SUM(cached_tokens), "
                "SUM(completion_tokens) FROM calls GROUP BY role, stage"
            ):
                total = sums.setdefault((role, stage), [0, 0, 0, 0])
                for i, n in enumerate(numbers):
                    total[i] += n or 0
    return [(role, stage, *numbers) for (role, stage), numbers in sorted(sums.items())]


def run_files(overrides: list[str]) -> list[Path]:
    """The cache files of every call cache the run of `overrides` recorded (a sharded one once merged)."""
    from tailmem.llm.cache_cli import recorded, run_caches

    files = []
    for c in recorded(run_caches(overrides)):
        if c.layout == "shards" and not c.path.exists():
            raise LLMError(
                f"{c.location} is a sharded cache: fold it into {c.path} first (python -m tailmem cache merge)"
            )
        files.append(c.path)
    return files


def estimate(rows: list[tuple], llm, times: dict[str, float]) -> list[Line]:
    """Each measured (role, stage) priced with the role's configured model (`llm`: the group, LLMGroup), scaled by
    times[stage] (default 1)."""
    from tailmem.llm.group import role_settings
    from tailmem.settings.llm import price, prices

    table = prices(llm)
    out = []
    for role, stage, n, prompt, cached, output in rows:
        k = float(times.get(stage, 1.0))
        spec = role_settings(llm, role) if role in llm.roles else None
        if spec is None or model_free(spec.backend):
            out.append(Line(role, stage, PROGRAMMATIC, n * k, prompt * k, cached * k, output * k, 0.0))
            continue
        p = price(table, spec.model)
        dollars = ((prompt - cached) * p.input + cached * p.cached_input + output * p.output) / 1e6
        out.append(Line(role, stage, str(spec.model), n * k, prompt * k, cached * k, output * k, dollars * k))
    return out


def parse_times(items: list[str]) -> dict[str, float]:
    out = {}
    for item in items:
        stage, sep, value = item.partition("=")
        try:
            out[stage] = float(value)
        except ValueError:
            sep = ""
        if not sep or out[stage] < 0:
            raise ConfigError(f"llm_cost --times {item!r}: expected STAGE=FACTOR with FACTOR >= 0")
    return out


def render(lines: list[Line]) -> str:
    head = f"{'role':10} {'stage':22} {'model':16} {'calls':>9} {'prompt':>12} {'cached':>12} {'output':>11} {'dollars':>9}"
    body = [
        f"{x.role:10} {x.stage:22} {x.model:16} {x.calls:9.0f} {x.prompt:12.0f} {x.cached:12.0f} {x.output:11.0f} "
        f"{x.dollars:9.2f}"
        for x in lines
    ]
    total = sum(x.dollars for x in lines)
    return "\n".join([head, *body, f"about ${total:.2f} for {sum(x.calls for x in lines):.0f} calls"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tailmem llm_cost", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--db", type=Path, help="call cache of the target's smoke-scale run (default: every cache of the run)"
    )
    parser.add_argument(
        "--times",
        action="append",
        default=[],
        metavar="STAGE=N",
        help="calls at the target scale / calls measured, for one stage (repeatable; default 1)",
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the paid run (models, prices)")
    args = parser.parse_args(argv)
    from tailmem.llm.check import _compose
    from tailmem.llm.group import settings

    llm = settings(_compose(args.overrides))
    dbs = [args.db] if args.db else run_files(args.overrides)
    print(render(estimate(measured(*dbs), llm, parse_times(args.times))))
    return 0
