"""Issue 13: each reproduced finding as a regression test (the numbers are the issue's).

Every Shell test hashes the folder around the store before and after, and checks that no process the sandbox
started is still alive (the test process is a child subreaper, so nothing can escape to init unseen)."""

import io
import os
import resource
import sys
import tarfile
import time
from pathlib import Path

import pytest
from sandbox_kit import become_subreaper, no_sandbox_left, release_subreaper, run_unprivileged

from fs_testkit import tree_hash
from tailmem.fsmem import sandbox as sandbox_mod
from tailmem.fsmem.errors import FsmemError, ToolError
from tailmem.fsmem.sandbox import Limits, Sandbox, available
from tailmem.fsmem.store import MAX_NAME_BYTES, Store, parse
from tailmem.fsmem.tools import shell as shell_mod
from tailmem.fsmem.tools.management import management
from tailmem.fsmem.tools.shell import read_tree, shell, shell_builder, sync

needs_bwrap = pytest.mark.skipif(available() != "bwrap", reason="needs bubblewrap (apt-get install -y bubblewrap)")
LIMITS = Limits(timeout_s=5, max_output_chars=8000)
NOTE = "---\ndescription: a note\n---\n"
KEY = "sk-CANARY-7c1d9e-not-a-real-key"
NESTED = "---\ndescription: " + "[" * 6000 + "\n---\nbody\n"  # the 6 KB: past the size cap
DEEP = "---\ndescription: " + "[" * 3000 + "\n---\nbody\n"  # within the size cap: past the depth cap
ALIAS = "---\ndescription: *i\n---\nbody\n"
LAUGHS = (
    "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
    "description: *i\n---\nbody\n"
)


@pytest.fixture
def guarded(fenced):
    """(store, around): the folder around the store hashes the same after the test, and no sandbox process
    is left. The store itself may change (that is what a builder does), the rest may not."""
    become_subreaper()
    store, outside, around = fenced
    before = (tree_hash(outside), sorted(os.listdir(around)))
    yield store, around
    assert (tree_hash(outside), sorted(os.listdir(around))) == before
    assert no_sandbox_left() == [], "a sandboxed process outlived its command"
    release_subreaper()


def call(h, command):
    return h.call("bash", {"command": command})


# -- 1. no host environment or host path inside ---------------------------------------------------------------
SNOOP = (
    "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; tr '\\0' ' ' < $p/cmdline; echo; done; "
    "cat /proc/self/mountinfo /proc/1/mountinfo /proc/mounts; env; ls -a / /memory /scratch /tmp; "
    "cat /proc/self/cgroup; grep -r . /proc/self/root/etc 2>/dev/null | head"
)


@needs_bwrap
@pytest.mark.parametrize("builder", [False, True], ids=["search", "build"])
def test_1_no_key_and_no_host_path_inside(guarded, monkeypatch, builder):
    store, around = guarded
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("TMPDIR", str(around))
    h = (shell_builder if builder else shell)(store, LIMITS)
    try:
        out = call(h, SNOOP).output
    finally:
        h.close()
    assert "PATH=/usr/bin:/bin" in out and "bash --noprofile" in out  # the snoop did read environ and cmdline
    for secret in (KEY, "OPENAI", str(around), str(store.root), "/tmp/pytest-of", sys.prefix, os.getcwd(), "HOSTNAME="):
        assert secret not in out, secret
    assert "bwrap" not in out  # the sandbox cannot see bwrap's argv (its own PID namespace holds only the command)


