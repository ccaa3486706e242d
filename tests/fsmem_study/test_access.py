"""The store-access audit: reads counted per file and section from search traces, and CCDF data."""

import numpy as np

from tailmem.fsmem.access import count_reads
from tailmem.fsmem.agents import searcher
from tailmem.fsmem.store import Store, render
from tailmem.fsmem.tools.center import center
from tailmem.studies.fsmem.access import audit_counts, ccdf_points


def small_store(root):
    store = Store(root)
    (store.root / "people").mkdir()
    (store.root / "people/ann.md").write_text(
        render(
            "Ann",
            "# Ann\n## 1 May, 2023 (session 1)\n- [D1:1] Ann: I adopted a puppy named Rex.\n"
            "## 2 May, 2023 (session 2)\n- [D2:1] Ann: Rex loves the beach.\n",
        )
    )
    (store.root / "people/bob.md").write_text(
        render("Bob", "# Bob\n## 1 May, 2023 (session 1)\n- [D1:2] Bob: I play the violin.\n")
    )
    return store


def test_counts_from_hand_traces(tmp_path):
    store = small_store(tmp_path / "s")
    traces = [
        [
            ["view", {"path": "people/ann.md", "view_range": [6, 6]}, True],  # line 6: session 1 section of ann
            ["read_section", {"path": "people/ann.md", "heading": "2 May"}, True],
            ["grep", {"pattern": "Rex"}, True],  # not a read
            ["view", {"path": "people/bob.md"}, False],
        ],  # failed: not a read
        [
            ["bash", {"command": "sed -n '6p' people/bob.md | head -1"}, True],
            ["bash", {"command": "cat people/missing.md"}, True],
        ],
    ]
    acc = count_reads(store, traces)
    assert acc.files == {"people/ann.md": 2, "people/bob.md": 1}
    assert acc.sections["people/ann.md#5 1 May, 2023 (session 1)"] == 1
    assert acc.sections["people/ann.md#7 2 May, 2023 (session 2)"] == 1
    assert acc.sections["people/bob.md#5 1 May, 2023 (session 1)"] == 1
    assert acc.sections["people/ann.md#4 Ann"] == 0 and acc.unresolved == 1
    assert len(acc.sections) == (1 + 3) + (1 + 2)  # per file: the frontmatter preamble + its headings


def test_programmatic_searcher_traces_are_counted(tmp_path):
    store = small_store(tmp_path / "s")
    h = center(store)
    traces = []
    for q in ("What is the name of Ann's puppy?", "What instrument does Bob play?", "Where does Rex love to go?"):
        start = len(h.trace)
        searcher.answer_programmatic(q, h)
        traces.append(h.trace[start:])
    acc = count_reads(store, traces)
    assert acc.files["people/ann.md"] >= 2 and acc.files["people/bob.md"] >= 1
    counts = np.array(list(acc.sections.values()), dtype=float)
    xs, ys = ccdf_points(counts)
    assert ys[0] == 1.0 and np.all(np.diff(ys) < 0) and np.all(np.diff(xs) > 0)


def test_audit_of_heavy_tailed_counts():
    from omegaconf import OmegaConf

    rng = np.random.default_rng(0)
    counts = np.floor(rng.pareto(1.5, 400) + 1)
    a = OmegaConf.create({"top_fraction": 0.1, "pl_alpha_max": 10.0, "tpl_alpha_max": 10.0, "bootstrap": 20})
    rec = audit_counts(counts, a, seed=0)
    assert rec["tail"] == "ok" and 1.5 < rec["alpha"] < 4 and 0 <= rec["p_gof"] <= 1 and rec["gini"] > 0.3
