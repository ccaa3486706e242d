"""ALFWorld: one page per game of each memory cell (observations, actions, the memory block at each step, the outcome)
and per task of each skill cell (the guidance it was given, what it did, and the store as it stood before it).

The skill stage keeps a snapshot of the store before every task (`snapshots/manifests/before_<game>.json`, blobs by
sha256); the site draws each blob once per cell and every task's store as a list of links to them."""

from __future__ import annotations

from pathlib import Path

from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.records.alfworld import AlfworldChain, AlfworldMemoryCell
from tailmem.roles import EXECUTOR, is_programmatic
from tailmem.site.collect import Files, Found, from_files
from tailmem.site.model import Row, Section, slug, verdict
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts
from tailmem.studies.alfworld.play.layout import snapshot_label

BLOB_CHARS = 60000


def _steps(ep: dict) -> list[dict]:
    """Each step: number, memory block and marks (when the episode kept them), action, what the game answered."""
    blocks = ep.get("blocks") or []
    out = []
    for k, (action, feedback) in enumerate(ep.get("trajectory") or []):
        block = blocks[k] if k < len(blocks) else None
        out.append(
            {
                "n": k + 1,
                "action": action,
                "feedback": feedback,
                "memory": block[0] if block else None,
                "marks": block[1] if block else None,
            }
        )
    return out


def collect(results: Path, cfg, transcripts: Transcripts) -> Section:
    section = Section(
        key="alfworld",
        title="ALFWorld: every game",
        blurb="Memory cells (paper 1's observation memory): one page per game with the observations, actions and the "
        "memory block at each step. Skill cells (paper 2): one page per task with the guidance it was given, "
        "its trajectory and the store as it stood before it.",
        columns=["setting", "cell", "game", "family", "success", "steps", "invalid actions"],
        filters=[
            ("setting", "setting"),
            ("arm", "memory arm or skill variant"),
            ("protocol", "protocol"),
            ("cell", "cell"),
            ("family", "task family"),
            ("success", "success"),
        ],
    )
    memory = Files(
        "memory/**/episodes.json",
        read=lambda path: AlfworldMemoryCell.read(path).to_json(),
        rows=_game_rows,
        draw=lambda w, cells: _draw_games(w, cells, transcripts),
    )
    skills = Files(
        "skills/**/chain.json",
        read=lambda path: AlfworldChain.read(path).to_json(),
        rows=_task_rows,
        draw=lambda w, cells: _draw_tasks(w, cells, transcripts),
    )
    return from_files(section, results, memory, skills)


def _cell(found: Found) -> str:
    """A cell's name: its folder below memory/ or skills/."""
    return "/".join(found.rel.parts[1:])


def _game_rows(cell: Found) -> list[Row]:
    """One row per game of a memory cell."""
    arm, name = cell.data.get("arm", cell.rel.parts[-1]), _cell(cell)
    return [
        _row(cell, "memory", arm, "", ep, ep.get("loaded"), f"{slug(ep['id'])}.html", f"{ep.get('goal', '')} {name}")
        for ep in cell.data.get("episodes", [])
    ]


def _task_rows(cell: Found) -> list[Row]:
    """One row per task of a skill cell."""
    data = cell.data
    arm, protocol = data.get("variant", cell.rel.parts[-1]), data.get("protocol", "")
    return [
        _row(cell, "skills", arm, protocol, t, t.get("ran"), f"task-{int(t['index']):04d}.html", _cell(cell))
        for t in data.get("tasks", [])
    ]


def _row(cell: Found, setting: str, arm: str, protocol: str, item: dict, played, page: str, text: str) -> Row:
    """A game's or a task's row: its success only where it was played (loaded, ran), else `-`."""
    name = _cell(cell)
    success = verdict(bool(item.get("success"))) if played else "-"
    filters = {
        "setting": setting,
        "arm": arm,
        "protocol": protocol,
        "cell": name,
        "family": item.get("family", ""),
        "success": success,
    }
    cells = [setting, name, item["id"], item.get("family"), success, item.get("steps"), item.get("invalid")]
    return Row(f"{cell.folder}/{page}", cells, filters, f"{item['id']} {text}")