# -- 2. frontmatter that crashed or exhausted the host --------------------------------------------------------
@pytest.mark.parametrize(
    "text,why",
    [(NESTED, "at most 4096"), (DEEP, "nested deeper"), (LAUGHS, "anchors"), (ALIAS, "aliases")],
    ids=["nested", "deep", "laughs", "alias"],
)
def test_2_hostile_frontmatter_is_refused_fast(tmp_path, text, why):
    t = time.monotonic()
    with pytest.raises(ToolError, match=why):
        parse(text, "x.md")
    assert time.monotonic() - t < 1.0
    store = Store(tmp_path / "s")
    (store.root / "bad.md").write_text(text)
    m = management(store)
    r = m.call("str_replace", {"path": "bad.md", "old_str": "body", "new_str": "b"})
    assert not r.ok and why in r.output and r.error_type == "ToolError"
    r = m.call("view", {"path": ""})
    assert r.ok and "bad.md" in r.output and "(unreadable frontmatter)" in r.output
    assert m.call("create", {"path": "c.md", "description": "d", "content": "x"}).ok


@needs_bwrap
@pytest.mark.parametrize(
    "text,why",
    [(NESTED, "at most 4096"), (DEEP, "nested deeper"), (LAUGHS, "anchors")],
    ids=["nested", "deep", "laughs"],
)
def test_2_hostile_frontmatter_through_the_build_sync(guarded, text, why):
    store, _ = guarded
    h = shell_builder(store, LIMITS)
    try:
        t = time.monotonic()
        r = call(h, f"cat > bad.md <<'EOF'\n{text}EOF")
        assert time.monotonic() - t < 3.0
        assert r.ok and "bad.md (bad.md: frontmatter refused" in r.output and why in r.output
        assert "bad.md" not in store.files()
    finally:
        h.close()


def test_2_any_tool_failure_is_a_tool_error_with_its_type(tmp_path):
    from tailmem.fsmem.tools.base import Harness, Tool, params

    h = Harness("t")
    for exc in (RecursionError("deep"), MemoryError(), KeyError("k"), AttributeError("a")):
        h.add(Tool(type(exc).__name__, "raises", params({}), lambda exc=exc: (_ for _ in ()).throw(exc)))
    results = [h.call(name, {}) for name in list(h.tools)]
    assert [r.error_type for r in results] == ["RecursionError", "MemoryError", "KeyError", "AttributeError"]
    assert all(not r.ok and r.output.startswith(f"error: {r.name}: {r.name}") for r in results)
    assert h.errors == 4 and h.error_types == {
        "RecursionError": 1,
        "MemoryError": 1,
        "KeyError": 1,
        "AttributeError": 1,
    }


# -- 3. the tree channel cannot be forged; hostile archives are read safely ------------------------------------
FORGE = r"""
/usr/bin/python3 - <<'PY'
import io, os, tarfile
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
    i = tarfile.TarInfo("forged.md"); data = b"---\ndescription: forged\n---\n"; i.size = len(data)
    tf.addfile(i, io.BytesIO(data))
hits = 0
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    for fd in ("3", "4", "5", "10", "11"):
        try:
            with open(f"/proc/{pid}/fd/{fd}", "wb") as f:
                f.write(buf.getvalue()); hits += 1
        except OSError:
            pass
print("forged writes:", hits)
PY
"""


@needs_bwrap
def test_3_the_command_cannot_write_the_tree_channel(guarded):
    if not os.path.exists("/usr/bin/python3"):
        pytest.skip("no /usr/bin/python3 to build the forged archive inside the sandbox")
    store, _ = guarded
    h = shell_builder(store, LIMITS)
    try:
        r = call(h, FORGE)
        assert "forged writes: 0" in r.output, r.output
        assert "forged.md" not in store.files()
    finally:
        h.close()


def _sparse_gnu_member(name: str, logical: int) -> bytes:
    """A GNU sparse ('S') member declaring `logical` bytes with one 512-byte data block, built by hand."""
    hdr = bytearray(512)
    hdr[0 : len(name)] = name.encode()
    hdr[100:108] = b"0000644\0"
    hdr[108:116] = hdr[116:124] = b"0000000\0"
    hdr[124:136] = b"%011o\0" % 512
    hdr[136:148] = b"%011o\0" % 0
    hdr[156:157] = b"S"
    hdr[257:265] = b"ustar  \0"
    hdr[386:398] = b"%011o\0" % 0  # sparse[0].offset
    hdr[398:410] = b"%011o\0" % 512  # sparse[0].numbytes
    hdr[483:495] = b"%011o\0" % logical  # realsize
    hdr[148:156] = b"        "
    hdr[148:156] = b"%06o\0 " % sum(hdr)
    return bytes(hdr) + b"x" * 512


