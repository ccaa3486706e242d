from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store, parse, render
from tailmem.fsmem.tools.center import center, center_bm25
from tailmem.fsmem.tools.management import management


def make(tmp_path):
    s = Store(tmp_path / "s")
    m = management(s)
    m.call("create", {"path": "people/dave.md", "description": "Dave: cars and music",
                      "content": "## 2 May, 2023 (session 2)\n- [D2:10] Dave: I saw Aerosmith live last weekend.\n"})
    m.call("create", {"path": "topics/cars.md", "description": "Cars", "content": "## Shop\n- [D4:5] Dave: opening a car shop\n"})
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
    r = m.call("append_section", {"path": "people/dave.md", "heading": "2 May, 2023 (session 2)", "text": "- [D2:11] more"})
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
