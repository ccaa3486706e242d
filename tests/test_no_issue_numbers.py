"""No issue numbers in the code a reader reads: src/, configs/, workflows/ and the Snakefile.

A comment or docstring that says "(issue 31)" or "since issue 30's typed settings" sends its reader to a tracker
that a successor may not have, and tells them when something happened instead of why it is so. A comment states
the reason or the behaviour in the present tense; the history belongs to the commit messages."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = ("src", "configs", "workflows", "Snakefile", "benchmarks")

# `issue 12`, `issue #12`, `issues 12`, `Issue 12`, any case
ISSUE_NUMBER = re.compile(r"\bissues?\s*#?\s*\d", re.IGNORECASE)


def _files():
    for root in ROOTS:
        path = REPO / root
        paths = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in paths:
            if "__pycache__" in p.parts or any(part.endswith(".egg-info") for part in p.parts):
                continue
            yield p.relative_to(REPO).as_posix(), p


def test_pattern_catches_each_spelling():
    for text in ("(issue 31)", "issue #12", "Issues 12 and 15", "ISSUE 8:", "issue 30's typed settings"):
        assert ISSUE_NUMBER.search(text), text
    for text in ("tissue 12", "an issue of scale", "issues: none", "#12"):
        assert not ISSUE_NUMBER.search(text), text


def test_no_issue_numbers():
    hits = []
    for name, path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # not text a reader reads
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            if ISSUE_NUMBER.search(line):
                hits.append(f"{name}:{lineno}: {line.strip()}")
    assert hits == [], "say why in the present tense, without the issue number:\n" + "\n".join(hits)
