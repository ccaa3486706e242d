"""The site of a small results tree: no broken internal link, every listed item opens its page, the overview holds
tables (paper columns, claims verdicts), figures and provenance, and the item pages hold what issue 17 lists."""

import json
import re

from sitekit import MODEL, TOOL_OUTPUT, broken_links, items_of, parse

from tailmem.site_build import build_site


def test_no_broken_internal_link(fixture_site):
    site, record, _ = fixture_site
    assert record["pages"] == len(list(site.rglob("*.html")))
    assert broken_links(site) == []


def test_every_listed_question_links_to_its_page(fixture_site):
    site, record, _ = fixture_site
    for section in ("fsmem", "longmemeval", "control", "alfworld"):
        index = site / section / "index.html"
        html = index.read_text()
        body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
        rows = [r for r in body.split("<tr>")[1:]]
        assert len(rows) == record["rows"][section] > 0, section
        assert all('<a href="' in r for r in rows), f"{section}: a row without a link to its page"
        for item in items_of(site, section):  # the rows the filters and search go through
            target = (index.parent / item["h"].split("#")[0]).resolve()
            assert target.is_file(), item["h"]
            assert target != index.resolve()


def test_overview_has_tables_paper_values_verdicts_figures_and_provenance(fixture_site):
    site, _, _ = fixture_site
    html = (site / "index.html").read_text()
    assert "locomo conv-50: filesystem-memory variants" in html and "<strong>offline</strong>" in html
    assert '<th class="paper">F1_paper</th>' in html and 'class="right paper">0.610' in html  # paper values marked
    assert 'claim-held">HELD' in html and 'claim-inconclusive">INCONCLUSIVE' in html
    assert 'src="figures/fig_test.png"' in html and (site / "figures/fig_test.png").is_file()
    assert "abc123def456" in html and "0123456789abcdef" in html  # commit and config digest from meta.json
    assert "programmatic-searcher" in html  # agents per role
    assert 'href="fsmem/index.html#variant=verbatim"' in html  # a table row opens the questions behind it
    assert 'href="control/index.html#arm=graph_memory-compact"' in html
    assert not re.search(r"\bnan\b", html)  # a missing value is drawn as a dash


def test_filesystem_page_has_calls_outputs_files_store_and_agent(fixture_site):
    site, _, _ = fixture_site
    page = site / "fsmem/locomo/conv-50/programmatic/verbatim/answers/center/programmatic/q-0.html"
    html = page.read_text()
    assert "Programmatic agent" in html  # no model: no transcript, and the page says why
    assert (
        html.index("<strong>view</strong>") < html.index("<strong>grep</strong>") < html.index("read_section</strong>")
    )
    assert "Calvin flew to Tokyo" in html  # an output replayed through the harness over the same store
    assert "notes/trips.md" in html and "notes/trips.md &gt; Travel" in html  # files and sections read
    assert "failed" in html  # the failed call is shown as failed
    store_link = [v for a, v in parse(page).links if v.endswith("store.html")]
    assert store_link, "no link to the store it was answered over"
    assert "#f-notes_trips.md" in html


def test_model_searcher_page_reads_its_transcript_from_the_call_cache(fixture_site):
    site, _, _ = fixture_site
    html = (site / f"fsmem/locomo/conv-50/programmatic/agent_curated/answers/center/{MODEL}/q-0.html").read_text()
    assert "From the call cache" in html and MODEL in html
    assert TOOL_OUTPUT in html  # the tool output comes from the transcript, not a second copy
    assert "ANSWER: Tokyo" in html
    assert "Programmatic agent" not in html


def test_personamem_page_without_question_text_says_so(fixture_site):
    site, _, _ = fixture_site
    html = (site / "fsmem/personamem/32k/verbatim/answers/center/q-no-such-question.html").read_text()
    assert "does not hold the question text" in html and "not replayed for PersonaMem" in html


def test_longmemeval_control_and_alfworld_pages_mark_core_and_tail(fixture_site):
    site, _, _ = fixture_site
    lme = (site / "longmemeval/oracle/programmatic/seed0/q1.html").read_text()
    assert 'id="arm-graph_memory"' in lme and 'id="arm-ctmc-r0.75"' in lme
    assert '<span class="ln tail">S1 summary</span>' in lme and "evidence coverage" in lme
    step = (site / "control/semantic/programmatic/recency/modular/n30/seed0/programmatic/step-00002.html").read_text()
    assert 'id="arm-ctmc-compact-tau1"' in step and '<span class="ln tail">' in step and "evidence in prompt" in step
    assert not (site / "control/semantic/programmatic/recency/modular/n30/seed0/programmatic/step-00001.html").exists()
    game = next((site / "alfworld/memory").rglob("pick_and_place*.html")).read_text()
    assert "take book 1 from bed 1" in game and "bed 1: book 1" in game and "You are in the middle of a room." in game
    task = next((site / "alfworld/skills").rglob("task-0001.html")).read_text()
    assert "source: task 0" in task  # the guidance it was given
    assert "episodes/task_000.md" in task  # the store as it stood before it


def test_rebuild_replaces_the_site_whole(fixture_site, tmp_path):
    site, record, (results, figures, cfg) = fixture_site
    out = tmp_path / "site"
    first = build_site(results, figures, out, scale="fixture", cfg=cfg)
    (out / "stale.html").write_text("from an older build")
    second = build_site(results, figures, out, scale="fixture", cfg=cfg)
    assert not (out / "stale.html").exists()
    assert not out.with_name("site.partial").exists() and not out.with_name("site.old").exists()
    assert first["pages"] == second["pages"] == record["pages"]
    assert json.loads((out / "site.json").read_text())["pages"] == second["pages"]
    assert "no model ran" in (out / "index.html").read_text()  # without a call cache


def test_long_lists_are_paginated_and_every_page_links_to_the_others(fixture_site, tmp_path, monkeypatch):
    """Issue 17: list pages are cut into pages (200 rows at the default); here 1 row a page, so the fixture's lists
    span several pages, each reachable from the others, with no broken link and every row on exactly one page."""
    from tailmem import site_build as build
    from tailmem.site import pages
    from tailmem.site.pages import rel_link

    results, figures, cfg = fixture_site[2]
    monkeypatch.setattr(build, "PAGE_ROWS", 1)
    monkeypatch.setattr(build, "chunks", lambda rows: pages.chunks(rows, 1))
    out = tmp_path / "site"
    record = build_site(
        results,
        figures,
        out,
        scale="fixture",
        cfg=cfg,
        site_provenance={"commit": "abc123def456", "dirty": False, "digest": "feedfacefeedface"},
    )
    assert broken_links(out) == []
    for section in ("fsmem", "longmemeval", "control", "alfworld"):
        n = record["rows"][section]
        assert n > 1, section
        files = [out / pages.page_name(section, k) for k in range(1, n + 1)]
        assert all(f.is_file() for f in files) and not (out / pages.page_name(section, n + 1)).exists()
        for k, f in enumerate(files, start=1):
            html = f.read_text()
            assert f"page {k} of {n}" in html
            hrefs = {v for a, v in parse(f).links if a == "a.href"}
            others = {
                rel_link(pages.page_name(section, k), pages.page_name(section, j)) for j in range(1, n + 1) if j != k
            }
            assert others <= hrefs, (section, k)
            assert html.split("<tbody>", 1)[1].split("</tbody>", 1)[0].count("<tr>") == 1
