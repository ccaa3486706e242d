"""What went wrong in the default model slice's LoCoMo answers (the 1.5B model as searcher and judge, 15
questions), each pinned on the real conv-50 store it searches.

It answered a session date instead of the thing asked on 10 (e.g. "Which band was Dave's favorite?" -> "20 April,
2023"): every frontmatter description and session heading holds the date, so a grep for a question's words plus
its date (`Dave's|favorite|April|2023`) spent its 12-line page on them, and the answer format's only worked
example was a date. With those fixed, it called read_section with the question as the heading, then toc, and
hit the round cap on 7. The judge read a cited file from its top, cut at 3,000 characters, so a cited line
further down never reached it."""

import os
import re
from pathlib import Path

from tailmem.data import locomo as locomo_data
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.center import center
from tailmem.fsmem.tools.management import management
from tailmem.fsmem.tools.reading import COMPACT_GREP_RESULTS, grep
from tailmem.fsmem.variants import _session_file

DATA = os.environ.get("TAILMEM_DATA_DIR", str(Path(__file__).resolve().parents[3] / "shared" / "data"))
PROMPTS = Path(__file__).resolve().parents[2] / "configs" / "prompts" / "fsmem"
DATE = re.compile(
    r"\b\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|"
    r"December),? \d{4}\b"
)


def verbatim_store(tmp_path, sessions=4) -> Store:
    conv = locomo_data.load(f"{DATA}/locomo/locomo10.json", "conv-50")
    store = Store(tmp_path / "verbatim")
    h = management(store)
    for s in conv.sessions[:sessions]:
        name, desc, body = _session_file(s, conv.speakers)
        h.call("create", {"path": name, "description": desc, "content": body})
    return store


def test_a_grep_page_is_spent_on_dialogue_lines_not_on_dated_headers(tmp_path):
    store = verbatim_store(tmp_path)
    page = grep(store, "Dave's|favorite|April|2023", max_results=COMPACT_GREP_RESULTS, sections=True)
    hits = [line for line in page.splitlines() if not line.startswith(("== ", "["))]
    assert not [h for h in hits if ":description:" in h or re.match(r"^\S+:\d+:#", h)], page
    assert any("favorite, it would definitely be Aerosmith" in h for h in hits), page
    # the date still reaches the searcher, once per section, above the hits it dates
    assert "== session_02.md # 26 March, 2023 (session 2)" in page.splitlines()


def test_a_heading_that_matches_is_named_once_and_costs_no_hit(tmp_path):
    store = verbatim_store(tmp_path, sessions=2)
    page = grep(store, "March|Japan", max_results=1, sections=True).splitlines()
    assert page[0] == "== session_01.md # 23 March, 2023 (session 1)"
    assert re.match(r"^session_01\.md:\d+:\[D1:\d+\] .*Japan", page[1]), page
    assert re.match(r"^\[\d+ more matches not shown\]$", page[2]) and len(page) == 3, page


def test_the_small_searchers_answer_format_shows_no_date_as_its_example():
    for name in ("search_filesystem_compact.md", "search_chunks_compact.md"):
        fmt = next(line for line in (PROMPTS / name).read_text().splitlines() if line.startswith("ANSWER:"))
        assert not DATE.search(fmt), f"{name}: {fmt}"


def test_the_small_searcher_is_offered_grep_and_view_only(tmp_path):
    harness = center(verbatim_store(tmp_path, sessions=1))
    offered = [s["function"]["name"] for s in harness.schemas(compact=True)]
    assert offered == ["view", "grep"]
    assert {"toc", "read_section"} <= {s["function"]["name"] for s in harness.schemas()}  # a large model keeps them


def test_the_small_judge_is_shown_the_cited_line_wherever_it_is(tmp_path):
    from tailmem.fsmem.agents.judge import CITED_CHARS_COMPACT, CITED_LINES_AROUND, cited_text

    store = verbatim_store(tmp_path, sessions=2)
    lines = store.read("session_02.md").splitlines()
    far = next(i for i in range(len(lines), 0, -1) if len("\n".join(lines[:i])) > CITED_CHARS_COMPACT)
    shown = cited_text(store, (f"session_02.md:{far}",), CITED_CHARS_COMPACT, CITED_LINES_AROUND)
    assert lines[far - 1] in shown and f"(lines {far - CITED_LINES_AROUND}-" in shown
    assert len(shown) < 2_000  # the window, not the file
    # a large judge still reads the whole file; without `around` the compact cut never reaches that line
    assert lines[far - 1] not in cited_text(store, (f"session_02.md:{far}",), CITED_CHARS_COMPACT)
