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
# most tests first), and gives a worker its next file once its current one has 2 tests or fewer left to run.
# test_workflow.py's smoke tests make the session's shared smoke run (tests/smoke_run.py): that worker is busy with
# it while the other one runs the other longest files. The files that read the run come next, longest first: the
# other worker asks for the first of them before the run is finished and waits for it (the run's two jobs then have
# both cores), and the many short files come last, so the two workers finish together. Handed out last, they had
# left one worker idle for the last 32 s (test_rerun_digests' dry runs after test_determinism's re-run).
# Seconds on a quiet machine (the suite on 8c71026): the shared smoke run 374, fsmem_study_openai 85,
# alfworld_excluded 57, alfworld_determinism 43, test_determinism 31 (a re-run of the shared run's jobs under
# another hash seed), test_extending 29, test_rerun_digests and test_design_rows_per_study a few dry runs of the
# shared run each; test_llm_instruct's two model tests took as long as alfworld_excluded beside it at load 7-8
# (115 s and 103 s).
LONGEST_FIRST = (
    "test_workflow.py",
    "pipeline/test_fsmem_study_openai.py",
    "llm/test_llm_instruct.py",
    "alfworld/test_alfworld_excluded.py",
    "alfworld/test_alfworld_determinism.py",
    "test_extending.py",
)
READ_THE_SMOKE_RUN = (
    "test_determinism.py",
    "test_rerun_digests.py",
    "control/test_design_rows_per_study.py",
    "test_registries.py",
)


def pytest_collection_modifyitems(config, items):
    def file_of(item) -> str:
        return item.nodeid.split("::", 1)[0].removeprefix("tests/")

    with_slow = {file_of(i) for i in items if i.get_closest_marker("slow")}

    def rank(item) -> tuple[int, int]:
        f = file_of(item)
        if f in LONGEST_FIRST:
            return 0, LONGEST_FIRST.index(f)
        if f in READ_THE_SMOKE_RUN:
            return 0, len(LONGEST_FIRST) + READ_THE_SMOKE_RUN.index(f)
        return (1 if f in with_slow else 2), 0

    items.sort(key=rank)  # stable: each file keeps its own order


@pytest.fixture(scope="session")
def smoke(tmp_path_factory, repo_root, data_dir):
    """The session's one finished smoke DAG (tests/smoke_run.py), shared by every test and worker that reads it."""
    from smoke_run import smoke_run

    return smoke_run(tmp_path_factory, repo_root, data_dir)
