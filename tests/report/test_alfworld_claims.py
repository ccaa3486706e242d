"""claims_alfworld and the skill-side analyses on synthetic chains where the truth is planted: a store that wins
clearly more games than no store is HELD, one that loses them NOT HELD, a one-game edge INCONCLUSIVE; the reversed
chain ties the full one when they win the same games; effort that grows along the chain does not amortise; the
differenced running success per family is the variant's minus the control's."""

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest
from figkit import assert_readable, words

from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD
from tailmem.studies.alfworld import figures as F
from tailmem.studies.alfworld import tables as T
from tailmem.studies.alfworld import text as W

S = shipped(resamples=1000, seed=0)
FAMS = ["pick_and_place_simple", "look_at_obj_in_light", "pick_heat_then_place_in_recep"]


def cell(protocol, variant, wins, reverse=False) -> pd.DataFrame:
    """A chain over games g0..g(n-1) (played in reverse when `reverse`) winning where `wins` is true."""
    n = len(wins)
    ids = [f"g{i}" for i in range(n)]
    order = ids[::-1] if reverse else ids
    return pd.DataFrame(
        {
            "protocol": protocol,
            "variant": variant,
            "index": range(n),
            "id": order,
            "family": [FAMS[int(g[1:]) % 3] for g in order],
            "ran": True,
            "success": [bool(wins[int(g[1:])]) for g in order],
        }
    )


