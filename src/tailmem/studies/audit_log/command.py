"""`python -m tailmem audit-log FILE --format {jsonl,inspect,longmemeval,mem0} [options] [key=value ...]`: the
`audit_log` stage on one log, its options turned into that stage's overrides (trailing `key=value` overrides, e.g.
`audit.bootstrap=200`, pass through), so the command and the Snakemake rule run the same code on the same config.
The CLI (tailmem.cli) runs the stage with the overrides made here.
"""

from __future__ import annotations

import argparse

from tailmem.studies.audit_log.group import FORMATS, RESULT_PARSERS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tailmem audit-log",
        description="Tail audit of an external memory-access log (docs/access-log.md).",
    )
    p.add_argument(
        "file",
        help="the log: tailmem JSONL, an inspect_ai .eval/.json log, a LongMemEval retrieval "
        "log or a mem0-style search log",
    )
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("--name", help="artifact folder name (default: the file name without suffixes)")
    p.add_argument("--out", help="artifact folder (default: <results_dir>/audit_log/<name>)")
    p.add_argument("--top-k", type=int, help="longmemeval: a read is an item ranked within the top k")
    p.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="NAME=argument:ARG|NAME=result:PARSER",
        help="inspect: a tool whose calls are reads, e.g. read_file=argument:path or search=result:json "
        f"(parsers: {', '.join(RESULT_PARSERS)}); repeat for several; replaces audit_log.tools",
    )
    p.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. audit.bootstrap=200 seed=1")
    return p


def _quote(value: str) -> str:
    """A value as a Hydra override can hold it, whatever characters the path has."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def tools_override(specs: list[str]) -> str:
    entries = []
    for spec in specs:
        name, sep, how = spec.partition("=")
        kind, sep2, value = how.partition(":")
        if not sep or not sep2 or kind not in ("argument", "result") or not name or not value:
            raise SystemExit(f"audit-log: --tool {spec!r}: expected NAME=argument:ARG or NAME=result:PARSER")
        entries.append(f"{name}:{{{kind}:{_quote(value)}}}")
    return "audit_log.tools={" + ",".join(entries) + "}"


def overrides(args: argparse.Namespace) -> list[str]:
    out = [f"audit_log.file={_quote(args.file)}", f"audit_log.format={args.format}"]
    if args.name:
        out.append(f"audit_log.name={_quote(args.name)}")  # quoted: the settings, not Hydra's lexer, judge it
    if args.out:
        out.append(f"out={_quote(args.out)}")
    if args.top_k is not None:
        out.append(f"audit_log.top_k={args.top_k}")
    if args.tool:
        out.append(tools_override(args.tool))
    return out + list(args.overrides)


def stage_overrides(argv: list[str]) -> list[str]:
    """The `audit_log` stage's overrides for the command line `argv` (after `audit-log`)."""
    return overrides(parser().parse_intermixed_args(argv))
