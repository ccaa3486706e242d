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
    root = results / "control"
    runs: dict[Path, list[tuple[str, ControlSummary | None, pd.DataFrame]]] = {}
    for path in sorted(root.rglob(STEPS_FILE)) if root.is_dir() else []:
        try:
            steps = ControlSteps.read(path).frame
            file = path.parent / SUMMARY_FILE
            summary = ControlSummary.read(file) if file.is_file() else None
        except Exception as exc:  # noqa: BLE001
            section.notes.append(f"{path}: unreadable ({exc})")
            continue
        if "memory" not in steps.columns:
            section.notes.append(f"{path.parent}: saved before the stage kept memory blocks; re-run stage control")
            continue
        runs.setdefault(path.parent.parent, []).append((path.parent.name, summary, steps[steps.memory.notna()]))
    plan = []
    for run_dir, arms in runs.items():
        rel = PurePosixPath(run_dir.relative_to(root).as_posix())
        label = "/".join(rel.parts[3:6]) + f" · {rel.parts[0]} · {rel.parts[-1]}" if len(rel.parts) >= 7 else str(rel)
        folder = f"control/{rel}"
        sampled = sorted(set().union(*(set(s.step.tolist()) for _, _, s in arms)))
        plan.append((run_dir, rel, label, folder, arms, sampled))
        for arm, summary, steps in arms:
            for r in steps.itertuples(index=False):
                filters = {
                    "run": label,
                    "arm": arm,
                    "correct": verdict(bool(r.correct)),
                    "covered": verdict(bool(r.covered)),
                }
                section.rows.append(
                    Row(
                        f"{folder}/step-{int(r.step):05d}.html#arm-{slug(arm)}",
                        [
                            label,
                            int(r.step),
                            f"S{int(r.state)}",
                            arm,
                            f"S{int(r.predicted)}" if int(r.predicted) >= 0 else "none",
                            filters["correct"],
                            filters["covered"],
                            int(r.prompt_tokens),
                        ],
                        filters,
                        f"{label} {arm} S{int(r.state)}",
                    )
                )

    def draw(w: Writer) -> None:
        for run_dir, rel, label, folder, arms, sampled in plan:
            world, trace = _world_and_trace(results, rel.parts)
            by_arm = {arm: (summary, steps.set_index("step")) for arm, summary, steps in arms}
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

    section.draw = draw
    return section


def _state_text(world, state) -> str:
    if world is None or state is None or state < 0 or state >= len(world.state_texts):
        return ""
    return world.state_texts[state]
