"""The Shell build harness: bash over a writable sandbox copy, synced back through the store's checks.

Hostile or careless commands change nothing outside the store, and inside it only regular .md files within the
limits are kept; everything else is named in the tool output."""

import os
import time

import pytest
from sandbox_kit import become_subreaper, no_sandbox_left, release_subreaper

from fs_testkit import tree_hash
from tailmem.fsmem.sandbox import Limits, available
from tailmem.fsmem.tools.shell import shell_builder

pytestmark = pytest.mark.skipif(available() != "bwrap", reason="the Shell build harness needs bubblewrap")
LIMITS = Limits(timeout_s=3, max_output_chars=4000)
NOTE = "---\ndescription: a note\n---\n"


@pytest.fixture
def builder(fenced):
    become_subreaper()
    store, outside, around = fenced
    h = shell_builder(store, LIMITS)
    before = (tree_hash(outside), sorted(os.listdir(around)))
    yield h, store, outside
    h.close()
    assert (tree_hash(outside), sorted(os.listdir(around))) == before  # nothing around the store changed
    assert no_sandbox_left() == [], "a sandboxed process outlived its command"
    release_subreaper()
    assert h.sandbox.cgroup is None


def bash(h, command):
    r = h.call("bash", {"command": command})
    return r.output


def test_writes_and_edits_reach_the_store(builder):
    h, store, _ = builder
    out = bash(
        h,
        f"mkdir -p topics && printf -- '{NOTE}## Cars\\n- [D3:1] a Ferrari\\n' > topics/cars.md "
        "&& sed -i 's/Ferrari/Ferrari 488/' people/calvin.md",
    )
    assert "[memory updated: wrote people/calvin.md, topics/cars.md]" in out
    assert store.read("topics/cars.md") == f"{NOTE}## Cars\n- [D3:1] a Ferrari\n"
    assert "Ferrari 488" in store.read("people/calvin.md")
    assert "Ferrari 488" in bash(h, "cat people/calvin.md")  # the next command sees what was kept


def test_rm_deletes_from_the_store(builder):
    h, store, _ = builder
    assert "deleted people/calvin.md" in bash(h, "rm people/calvin.md")
    assert "people/calvin.md" not in store.files() and not (store.root / "people/calvin.md").exists()
    # the store's own symlinks (never shown to the sandbox) are untouched
    assert (store.root / "escape").is_symlink() and (store.root / "people/link.md").is_symlink()


@pytest.mark.parametrize(
    "command,expect",
    [
        ("echo x > /usr/evil.md", "Read-only file system"),
        ("echo x > /etc/evil.md", "No such file"),
        ("echo x > ../evil.md; echo x > /evil.md", "[exit"),
        ("echo x > /scratch/keep.md; cp /scratch/keep.md /tmp/", "[exit 0]"),
    ],
)
def test_writing_outside_memory_changes_nothing(builder, command, expect):
    h, store, _ = builder
    files = store.files()
    assert expect in bash(h, command)
    assert store.files() == files
    assert "keep.md" not in bash(h, "ls /scratch /tmp ..")


def test_symlinks_are_not_kept_and_named(builder):
    h, store, outside = builder
    out = bash(h, "ln -s /etc/passwd pw.md; ln -s .. up; ln -s ../outside/secret.md people/s.md")
    assert "pw.md (symlink to '/etc/passwd'" in out and "up (symlink" in out and "people/s.md (symlink" in out
    assert not any(p.endswith(("pw.md", "s.md")) for p in store.files())
    assert "pw.md" not in bash(h, "ls")
    # replacing a memory file by a symlink keeps the previous version
    out = bash(h, "ln -sf /etc/passwd people/calvin.md")
    assert "people/calvin.md (symlink to '/etc/passwd'; only regular files are kept; previous version kept)" in out
    assert "Ferrari" in store.read("people/calvin.md") and not (store.root / "people/calvin.md").is_symlink()


