"""Hierarchy metrics of a store (paper 2, appendix D.4, Table 14): the tree's shape, and how well it keeps the
taxonomy contract "a folder's name says what is inside, siblings are about one thing each, nothing is filed
under the wrong parent". All content comparisons are lexical (TF-IDF cosine, scikit-learn).

Shape: files, folders, sections, bytes, mean/max leaf depth (path components of a file), mean/max fanout
(children of the root and of each folder), concentration (Gini of file sizes, share of the largest file),
references (mentions of another store file's path, or `[[wiki links]]`) and source locators (`[D3:1]`).

B1 sibling label distinguishability: among the children of one node, a child's content (a file's text, or
    all text under a folder) is closer to its own label (name and description) than to any sibling's label;
    the share of children routed correctly (ties split). Higher is better.
B2 sibling-content cohesion: mean pairwise content cosine of the files that share a folder. Higher is better.
B3 scope leakage: the share of files closer to another folder's centroid than to their own folder's
    (leave-one-out) centroid. Lower is better.
B4 Spearman correlation of tree distance (edges between two files) and content distance (1 - cosine) over
    all file pairs; NaN when every pair is equally far apart (a flat store).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import PurePosixPath

import numpy as np

from tailmem.audit.concentration import gini
from tailmem.fsmem.store import Store

LOCATOR = re.compile(r"\[D\d+:\d+\]")
WIKI_LINK = re.compile(r"\[\[[^\]]+\]\]")


@dataclass(frozen=True)
class Hierarchy:
    files: int
    folders: int
    sections: int
    bytes: int
    mean_leaf_depth: float
    max_leaf_depth: int
    mean_fanout: float
    max_fanout: int
    gini_bytes: float
    top_file_share: float
    references: int
    locators: int
    b1_label_distinguishability: float
    b2_sibling_cohesion: float
    b3_scope_leakage: float
    b4_tree_content_spearman: float

    def to_dict(self) -> dict:
        return asdict(self)


def label_text(path: str, description: str = "") -> str:
    """A node's label: its name split into words, plus its description."""
    name = PurePosixPath(path).name.removesuffix(".md")
    return " ".join(re.split(r"[_\-. /]+", name)) + " " + description


def _parent(path: str) -> str:
    p = str(PurePosixPath(path).parent)
    return "" if p == "." else p


def _ancestors(path: str) -> list[str]:
    parts = PurePosixPath(path).parts
    return ["/".join(parts[:i]) for i in range(len(parts))]  # "" (root) first, the file's own folder last


def tree_distance(a: str, b: str) -> int:
    """Edges between two files in the folder tree."""
    return _distance(_ancestors(a), _ancestors(b))


def _distance(pa: list[str], pb: list[str]) -> int:
    """`tree_distance` from the two files' `_ancestors`."""
    common = sum(1 for x, y in zip(pa, pb) if x == y)
    return (len(pa) - common) + (len(pb) - common) + 2


def _unit_rows(m):
    """Rows scaled to unit length (a zero row stays zero), dense or sparse."""
    import scipy.sparse as sp

    if sp.issparse(m):
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
        return sp.diags(np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)) @ m
    m = np.asarray(m, dtype=float)
    norms = np.linalg.norm(m, axis=1)
    return m * np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)[:, None]


def _cos(a, b) -> np.ndarray:
    """Cosine similarity of every row of `a` with every row of `b`, as scikit-learn's `cosine_similarity` gives
    it (a zero row is 0 to everything), without its per-call input checks (a third of the panel's time)."""
    out = _unit_rows(a) @ _unit_rows(b).T
    return out.toarray() if hasattr(out, "toarray") else np.asarray(out)


