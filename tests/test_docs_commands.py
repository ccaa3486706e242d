"""Every command the README, docs/ and the llm presets' comments give a user is checked against what it runs,
without running it: a newcomer's first commands must not fail on a flag, a key or a target that does not exist.

Found by a newcomer: configs/llm/served.yaml started llama-cpp-python's server with `--n_parallel 4`, a flag its
server does not have ("unrecognized arguments"), and the README's `snakemake --cores 2 --config scale=smoke site`
hands `site` to --config, which Snakemake refuses ("Config entries have to be defined as name=value pairs").

What is checked, each by the tool's own parser:
- `python -m llama_cpp.server ...`: the flags against the installed server's argument parser (built as its
  `__main__` builds it); a `$(python -c 'from M import F; ...')` inside names a function that exists;
- `python -m tailmem <stage> key=value ...`: the stage or command exists, a command's flags pass its own argparse
  parser, and the Hydra overrides compose (an unknown key or group option fails as it would at run time);
- `snakemake ...`: the options pass Snakemake's parser, `--config` parses as Snakemake parses it, its `overrides`
  (and `model_overrides`) compose at the scale it names, each target is a rule of the workflow and each
  `--profile` folder exists;
- `pip install -e ".[extras]"`: each extra is declared in pyproject.toml.
Placeholders (`<stage>`, `<account>`) are left unchecked; everything else in a command is checked.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "configs" / "llm").glob("*.yaml")),
)
PLACEHOLDER = re.compile(r"<[^<>\s][^<>]*>")
SUBSTITUTION = re.compile(r"\$\(python -c '([^']*)'\)")
STARTS = ("python -m ", "snakemake ", "snakemake\n", "pip install ")


@dataclass(frozen=True)
class Command:
    source: str  # file:line
    text: str

    def __str__(self) -> str:
        return f"{self.source}: {self.text}"


# -- extraction ------------------------------------------------------------------------------------------------------


def _commands_in_block(lines: list[tuple[int, str]], source: str) -> list[Command]:
    """The commands of a fenced block's lines: `$ ` lines only where the block shows a session, continuation lines
    joined, `&&` / `;` chains split."""
    prompted = any(text.startswith("$ ") for _, text in lines)
    out, pending, start = [], "", 0
    for number, text in lines:
        if prompted:
            if not text.startswith("$ "):
                continue
            text = text[2:]
        if not pending:
            start = number
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        whole, pending = pending + text, ""
        out += [Command(f"{source}:{start}", part) for part in split_chain(whole)]
    return out


def split_chain(text: str) -> list[str]:
    """`a && b; c` as its commands, splitting only outside quotes (a `python -c '...; ...'` stays whole)."""
    parts, current, quote, i = [], "", None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif text.startswith("&&", i) or ch == ";":
            parts.append(current)
            current, i = "", i + (2 if ch == "&" else 1)
            continue
        current += ch
        i += 1
    return [p.strip() for p in [*parts, current] if p.strip()]


def extract(path: Path, programs=("python", "snakemake", "pip")) -> list[Command]:
    """The commands of `programs` `path` gives: in Markdown, each fenced block's lines and each inline code span
    that is a command; in a YAML preset, the command in a comment line (from `python -m` to the line's end)."""
    rel = path.relative_to(ROOT)
    lines = path.read_text().splitlines()
    found: list[Command] = []
    if path.suffix == ".yaml":
        for i, line in enumerate(lines, 1):
            _, hash_, comment = line.partition("#")
            at = comment.find("python -m ")
            if hash_ and at >= 0:
                found.append(Command(f"{rel}:{i}", comment[at:].strip()))
        return found
    block: list[tuple[int, str]] | None = None
    for i, line in enumerate(lines, 1):
        if line.startswith("```"):
            if block is None:
                block = []
            else:
                found += _commands_in_block(block, str(rel))
                block = None
        elif block is not None:
            block.append((i, line))
        else:
            for span in re.findall(r"`([^`]+)`", line):
                if span.startswith(STARTS):
                    found.append(Command(f"{rel}:{i}", span))
    return [c for c in found if _words(c.text) and _words(c.text)[0] in programs]


def _words(text: str) -> list[str]:
    """The command's words: shell-split (comments dropped), leading VAR=value assignments dropped, placeholders
    made one word each (`<the GGUF>` is one argument), a usage line's optional parts (` [overrides]`,
    ` [--times STAGE=N ...]`) left out."""
    text = PLACEHOLDER.sub(lambda m: m.group(0).replace(" ", "_"), text)
    text = re.sub(r"(?<=\s)\[[^\]]*\]", "", text)
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        return []
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        words.pop(0)
    return words


def placeholder(word: str) -> bool:
    """A word a usage line stands for a value with (`<stage>`, `key=value ...`)."""
    return bool(PLACEHOLDER.search(word)) or word in ("...", "key=value")


# -- the checks ------------------------------------------------------------------------------------------------------


class Parsed(Exception):
    """Raised by the patched parse_args once a command's own parser accepted its arguments."""

    def __init__(self, namespace):
        self.namespace = namespace


def parse_with_own_parser(main, argv: list[str], monkeypatch) -> argparse.Namespace:
    """The namespace `main(argv)` gets from its argparse parser, stopping it there; its parser's error on a flag
    it does not know (SystemExit) propagates."""

    def stopping(method):
        original = getattr(argparse.ArgumentParser, method)

        def stop(self, args=None, namespace=None):
            raise Parsed(original(self, args, namespace))

        return stop

    with monkeypatch.context() as m:
        for method in ("parse_args", "parse_intermixed_args"):
            m.setattr(argparse.ArgumentParser, method, stopping(method))
        try:
            main(argv)
        except Parsed as done:
            return done.namespace
    raise AssertionError(f"{main.__module__}.main never parsed its arguments")


def llama_server_parser() -> argparse.ArgumentParser:
    """llama-cpp-python's server parser, built as `python -m llama_cpp.server` builds it (its __main__)."""
    pytest.importorskip("llama_cpp.server.settings", reason="the `local` extra is not installed")
    from llama_cpp.server.cli import add_args_from_model
    from llama_cpp.server.settings import Settings

    parser = argparse.ArgumentParser(prog="python -m llama_cpp.server", exit_on_error=False)
    add_args_from_model(parser, Settings)
    parser.add_argument("--config_file", type=str)
    return parser


def check_substitutions(text: str) -> list[str]:
    """`$(python -c 'from M import F ...')`: M imports and has F."""
    problems = []
    for code in SUBSTITUTION.findall(text):
        for module, names in re.findall(r"from ([\w.]+) import ([\w, ]+?)(?: as \w+)?(?:;|$)", code):
            try:
                mod = importlib.import_module(module)
            except ImportError as exc:
                problems.append(f"{module}: {exc}")
                continue
            problems += [f"{module} has no {n.strip()}" for n in names.split(",") if not hasattr(mod, n.strip())]
    return problems


def check_llama_server(args: list[str]) -> list[str]:
    args = ["PLACEHOLDER" if placeholder(a) else a for a in args]
    try:
        _, unknown = llama_server_parser().parse_known_args(args)
    except argparse.ArgumentError as exc:
        return [f"llama_cpp.server refuses it: {exc}"]
    return [f"llama_cpp.server: unrecognized arguments: {' '.join(unknown)}"] if unknown else []


def compose_problems(overrides: list[str], stage: str | None = None, scale: str | None = None) -> list[str]:
    """Whether Hydra composes the config with these overrides (at `scale`, for `stage`)."""
    overrides = [o for o in overrides if not placeholder(o)]
    if scale is not None:
        overrides = [f"scale={scale}", *overrides]
    return list(_composes(tuple(overrides), stage or "workflow"))


@cache
def _composes(overrides: tuple[str, ...], stage: str) -> tuple[str, ...]:
    """Hydra's refusal of these overrides, or nothing (each distinct command line composed once)."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from tailmem.runner import compose_stage

    try:
        compose_stage(stage, list(overrides))
    except (HydraException, OmegaConfBaseException) as exc:
        return (f"overrides {list(overrides)} do not compose: {str(exc).splitlines()[0]}",)
    return ()


def check_tailmem(args: list[str], monkeypatch) -> list[str]:
    from tailmem.cli import COMMANDS
    from tailmem.lazy import resolve
    from tailmem.registry import STAGES

    if args in (["--help"], ["-h"]):
        return []
    if not args:
        return ["no stage or command"]
    name, rest = args[0], args[1:]
    if "-m" in rest or "--multirun" in rest:  # a Hydra sweep: each of its values composes as the first one does
        rest = [re.sub(r"^([^=\[]+=)([^,\[]+),.*$", r"\1\2", o) for o in rest if o not in ("-m", "--multirun")]
    if placeholder(name):
        return compose_problems(rest)
    if name in COMMANDS:
        try:
            ns = parse_with_own_parser(resolve(COMMANDS[name]), rest, monkeypatch)
        except SystemExit:
            return [f"`python -m tailmem {name}` refuses {rest}"]
        stage = "audit_log" if name == "audit-log" else None
        return compose_problems(list(getattr(ns, "overrides", None) or []), stage)
    if name not in STAGES:
        return [f"no stage or command {name!r}"]
    return compose_problems(rest, name)


@cache
def workflow_rules() -> frozenset[str]:
    """The workflow's rules, as Snakemake lists them (the model slice's included)."""
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return frozenset(line.strip() for line in proc.stdout.splitlines() if line.strip())


def check_snakemake(args: list[str]) -> list[str]:
    import snakemake.cli as cli

    parser = cli.get_argument_parser()
    parser.exit_on_error = False
    try:
        ns, unknown = parser.parse_known_args(args)
    except argparse.ArgumentError as exc:
        return [f"snakemake refuses it: {exc}"]
    except SystemExit as exc:  # --version, --help: answered by the parser itself
        return [] if exc.code == 0 else [f"snakemake refuses it (exit {exc.code})"]
    problems = [f"snakemake: unrecognized arguments: {' '.join(unknown)}"] if unknown else []
    try:
        config = cli.parse_config(ns.config) if ns.config else {}
    except ValueError as exc:
        return [*problems, f"snakemake --config: {exc}"]
    for profile in ns.profile or []:
        if not (ROOT / profile).is_dir():
            problems.append(f"--profile {profile}: no such folder")
    scale = str(config.get("scale", "default"))
    if "overrides" in config or "scale" in config:
        problems += compose_problems(list(config.get("overrides", [])), scale=scale)
    if "model_overrides" in config:
        slice_scale = f"{scale}_model"
        problems += compose_problems([*config.get("overrides", []), *config["model_overrides"]], scale=slice_scale)
    unknown_targets = sorted(t for t in ns.targets if not placeholder(t) and t not in workflow_rules())
    problems += [f"snakemake: no rule {t!r} in the workflow" for t in unknown_targets]
    return problems


def check_pip(args: list[str]) -> list[str]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    problems = []
    for arg in args:
        m = re.fullmatch(r"\.\[([\w,-]+)\]", arg)
        if m:
            problems += [f"pip: no extra {e!r} in pyproject.toml" for e in m.group(1).split(",") if e not in extras]
    return problems


def problems_of(command: Command, monkeypatch) -> list[str]:
    words = _words(command.text)
    if words[:3] == ["python", "-m", "llama_cpp.server"]:
        return check_substitutions(command.text) + check_llama_server(words[3:])
    if words[:3] == ["python", "-m", "tailmem"]:
        return check_tailmem(words[3:], monkeypatch)
    if words[0] == "snakemake":
        return check_snakemake(words[1:])
    if words[:2] == ["pip", "install"]:
        return check_pip(words[2:])
    return []


COMMANDS = [c for path in SOURCES for c in extract(path)]
CHECKED = [c for c in COMMANDS if _words(c.text)[:2] != ["python", "-c"]]


def test_the_docs_give_the_commands_this_test_checks():
    """The extraction finds what a newcomer reads: the set-up line, the served model's server, stages, targets."""
    texts = [c.text for c in CHECKED]
    assert any(
        "python -m llama_cpp.server" in t and c.source.startswith("configs/llm/served.yaml")
        for c, t in zip(CHECKED, texts)
    )
    assert sum("python -m llama_cpp.server" in t for t in texts) >= 3
    assert any(t.startswith("snakemake --cores 2") for t in texts)
    assert any(t.startswith("pip install -e") for t in texts)
    assert sum(t.startswith("python -m tailmem ") for t in texts) >= 10


