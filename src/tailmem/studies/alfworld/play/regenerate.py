"""Rebuild each game's `game.tw-pddl` for the installed alfworld (2.1.3 grammar: "move X to Y", `help`).

The shipped 2.1.1 game files carry their own old domain and grammar; the installed package reads a game file as
it is, so we rebuild it from the trial's `initial_state.pddl` and `traj_data.json` with the package's own
`alfred.pddl`, `alfred.twl2` and `add_task_to_grammar` (what `alfworld-generate` does), then let alfworld's
hand-coded expert play it to confirm it is solvable and record its walkthrough.

The expert draws with the global `random` (which object to take, a random admissible command when stuck) and
reads the state's facts in set order (which varies with PYTHONHASHSEED). Unseeded, one game's walkthrough takes
16 to 147 steps over five runs, so whether it wins within the cap depends on the machine.
Here each attempt seeds `random` from (seed, game, attempt) and sees the facts sorted: the same commit gives the
same walkthrough everywhere. A game the expert does not win in EXPERT_ATTEMPTS seeded attempts is a failure,
the same on every machine; `games.EXCLUDED` lists those of the official eval sets.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from tailmem.artifacts import write_json
from tailmem.records.alfworld import AlfworldRegenerated
from tailmem.studies.alfworld.play.games import Game

GAME_FILE = "game.tw-pddl"
TRAJ_FILE = "traj_data.json"
PROBLEM_FILE = "initial_state.pddl"
EXPERT_MAX_STEPS = 200
RECIPE_VERSION = 2  # bump when the way a game is rebuilt or checked changes
EXPERT_ATTEMPTS = 4  # seeded expert attempts per game (each a different, fixed seed)


@dataclass(frozen=True)
class Regenerated:
    """One game's regeneration: `ok` if a game file was written (and, when checked, the expert solved it)."""

    split: str
    id: str
    family: str
    ok: bool
    error: str = ""
    walkthrough_steps: int = -1
    goal: str = ""
    expert_attempt: int = -1  # which seeded attempt won (0 = the first), -1 without an expert check


def installed_logic() -> tuple[str, str]:
    """The installed package's PDDL domain and TextWorld grammar (alfworld/data/alfred.{pddl,twl2})."""
    import alfworld

    data = Path(alfworld.__file__).parent / "data"
    return (data / "alfred.pddl").read_text(), (data / "alfred.twl2").read_text()


def goal_text(grammar: str) -> str:
    """The task line the grammar will print ("put some book on sidetable"), or "" if it has none."""
    at = grammar.find("Your task is to: ")
    if at < 0:
        return ""
    return grammar[at + len("Your task is to: ") :].split('"', 1)[0].strip().rstrip(".")


def build_game_file(src: Path, domain: str, grammar: str, seed: str) -> dict:
    """The game-file JSON for one trial folder; templated goal text chosen reproducibly from `seed`."""
    from alfworld.agents.utils.misc import add_task_to_grammar

    traj = json.loads((src / TRAJ_FILE).read_text())
    problem = (src / PROBLEM_FILE).read_text()
    # alfworld's templated goal picks its template with the global `random`, not the rng it is given:
    # seed the global generator per game and put its state back, so the goal is the same on every run.
    with seeded_global_random(seed):
        full = add_task_to_grammar(grammar, traj, goal_desc_human_anns_prob=0.0, rng=random.Random(seed))
    return {"pddl_domain": domain, "grammar": full, "pddl_problem": problem, "solvable": None, "walkthrough": None}


@contextlib.contextmanager
def seeded_global_random(seed: str):
    """Seed the global `random` (what alfworld's code draws from) for the block, then put its state back.

    A str seed is hashed with SHA-512 by `random.seed`, so it does not depend on PYTHONHASHSEED."""
    saved = random.getstate()
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(saved)


def _ordered_facts_wrapper():
    import textworld

    class OrderedFacts(textworld.core.Wrapper):
        """The state's facts sorted: PddlEnv lists them in set order, and the expert picks the first match."""

        @staticmethod
        def _sorted(state):
            if state.get("facts") is not None:
                state["facts"] = sorted(state["facts"], key=str)
            return state

        def reset(self):
            return self._sorted(self._wrapped_env.reset())

        def step(self, command):
            state, score, done = self._wrapped_env.step(command)
            return self._sorted(state), score, done

    return OrderedFacts