def _tar(*members: tarfile.TarInfo, data: bytes = b"") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for m in members:
            tf.addfile(m, io.BytesIO(data) if m.isreg() else None)
    return buf.getvalue()


def test_3_a_sparse_member_is_refused_before_any_read(tmp_path):
    store = Store(tmp_path / "s")
    archive = _sparse_gnu_member("big.md", 600 << 20) + b"\0" * 1024
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    files, _, refused = read_tree(store, archive)
    assert files == {} and refused == [("big.md", "sparse file; only regular files are kept")]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 100_000  # KiB: nothing near 600 MiB


def test_3_hard_links_and_other_entries_are_named_not_crashes(tmp_path):
    store = Store(tmp_path / "s")
    link = tarfile.TarInfo("l.md")
    link.type, link.linkname = tarfile.LNKTYPE, "missing.md"
    fifo, dev = tarfile.TarInfo("f.md"), tarfile.TarInfo("d.md")
    fifo.type, dev.type = tarfile.FIFOTYPE, tarfile.CHRTYPE
    sym = tarfile.TarInfo("s.md")
    sym.type, sym.linkname = tarfile.SYMTYPE, "/etc/passwd"
    files, _, refused = read_tree(store, _tar(link, fifo, dev, sym))
    assert files == {}
    assert dict(refused) == {
        "l.md": "hard link; only regular files are kept",
        "f.md": "fifo; only regular files are kept",
        "d.md": "character device; only regular files are kept",
        "s.md": "symlink to '/etc/passwd'; only regular files are kept",
    }


def test_3_declared_sizes_are_checked_before_reading(tmp_path):
    store = Store(tmp_path / "s", max_file_bytes=100)
    big = tarfile.TarInfo("big.md")
    big.size = 1000
    files, _, refused = read_tree(store, _tar(big, data=b"y" * 1000))
    assert files == {} and refused == [("big.md", "1000 bytes, at most 100 per file")]
    with pytest.raises(ToolError, match="could not be read back"):
        read_tree(store, b"garbage" * 100)


# -- 4. no silent unsafe fallback -------------------------------------------------------------------------------
def test_4_without_bwrap_the_shell_harness_refuses(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_mod, "bwrap_problem", lambda: "bwrap is not on PATH")
    store = Store(tmp_path / "s")
    for writable in (False, True):
        with pytest.raises(FsmemError, match=r"apt-get install -y bubblewrap.*allow_unsafe_fallback"):
            Sandbox(store.root, Limits(), writable=writable)
    with pytest.raises(FsmemError, match="never falls back"):
        Sandbox(store.root, Limits(allow_unsafe_fallback=True), writable=True)
    if sandbox_mod.available() == "unshare":
        sb = Sandbox(store.root, Limits(allow_unsafe_fallback=True))
        assert sb.kind == "unshare" and "unsafe" in sb.describe()["sandbox"]
        sb.close()


@needs_bwrap
def test_4_the_harness_records_which_sandbox_ran(guarded):
    store, _ = guarded
    for make in (shell, shell_builder):
        h = make(store, LIMITS)
        info = h.sandbox_info
        h.close()
        assert info["sandbox"] == "bwrap" and "inodes" in info["tmpfs"]
        assert info["caps"].startswith(("cgroup v", "rlimits"))


@needs_bwrap
def test_4_the_search_harness_cannot_change_the_store(guarded):
    store, _ = guarded
    before = tree_hash(store.root)
    h = shell(store, LIMITS)
    try:
        out = call(h, "echo x >> people/calvin.md; echo y > new.md; rm -rf people; ls").output
        assert "Read-only file system" in out
    finally:
        h.close()
    assert tree_hash(store.root) == before