def planted(n=60, p_base=0.4, p_store=0.8, seed=0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.random(n) < p_base, rng.random(n) < p_store


def row(df, claim, protocol="full_chain"):
    hit = df[df.claim.str.startswith(claim) & (df.protocol == protocol)]
    assert len(hit) == 1, (claim, list(df.claim))
    return hit.iloc[0]


def test_planted_gain_is_held_a_loss_not_held_and_a_one_game_edge_inconclusive():
    base, store = planted()
    one = base.copy()
    one[np.flatnonzero(~base)[0]] = True  # the store wins exactly one more game
    tasks = pd.concat(
        [
            cell("full_chain", "no_store", base),
            cell("full_chain", "episode_log", store),
            cell("full_chain", "curated_skills", base & ~store),
            cell("full_chain", "guidance_synthesis", one),
        ]
    )
    df = T.skill_claims(tasks, S, 0.1)
    held = row(df, "A store (episode_log)")
    assert held.verdict == HELD and held.unit == "game" and held.side == "> 0" and held.ci_low > 0
    assert held.estimate == pytest.approx(store.mean() - base.mean())
    assert held.n_units == 60 and held.sign_p_1s < 0.01
    assert "51.4% -> last 35 91.4%" in held.paper  # paper 2's 140-task chain beside ours
    assert row(df, "A store (curated_skills)").verdict == NOT_HELD
    edge = row(df, "A store (guidance_synthesis)")
    assert edge.verdict == INCONCLUSIVE and edge.estimate == pytest.approx(1 / 60)


def test_pairs_by_game_skip_unloaded_games_and_a_missing_cell_is_inconclusive():
    base, store = planted(n=30)
    v = cell("three_chain", "episode_log", store)
    v.loc[v.index[:5], "ran"] = False
    df = T.skill_claims(pd.concat([cell("three_chain", "no_store", base), v]), S, 0.1)
    r = row(df, "A store (episode_log)", "three_chain")
    assert r.n_units == 25 and "over 25 games both played" in r.evidence
    lonely = T.skill_claims(cell("full_chain", "episode_log", store), S, 0.1)
    r = row(lonely, "A store (episode_log)")
    assert r.verdict == INCONCLUSIVE and "no_store: no tasks" in r.evidence


def test_reversed_chain_pairs_the_same_games_whatever_their_position():
    base, store = planted(n=80)
    tasks = pd.concat(
        [
            cell("full_chain", "no_store", base),
            cell("full_chain", "episode_log", store),
            cell("reversed_chain", "no_store", base, reverse=True),
            cell("reversed_chain", "episode_log", store, reverse=True),
        ]
    )
    df = T.skill_claims(tasks, S, 0.1)
    tie = row(df, "The order of the chain does not change success", "full_chain vs reversed_chain")
    assert tie.verdict == HELD and tie.estimate == 0 and tie.side == "|d| < 0.1"
    assert row(df, "A store (episode_log)", "reversed_chain").verdict == HELD
    flipped = pd.concat(
        [tasks[tasks.protocol == "full_chain"], cell("reversed_chain", "episode_log", ~store, reverse=True)]
    )
    assert row(T.skill_claims(flipped, S, 0.1), "The order", "full_chain vs reversed_chain").verdict == NOT_HELD


def test_a_tie_on_a_handful_of_identical_games_is_inconclusive_not_held():
    """Two cells winning the same 6 games give a zero-width interval that passes any margin; below
    alfworld.claims.min_tie_games the tie reads INCONCLUSIVE, and the same outcomes on 80 games are HELD."""
    base, store = planted(n=80)

    def tasks(n):
        return pd.concat(
            [
                cell("full_chain", "no_store", base[:n]),
                cell("full_chain", "episode_log", store[:n]),
                cell("reversed_chain", "no_store", base[:n], reverse=True),
                cell("reversed_chain", "episode_log", store[:n], reverse=True),
            ]
        )

    few = row(T.skill_claims(tasks(6), S, 0.1, min_tie_games=20), "The order", "full_chain vs reversed_chain")
    assert few.estimate == 0 and few.verdict == INCONCLUSIVE and "min_tie_games" in few.evidence
    many = row(T.skill_claims(tasks(80), S, 0.1, min_tie_games=20), "The order", "full_chain vs reversed_chain")
    assert many.verdict == HELD
    assert "at least 20 games" in W.claims_note("programmatic-executor", S, 0.1, 20)


def test_claims_note_says_offline_levels_are_not_comparable():
    text = W.claims_note("programmatic-executor", S, 0.1)
    assert "not comparable with paper 2" in text and "game" in text and "1000 replicates" in text


def effort(chars) -> pd.DataFrame:
    n = len(chars)
    return pd.DataFrame(
        {
            "protocol": "full_chain",
            "variant": "curated_skills",
            "index": range(n),
            "id": [f"g{i}" for i in range(n)],
            "family": FAMS[0],
            "success": True,
            "curation_chars": chars,
            "files_touched": np.ones(n),
            "bytes_added": chars,
            "rounds": np.nan,
            "tool_calls": np.nan,
        }
    )


def test_growing_effort_does_not_amortise_falling_does_and_flat_noise_is_inconclusive():
    rng = np.random.default_rng(3)
    k = np.arange(40)

    def trend(chars):
        t = T.effort_trend(effort(chars), S)
        return t[t.metric == "curation_chars"].iloc[0]

    grows = trend(100 + 10 * k + rng.normal(0, 5, 40))
    assert grows.amortises == NOT_HELD and grows.slope_per_task == pytest.approx(10, abs=1)
    assert grows.last_quarter_mean > grows.first_quarter_mean
    assert trend(800 - 10 * k + rng.normal(0, 5, 40)).amortises == HELD
    assert trend(100 + rng.normal(0, 50, 40)).amortises == INCONCLUSIVE
    t = T.effort_trend(effort(100 + k), S)
    assert set(t.metric) == {"curation_chars", "files_touched"}  # no rounds without a model curator
    assert t[t.metric == "files_touched"].iloc[0].slope_per_task == 0


def test_family_running_is_the_variant_minus_the_control_on_each_family():
    base = np.array([0, 0, 0, 1, 0, 0], dtype=bool)  # g0..g5: families put, examine, heat, put, examine, heat
    store = np.array([1, 0, 1, 1, 1, 0], dtype=bool)
    tasks = pd.concat([cell("full_chain", "no_store", base), cell("full_chain", "episode_log", store)])
    run = T.family_running(tasks)
    put = run[run.family == "put"]
    assert list(put["index"]) == [0, 3] and list(put.difference_points) == [100, 50]
    examine = run[run.family == "examine"]
    assert list(examine.running_pct) == [0, 50] and list(examine.baseline_running_pct) == [0, 0]
    fig = F.family_running_figure(run, "full_chain", subset="smoke", executor="programmatic-executor")
    assert_readable(fig)
    text = words(fig)
    assert "episode_log" in text and "no store" in text and "programmatic-executor" in text


def test_store_and_erosion_tables_leave_out_the_control_and_correlate_with_growth():
    rows = []
    for v in ("no_store", "episode_log"):
        for i in range(6):
            files = 0 if v == "no_store" else i
            rows.append(
                {
                    "protocol": "full_chain",
                    "variant": v,
                    "index": i,
                    "id": f"g{i}",
                    "family": FAMS[0],
                    "files": files,
                    "folders": 1,
                    "sections": 2 * files,
                    "bytes": 100 * files,
                    "mean_leaf_depth": 2.0,
                    "max_fanout": files,
                    "gini_bytes": 0.1,
                    "top_file_share": 1 / max(files, 1),
                    "b1_label_distinguishability": 1 - 0.1 * i,
                    "b2_sibling_cohesion": np.nan,
                    "b3_scope_leakage": 0.1 * i,
                    "b4_tree_content_spearman": np.nan,
                }
            )
    stores = pd.DataFrame(rows)
    assert set(T.store_table(stores).variant) == {"episode_log"}
    e = T.erosion_table(stores).iloc[0]
    assert e.final_files == 5 and e.rho_b1_label_distinguishability == pytest.approx(-1)
    assert e.rho_sections == pytest.approx(1) and np.isnan(e.rho_b2_sibling_cohesion)


def test_effort_figure_is_readable():
    fig = F.effort_figure(effort(np.arange(5) * 10.0), "full_chain", subset="smoke", executor="programmatic-executor")
    assert_readable(fig)
    assert "curation effort per task" in words(fig)


def seeded(frames_by_seed: dict[int, list[pd.DataFrame]]) -> pd.DataFrame:
    return pd.concat([f.assign(seed=s) for s, frames in frames_by_seed.items() for f in frames], ignore_index=True)


def test_chain_seeds_are_the_outer_level_and_games_pair_within_their_seed():
    """Issue 15: the same games played in three chain orders pair within each order (3 x 30 units, not 30 x 9),
    and the chain seeds are the independent units: a gain that only one order shows is not HELD, though the same
    90 differences treated as one chain would be."""
    rng = np.random.default_rng(3)
    frames, diffs = {}, []
    for s in range(3):
        base = rng.random(30) < 0.4
        store = base | (rng.random(30) < (0.9 if s == 0 else 0.0))  # only seed 0's order helps
        frames[s] = [cell("full_chain", "no_store", base), cell("full_chain", "episode_log", store)]
        diffs.append(store.astype(float) - base)
    df = T.skill_claims(seeded(frames), S, 0.1)
    r = row(df, "A store (episode_log)")
    assert r.n_units == 3 and r.n_seeds == 3 and r.reason.startswith("too few units")
    assert r.estimate == pytest.approx(np.concatenate(diffs).mean())  # 30 games in each seed: the seeds' mean
    assert "over 3 chain seeds" in r.evidence
    from tailmem.stats.compare import compare

    flat = compare(np.concatenate(diffs), direction="greater", settings=S)  # the same units, no seed level
    assert flat.verdict == HELD and r.verdict == INCONCLUSIVE and r.ci_low <= 0 < flat.interval.low


def test_a_frame_without_seeds_is_chain_seed_zero():
    base, store = planted(n=20)
    old = pd.concat([cell("full_chain", "no_store", base), cell("full_chain", "episode_log", store)])
    new = old.assign(seed=0)
    a, b = (row(T.skill_claims(t, S, 0.1), "A store (episode_log)") for t in (old, new))
    assert a.estimate == b.estimate and a.ci_low == b.ci_low and a.n_seeds == b.n_seeds == 1


def test_the_claims_note_names_the_seed_level():
    assert "3 chain seeds (alfworld.seeds) resampled first" in W.claims_note("programmatic-executor", S, 0.1, 20, 3)
    assert "one chain seed" in W.claims_note("programmatic-executor", S, 0.1, 20, 1)