def expert_walkthrough(game_file: Path, seed: str = "0") -> list[str]:
    """Play the game with alfworld's hand-coded expert, its draws seeded by `seed`; raises if it does not win
    within EXPERT_MAX_STEPS."""
    import textworld
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredExpert, AlfredInfos
    from textworld.envs import PddlEnv

    with seeded_global_random(seed):
        env = PddlEnv(textworld.EnvInfos(admissible_commands=True, won=True, extras=["gamefile"]))
        env = _ordered_facts_wrapper()(AlfredInfos(AlfredDemangler(env, shuffle=False)))
        env = AlfredExpert(env, expert_type="handcoded")
        env.load(str(game_file))
        state = env.reset()
        plan: list[str] = []
        done = False
        while not done:
            if len(plan) >= EXPERT_MAX_STEPS:
                raise RuntimeError(f"expert did not win within {EXPERT_MAX_STEPS} steps")
            command = state["extra.expert_plan"][0]
            state, _, done = env.step(command)
            plan.append(command)
    if not state["won"]:
        raise RuntimeError("expert finished without winning")
    return plan


def expert_seed(seed: int, game: Game, attempt: int) -> str:
    return f"{seed}:{game.key}:expert:{attempt}"


def winning_walkthrough(game_file: Path, seed: int, game: Game) -> tuple[list[str], int]:
    """The first of EXPERT_ATTEMPTS seeded expert runs that wins, and its attempt number; raises with every
    attempt's error when none does."""
    errors = []
    for attempt in range(EXPERT_ATTEMPTS):
        try:
            return expert_walkthrough(game_file, expert_seed(seed, game, attempt)), attempt
        except Exception as exc:  # noqa: BLE001 - the expert raises bare Exceptions ("Timeout")
            errors.append(f"attempt {attempt}: {type(exc).__name__}: {exc}")
    raise RuntimeError(f"expert did not win in {EXPERT_ATTEMPTS} seeded attempts ({'; '.join(errors)})")


def recipe(seed: int, expert_check: bool) -> dict:
    """What a regenerated game depends on besides its data; an earlier result is reused only if it matches."""
    from importlib.metadata import version

    return {
        "format": RECIPE_VERSION,
        "seed": seed,
        "expert_check": expert_check,
        "attempts": EXPERT_ATTEMPTS,
        "max_steps": EXPERT_MAX_STEPS,
        "alfworld": version("alfworld"),
        "textworld": version("textworld"),
    }


def regenerate(
    game: Game, data_root: Path, out_root: Path, domain: str, grammar: str, seed: int, expert_check: bool = True
) -> Regenerated:
    """Write `<out_root>/<split>/<id>/{game.tw-pddl, traj_data.json}`; reuse a complete earlier result.

    Any failure (missing file, bad PDDL, unsolvable) is returned with its message, not raised, so one broken
    game never stops the others.
    """
    src = data_root / game.split / game.id
    dst = out_root / game.split / game.id
    done_file = dst / "regenerated.json"
    how = recipe(seed, expert_check)
    if done_file.exists():
        done = AlfworldRegenerated.read(done_file)
        if done.recipe == how:
            return Regenerated(**done.game)
    try:
        for name in (TRAJ_FILE, PROBLEM_FILE):
            if not (src / name).exists():
                raise FileNotFoundError(f"{src / name}: missing")
        data = build_game_file(src, domain, grammar, f"{seed}:{game.key}")
        dst.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / TRAJ_FILE, dst / TRAJ_FILE)  # the expert and AlfredTWEnv read it beside the game
        data["solvable"] = True
        steps = attempt = -1
        write_json(dst / GAME_FILE, data)
        if expert_check:
            plan, attempt = winning_walkthrough(dst / GAME_FILE, seed, game)
            data["walkthrough"] = plan
            steps = len(plan)
            write_json(dst / GAME_FILE, data)
        rec = Regenerated(game.split, game.id, game.family, True, "", steps, goal_text(data["grammar"]), attempt)
    except Exception as exc:  # noqa: BLE001 - any failure of one game is reported with its id
        rec = Regenerated(game.split, game.id, game.family, False, f"{type(exc).__name__}: {exc}"[:500])
        if (dst / GAME_FILE).exists():
            (dst / GAME_FILE).unlink()
        return rec
    AlfworldRegenerated(recipe=how, game=asdict(rec)).write(done_file)
    return rec