# -- 5. half-applied syncs --------------------------------------------------------------------------------------
@needs_bwrap
@pytest.mark.parametrize("length", [MAX_NAME_BYTES + 1, 251, 255])
def test_5_long_names_are_refused_whole(guarded, length):
    store, _ = guarded
    before = tree_hash(store.root)
    h = shell_builder(store, LIMITS)
    try:
        name = "n" * (length - 3) + ".md"
        out = call(h, f"rm people/calvin.md; printf -- '{NOTE}' > {name}; ls").output
        assert f"bytes of UTF-8, at most {MAX_NAME_BYTES}" in out
        # the rest of the command (the delete) was applied, the long name was not, and nothing is half-done
        assert store.files() == [] and not any(len(p) > 250 for p in os.listdir(store.root))
        assert "calvin" not in call(h, "ls -R").output
    finally:
        h.close()
    assert tree_hash(store.root) != before


def test_5_management_create_refuses_long_names_as_a_tool_error(tmp_path):
    m = management(Store(tmp_path / "s"))
    for length in (251, 255, 256):
        r = m.call("create", {"path": "n" * (length - 3) + ".md", "description": "d"})
        assert not r.ok and r.error_type == "ToolError" and "bytes of UTF-8" in r.output
    assert m.call("create", {"path": "n" * (MAX_NAME_BYTES - 3) + ".md", "description": "d"}).ok


@needs_bwrap
def test_5_a_failing_sync_leaves_the_store_whole(guarded, monkeypatch):
    store, _ = guarded
    (store.root / "keep.md").write_text(NOTE + "keep\n")
    before = tree_hash(store.root)
    h = shell_builder(store, LIMITS)
    real_open = open
    count = {"n": 0}

    def flaky_open(path, mode="r", *a, **kw):  # the second new file of the staged tree cannot be written
        if "x" in mode:
            count["n"] += 1
            if count["n"] == 2:
                raise OSError(28, "No space left on device")
        return real_open(path, mode, *a, **kw)

    try:
        monkeypatch.setattr("builtins.open", flaky_open)
        r = call(h, f"rm keep.md; printf -- '{NOTE}new\\n' > a.md; printf -- '{NOTE}new\\n' > b.md")
        monkeypatch.undo()
        assert not r.ok and "the memory store was not changed" in r.output and r.error_type == "ToolError"
        assert tree_hash(store.root) == before
        assert "keep.md" in call(h, "ls").output  # the next command starts from the unchanged store
    finally:
        monkeypatch.undo()
        h.close()


# -- 6. sync time is bounded ------------------------------------------------------------------------------------
@needs_bwrap
def test_6_deep_trees_sync_fast_and_later_commands_stay_fast(guarded, monkeypatch):
    store, _ = guarded
    spent = []
    real_sync = shell_mod.sync

    def timed(*a, **kw):
        t = time.monotonic()
        try:
            return real_sync(*a, **kw)
        finally:
            spent.append(time.monotonic() - t)

    monkeypatch.setattr(shell_mod, "sync", timed)
    h = shell_builder(store, Limits(timeout_s=20))
    try:
        r = call(h, "for i in $(seq 300); do mkdir d; cd d; done")  # the 400 take ~3 s inside alone
        assert r.ok and "characters, at most 256" in r.output
        t = time.monotonic()
        assert call(h, "ls").ok
        later = time.monotonic() - t
    finally:
        h.close()
    assert spent[0] < 2.0 and later < 2.0, (spent, later)  # was 23.9 s and 11 s


def test_6_a_sync_past_its_deadline_changes_nothing(fenced):
    store, _, _ = fenced
    before = tree_hash(store.root)
    info = tarfile.TarInfo("late.md")
    data = NOTE.encode()
    info.size = len(data)
    with pytest.raises(ToolError, match="longer than the time limit.*not changed"):
        sync(store, _tar(info, data=data), deadline=time.monotonic() - 0.001)
    assert tree_hash(store.root) == before
    assert sync(store, _tar(info, data=data), deadline=time.monotonic() + 5).written == ["late.md"]