def test_a_huge_file_is_refused(builder):
    h, store, _ = builder
    out = bash(h, "head -c 100000000 /dev/zero > big.md")
    assert "File size limit" in out and "big.md (8388608 bytes, at most 262144 per file)" in out
    assert "big.md" not in store.files() and "big.md" not in bash(h, "ls")


def test_store_total_cap(fenced):
    store, _, _ = fenced
    h = shell_builder(store, LIMITS, max_store_bytes=50_000)
    try:
        body = "x" * 20_000
        out = bash(h, " ".join(f"printf -- '{NOTE}{body}\\n' > f{i}.md;" for i in range(3)))
        assert "f2.md (the store would hold more than 50000 bytes)" in out
        assert {"f0.md", "f1.md"} <= set(store.files()) and "f2.md" not in store.files()
    finally:
        h.close()


def test_store_file_cap_and_long_refusal_lists(fenced):
    store, _, _ = fenced
    h = shell_builder(store, LIMITS, max_files=10)
    try:
        out = bash(h, f"for i in {{1..200}}; do printf -- '{NOTE}' > n$i.md; done")
        refused = out.split("[not kept: ")[1].split("]")[0]
        named = refused.count("(the store would hold more than 10 files)")
        more = int(refused.rsplit("; and ", 1)[1].split()[0])
        assert named + more == 191 and 20 <= named <= 50  # 200 new files, 9 kept beside calvin.md
        assert out.index("[not kept:") < out.index("[memory updated:")
        assert len(store.files()) == 10
    finally:
        h.close()


@pytest.mark.parametrize(
    "command,named",
    [
        ("echo x > notes.txt", "notes.txt (not a .md file"),
        ("mkfifo pipe.md", "pipe.md (fifo"),
        ("echo x > .hidden.md", ".hidden.md (path '.hidden.md': hidden names"),
        (
            "printf -- '---\\ndescription: [\\n---\\nx\\n' > bad.md",
            "bad.md (bad.md: frontmatter refused: not valid YAML",
        ),
        ("printf '\\377\\376' > bin.md", "bin.md (not UTF-8 text)"),
    ],
)
def test_other_files_are_not_kept(builder, command, named):
    h, store, _ = builder
    files = store.files()
    out = bash(h, command)
    assert named in out, out
    assert store.files() == files


def test_a_hard_link_is_kept_as_a_copy(builder):
    h, store, _ = builder
    assert "wrote hard.md" in bash(h, "ln people/calvin.md hard.md")
    assert store.read("hard.md") == store.read("people/calvin.md") and os.stat(store.root / "hard.md").st_nlink == 1


def test_network_is_absent(builder):
    h, _, _ = builder
    assert "unreachable" in bash(h, "echo hi > /dev/tcp/1.1.1.1/80")
    assert "lo" not in bash(h, "ls /sys/class/net 2>&1 | grep -v '^lo$' ; cat /proc/net/dev | tail -n +3 | grep -v lo:")


@pytest.mark.slow
def test_killed_commands_change_nothing(builder):
    h, store, _ = builder
    r = h.call("bash", {"command": "printf -- '---\\ndescription: d\\n---\\n' > slow.md; sleep 30"})
    assert not r.ok and "discarded" in r.output
    assert "changes to /memory were discarded" in bash(h, "echo x > loud.md; yes")
    assert "slow.md" not in store.files() and "loud.md" not in store.files()


@pytest.mark.slow
def test_background_processes_cannot_write_later(builder):
    h, store, _ = builder
    assert "started" in bash(h, f"(sleep 1; printf -- '{NOTE}late\\n' > late.md) & disown; echo started")
    time.sleep(1.5)
    assert "late.md" not in bash(h, "ls") and "late.md" not in store.files()


def test_folders_follow_the_sandbox(builder):
    h, store, _ = builder
    bash(h, "mkdir -p a/b")
    assert (store.root / "a/b").is_dir()
    assert "a" in bash(h, "ls")  # an empty folder survives between commands
    bash(h, "rm -r a people")
    assert not (store.root / "a").exists() and store.files() == []
    assert (store.root / "people").is_dir()  # still holds the store's own symlink, so it stays
