"""Hierarchy metrics on hand-built stores whose ordering is known: a well-separated taxonomy against the same
files shuffled across its folders."""

import math

from tailmem.fsmem.hierarchy import measure, tree_distance
from tailmem.fsmem.store import Store, render

TOPICS = {
    "sports": {
        "soccer": "soccer ball goal match striker league",
        "tennis": "tennis racket serve court match set",
        "running": "running marathon race pace miles shoes",
    },
    "cooking": {
        "pasta": "pasta sauce boil noodles tomato basil",
        "baking": "baking bread oven flour dough yeast",
        "grilling": "grilling steak charcoal smoke barbecue meat",
    },
    "music": {
        "guitar": "guitar chords strings strum riff amplifier",
        "piano": "piano keys chords scales pedal recital",
        "singing": "singing voice choir song melody pitch",
    },
}


def _write(root, layout):
    store = Store(root)
    for folder, name, topic, words in layout:
        text = f"# {name}\n" + f"{topic} {words} {topic}\n" * 3 + f"More about {name} and {topic}: {words}.\n"
        (store.root / folder).mkdir(parents=True, exist_ok=True)
        (store.root / folder / f"{name}.md").write_text(render(f"Notes on {name}", text))
    return store


def stores(tmp_path):
    files = [(topic, name, topic, words) for topic, items in TOPICS.items() for name, words in items.items()]
    good = _write(tmp_path / "good", files)
    folders = list(TOPICS)
    shuffled = [(folders[i % 3], name, topic, words) for i, (_, name, topic, words) in enumerate(files)]
    bad = _write(tmp_path / "bad", shuffled)
    return good, bad


def test_taxonomy_beats_shuffle(tmp_path):
    good, bad = stores(tmp_path)
    g, b = measure(good), measure(bad)
    assert g.files == b.files == 9 and g.folders == b.folders == 3
    assert g.b1_label_distinguishability > b.b1_label_distinguishability
    assert g.b2_sibling_cohesion > b.b2_sibling_cohesion
    assert g.b3_scope_leakage < b.b3_scope_leakage
    assert g.b3_scope_leakage == 0.0
    assert g.b4_tree_content_spearman > b.b4_tree_content_spearman


def test_shape_metrics(tmp_path):
    good, _ = stores(tmp_path)
    h = measure(good)
    assert h.mean_leaf_depth == 2 and h.max_leaf_depth == 2
    assert h.max_fanout == 3 and h.mean_fanout == 3
    assert 0 <= h.gini_bytes < 0.2 and math.isclose(
        h.top_file_share, max((good.root / f).stat().st_size for f in good.files()) / h.bytes
    )
    (good.root / "index.md").write_text(render("Index", "See sports/soccer.md and [[piano]]. [D1:2] [D3:4]\n"))
    h2 = measure(good)
    assert h2.references == 2 and h2.locators == 2 and h2.max_fanout == 4


def test_flat_store_has_no_tree_signal(tmp_path):
    store = Store(tmp_path / "flat")
    for i in range(3):
        (store.root / f"f{i}.md").write_text(render(f"file {i}", f"# f{i}\nalpha beta {i}\n"))
    h = measure(store)
    assert math.isnan(h.b4_tree_content_spearman) and math.isnan(h.b3_scope_leakage)


def test_tree_distance():
    assert tree_distance("a/x.md", "a/y.md") == 2
    assert tree_distance("a/x.md", "b/y.md") == 4
    assert tree_distance("x.md", "a/b/y.md") == 4


def test_cosine_is_scikit_learns_on_sparse_dense_and_zero_rows():
    """Issue 18: the panel's cosine (numpy, no per-call input checks) equals scikit-learn's `cosine_similarity`
    on TF-IDF rows, on unnormalised dense centroids, and on an all-zero row (0 to everything)."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    from tailmem.fsmem.hierarchy import _cos

    texts = [w for items in TOPICS.values() for w in items.values()] + ["zzzz unseen words only"]
    vec = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit(texts[:-1])
    X = vec.transform(texts)  # the last row has no known word: all zero
    assert X[-1].nnz == 0
    assert np.allclose(_cos(X, X), cosine_similarity(X, X))
    assert np.allclose(_cos(X[:3], X[2:]), cosine_similarity(X[:3], X[2:]))
    dense = np.random.default_rng(0).random((5, X.shape[1])) * 3.0
    dense[1] = 0.0
    assert np.allclose(_cos(dense, X.toarray()[:4]), cosine_similarity(dense, X.toarray()[:4]))
    assert np.allclose(_cos(dense, dense), cosine_similarity(dense, dense))
