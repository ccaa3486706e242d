"""Hostile tool calls: each is refused or contained with a tool error, and nothing outside the store changes."""

import pytest
from sandbox_kit import become_subreaper, no_sandbox_left, release_subreaper

from fs_testkit import tree_hash
from tailmem.fsmem.sandbox import Limits, available
from tailmem.fsmem.tools.center import center_bm25
from tailmem.fsmem.tools.management import management

BIG = "x" * 300_000
MANAGEMENT_ATTACKS = [
    ("create", {"path": "../evil.md", "description": "d", "content": "x"}),
    ("create", {"path": "people/../../evil.md", "description": "d"}),
    ("create", {"path": "/tmp/evil.md", "description": "d"}),
    ("create", {"path": "/etc/evil.md", "description": "d"}),
    ("create", {"path": "~/evil.md", "description": "d"}),
    ("create", {"path": "escape/evil.md", "description": "d"}),
    ("create", {"path": "people/link.md", "description": "d"}),
    ("create", {"path": "big.md", "description": "d", "content": BIG}),
    ("create", {"path": "x" * 400 + ".md", "description": "d"}),
    ("create", {"path": "nul\x00.md", "description": "d"}),
    ("create", {"path": ".hidden.md", "description": "d"}),
    ("create", {"path": "two.md", "description": "line\nbreak"}),
    ("create", {"path": "notes.sh", "description": "d"}),
    ("create", {"path": "people/calvin.md", "description": "overwrite"}),
    ("str_replace", {"path": "escape/secret.md", "old_str": "secret", "new_str": "pwned"}),
    ("str_replace", {"path": "people/link.md", "old_str": "secret", "new_str": "pwned"}),
    ("str_replace", {"path": "people/calvin.md", "old_str": "description: Calvin's life", "new_str": "x: y"}),
    ("insert", {"path": "people/calvin.md", "insert_line": 1, "text": "injected: true"}),
    ("insert", {"path": "people/calvin.md", "insert_line": 0, "text": "---"}),
    ("insert", {"path": "people/calvin.md", "insert_line": 999, "text": "x"}),
    ("insert", {"path": "../../etc/passwd", "insert_line": 0, "text": "x"}),
    ("delete", {"path": ""}),
    ("delete", {"path": "/"}),
    ("delete", {"path": "."}),
    ("delete", {"path": ".."}),
    ("delete", {"path": "escape"}),
    ("delete", {"path": "escape/secret.md"}),
    ("rename", {"old_path": "people/calvin.md", "new_path": "../calvin.md"}),
    ("rename", {"old_path": "people", "new_path": "people/inner"}),
    ("rename", {"old_path": "", "new_path": "root2"}),
    ("rename", {"old_path": "escape", "new_path": "mine"}),
    ("rename", {"old_path": "people/calvin.md", "new_path": "escape/calvin.md"}),
    ("append_section", {"path": "escape/secret.md", "heading": "h", "text": "pwned"}),
    ("view", {"path": "../outside"}),
    ("view", {"path": "escape"}),
    ("rm_rf", {"path": ""}),
    ("create", {"path": "ok.md", "description": "d", "extra": 1}),
    ("insert", {"path": "people/calvin.md", "insert_line": "3", "text": "x"}),
]
READ_ATTACKS = [
    ("grep", {"pattern": "CANARY", "path": "escape"}),
    ("grep", {"pattern": "root", "path": "/etc"}),
    ("grep", {"pattern": "(", "path": ""}),
    ("grep", {"pattern": "a" * 1000}),
    ("toc", {"path": "../outside/secret.md"}),
    ("read_section", {"path": "people/link.md", "heading": "x"}),
    ("search", {"query": "q" * 5000}),
]
SHELL_ATTACKS = [
    ("touch /memory/new.md", "Read-only"),
    ("echo pwned > /memory/people/calvin.md", "Read-only"),
    ("cat /etc/passwd", "No such file"),
    ("ls /work /root /home 2>&1", "No such file"),
    ("echo hi > /dev/tcp/1.1.1.1/80", "unreachable"),
    ("echo hi > /dev/tcp/127.0.0.1/22", "refused"),
    ("sleep 30", "time limit"),
    ("yes", "truncated"),
    (":(){ :|:& };:", "[exit|time limit"),  # contained either way: bash's fork retries can outlast 2 s under load
    ("sleep 60 & disown; echo started", "started"),
    ("head -c 100000000 /dev/zero > /scratch/big", "File size limit"),
    ("cat escape/secret.md; cat people/link.md", "No such file"),
]


@pytest.mark.parametrize(
    "name,args", MANAGEMENT_ATTACKS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(MANAGEMENT_ATTACKS)]
)
def test_management_refuses(fenced, name, args):
    store, outside, around = fenced
    before = tree_hash(around)
    r = management(store).call(name, args)
    assert not r.ok and r.output.startswith("error: "), r.output
    assert tree_hash(around) == before


@pytest.mark.parametrize("name,args", READ_ATTACKS, ids=[n for n, _ in READ_ATTACKS])
def test_center_refuses(fenced, name, args):
    store, outside, around = fenced
    before = tree_hash(around)
    r = center_bm25(store).call(name, args)
    assert not r.ok and r.output.startswith("error: ") and "CANARY" not in r.output, r.output
    assert tree_hash(around) == before


@pytest.mark.slow
@pytest.mark.skipif(available() != "bwrap", reason="Shell harness needs bubblewrap (apt-get install bubblewrap)")
def test_shell_contains(fenced):
    from tailmem.fsmem.tools.shell import shell

    become_subreaper()
    store, outside, around = fenced
    before = tree_hash(around)
    h = shell(store, Limits(timeout_s=2, max_output_chars=4000))
    try:
        assert "Ferrari" in h.call("bash", {"command": "grep -rn Ferrari ."}).output
        for command, expect in SHELL_ATTACKS:
            out = h.call("bash", {"command": command}).output
            assert any(e in out for e in expect.split("|")), (command, out[-300:])
            assert no_sandbox_left() == [], ("a sandboxed process outlived its command", command)
    finally:
        h.close()
        release_subreaper()
    assert tree_hash(around) == before


def test_at_least_thirty_attacks():
    assert len(MANAGEMENT_ATTACKS) + len(READ_ATTACKS) + len(SHELL_ATTACKS) >= 30
