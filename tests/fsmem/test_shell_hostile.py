"""Issue 13: further hostile commands against the Shell build harness, beyond the issue's findings.

Each one runs in a fresh harness over the fenced store: the folder around the store hashes the same after,
no sandbox process is left, the output says what happened, and the store holds only what the store's own
checks accept (or exactly what it held before)."""

import os
import stat

import pytest
from sandbox_kit import become_subreaper, no_sandbox_left, release_subreaper

from fs_testkit import tree_hash
from tailmem.fsmem.sandbox import Limits, available
from tailmem.fsmem.store import parse
from tailmem.fsmem.tools.shell import shell_builder

pytestmark = pytest.mark.skipif(available() != "bwrap", reason="needs bubblewrap (apt-get install -y bubblewrap)")
LIMITS = Limits(timeout_s=5, max_output_chars=6000, scratch_bytes=1 << 20, max_inodes=2000)
NOTE = "---\\ndescription: a note\\n---\\n"
KEY = "sk-HOSTILE-CANARY-41b2"
SAME = "unchanged"  # the store must hash as before

HOSTILE = [
    # (id, command, every one of these in the output, store expectation: SAME or a set of files that must exist)
    ("mknod", "mknod dev.md c 1 3", ["Operation not permitted"], SAME),
    ("hardlink-proc", "ln /proc/1/environ env.md", ["env.md"], SAME),
    ("mount-over-memory", "mount -t tmpfs x /memory || echo refused", ["refused"], SAME),
    ("umount-memory", "umount -l /memory || echo refused", ["refused"], SAME),
    ("bind-mount", "mount --bind /scratch /memory || echo refused", ["refused"], SAME),
    ("chmod-000", "chmod 000 people/calvin.md people", ["[exit 0]"], SAME),
    ("chmod-setuid", f"printf -- '{NOTE}' > s.md; chmod 4755 s.md", ["wrote s.md"], {"s.md"}),
    ("truncate-huge", "truncate -s 10G big.md", ["File too large"], SAME),
    ("sparse-seek", "dd if=/dev/zero of=sp.md bs=1 count=1 seek=100M", ["File too large"], SAME),
    ("newline-name", f"printf -- '{NOTE}' > $'a\\nb.md'", ["control characters"], SAME),
    ("backslash-name", f"printf -- '{NOTE}' > 'a\\\\b.md'", ["backslashes"], SAME),
    ("invalid-utf8-name", f"printf -- '{NOTE}' > $'\\xff.md'", ["not valid UTF-8"], SAME),
    ("dash-name", f"printf -- '{NOTE}' > ./-rf.md", ["wrote -rf.md"], {"-rf.md"}),
    ("space-name", f"printf -- '{NOTE}' > 'two words.md'", ["wrote two words.md"], {"two words.md"}),
    ("hidden-dir", f"mkdir .git && printf -- '{NOTE}' > .git/x.md", ["hidden names"], SAME),
    ("yaml-anchor", "printf -- '---\\ndescription: &a x\\n---\\n' > a.md", ["anchors"], SAME),
    (
        "yaml-python-tag",
        "printf -- '---\\ndescription: !!python/object/apply:os.system [id]\\n---\\n' > t.md",
        ["t.md (t.md: frontmatter refused"],
        SAME,
    ),
    (
        "yaml-big",
        "{ printf -- '---\\ndescription: '; head -c 5000 /dev/zero | tr '\\\\0' x; printf '\\n---\\n'; } > b.md",
        ["at most 4096"],
        SAME,
    ),
    ("yaml-multiline", "printf -- '---\\ndescription: |\\n  a\\n  b\\n---\\n' > m.md", ["must be one line"], SAME),
    (
        "yaml-long-description",
        "printf -- '---\\ndescription: %s\\n---\\n' \"$(printf 'y%.0s' {1..301})\" > l.md",
        ["301 characters, at most 300"],
        SAME,
    ),
    ("yaml-list-description", "printf -- '---\\ndescription: [a, b]\\n---\\n' > d.md", ["non-empty string"], SAME),
    ("unclosed-frontmatter", "printf -- '---\\ndescription: x\\n' > u.md", ["never closed"], SAME),
    ("environ-snoop", "cat /proc/1/environ | tr '\\\\0' '\\n'; printenv", ["PATH=/usr/bin:/bin"], SAME),
    ("fd-snoop", "ls /proc/[0-9]*/fd/ | grep -c . ; ls /proc | grep -c '^[0-9]'", ["[exit 0]"], SAME),
    ("no-sys", "ls /sys/kernel || echo nosys", ["nosys"], SAME),
    ("no-host-files", "cat /etc/passwd /etc/shadow /root/.bashrc", ["No such file"], SAME),
    ("become-root", "setpriv --reuid=0 --regid=0 --init-groups id || echo refused", ["refused"], SAME),
    ("hostname", "hostname evil || echo refused", ["refused"], SAME),
    ("symlink-root", "ln -s / root; ln -s /memory loop.md", ["root (symlink to '/'", "loop.md (symlink"], SAME),
    ("deep-path", "mkdir -p $(printf 'd/%.0s' {1..130}) && echo made", ["characters, at most 256", "made"], set()),
    (
        "background-escape",
        "nohup sleep 100 >/dev/null 2>&1 & setsid sleep 100 & (trap '' TERM HUP; sleep 100) & echo bg",
        ["bg"],
        SAME,
    ),
    ("scratch-fill", "yes > /scratch/fill; yes > /tmp/fill; echo filled", ["No space left on device", "filled"], SAME),
    (
        "inode-fill",
        "for i in $(seq 3000); do :> /tmp/f$i || { echo stopped at $i; break; }; done",
        ["stopped at"],
        SAME,
    ),
    (
        "network",
        "echo x > /dev/tcp/127.0.0.1/80 || echo nonet; echo y > /dev/tcp/1.1.1.1/53 || echo nonet2",
        ["nonet", "nonet2"],
        SAME,
    ),
    ("escape-dotdot", f"printf -- '{NOTE}' > /memory/../escape.md || echo refused", ["Read-only file system"], SAME),
    ("write-usr", "echo x > /usr/bin/evil || echo refused", ["refused"], SAME),
    ("key-in-env", 'echo "[$OPENAI_API_KEY]"; env | grep -c KEY', ["[]"], SAME),
    ("rm-everything", "rm -rf /memory/* && echo gone", ["gone", "deleted people/calvin.md"], set()),
    (
        "fifo-and-socket",
        "mkfifo p.md; /usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind(\"k.md\")' "
        "2>/dev/null; echo made",
        ["p.md (fifo"],
        SAME,
    ),
    ("kill-everything", "kill -9 -1; echo survived", ["[exit"], SAME),
    ("exec-binary-kept-no-exec", f"printf -- '{NOTE}' > x.md; chmod +x x.md", ["wrote x.md"], {"x.md"}),
]


