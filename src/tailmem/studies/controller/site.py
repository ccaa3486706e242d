"""The graph-world controller study as a step viewer: for the steps whose blocks the control stage kept
(`tailmem.control.replay.block_steps`, the same steps for every arm of a matched replay), one page per step with each
controller's memory block, its prediction and whether the evidence (the needed transition) was in the prompt."""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath

import pandas as pd

from tailmem.paths import STEPS_FILE, SUMMARY_FILE, TRACE_FILE, WORLD_FILE
from tailmem.records.control import ControlSteps, ControlSummary
from tailmem.roles import PREDICTOR, PROGRAMMATIC, is_programmatic
from tailmem.site.collect import Files, Found, Unshown, from_files
from tailmem.site.model import Row, Section, slug, verdict
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts

log = logging.getLogger("tailmem")


def _world_and_trace(results: Path, run_parts: tuple[str, ...]):
    """The run's world and trajectory (for state texts and the action taken), or None where either is missing.
    `run_parts`: policy, agent, retrieval, family, n<n>, seed<s>, predictor (tailmem.paths.CONTROL)."""
    if len(run_parts) < 7:
        return None, None
    policy, agent, retrieval, family, n, seed = run_parts[:6]
    world = trace = None
    try:
        from tailmem.graphworld.world import World

        path = results / "graphworld" / family / n / seed / WORLD_FILE
        world = World.load(path) if path.is_file() else None
    except Exception:  # noqa: BLE001 - the page then shows state ids only
        world = None
    try:
        from tailmem.rollout.trace import Trace

        path = results / "rollout" / policy / agent / retrieval / family / n / seed / TRACE_FILE
        trace = Trace.load(path) if path.is_file() else None
    except Exception:  # noqa: BLE001
        trace = None
    return world, trace


def collect(results: Path, cfg, transcripts: Transcripts) -> Section:
    section = Section(
        key="control",
        title="Controller study: the step viewer",
        blurb="Matched replay (paper 1 Tables 4-6): every controller sees the same trajectory. For the sampled steps "
        "each page shows every controller's memory block (summarised tail lines marked), the predicted next "
        "state and whether the prompt held the evidence (the transition the prediction needs).",
        columns=["run", "step", "state", "arm", "predicted", "correct", "evidence in prompt", "prompt tokens"],
        filters=[("run", "run"), ("arm", "arm"), ("correct", "correct"), ("covered", "evidence in prompt")],
    )
    arms = Files(f"**/{STEPS_FILE}", read=_read_arm, rows=_rows, draw=lambda w, found: _draw(w, found, transcripts))
    return from_files(section, results, arms)


def _read_arm(path: Path) -> tuple[ControlSummary | None, pd.DataFrame]:
    """An arm of a run: its summary (None where absent) and the steps whose blocks the stage kept."""
    steps = ControlSteps.read(path).frame
    file = path.parent / SUMMARY_FILE
    summary = ControlSummary.read(file) if file.is_file() else None
    if "memory" not in steps.columns:
        raise Unshown(f"{path.parent}: saved before the stage kept memory blocks; re-run stage control")
    return summary, steps[steps.memory.notna()]


def _run(arm: Found) -> tuple[PurePosixPath, str, str]:
    """An arm's run (the folder above the arm's): its path below control/, its label and its folder on the site."""
    rel = arm.rel.parent
    label = "/".join(rel.parts[3:6]) + f" · {rel.parts[0]} · {rel.parts[-1]}" if len(rel.parts) >= 7 else str(rel)
    return rel, label, f"{arm.root.name}/{rel}"


def _rows(arm: Found) -> list[Row]:
    """One row per kept step of an arm, linking to the arm's card on the step's page."""
    _, label, folder = _run(arm)
    name, (_, steps) = arm.path.parent.name, arm.data
    out = []
    for r in steps.itertuples(index=False):
        filters = {"run": label, "arm": name, "correct": verdict(bool(r.correct)), "covered": verdict(bool(r.covered))}
        cells = [
            label,
            int(r.step),
            f"S{int(r.state)}",
            name,
            f"S{int(r.predicted)}" if int(r.predicted) >= 0 else "none",
            filters["correct"],
            filters["covered"],
            int(r.prompt_tokens),
        ]
        out.append(
            Row(
                f"{folder}/step-{int(r.step):05d}.html#arm-{slug(name)}",
                cells,
                filters,
                f"{label} {name} S{int(r.state)}",
            )
        )
    return out


def _draw(w: Writer, arms: list[Found], transcripts: Transcripts) -> None:
    """One page per kept step of a run, every arm's card side by side."""
    runs: dict[Path, list[Found]] = {}
    for arm in arms:
        runs.setdefault(arm.path.parent.parent, []).append(arm)
    for run_arms in runs.values():
        rel, label, folder = _run(run_arms[0])
        results = run_arms[0].root.parent
        world, trace = _world_and_trace(results, rel.parts)
        by_arm = {a.path.parent.name: (a.data[0], a.data[1].set_index("step")) for a in run_arms}
        sampled = sorted(set().union(*(set(a.data[1].step.tolist()) for a in run_arms)))
        for k, t in enumerate(sampled):
            cards, state, nxt = [], None, None
            for arm, (summary, steps) in by_arm.items():
                if t not in steps.index:
                    continue
                r = steps.loc[t]
                state, nxt = int(r.state), int(r.next_state)
                pred = int(r.predicted)
                agent = summary.predictor if summary else ""
                call, matched = None, 0
                if not is_programmatic(agent) and r.memory:
                    call, matched = transcripts.transcript(PREDICTOR, "control", [str(r.memory)])
                cards.append(
                    {
                        "arm": arm,
                        "anchor": "arm-" + slug(arm),
                        "label": summary.label if summary else arm,
                        "r": r,
                        "pred": pred,
                        "pred_text": _state_text(world, pred),
                        "correct": bool(r.correct),
                        "covered": bool(r.covered),
                        "agent": agent,
                        PROGRAMMATIC: is_programmatic(agent),
                        "call": call,
                        "matched": matched,
                    }
                )
            action = None
            if trace is not None and world is not None and t < len(trace.actions):
                action = world.action_names[int(trace.actions[t])]
            w.write(
                f"{folder}/step-{t:05d}.html",
                "control_step.html",
                title=f"Controller study · {label} · step {t}",
                run=label,
                step=t,
                cards=cards,
                state=state,
                state_text=_state_text(world, state),
                next_state=nxt,
                next_text=_state_text(world, nxt),
                action=action,
                prev_href=f"{folder}/step-{sampled[k - 1]:05d}.html" if k > 0 else None,
                next_href=f"{folder}/step-{sampled[k + 1]:05d}.html" if k + 1 < len(sampled) else None,
                back="control/index.html",
            )


def _state_text(world, state) -> str:
    if world is None or state is None or state < 0 or state >= len(world.state_texts):
        return ""
    return world.state_texts[state]