def _draw_games(w: Writer, cells: list[Found], transcripts: Transcripts) -> None:
    """One page per game of each memory cell."""
    for found in cells:
        data, cell, folder = found.data, _cell(found), found.folder
        eps = data.get("episodes", [])
        for k, ep in enumerate(eps):
            agent = ep.get("agent") or data.get(EXECUTOR, "")
            call, matched = None, 0
            if not is_programmatic(agent) and ep.get("goal"):  # the goal, and the last block (arms differ)
                last = next((b[0] for b in reversed(ep.get("blocks") or []) if b and b[0]), None)
                call, matched = transcripts.transcript(
                    EXECUTOR, "alfworld_memory", [ep["goal"], *([last] if last else [])]
                )
            w.write(
                f"{folder}/{slug(ep['id'])}.html",
                "alfworld_game.html",
                title=f"ALFWorld memory · {cell} · {ep['id']}",
                cell=cell,
                ep=ep,
                steps=_steps(ep),
                settings=data.get("settings", {}),
                agent=agent,
                programmatic=is_programmatic(agent),
                call=call,
                matched=matched,
                accesses=sorted((ep.get("accesses") or {}).items(), key=lambda kv: (-kv[1], kv[0])),
                prev_href=f"{folder}/{slug(eps[k - 1]['id'])}.html" if k > 0 else None,
                next_href=f"{folder}/{slug(eps[k + 1]['id'])}.html" if k + 1 < len(eps) else None,
                back="alfworld/index.html",
            )


def _draw_tasks(w: Writer, cells: list[Found], transcripts: Transcripts) -> None:
    for found in cells:
        _draw_skill_cell(w, found, transcripts)


def _draw_skill_cell(w: Writer, found: Found, transcripts: Transcripts) -> None:
    """One page per task of a skill cell, and one per blob of the stores it saw before them."""
    cell_dir, data, cell, folder = found.path.parent, found.data, _cell(found), found.folder
    manifests = cell_dir / "snapshots" / "manifests"
    objects = cell_dir / "snapshots" / "objects"
    drawn: set[str] = set()
    tasks = data.get("tasks", [])
    played = data.get("episodes", {}) or {}
    agents = data.get("agents", {})
    for k, t in enumerate(tasks):
        manifest = manifests / f"{snapshot_label('before', t['id'])}.json"
        store = None
        if manifest.is_file():
            snap = SnapshotLog(cell_dir / "snapshots").load(snapshot_label("before", t["id"]))
            store = []
            for p, digest in sorted(snap.files.items()):
                page = f"{folder}/blob-{digest[:16]}.html"
                if digest not in drawn and (objects / digest).is_file():
                    drawn.add(digest)
                    text = (objects / digest).read_bytes().decode(errors="replace")
                    w.write(
                        page,
                        "blob.html",
                        title=f"{cell} · {p}",
                        path=p,
                        digest=digest,
                        text=text[:BLOB_CHARS],
                        cut=max(0, len(text) - BLOB_CHARS),
                        back=f"{folder}/task-{int(t['index']):04d}.html",
                    )
                store.append({"path": p, "page": page if digest in drawn else None})
        ep = played.get(t["id"]) or {}
        executor = agents.get(EXECUTOR, "")
        call, matched = None, 0
        if not is_programmatic(executor) and ep.get("goal"):
            call, matched = transcripts.transcript(
                EXECUTOR, "alfworld_skills", [ep["goal"], *([ep["guidance"]] if ep.get("guidance") else [])]
            )
        w.write(
            f"{folder}/task-{int(t['index']):04d}.html",
            "alfworld_task.html",
            title=f"ALFWorld skills · {cell} · task {t['index']}",
            cell=cell,
            t=t,
            ep=ep,
            steps=_steps(ep),
            store=store,
            agents=agents,
            call=call,
            matched=matched,
            programmatic=is_programmatic(executor),
            prev_href=f"{folder}/task-{int(tasks[k - 1]['index']):04d}.html" if k > 0 else None,
            next_href=f"{folder}/task-{int(tasks[k + 1]['index']):04d}.html" if k + 1 < len(tasks) else None,
            back="alfworld/index.html",
        )
