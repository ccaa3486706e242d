"""The tool harnesses of filesystem memory, declared once.

Paper 2 treats the harness as one factor for both roles, so each entry says how to open it for the builder
(writable) and for the search agent (read-only) over a store. Everything else reads this table: the config
check of `fsmem.harness` / `fsmem.build_harness` / `fsmem.study.harnesses`, the Snakemake wildcard
constraints (`tailmem.workflow.wildcard_patterns`), the RQ5 study (every harness by default) and its table's
footer. Adding a harness is a module with its tools plus one `Spec` below (docs/extending.md).

The agents never ask for a harness by name: they use whichever tools it offers (`view`/`grep`/`toc`,
`search`, `bash`), so a new harness needs no agent change as long as it offers one of those sets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tailmem.errors import ConfigError
from tailmem.fsmem.errors import FsmemError

# The harness names other modules need to say (the rest reach a harness through `fsmem.harness` and this table).
from tailmem.fsmem.harness_names import CENTER, MAIN_HARNESS  # noqa: E402,F401
from tailmem.fsmem.sandbox import Limits
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.base import Harness

Opener = Callable[[Store, Any], Harness]  # (store, the `fsmem` config node) -> a harness over that store


@dataclass(frozen=True)
class Spec:
    """One harness: how tables name and describe it, and how each role opens it."""

    name: str  # the config value and the path segment (answers/<name>/, fsmem/harness/.../<name>/)
    label: str  # for table titles
    build_tools: str  # what the builder gets, in a few words (table footers)
    search_tools: str  # what the search agent gets
    open_build: Opener
    open_search: Opener
    sandboxed: bool = False  # runs commands under `fsmem.sandbox`: its isolation is recorded with the artifacts


def limits(fs) -> Limits:
    """The sandbox settings of a sandboxed harness (`fsmem.shell`, `fsmem.sandbox`)."""
    sh = fs.shell
    unsafe = fs.sandbox.allow_unsafe_fallback
    if not isinstance(unsafe, bool):
        raise FsmemError(f"fsmem.sandbox.allow_unsafe_fallback: expected true or false, got {unsafe!r}")
    return Limits(timeout_s=sh.timeout_s, max_output_chars=sh.max_output_chars, allow_unsafe_fallback=unsafe)


# Openers import their tools when called: a stage that never opens the Shell harness never loads the sandbox.
def _management(store: Store, fs) -> Harness:
    from tailmem.fsmem.tools.management import management

    return management(store)


def _management_ranked(store: Store, fs) -> Harness:
    from tailmem.fsmem.tools.management import management

    return management(store, ranked=True)


def _center(store: Store, fs) -> Harness:
    from tailmem.fsmem.tools.center import center

    return center(store)


def _center_bm25(store: Store, fs) -> Harness:
    from tailmem.fsmem.tools.center import center_bm25

    return center_bm25(store)


def _shell_build(store: Store, fs) -> Harness:
    from tailmem.fsmem.tools.shell import shell_builder

    return shell_builder(store, limits(fs))


def _shell_search(store: Store, fs) -> Harness:
    from tailmem.fsmem.tools.shell import shell

    return shell(store, limits(fs))


HARNESSES: dict[str, Spec] = {
    s.name: s
    for s in (
        Spec(CENTER, "Center", "the management tools", "view, grep, toc, read_section", _management, _center),
        Spec(
            "center_bm25",
            "Center+BM25",
            "the management tools + ranked whole-file search",
            "Center's tools + ranked whole-file search",
            _management_ranked,
            _center_bm25,
        ),
        Spec(
            "shell",
            "Shell",
            "bash over a writable sandbox whose changes are synced back through the store's path checks",
            "read-only bash",
            _shell_build,
            _shell_search,
            sandboxed=True,
        ),
    )
}


def spec(name: str, key: str = "fsmem.harness") -> Spec:
    """The entry of `name`; an unknown name is a ConfigError naming the config key it came from (a job's config
    is checked before it starts, tailmem.validation; a stage called directly meets it here, at its first line)."""
    if name not in HARNESSES:
        raise ConfigError(f"{key}: {name!r} is not one of {list(HARNESSES)}")
    return HARNESSES[name]


def sandbox_provenance(fs, name: str) -> dict | None:
    """Which sandbox a sandboxed harness runs under here; None otherwise. Recorded in build.json, so a build says
    what isolated it."""
    if not spec(name).sandboxed:
        return None
    from tailmem.fsmem.sandbox import provenance

    return provenance(limits(fs))


def describe(names) -> str:
    """The roles' tools of each harness in `names`, for a table footer."""
    return "; ".join(f"{n}: builds with {spec(n).build_tools}, searches with {spec(n).search_tools}" for n in names)


def study_harnesses(chosen) -> list[str]:
    """The harnesses RQ5 compares: `fsmem.study.harnesses`, or every registered one when it is null."""
    return list(HARNESSES) if chosen is None else [spec(str(n), "fsmem.study.harnesses").name for n in chosen]
