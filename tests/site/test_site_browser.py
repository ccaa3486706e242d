"""The fixture site in a real browser (Debian's chromium, headless): the overview, each list and one page of each kind
render from file:// with no console message (a script error or a failed script would log one), the filter script
runs on a list whose URL names a filter, and a screenshot of each page is saved under the test's tmp folder."""

import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium; .ci/run installs it)"
)

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--window-size=1400,1600",
]


def _pages(site: Path) -> dict[str, str]:
    """name -> page (site-relative, with the URL fragment a reader would follow)."""

    def first(pattern):
        return next(site.glob(pattern)).relative_to(site).as_posix()

    return {
        "overview": "index.html",
        "fsmem-list-filtered": "fsmem/index.html#variant=verbatim&correct=partial",
        "fsmem-item": "fsmem/locomo/conv-50/programmatic/verbatim/answers/center/programmatic/q-0.html",
        "fsmem-store": "fsmem/locomo/conv-50/programmatic/verbatim/store.html#f-notes_trips.md",
        "longmemeval-list": "longmemeval/index.html",
        "longmemeval-item": "longmemeval/oracle/programmatic/seed0/q1.html#arm-ctmc-r0.75",
        "control-list": "control/index.html#arm=ctmc-compact-tau1",
        "control-step": first("control/**/step-00000.html"),
        "alfworld-list": "alfworld/index.html",
        "alfworld-game": first("alfworld/memory/**/pick_and_place*.html"),
        "alfworld-task": first("alfworld/skills/**/task-0001.html"),
    }


def _load(page_url: str, shot: Path, profile: Path) -> tuple[str, list[str]]:
    """(the DOM after scripts ran, the console lines) of one page; a screenshot is written to `shot`."""
    try:
        done = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", "--dump-dom", page_url],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"chromium could not run here: {exc}")
    if done.returncode != 0 and not done.stdout:
        pytest.skip(f"chromium could not run here (exit {done.returncode}): {done.stderr[-500:]}")
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, console


@pytest.mark.slow
def test_pages_render_without_console_errors(fixture_site, tmp_path):
    site, _, _ = fixture_site
    shots = tmp_path / "screenshots"
    shots.mkdir()
    for name, page in _pages(site).items():
        path, _, fragment = page.partition("#")
        url = (site / path).resolve().as_uri() + (f"#{fragment}" if fragment else "")
        dom, console = _load(url, shots / f"{name}.png", tmp_path / f"profile-{name}")
        assert console == [], f"{name}: {console}"
        assert "</main>" in dom, f"{name}: the page did not render"
        assert (shots / f"{name}.png").stat().st_size > 1000, f"{name}: empty screenshot"
        if name == "fsmem-list-filtered":  # the filter script ran over items.js and drew the matching rows
            assert 'id="dynamic" hidden' not in dom and "rows match" in dom
            assert 'id="static-part" hidden' in dom
        if name == "control-list":
            assert "2 of 4 rows match" in dom
    print(f"screenshots: {shots}")
