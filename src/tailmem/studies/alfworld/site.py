"""ALFWorld: one page per game of each memory cell (observations, actions, the memory block at each step, the outcome)
and per task of each skill cell (the guidance it was given, what it did, and the store as it stood before it).

The skill stage keeps a snapshot of the store before every task (`snapshots/manifests/before_<game>.json`, blobs by
sha256); the site draws each blob once per cell and every task's store as a list of links to them."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tailmem.alfworld.layout import snapshot_label
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.records.alfworld import AlfworldChain, AlfworldMemoryCell
from tailmem.roles import EXECUTOR, is_programmatic
from tailmem.site.model import Row, Section, slug, verdict
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts

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
    root = results / "alfworld"
    memory, skills = [], []
    for path in sorted((root / "memory").rglob("episodes.json")) if (root / "memory").is_dir() else []:
        try:
            data = AlfworldMemoryCell.read(path).to_json()
        except Exception as exc:  # noqa: BLE001
            section.notes.append(f"{path}: unreadable ({exc})")
            continue
        rel = PurePosixPath(path.parent.relative_to(root).as_posix())
        cell = "/".join(rel.parts[1:])
        folder = f"alfworld/{rel}"
        memory.append((path, data, cell, folder))
        for ep in data.get("episodes", []):
            href = f"{folder}/{slug(ep['id'])}.html"
            filters = {
                "setting": "memory",
                "arm": data.get("arm", rel.parts[-1]),
                "protocol": "",
                "cell": cell,
                "family": ep.get("family", ""),
                "success": verdict(bool(ep.get("success"))) if ep.get("loaded") else "-",
            }
            section.rows.append(
                Row(
                    href,
                    [
                        "memory",
                        cell,
                        ep["id"],
                        ep.get("family"),
                        filters["success"],
                        ep.get("steps"),
                        ep.get("invalid"),
                    ],
                    filters,
                    f"{ep['id']} {ep.get('goal', '')} {cell}",
                )
            )
    for path in sorted((root / "skills").rglob("chain.json")) if (root / "skills").is_dir() else []:
        try:
            data = AlfworldChain.read(path).to_json()
        except Exception as exc:  # noqa: BLE001
            section.notes.append(f"{path}: unreadable ({exc})")
            continue
        rel = PurePosixPath(path.parent.relative_to(root).as_posix())
        cell = "/".join(rel.parts[1:])
        folder = f"alfworld/{rel}"
        skills.append((path, data, cell, folder))
        for t in data.get("tasks", []):
            href = f"{folder}/task-{int(t['index']):04d}.html"
            filters = {
                "setting": "skills",
                "arm": data.get("variant", rel.parts[-1]),
                "protocol": data.get("protocol", ""),
                "cell": cell,
                "family": t.get("family", ""),
                "success": verdict(bool(t.get("success"))) if t.get("ran") else "-",
            }
            section.rows.append(
                Row(
                    href,
                    ["skills", cell, t["id"], t.get("family"), filters["success"], t.get("steps"), t.get("invalid")],
                    filters,
                    f"{t['id']} {cell}",
                )
            )

    def draw(w: Writer) -> None:
        for path, data, cell, folder in memory:
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
        for path, data, cell, folder in skills:
            _draw_skill_cell(w, path.parent, data, cell, folder, transcripts)

    section.draw = draw
    return section


def _draw_skill_cell(w: Writer, cell_dir: Path, data: dict, cell: str, folder: str, transcripts: Transcripts) -> None:
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
