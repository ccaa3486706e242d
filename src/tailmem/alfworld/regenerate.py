"""Rebuild each game's `game.tw-pddl` for the installed alfworld (2.1.3 grammar: "move X to Y", `help`).

The shipped 2.1.1 game files carry their own old domain and grammar; the installed package reads a game file as
it is, so we rebuild it from the trial's `initial_state.pddl` and `traj_data.json` with the package's own
`alfred.pddl`, `alfred.twl2` and `add_task_to_grammar` (what `alfworld-generate` does), then let alfworld's
hand-coded expert play it once to confirm it is solvable and record its walkthrough.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from tailmem.alfworld.games import Game
from tailmem.artifacts import write_json

GAME_FILE = "game.tw-pddl"
TRAJ_FILE = "traj_data.json"
PROBLEM_FILE = "initial_state.pddl"
EXPERT_MAX_STEPS = 200


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
    return grammar[at + len("Your task is to: "):].split('"', 1)[0].strip().rstrip(".")


def build_game_file(src: Path, domain: str, grammar: str, seed: str) -> dict:
    """The game-file JSON for one trial folder; templated goal text chosen reproducibly from `seed`."""
    from alfworld.agents.utils.misc import add_task_to_grammar

    traj = json.loads((src / TRAJ_FILE).read_text())
    problem = (src / PROBLEM_FILE).read_text()
    # alfworld's templated goal picks its template with the global `random`, not the rng it is given:
    # seed the global generator per game and put its state back, so the goal is the same on every run.
    saved = random.getstate()
    random.seed(seed)
    try:
        full = add_task_to_grammar(grammar, traj, goal_desc_human_anns_prob=0.0, rng=random.Random(seed))
    finally:
        random.setstate(saved)
    return {"pddl_domain": domain, "grammar": full, "pddl_problem": problem, "solvable": None, "walkthrough": None}


def expert_walkthrough(game_file: Path) -> list[str]:
    """Play the game with alfworld's hand-coded expert; raises if it does not win within EXPERT_MAX_STEPS."""
    import textworld
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredExpert, AlfredInfos
    from textworld.envs import PddlEnv

    env = PddlEnv(textworld.EnvInfos(admissible_commands=True, won=True, extras=["gamefile"]))
    env = AlfredExpert(AlfredInfos(AlfredDemangler(env, shuffle=False)), expert_type="handcoded")
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


def regenerate(game: Game, data_root: Path, out_root: Path, domain: str, grammar: str, seed: int,
               expert_check: bool = True) -> Regenerated:
    """Write `<out_root>/<split>/<id>/{game.tw-pddl, traj_data.json}`; reuse a complete earlier result.

    Any failure (missing file, bad PDDL, unsolvable) is returned with its message, not raised, so one broken
    game never stops the others.
    """
    src = data_root / game.split / game.id
    dst = out_root / game.split / game.id
    done_file = dst / "regenerated.json"
    if done_file.exists():
        return Regenerated(**json.loads(done_file.read_text()))
    try:
        for name in (TRAJ_FILE, PROBLEM_FILE):
            if not (src / name).exists():
                raise FileNotFoundError(f"{src / name}: missing")
        data = build_game_file(src, domain, grammar, f"{seed}:{game.key}")
        dst.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / TRAJ_FILE, dst / TRAJ_FILE)  # the expert and AlfredTWEnv read it beside the game
        data["solvable"] = True
        steps = -1
        write_json(dst / GAME_FILE, data)
        if expert_check:
            plan = expert_walkthrough(dst / GAME_FILE)
            data["walkthrough"] = plan
            steps = len(plan)
            write_json(dst / GAME_FILE, data)
        rec = Regenerated(game.split, game.id, game.family, True, "", steps, goal_text(data["grammar"]))
    except Exception as exc:  # noqa: BLE001 - any failure of one game is reported with its id
        rec = Regenerated(game.split, game.id, game.family, False, f"{type(exc).__name__}: {exc}"[:500])
        if (dst / GAME_FILE).exists():
            (dst / GAME_FILE).unlink()
        return rec
    write_json(done_file, asdict(rec))
    return rec
