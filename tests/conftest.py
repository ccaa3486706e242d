"""Shared test fixtures: the repository root and the real benchmark data folder (read-only)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = Path(os.environ.get("TAILMEM_DATA_DIR", REPO.parent / "shared" / "data")).resolve()
    if not path.exists():
        pytest.skip(f"benchmark data not found at {path} (set TAILMEM_DATA_DIR)")
    return path


# The files that run longest (one or two DAGs, stage chains or model sessions each) start first, longest first, then
# the other files with slow tests, then the rest, so that the two workers finish together. pytest-xdist hands out
# whole files in this order (--no-loadscope-reorder in pyproject.toml; it would otherwise start the files with the
# most tests first). test_workflow.py's smoke tests make the session's shared smoke run (tests/smoke_run.py); the
# other files that read it come last, so that the run is finished when they ask for it (a worker that asks
# earlier waits for it). Seconds measured file by file on this shared machine (load 2-7 on 2 cores, so quiet-machine
# seconds are lower): the shared smoke run 243 (load 2-3.5; 969 at load 4-11), test_llm_instruct 280 (its three model
# tests), fsmem_study_openai 107, test_determinism 50-78 (a re-run of 45-70 of the shared run's jobs),
# test_extending 73 (its slow tests), alfworld_determinism 60, alfworld_excluded 50, test_rerun_digests 25 (dry
# runs of the shared run).
LONGEST_FIRST = (
    "test_workflow.py",
    "llm/test_llm_instruct.py",
    "pipeline/test_fsmem_study_openai.py",
    "alfworld/test_alfworld_excluded.py",
    "alfworld/test_alfworld_determinism.py",
    "test_extending.py",
)
READ_THE_SMOKE_RUN = ("test_rerun_digests.py", "test_determinism.py")


def pytest_collection_modifyitems(config, items):
    def file_of(item) -> str:
        return item.nodeid.split("::", 1)[0].removeprefix("tests/")

    with_slow = {file_of(i) for i in items if i.get_closest_marker("slow")}

    def rank(item) -> tuple[int, int]:
        f = file_of(item)
        if f in LONGEST_FIRST:
            return 0, LONGEST_FIRST.index(f)
        if f in READ_THE_SMOKE_RUN:
            return 3, READ_THE_SMOKE_RUN.index(f)
        return (1 if f in with_slow else 2), 0

    items.sort(key=rank)  # stable: each file keeps its own order


@pytest.fixture(scope="session")
def smoke(tmp_path_factory, repo_root, data_dir):
    """The session's one finished smoke DAG (tests/smoke_run.py), shared by every test and worker that reads it."""
    from smoke_run import smoke_run

    return smoke_run(tmp_path_factory, repo_root, data_dir)
