"""The warm server (tailmem.warmstart): a job forked from it sees exactly what a cold job sees, leaves the same
artifact, dies with its client, and a code change sends jobs back to the cold path instead of running old code."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tailmem import warmstart

# slow: every test starts warm servers and stage processes (1-5 s each)
pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent


@pytest.fixture()
def runtime(monkeypatch):
    """A private runtime folder (short: a socket name has at most 108 bytes), so this test's server is nobody
    else's; servers idle out after 5 s."""
    folder = Path(tempfile.mkdtemp(prefix="tw", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    monkeypatch.setenv("TAILMEM_WARMSTART_IDLE_S", "5")
    monkeypatch.delenv("TAILMEM_WARMSTART", raising=False)
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _client(args, cwd, entry="warm_entries:report", env=None, **kw):
    code = (
        "import sys; sys.path.insert(0, %r); from tailmem import warmstart; "
        "sys.exit(warmstart.client(sys.argv[1:], %r))" % (str(HERE), entry)
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        **kw,
    )


def _wait_for_server(timeout=60.0):
    path = warmstart.socket_path()
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"no warm server at {path}"
        time.sleep(0.1)
    return path


def test_a_forked_job_sees_its_own_argv_folder_environment_and_streams(runtime, tmp_path):
    cold = _client(["3", "x"], tmp_path, env={"WARM_MARKER": "one", "TAILMEM_WARMSTART": "0"})
    assert cold.returncode == 3 and "marker=one" in cold.stdout and "to stderr" in cold.stderr
    assert "warm=False" in cold.stdout
    job = tmp_path / "job"
    job.mkdir()
    warm = _client(["5", "y"], job, env={"WARM_MARKER": "two"})
    assert warm.returncode == 5
    assert f"argv=['5', 'y'] cwd={job} marker=two" in warm.stdout and "to stderr" in warm.stderr
    assert "warm=True" in warm.stdout
    client_pid = warm.stdout.split("pid=")[1].split()[0]
    assert client_pid != str(os.getpid())


def test_jobs_that_find_no_server_start_one_and_wait_for_it(runtime, tmp_path, monkeypatch):
    """A DAG's first jobs all start at once and find no socket. One server starts (before the lock, each job
    started its own, ~7 s of imports apiece on a 2-core machine), and they run in it once it listens."""
    log = tmp_path / "server.log"
    monkeypatch.setenv("TAILMEM_WARMSTART_LOG", str(log))
    code = (
        "import sys; sys.path.insert(0, %r); from tailmem import warmstart; "
        "sys.exit(warmstart.client(sys.argv[1:], 'warm_entries:report'))" % str(HERE)
    )
    jobs = [
        subprocess.Popen([sys.executable, "-c", code, "0"], cwd=tmp_path, stdout=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    outs = [j.communicate(timeout=120)[0] for j in jobs]
    assert all(j.returncode == 0 for j in jobs)
    assert sum("warm=True" in o for o in outs) >= 5, outs  # at most a job that found the lock free but late
    assert log.read_text().count("listening on") == 1, log.read_text()


def test_the_servers_preloaded_token_table_encodes_as_tiktoken_does(runtime, tmp_path):
    """The server loads tiktoken's o200k table once (1.3 s a job before); a forked job's ids are tiktoken's own."""
    import tiktoken

    from tailmem.llm.tokens import ensure_offline_cache

    ensure_offline_cache("o200k_base")
    text = "Heavy-tailed memory: the core gets r^-tau of the budget."
    expected = tiktoken.get_encoding("o200k_base").encode_ordinary(text)
    _client(["0"], tmp_path)
    _wait_for_server()
    deadline = time.monotonic() + 60
    while True:  # the table loads between jobs, after the graph-world libraries
        out = _client([text], tmp_path, entry="warm_entries:tokens").stdout
        assert "warm=True" in out
        if "preloaded=True" in out or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert "preloaded=True" in out
    assert f"ids={expected}" in out


def test_a_stage_leaves_the_same_artifact_warm_and_cold(runtime, tmp_path, data_dir):
    def graphworld(folder, **env):
        done = _client(
            ["graphworld", "scale=smoke", f"out={folder}", f"results_dir={tmp_path}/r"],
            tmp_path,
            entry="tailmem.cli:main",
            env={"TAILMEM_DATA_DIR": str(data_dir), **env},
        )
        assert done.returncode == 0, done.stderr
        return done

    graphworld(tmp_path / "cold", TAILMEM_WARMSTART="0")
    graphworld(tmp_path / "first")
    _wait_for_server()
    warm = graphworld(tmp_path / "warm")
    assert "tailmem timing: startup" in warm.stdout  # the stage's log reached the job's stdout
    for name in ("world.json",):
        assert (tmp_path / "warm" / name).read_bytes() == (tmp_path / "cold" / name).read_bytes()
    meta = json.loads((tmp_path / "warm" / "meta.json").read_text())
    assert meta["config_digest"] == json.loads((tmp_path / "cold" / "meta.json").read_text())["config_digest"]


def test_a_bad_override_fails_the_same_way_warm(runtime, tmp_path):
    _client(["0"], tmp_path)
    _wait_for_server()
    bad = _client(["graphworld", "scale=smoke", "graph.n=abc"], tmp_path, entry="tailmem.cli:main")
    assert bad.returncode == 1 and "graph.n='abc': expected an integer" in bad.stdout + bad.stderr


def test_killing_the_client_kills_its_job(runtime, tmp_path):
    _client(["0"], tmp_path)
    _wait_for_server()
    pid_file = tmp_path / "pid"
    code = (
        "import sys; sys.path.insert(0, %r); from tailmem import warmstart; "
        "sys.exit(warmstart.client([%r], 'warm_entries:linger'))" % (str(HERE), str(pid_file))
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path)
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int(pid_file.read_text())
    assert child != proc.pid  # the job ran in a forked child of the server
    proc.terminate()
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _alive(child):
        assert time.monotonic() < deadline, "the job outlived its client"
        time.sleep(0.05)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[1].split()[0] != "Z"


def test_a_changed_source_file_sends_jobs_to_the_cold_path(runtime, tmp_path):
    """A server never runs a job with code older than the checkout: after an edit it answers `stale`, the job
    runs cold (and right), and the old server stops taking jobs."""
    _client(["0"], tmp_path)
    path = _wait_for_server()
    warm = _client(["0"], tmp_path)
    server_child = warm.stdout.split("pid=")[1].split()[0]
    source = Path(warmstart.__file__)
    before = source.stat()
    try:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
        inode = path.stat().st_ino
        after = _client(["0"], tmp_path)
        assert after.returncode == 0 and "marker" in after.stdout
        assert after.stdout.split("pid=")[1].split()[0] != server_child
        assert not path.exists() or path.stat().st_ino != inode  # the stale server gave up its socket
    finally:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_jobs_writing_into_the_servers_start_folder_keep_it_warm(runtime, tmp_path, monkeypatch):
    """The folder a server started in is on its import path ('' in PYTHONPATH, or sys.path[0]); jobs write there
    all the time, which must not count as an install (bench_dag.py: a stale server sent jobs cold mid-DAG)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", os.environ.get("PYTHONPATH", "")]))
    _client(["0"], tmp_path)
    _wait_for_server()
    for k in range(3):
        (tmp_path / f"artifact{k}").mkdir()
        assert "warm=True" in _client(["0"], tmp_path).stdout


def test_the_switch_turns_the_warm_path_off(runtime, tmp_path):
    done = _client(["0"], tmp_path, env={"TAILMEM_WARMSTART": "0"})
    assert done.returncode == 0
    time.sleep(1)
    assert not warmstart.socket_path().exists()  # nothing was started
    assert str(runtime) in str(warmstart.socket_path())


def test_inside_a_slurm_job_jobs_run_cold_unless_asked(runtime, tmp_path):
    """A server in a SLURM allocation would count against the job's memory limit and die with the step."""
    done = _client(["0"], tmp_path, env={"SLURM_JOB_ID": "42"})
    assert done.returncode == 0 and "warm=False" in done.stdout
    time.sleep(1)
    assert not warmstart.socket_path().exists()
    _client(["0"], tmp_path, env={"SLURM_JOB_ID": "42", "TAILMEM_WARMSTART": "1"})
    _wait_for_server()
    assert "warm=True" in _client(["0"], tmp_path, env={"SLURM_JOB_ID": "42", "TAILMEM_WARMSTART": "1"}).stdout


def _one_answer(answer: bytes):
    """A stand-in server at the socket path that takes one job and answers `answer` (then hangs up)."""
    import socket
    import threading

    path = warmstart.socket_path()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def serve():
        conn, _ = listener.accept()
        conn.recv(65536)
        if answer:
            conn.sendall(answer)
        conn.close()
        listener.close()
        path.unlink()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_server_gone_before_forking_means_a_cold_run_and_after_forking_a_failed_job(runtime, tmp_path):
    """Nothing ran: the job runs in its own process. The job started: it is never run a second time beside the
    orphaned child; the client fails it, saying why."""
    t = _one_answer(b"")
    before = _client(["0"], tmp_path)
    t.join(10)
    assert before.returncode == 0 and "warm=False" in before.stdout
    assert not warmstart.socket_path().exists()  # a server was there: the cold run started none
    t = _one_answer(warmstart.FORKED)
    after = _client(["0"], tmp_path)
    t.join(10)
    assert after.returncode == 1 and "marker" not in after.stdout and "went away while this job ran" in after.stderr