@pytest.mark.parametrize("command", CHECKED, ids=[c.source for c in CHECKED])
def test_every_documented_command_passes_its_own_parser(command, monkeypatch):
    assert problems_of(command, monkeypatch) == [], str(command)


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "python -m llama_cpp.server --model m.gguf --n_ctx 8192 --n_parallel 4",
            "unrecognized arguments: --n_parallel 4",
        ),
        ("python -m llama_cpp.server --model m.gguf --n_ctx many", "refuses it"),
        (
            "python -m llama_cpp.server --model \"$(python -c 'from tailmem.llm.model_file import nope; print(nope())')\"",
            "has no nope",
        ),
        ("python -m tailmem fsmem_answer fsmem.no_such_key=1", "do not compose"),
        ("python -m tailmem fsmem_answer llm=no_such_preset", "do not compose"),
        ("python -m tailmem no_such_stage", "no stage or command"),
        ("python -m tailmem cache stats --no-such-flag", "refuses"),
        ("snakemake --cores 2 --config scale=smoke site", "name=value pairs"),
        ("snakemake --cores 2 no_such_rule", "no rule 'no_such_rule'"),
        ("snakemake --cores 2 --no-such-option", "unrecognized arguments"),
        ("snakemake --cores 2 --config 'overrides=[\"retrieval.nope=3\"]'", "do not compose"),
        ('pip install -e ".[dev,nope]"', "no extra 'nope'"),
    ],
)
def test_a_planted_mistake_fails_the_check(text, expected, monkeypatch):
    problems = problems_of(Command("planted", text), monkeypatch)
    assert any(expected in p for p in problems), problems


