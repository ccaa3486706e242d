"""ALFWorld figures drawn from small synthetic chains and episodes: titled, labelled in words, the executor
named, the arms and protocol explained, and the variant lines apart even when their values coincide."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from figkit import assert_lines_apart, assert_readable, words  # noqa: E402

from tailmem.studies.alfworld import figures as F  # noqa: E402
from tailmem.studies.alfworld import tables as T  # noqa: E402
from tailmem.studies.alfworld import text as W  # noqa: E402

VARIANTS = ["no_store", "episode_log", "curated_skills", "curated_skills_memory", "guidance_synthesis"]
FAMILIES = ["pick_and_place_simple", "look_at_obj_in_light", "pick_heat_then_place_in_recep", "pick_two_obj_and_place"]


def _tasks() -> pd.DataFrame:
    """Two protocols x five variants x four tasks; every variant wins and loses the same tasks (coinciding
    success lines, as at smoke size) and two variants grow the same store."""
    rows = []
    for protocol in ("three_chain", "full_chain"):
        for v in VARIANTS:
            for i, fam in enumerate(FAMILIES):
                files = 0 if v == "no_store" else i + 1
                rows.append(
                    {
                        "protocol": protocol,
                        "variant": v,
                        "index": i,
                        "family": fam,
                        "ran": True,
                        "success": i != 2,
                        "steps": 10 + i,
                        "invalid": 1,
                        "store_files": files,
                        "store_bytes": 700 * files,
                        "store_sources_max": i - 1,
                        "retrieval_chars": 100,
                        "curation_chars": 50,
                        "execution_tokens": 900,
                        "guidance_tokens": 12,
                    }
                )
    return pd.DataFrame(rows)


def _episodes() -> pd.DataFrame:
    rows = []
    for arm, scale in (("graph_memory", 1), ("ctmc", 2), ("full", 3)):
        for g, fam in enumerate(FAMILIES):
            rows.append(
                {
                    "arm": arm,
                    "family": fam,
                    "loaded": True,
                    "success": g % 2 == 0,
                    "steps": 12,
                    "invalid": 0,
                    "memory_tokens": 40 * scale * 12,
                    "context_tokens": 300 * 12,
                    "accesses": {f"loc{j}": (j + 1) * scale for j in range(5)},
                }
            )
    return pd.DataFrame(rows)


ARMS = {
    "graph_memory": {"name": "graph_memory", "budget": 64, "rank_by": "query"},
    "ctmc": {"name": "ctmc", "budget": 64, "rank_by": "query"},
    "full": {"name": "graph_memory", "budget": None, "rank_by": "query"},
}


def test_skills_growth_figure_separates_coinciding_variants_and_explains_the_chain():
    fig = F.skills_growth_figure(_tasks(), "full_chain", subset="smoke", executor="programmatic-executor")
    assert_readable(fig)
    assert fig._suptitle.get_text().startswith("ALFWorld smoke skill setting, full chain")
    for ax in fig.axes:
        assert_lines_apart(ax, offset=True)
        assert len(ax.get_lines()) == 5
    text = words(fig)
    assert "programmatic-executor" in text
    assert "store is never reset" in text  # what "full chain" means
    for v in VARIANTS:
        assert v in text
    assert "offset" in text  # the caption says the lines are shifted on purpose
    assert fig.axes[2].get_ylabel() == "store size (KB)"
    plt.close(fig)


def test_memory_figure_names_the_executor_explains_full_and_labels_both_panels():
    memory, _, counts = T.memory_tables(_episodes())
    fig = F.memory_figure(memory, counts, subset="smoke", executor="programmatic-executor", arms=W.arm_words(ARMS))
    assert_readable(fig)
    left, right = fig.axes
    assert left.get_xlabel() and left.get_ylabel() and right.get_ylabel() == "memory tokens per step"
    assert_lines_apart(left)
    text = words(fig)
    assert "programmatic-executor" in fig._suptitle.get_text()
    assert "`full` = Graph Memory without a budget" in text
    assert "`ctmc` = CTMC, budget 64 memory tokens per step" in text
    plt.close(fig)


def test_arm_words_says_what_each_arm_is():
    assert W.arm_words(ARMS) == {
        "graph_memory": "Graph Memory, budget 64 memory tokens per step",
        "ctmc": "CTMC, budget 64 memory tokens per step",
        "full": "Graph Memory without a budget: every remembered location and object",
    }


@pytest.mark.slow
@pytest.mark.parametrize("subset", ["smoke", "valid_seen"])
def test_figures_save_under_the_check(tmp_path, subset):
    from tailmem.report.plots import save_figure

    memory, _, counts = T.memory_tables(_episodes())
    save_figure(
        F.skills_growth_figure(_tasks(), subset=subset, executor="x"), tmp_path / f"alfworld_{subset}_skills_growth"
    )
    save_figure(
        F.memory_figure(memory, counts, subset=subset, executor="x", arms=W.arm_words(ARMS)),
        tmp_path / f"alfworld_{subset}_memory",
    )
    assert len(list(tmp_path.glob("*.png"))) == 2
