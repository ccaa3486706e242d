"""Time an ALFWorld step and a game load with tailmem.studies.alfworld.play.speedup against TextWorld's own code,
same run.

A few smoke games are rebuilt for the installed alfworld (no expert check) into a temporary folder, then each is
played along the same fixed walk (at step k an admissible command with the kth verb of a list that opens, takes,
cleans and moves things) twice: once with the patches uninstalled (the reference), once installed. The texts and
admissible commands of both must be equal; the script prints per-step and per-load times and their ratio.
With `--expert N`, the hand-coded expert also plays the first N games the splits exclude (it loses each after
its 200 steps: what tests/alfworld/test_alfworld_excluded.py checks four times per game) with and without the
memoised digit stripping (`speedup._install_expert_memo`), the other patches installed both times; the
walkthroughs must be equal.

    python benchmarks/bench_alfworld.py [--games 3] [--steps 30] [--expert 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

VERBS = ("go to", "open", "take", "clean", "heat", "cool", "move", "go to", "close", "examine", "use", "go to")


def walk(path: Path, steps: int) -> tuple[list, float, float]:
    """(observations, seconds to load and reset, seconds per step)."""
    from tailmem.studies.alfworld.play.env import GameEnv

    t0 = time.perf_counter()
    env = GameEnv(path, max_steps=steps + 1)
    out = [env.reset()]
    t1 = time.perf_counter()
    for k in range(steps):
        now = out[-1].admissible
        verb = [c for c in now if c.startswith(VERBS[k % len(VERBS)])]
        out.append(env.step(verb[k % len(verb)] if verb else now[(7 * k) % len(now)]))
        if out[-1].done:
            break
    t2 = time.perf_counter()
    env.close()
    return out, t1 - t0, (t2 - t1) / max(1, len(out) - 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--expert", type=int, default=0, help="excluded games the expert plays (0: none)")
    args = ap.parse_args()

    from omegaconf import OmegaConf

    from tailmem.studies.alfworld.play import regenerate as R
    from tailmem.studies.alfworld.play import speedup
    from tailmem.studies.alfworld.play.games import select, split_games

    repo = Path(__file__).resolve().parents[1]
    data = Path(os.environ.get("TAILMEM_DATA_DIR", repo.parent / "shared" / "data")) / "alfworld"
    smoke = list(OmegaConf.load(repo / "configs" / "alfworld" / "default.yaml").smoke_games)
    games = select(split_games(data, "valid_seen"), smoke)[: args.games]
    domain, grammar = R.installed_logic()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for g in games:
            rec = R.regenerate(g, data / "json_2.1.1", Path(tmp), domain, grammar, seed=0, expert_check=False)
            assert rec.ok, rec.error
            paths.append(Path(tmp) / g.split / g.id / R.GAME_FILE)
        speedup.install(Path(tmp) / "sas")
        for p in paths:  # fill the SAS cache first: the comparison is of the steps and the text
            walk(p, 1)
        rows = []
        for g, p in zip(games, paths):
            speedup.uninstall()
            plain, load_plain, step_plain = walk(p, args.steps)
            speedup.install(Path(tmp) / "sas")
            fast, load_fast, step_fast = walk(p, args.steps)
            assert fast == plain, f"{g.id}: the patched game differs from TextWorld's own"
            rows.append((g.family, len(plain) - 1, load_plain, load_fast, step_plain, step_fast))
    print(
        f"{'family':<34}{'steps':>6}{'load s (plain)':>16}{'load s':>8}{'step ms (plain)':>17}{'step ms':>9}"
        f"{'ratio':>7}"
    )
    for fam, n, lp, lf, sp, sf in rows:
        print(f"{fam:<34}{n:>6}{lp:>16.2f}{lf:>8.2f}{sp * 1e3:>17.1f}{sf * 1e3:>9.1f}{sp / sf:>7.2f}")
    sp = sum(r[4] * r[1] for r in rows) / sum(r[1] for r in rows)
    sf = sum(r[5] * r[1] for r in rows) / sum(r[1] for r in rows)
    print(
        f"mean step: {sp * 1e3:.1f} ms plain, {sf * 1e3:.1f} ms patched (ratio {sp / sf:.2f}); "
        "the plain load includes the SAS translation the patch caches"
    )
    if args.expert:
        expert(data, args.expert)


def expert(data: Path, n: int) -> None:
    """The expert's seeded attempt on each of the first `n` excluded games, without and with the memo."""
    from tailmem.studies.alfworld.play import regenerate as R
    from tailmem.studies.alfworld.play import speedup
    from tailmem.studies.alfworld.play.games import EXCLUDED, manifest

    by_key = {g.key: g for g in manifest(data)}
    domain, grammar = R.installed_logic()
    with tempfile.TemporaryDirectory() as tmp:
        speedup.install(Path(tmp) / "sas")
        for key in list(EXCLUDED)[:n]:
            g = by_key[key]
            rec = R.regenerate(g, data / "json_2.1.1", Path(tmp), domain, grammar, seed=0, expert_check=False)
            assert rec.ok, rec.error
            path = Path(tmp) / g.split / g.id / R.GAME_FILE
            seconds, plans = [], []
            for memo in (False, True):
                (speedup._install_expert_memo if memo else speedup._uninstall_expert_memo)()
                t0 = time.perf_counter()
                try:
                    plans.append(R.expert_walkthrough(path, "bench"))
                except RuntimeError as exc:  # the expert does not win these: its error is its outcome
                    plans.append(str(exc))
                seconds.append(time.perf_counter() - t0)
            assert plans[0] == plans[1], f"{key}: the memoised expert walked otherwise"
            print(
                f"expert on {g.id[:60]}: {seconds[0]:.2f} s plain, {seconds[1]:.2f} s memoised "
                f"(ratio {seconds[0] / seconds[1]:.2f})"
            )


if __name__ == "__main__":
    main()