def test_the_preset_comment_of_the_served_model_is_read_from_its_yaml(tmp_path, monkeypatch):
    """A comment line of a preset is a command from `python -m` on: the old served.yaml line fails."""
    preset = tmp_path / "served.yaml"
    preset.write_text(
        "#   llama.cpp:  python -m llama_cpp.server --model <the GGUF> --n_ctx 8192 --n_parallel 4\nname: x\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (command,) = extract(preset)
    assert command.text == "python -m llama_cpp.server --model <the GGUF> --n_ctx 8192 --n_parallel 4"
    assert problems_of(command, monkeypatch) == ["llama_cpp.server: unrecognized arguments: --n_parallel 4"]


def test_the_readme_set_up_installs_what_ci_installs():
    """A newcomer's `pytest` skips nothing CI runs: the README's set-up installs every system package .ci/run does
    (bubblewrap for the Shell harness, chromium for the site's browser test)."""
    ci = set(re.findall(r"need\+=\((\S+)\)", (ROOT / ".ci" / "run").read_text()))
    assert {"bubblewrap", "chromium"} <= ci
    installs = [
        set(w for w in _words(c.text)[3:] if not w.startswith("-"))
        for c in extract(ROOT / "README.md", programs=("apt-get",))
        if _words(c.text)[:3] == ["apt-get", "install", "-y"]
    ]
    assert installs and ci <= installs[0], (ci, installs)
