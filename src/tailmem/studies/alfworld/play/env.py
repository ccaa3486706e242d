"""The text-only ALFWorld environment: alfworld's AlfredTWEnv collects the games, and each game runs in a
TextWorld gym env with the same wrappers AlfredTWEnv.init_env installs (demangled names, game-file infos).

One env per game, synchronous, so a game that fails to load fails alone and is reported by id; the step cap is
TextWorld's `max_episode_steps`.

Games played side by side (a memory cell's games, tailmem.llm.parallel) share one lock for every env call:
TextWorld registers each game in gym's process-wide registry, its text generator and the PDDL translation
(fast_downward, and our memos in tailmem.studies.alfworld.play.speedup) keep module-level state, and none is
documented as thread-safe. So env steps run one at a time, which costs little beside a model's call, and the games
overlap in what takes the time: their executors' model calls.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from tailmem.studies.alfworld.play.games import FAMILIES

TASK_TYPE_IDS = [1, 2, 3, 4, 5, 6]  # alfworld's TASK_TYPES keys: all six families
_ENV_LOCK = threading.RLock()  # every TextWorld call of this process (see the module docstring)


@dataclass(frozen=True)
class Observation:
    """What the agent sees after reset or a step."""

    text: str
    admissible: tuple[str, ...]
    won: bool
    done: bool


def alfred_game_files(games_dir: str | Path) -> list[str]:
    """The game files alfworld's own AlfredTWEnv accepts under `games_dir` (solvable, supported task types)."""
    from alfworld.agents.environment.alfred_tw_env import AlfredTWEnv

    config = {
        "env": {"goal_desc_human_anns_prob": 0, "task_types": TASK_TYPE_IDS},
        "dataset": {"eval_id_data_path": str(games_dir), "num_eval_games": -1},
    }
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        env = AlfredTWEnv(config, train_eval="eval_in_distribution")
    return sorted(os.path.normpath(f) for f in env.game_files)


class GameEnv:
    """One ALFWorld game: `reset()` then `step(command)` until `done` (won or `max_steps` reached)."""

    def __init__(self, game_file: str | Path, max_steps: int = 50):
        import textworld
        import textworld.gym
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

        infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
        with _ENV_LOCK:
            env_id = textworld.gym.register_games(
                [str(game_file)],
                infos,
                batch_size=1,
                asynchronous=False,
                max_episode_steps=max_steps,
                wrappers=[AlfredDemangler(shuffle=False), AlfredInfos],
            )
            self._env = textworld.gym.make(env_id)
        self.max_steps = max_steps

    def _obs(self, obs, infos, done) -> Observation:
        return Observation(
            text=str(obs[0]),
            admissible=tuple(infos["admissible_commands"][0]),
            won=bool(infos["won"][0]),
            done=bool(done[0]) if done is not None else False,
        )

    def reset(self) -> Observation:
        with _ENV_LOCK:
            obs, infos = self._env.reset()
        return self._obs(obs, infos, None)

    def step(self, command: str) -> Observation:
        with _ENV_LOCK:
            obs, _, done, infos = self._env.step([command])
        return self._obs(obs, infos, done)

    def close(self) -> None:
        with _ENV_LOCK:
            self._env.close()


def family_of(game_file: str | Path) -> str:
    """The goal family from the task folder name (`<family>-<Object>-...`)."""
    task = Path(game_file).parent.parent.name
    for f in FAMILIES:
        if task.startswith(f + "-"):
            return f
    return ""
