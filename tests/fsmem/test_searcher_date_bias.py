"""The small searcher answered a session date instead of the thing asked (default_model, 10 of 15 LoCoMo
questions, e.g. "Which band was Dave's favorite?" -> "20 April, 2023"). Two causes, each pinned here on the real
conv-50 store the slice searches: every frontmatter description and session heading holds the session date, so
a grep for a question's words plus its date (`Dave's|favorite|April|2023`) spent its 12-line page on them; and
the answer format's only worked example was a date."""

import os
import re
from pathlib import Path

from tailmem.data import locomo as locomo_data
from tailmem.fsmem.store import Store
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