# -- 7. total caps ---------------------------------------------------------------------------------------------
@needs_bwrap
def test_7_no_nested_namespaces_and_no_remounts(guarded):
    store, _ = guarded
    h = shell_builder(store, LIMITS)
    try:
        out = call(
            h,
            "unshare -rm mount -t tmpfs x /memory && echo NESTED; unshare -m true && echo MOUNTNS; "
            "mount -t tmpfs x /memory && echo MOUNTED; umount /memory && echo UNMOUNTED; "
            "grep Cap /proc/self/status",
        ).output
        for bad in ("NESTED", "MOUNTNS", "MOUNTED", "UNMOUNTED"):
            assert bad not in out
        assert "CapEff:\t0000000000000000" in out and "CapBnd:\t0000000000000000" in out
    finally:
        h.close()


@needs_bwrap
def test_7_inode_and_size_caps(guarded):
    store, _ = guarded
    h = shell_builder(store, Limits(timeout_s=10, max_inodes=300, memory_bytes=1 << 20, scratch_bytes=1 << 20))
    try:
        for where in ("/memory", "/scratch", "/tmp"):
            out = call(
                h, f"cd {where} && for i in $(seq 1000); do :> f$i.txt || {{ echo stopped at $i; break; }}; done"
            ).output
            n = int(out.split("stopped at ")[1].split()[0])
            assert n <= 300, out[-200:]
            out = call(h, f"head -c 3000000 /dev/zero > {where}/big.bin; echo code $?").output
            assert "No space left on device" in out
    finally:
        h.close()


FORKS = """/usr/bin/python3 -c '
import os, time
n = 0
while n < 200:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    n += 1
print("forked", n)'"""


@pytest.mark.slow
@needs_bwrap
def test_7_one_memory_and_process_total(guarded):
    store, _ = guarded
    lim = Limits(timeout_s=15, max_memory_bytes=256 << 20, max_processes=32)
    h = shell_builder(store, lim)
    try:
        if h.sandbox.cgroup is None:
            pytest.skip("no writable cgroup here: the totals are rlimits (per process), as describe() says")
        assert (h.sandbox.cgroup.dirs[-1] / "pids.max").read_text().strip() == "32"
        if os.path.exists("/usr/bin/python3"):
            out = call(h, FORKS).output
            assert 0 < int(out.split("forked ")[1].split()[0]) < 32, out  # every process of the sandbox counts
            hold = "/usr/bin/python3 -c 'b = bytearray(120 << 20); import time; time.sleep(1.5); print(\"held\")'"
            out = call(h, f"for i in 1 2 3 4; do {hold} & done; wait").output
            assert out.splitlines().count("held") < 4 and "Killed" in out, (
                out
            )  # four processes of 120 MiB do not fit one 256 MiB total
    finally:
        h.close()


# -- 9. smaller -------------------------------------------------------------------------------------------------
@needs_bwrap
def test_9_refusals_come_before_a_long_list_of_writes(guarded):
    store, _ = guarded
    h = shell_builder(store, Limits(timeout_s=20, max_output_chars=8000))
    try:
        out = call(h, f"for i in $(seq 600); do printf -- '{NOTE}' > w$i.md; done; ln -s /etc/passwd pw.md").output
    finally:
        h.close()
    assert out.startswith("[not kept: pw.md (symlink")
    assert out.index("[not kept:") < out.index("[memory updated: wrote") and "more]" in out
    assert len(out) < 10_000 and len(store.files()) == 601


@needs_bwrap
def test_9_nfc_names_and_collisions(guarded):
    store, _ = guarded
    nfd, nfc = "cafe\u0301.md", "caf\u00e9.md"
    h = shell_builder(store, LIMITS)
    try:
        out = call(h, f"printf -- '{NOTE}' > {nfd}").output
        assert "wrote " + nfc in out and store.files()[0] == nfc
        out = call(h, f"printf -- '{NOTE}x\\n' > {nfd}").output  # now both spellings exist in the sandbox
        assert "Unicode NFC" in out and (store.root / nfc).read_text() == NOTE
    finally:
        h.close()