@pytest.fixture
def guarded(fenced, monkeypatch):
    become_subreaper()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    store, outside, around = fenced
    before = (tree_hash(outside), sorted(os.listdir(around)))
    yield store
    assert (tree_hash(outside), sorted(os.listdir(around))) == before
    assert no_sandbox_left() == [], "a sandboxed process outlived its command"
    release_subreaper()


@pytest.mark.parametrize("command,expect,files", [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_hostile_command(guarded, command, expect, files):
    store = guarded
    before = tree_hash(store.root)
    h = shell_builder(store, LIMITS)
    try:
        out = h.call("bash", {"command": command}).output
    finally:
        h.close()
    for e in expect:
        assert e in out, (e, out[-1500:])
    assert KEY not in out
    if files == SAME:
        assert tree_hash(store.root) == before, out[-1500:]
    else:
        assert files <= set(store.files()), (files, store.files(), out[-800:])
    for f in store.files():  # whatever was kept passes the store's checks and is a plain, non-executable file
        p = store.root / f
        mode = os.lstat(p).st_mode
        assert stat.S_ISREG(mode) and not mode & 0o7111, (f, oct(mode))
        parse(p.read_text(), f)
    # the store's own symlinks, never shown to the sandbox, are untouched
    assert (store.root / "escape").is_symlink() and (store.root / "people" / "link.md").is_symlink()


def test_at_least_thirty_further_cases():
    assert len(HOSTILE) >= 30
