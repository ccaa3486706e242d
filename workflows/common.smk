# Shared by every rule file: the composed Hydra config of the chosen scale, and the command prefix that
# passes each stage only the user's overrides it depends on (so changing one value reruns only its stages).
import shlex

from tailmem.workflow import compose_config, stage_overrides

SCALE = str(config.get("scale", "default"))
USER_OVERRIDES = config.get("overrides", [])
if isinstance(USER_OVERRIDES, str):
    USER_OVERRIDES = [USER_OVERRIDES]
CFG = compose_config(SCALE, USER_OVERRIDES)
RESULTS = CFG.results_dir
FIGURES = CFG.figures_dir


def tm(stage, *groups, family=None):
    """Shell prefix for `python -m tailmem <stage>` with the scale and the overrides under `groups`
    (graph overrides only where the job's `family` has that key)."""
    args = [f"scale={SCALE}", *stage_overrides(USER_OVERRIDES, groups, family)]
    return " ".join(["python -m tailmem", stage, *map(shlex.quote, args)])
