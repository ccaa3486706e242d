from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store, parse, render
from tailmem.fsmem.tools.center import center, center_bm25
from tailmem.fsmem.tools.management import management


def make(tmp_path):
    s = Store(tmp_path / "s")
    m = management(s)
    m.call(
        "create",
        {
            "path": "people/dave.md",
            "description": "Dave: cars and music",
            "content": "## 2 May, 2023 (session 2)\n- [D2:10] Dave: I saw Aerosmith live last weekend.\n",
        },
    )
    m.call(
        "create",
        {"path": "topics/cars.md", "description": "Cars", "content": "## Shop\n- [D4:5] Dave: opening a car shop\n"},
    )
    return s, m


def test_render_parse_roundtrip():
    doc = parse(render("one line: with colon", "body\n"))
    assert doc.description == "one line: with colon" and doc.body == "body\n" and doc.header_lines == 3


def test_view_lists_descriptions_then_numbered_lines(tmp_path):
    s, m = make(tmp_path)
    tree = m.call("view", {"path": ""}).output
    assert "people/dave.md" in tree and "Dave: cars and music" in tree
    assert m.call("view", {"path": "people/dave.md", "view_range": [4, 4]}).output.strip().startswith("4\t## 2 May")


def test_edit_tools(tmp_path):
    s, m = make(tmp_path)
    assert m.call("str_replace", {"path": "people/dave.md", "old_str": "Aerosmith", "new_str": "Aerosmith (rock)"}).ok
    assert m.call("insert", {"path": "people/dave.md", "insert_line": 3, "text": "# Dave"}).ok
    assert s.read("people/dave.md").splitlines()[3] == "# Dave"
    r = m.call(
        "append_section", {"path": "people/dave.md", "heading": "2 May, 2023 (session 2)", "text": "- [D2:11] more"}
    )
    assert r.ok and s.read("people/dave.md").rstrip().endswith("- [D2:11] more")
    assert m.call("rename", {"old_path": "topics/cars.md", "new_path": "deep/new/cars.md"}).ok
    assert (s.root / "deep/new/cars.md").exists()
    assert m.call("delete", {"path": "deep"}).ok and not (s.root / "deep").exists()
    assert m.call("append_section", {"path": "x/new.md", "heading": "H", "text": "t", "description": "new"}).ok


def test_center_tools(tmp_path):
    s, _ = make(tmp_path)
    c = center(s)
    assert "people/dave.md:5:" in c.call("grep", {"pattern": "aerosmith"}).output
    assert "## 2 May, 2023" in c.call("toc", {"path": "people"}).output
    assert "Aerosmith" in c.call("read_section", {"path": "people/dave.md", "heading": "2 May"}).output
    assert c.calls == 3 and c.errors == 0 and c.chars_read > 0
    b = center_bm25(s)
    assert b.call("search", {"query": "car shop"}).output.startswith("topics/cars.md")


def test_snapshots_are_content_addressed(tmp_path):
    s, m = make(tmp_path)
    log = SnapshotLog(tmp_path / "snap")
    a = log.take(s, "chunk_0001")
    m.call("create", {"path": "n.md", "description": "n", "content": "x"})
    b = log.take(s, "chunk_0002")
    assert len(list((tmp_path / "snap/objects").iterdir())) == 3
    assert a.files["people/dave.md"] == b.files["people/dave.md"]
    restored = log.restore("chunk_0001", tmp_path / "r")
    assert restored.files() == s.files()[:2] or set(restored.files()) == set(a.files)


def test_schemas_are_openai_functions(tmp_path):
    s, m = make(tmp_path)
    for schema in m.schemas() + center_bm25(s).schemas():
        assert schema["type"] == "function" and schema["function"]["parameters"]["type"] == "object"


def test_snapshot_restore_refuses_paths_outside_and_bad_blobs(tmp_path):
    import json

    import pytest

    from tailmem.fsmem.errors import FsmemError

    s, m = make(tmp_path)
    log = SnapshotLog(tmp_path / "snap")
    snap = log.take(s, "c1")
    manifest = tmp_path / "snap/manifests/c1.json"
    digest = snap.files["people/dave.md"]
    for path, blob, words in [
        ("../escape.md", digest, "'..' is refused"),
        ("/abs.md", digest, "absolute"),
        ("ok.md", "../../etc/passwd", "sha256 hex digest"),
    ]:
        manifest.write_text(json.dumps({"format_version": 1, "label": "c1", "files": {path: blob}, "bytes": 1}))
        with pytest.raises(FsmemError, match=words):
            log.restore("c1", tmp_path / "r")
    assert not (tmp_path / "escape.md").exists()
    (tmp_path / "snap/objects" / digest).write_bytes(b"tampered")
    manifest.write_text(
        json.dumps({"format_version": 1, "label": "c1", "files": {"people/dave.md": digest}, "bytes": 1})
    )
    with pytest.raises(FsmemError, match="does not match"):
        log.restore("c1", tmp_path / "r2")


def test_names_are_nfc_and_within_the_byte_limit(tmp_path):
    from tailmem.fsmem.store import MAX_NAME_BYTES

    s = Store(tmp_path / "s")
    assert s.relpath("cafe\u0301.md") == "caf\u00e9.md"
    m = management(s)
    assert m.call("create", {"path": "cafe\u0301.md", "description": "d"}).ok
    assert s.files() == ["caf\u00e9.md"]
    assert not m.call("create", {"path": "caf\u00e9.md", "description": "d"}).ok  # one name, already there
    wide = "\u00e9" * ((MAX_NAME_BYTES - 3) // 2 + 1) + ".md"  # few characters, too many UTF-8 bytes
    r = m.call("create", {"path": wide, "description": "d"})
    assert not r.ok and "bytes of UTF-8" in r.output