def measure(store: Store) -> Hierarchy:
    """Every metric of the panel for one store."""
    files = store.files()
    docs = {f: store.document(f) for f in files}
    texts = {f: (docs[f].description + "\n" + docs[f].body) for f in files}
    sizes = np.array([len((store.root / f).read_bytes()) for f in files], dtype=float)
    depths = np.array([len(PurePosixPath(f).parts) for f in files], dtype=float)
    up = {f: _ancestors(f) for f in files}
    folders = sorted({a for f in files for a in up[f][1:]})
    children: dict[str, set[str]] = {"": set()}
    for f in files:
        chain = up[f] + [f]
        for parent, child in zip(chain, chain[1:]):
            children.setdefault(parent, set()).add(child)
    fanouts = [len(c) for c in children.values() if c]
    sections = sum(1 for f in files for line in texts[f].splitlines() if line.startswith("#"))
    refs = 0
    for f in files:
        body = docs[f].body
        refs += sum(body.count(g) for g in files if g != f) + len(WIKI_LINK.findall(body))
    b1, b2, b3, b4 = _taxonomy(files, texts, docs, children, folders, up)
    return Hierarchy(
        files=len(files),
        folders=len(folders),
        sections=sections,
        bytes=int(sizes.sum()),
        mean_leaf_depth=float(depths.mean()) if files else float("nan"),
        max_leaf_depth=int(depths.max()) if files else 0,
        mean_fanout=float(np.mean(fanouts)) if fanouts else float("nan"),
        max_fanout=max(fanouts, default=0),
        gini_bytes=gini(sizes) if files else float("nan"),
        top_file_share=float(sizes.max() / sizes.sum()) if files and sizes.sum() else float("nan"),
        references=refs,
        locators=sum(len(LOCATOR.findall(t)) for t in texts.values()),
        b1_label_distinguishability=b1,
        b2_sibling_cohesion=b2,
        b3_scope_leakage=b3,
        b4_tree_content_spearman=b4,
    )


def _taxonomy(files, texts, docs, children, folders, up) -> tuple[float, float, float, float]:
    nan = float("nan")
    if len(files) < 2:
        return nan, nan, nan, nan
    from scipy.stats import spearmanr
    from sklearn.feature_extraction.text import TfidfVectorizer

    under = {d: "\n".join(texts[f] for f in files if f.startswith(d + "/")) for d in folders}
    content = {**texts, **under}
    labels = {n: label_text(n, docs[n].description if n in docs else "") for n in content}
    nodes = sorted(content)
    # One pass of the tokenizer over every text: contents then labels, fitted and weighted together.
    M = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(
        [content[n] for n in nodes] + [labels[n] for n in nodes]
    )
    C, L = M[: len(nodes)], M[len(nodes) :]
    idx = {n: i for i, n in enumerate(nodes)}

    routed = []
    for kids in children.values():
        kids = sorted(kids)
        if len(kids) < 2:
            continue
        sim = _cos(C[[idx[k] for k in kids]], L[[idx[k] for k in kids]])
        for i in range(len(kids)):
            best = sim[i].max()
            tied = np.flatnonzero(np.isclose(sim[i], best))
            routed.append(1.0 / len(tied) if i in tied and best > 0 else 0.0)
    b1 = float(np.mean(routed)) if routed else nan

    F = C[[idx[f] for f in files]]  # a file's content is its text
    S = _cos(F, F)
    fi = {f: i for i, f in enumerate(files)}
    by_folder: dict[str, list[str]] = {}
    for f in files:
        by_folder.setdefault(_parent(f), []).append(f)
    cohesion = [np.mean([S[fi[a], fi[b]] for a, b in combinations(g, 2)]) for g in by_folder.values() if len(g) >= 2]
    b2 = float(np.mean(cohesion)) if cohesion else nan

    leaks = []
    if len(by_folder) >= 2:
        Fd = F.toarray()
        sums = {d: Fd[[fi[f] for f in g]].sum(axis=0) for d, g in by_folder.items()}
        for d, g in by_folder.items():
            if len(g) < 2:
                continue
            for f in g:
                x = Fd[fi[f]]
                own = (sums[d] - x) / (len(g) - 1)
                others = [sums[e] / len(by_folder[e]) for e in by_folder if e != d]
                sims = _cos(np.vstack([own, *others]), x[None, :]).ravel()
                leaks.append(float(sims[1:].max() > sims[0]))
    b3 = float(np.mean(leaks)) if leaks else nan

    pairs = list(combinations(files, 2))
    tree = np.array([_distance(up[a], up[b]) for a, b in pairs], dtype=float)
    dist = np.array([1.0 - S[fi[a], fi[b]] for a, b in pairs])
    b4 = float(spearmanr(tree, dist).statistic) if np.ptp(tree) > 0 and np.ptp(dist) > 0 else nan
    return b1, b2, b3, b4
