"""Which source files a module's code depends on: its `tailmem` import closure, found by a static walk of the
`import` statements (imports inside functions included), and a digest of each file's syntax tree without its
docstrings (`ast.dump`, so comments, docstrings and formatting do not count: rewording an explanation reruns
nothing).

A library module, so code below the pipeline can key a cache by its own code (ALFWorld's episode cache,
tailmem.studies.alfworld.play.episode) without importing the pipeline, which builds each stage's code digest from the
same walk (tailmem.digests).
"""

from __future__ import annotations

import ast
import hashlib
import json
from functools import cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent  # src/tailmem


def _module_file(name: str) -> Path | None:
    """The source file of a dotted `name` under tailmem (a module or a package's __init__), or None if there is none."""
    parts = name.split(".")
    if parts[0] != "tailmem":
        return None
    base = PACKAGE_ROOT.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _scan(tree: ast.Module) -> dict:
    """What the code digest needs of one module: its syntax-tree digest and the `tailmem` modules it imports."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)  # `from pkg import module`
    out = set()
    for name in names:
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {
        "ast": hashlib.sha256(ast.dump(_without_docstrings(tree)).encode()).hexdigest(),
        "imports": sorted(n for n in out if n.startswith("tailmem")),
    }


def _without_docstrings(tree: ast.Module) -> ast.Module:
    """`tree` with the docstring of the module, of each class and of each function left out (in place: the tree
    is parsed for this scan only). A body that is only a docstring keeps a `pass`, so it stays a valid tree."""
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and ast.get_docstring(node, clean=False) is not None
        ):
            node.body = node.body[1:] or [ast.Pass()]
    return tree


class _ScanCache:
    """`_scan` results on disk, keyed by the sha256 of a file's bytes (and the Python version, whose `ast.dump`
    they are): every Snakemake invocation digests ~200 modules, and parsing them was 2 s of a 10 s no-op rerun.
    A missing, unreadable or foreign cache file is only a slower start; new entries are merged in at exit."""

    LIMIT = 5000  # entries; beyond it only this process's are kept

    def __init__(self):
        self.entries: dict[str, dict] | None = None
        self.new: dict[str, dict] = {}
        self.used: dict[Path, tuple[str, dict]] = {}  # this process's files: each read and hashed once

    @staticmethod
    def path() -> Path:
        import sys

        from tailmem.paths import user_cache_dir

        # v2: digests without docstrings (a v1 entry holds the digest with them)
        return user_cache_dir() / f"module-scans-v2-{sys.implementation.cache_tag}.json"

    def _load(self) -> dict[str, dict]:
        if self.entries is None:
            try:
                data = json.loads(self.path().read_text())
                self.entries = data if isinstance(data, dict) else {}
            except (OSError, ValueError):
                self.entries = {}
        return self.entries

    def scan(self, path: Path) -> dict:
        if path in self.used:
            return self.used[path][1]
        source = path.read_bytes()
        key = hashlib.sha256(source).hexdigest()
        hit = self._load().get(key)
        if not (isinstance(hit, dict) and isinstance(hit.get("ast"), str) and isinstance(hit.get("imports"), list)):
            if not self.new:
                import atexit

                atexit.register(self.save)
            hit = self.new[key] = self.entries[key] = _scan(ast.parse(source, filename=str(path)))
        self.used[path] = (key, hit)
        return hit

    def save(self) -> None:
        """Merge this process's new entries into the file (atomic replace; a concurrent writer may win)."""
        from tailmem.artifacts import write_text

        if not self.new:
            return
        path = self.path()
        try:
            try:
                on_disk = json.loads(path.read_text())
            except (OSError, ValueError):
                on_disk = {}
            merged = {**(on_disk if isinstance(on_disk, dict) else {}), **self.new}
            if len(merged) > self.LIMIT:
                mine = {key for key, _ in self.used.values()}
                merged = {k: v for k, v in merged.items() if k in mine}
            write_text(path, json.dumps(merged))
            self.new = {}
        except OSError:
            pass  # a read-only home: the cache is an optimisation only


_SCANS = _ScanCache()


@cache
def _imports(path: Path) -> frozenset[str]:
    """Every `tailmem` module named by an import in `path` (and the packages on the way to each); cached, since
    every stage's closure walks the shared modules again (970 walks of ~200 files for one DAG)."""
    return frozenset(_SCANS.scan(path)["imports"])


@cache
def import_closure(module: str) -> tuple[Path, ...]:
    """The source files of `module` and of every `tailmem` module it imports, transitively, sorted."""
    seen: set[Path] = set()
    todo = [module, *_parents(module)]
    while todo:
        path = _module_file(todo.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        todo.extend(_imports(path))
    return tuple(sorted(seen))


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@cache
def file_digest(path: Path) -> str:
    """The syntax-tree digest of a module (sha256 of its text for any other file)."""
    if path.suffix == ".py":
        return _SCANS.scan(path)["ast"]
    return hashlib.sha256(path.read_text().encode()).hexdigest()