@needs_bwrap
@pytest.mark.parametrize(
    "content,why",
    [
        ("just text\\n", "no frontmatter"),
        ("---\\r\\ndescription: crlf\\r\\n---\\r\\nx\\r\\n", "CRLF"),
        ("---\\ntitle: no description\\n---\\n", "`description` must be a non-empty string"),
        ("---\\ndescription: 5\\n---\\n", "`description` must be a non-empty string"),
    ],
)
def test_9_files_without_valid_frontmatter_are_refused(guarded, content, why):
    store, _ = guarded
    h = shell_builder(store, LIMITS)
    try:
        out = call(h, f"printf -- '{content}' > f.md").output
        assert "f.md (f.md: " in out and why in out, out
        assert "f.md" not in store.files()
    finally:
        h.close()


# -- the same attacks as an unprivileged pipeline user ----------------------------------------------------------
def _attacks_as_nobody(work):
    sandbox_mod.bwrap_problem.cache_clear()  # the parent probed as root
    os.environ["OPENAI_API_KEY"] = KEY
    store = Store(Path(work) / "store")
    management(store).call("create", {"path": "a.md", "description": "a", "content": "x"})
    out = {"available": available(), "uid": os.getuid()}
    if out["available"] == "bwrap":
        h = shell_builder(store, Limits(timeout_s=5))
        out["info"] = h.sandbox_info
        out["snoop"] = call(h, SNOOP).output
        out["forge"] = call(h, FORGE).output
        out["nested"] = call(h, "unshare -rm true && echo NESTED; echo done").output
        out["long"] = call(h, f"printf -- '{NOTE}' > {'n' * 252}.md").output
        out["laughs"] = call(h, f"cat > bad.md <<'EOF'\n{LAUGHS}EOF").output
        t = time.monotonic()
        out["deep"] = call(h, "for i in $(seq 150); do mkdir d; cd d; done").output
        out["deep_s"] = time.monotonic() - t
        out["inodes"] = call(h, "for i in $(seq 30000); do :> /tmp/f$i || { echo stopped at $i; break; }; done").output
        h.close()
        r = shell(store, Limits(timeout_s=5))
        out["ro"] = call(r, "echo x >> a.md; echo y > b.md").output
        r.close()
    out["files"] = store.files()
    out["a"] = (store.root / "a.md").read_text()
    return out


@needs_bwrap
def test_as_an_unprivileged_user():
    become_subreaper()
    out = run_unprivileged(_attacks_as_nobody)
    if isinstance(out, str):
        pytest.skip(out)
    assert out["uid"] == 65534
    if out["available"] != "bwrap":
        pytest.skip(f"bubblewrap cannot build a sandbox for an unprivileged user here ({out['available']})")
    assert KEY not in out["snoop"] and "tailmem-nobody-" not in out["snoop"] and "PATH=/usr/bin:/bin" in out["snoop"]
    assert "forged writes: 0" in out["forge"] or not os.path.exists("/usr/bin/python3")
    assert "NESTED" not in out["nested"] and "done" in out["nested"]
    assert f"bytes of UTF-8, at most {MAX_NAME_BYTES}" in out["long"] and "anchors" in out["laughs"]
    assert "characters, at most 256" in out["deep"] and out["deep_s"] < 10
    assert "stopped at" in out["inodes"] and int(out["inodes"].split("stopped at ")[1].split()[0]) <= 20_000
    assert "Read-only file system" in out["ro"]
    assert out["files"] == ["a.md"] and out["a"].endswith("x\n")
    assert out["info"]["caps"].startswith("rlimits")  # nobody cannot create cgroups here; describe() says so
    assert no_sandbox_left() == []
    release_subreaper()
