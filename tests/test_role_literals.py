"""A role's name and the programmatic marker are spelled in `tailmem.roles` only; every other module reads them there.

Before, "searcher" was a string literal 55 times in src/ (19 files), "builder" 54, "judge" 44, "policy" 21,
"executor" 19, "predictor" 11 and "programmatic" 37, with 18 more `programmatic-<name>` spellings, and six
functions decided who plays a role. Checked on the parsed source (Python's own `ast`), so comments and docstrings
may name a role; a literal that means something else (the walk policy's config group, a note's key) says so on
its line with "not the role"."""

import ast
from pathlib import Path

import tailmem
from tailmem import roles

PACKAGE = Path(tailmem.__file__).parent
WORDS = {*roles.ROLES, roles.PROGRAMMATIC}
PREFIX = roles.programmatic_agent("")  # `programmatic-`


def _spelled(value: str) -> bool:
    return value in WORDS or value.startswith(PREFIX)


def spelled_outside_roles(package: Path = PACKAGE) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name == "roles.py":
            continue
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _spelled(node.value):
                if "not the role" not in lines[node.lineno - 1]:
                    found.append(f"{name}:{node.lineno}: {node.value!r}")
    return sorted(found, key=lambda f: (f.split(":")[0], int(f.split(":")[1])))


def test_role_names_are_spelled_in_the_roles_module_only():
    found = spelled_outside_roles()
    assert found == [], "use the constants and functions of tailmem.roles:\n" + "\n".join(found)


def test_the_check_sees_a_literal(tmp_path):
    """The walk above finds a role literal, an f-string's `programmatic-` and the marker, and honours the note."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(
        'A = "searcher"\nB = f"programmatic-{A}"\nC = "programmatic"\nD = "policy"  # the config group, not the role\n'
    )
    assert spelled_outside_roles(pkg) == ["m.py:1: 'searcher'", "m.py:2: 'programmatic-'", "m.py:3: 'programmatic'"]


def test_who_plays_a_role_is_read_from_the_config():
    offline = {"llm": {"roles": {roles.SEARCHER: {"backend": roles.PROGRAMMATIC}}}}
    model = {"llm": {"roles": {roles.SEARCHER: {"backend": "openai", "model": "m-1"}}}}
    assert roles.configured_model(offline, roles.SEARCHER) is None
    assert roles.configured_model({}, roles.JUDGE) is None
    assert roles.configured_model(model, roles.SEARCHER) == "m-1"
    assert roles.player_label(roles.SEARCHER, roles.PROGRAMMATIC) == "programmatic-searcher"
    assert roles.player_label(roles.SEARCHER, roles.PROGRAMMATIC, agent="mine") == "mine"
    assert roles.player_label(roles.SEARCHER, "instruct", "m-1") == "m-1"
    assert roles.client_label(None, roles.BUILDER) == "programmatic-builder"
    assert roles.is_programmatic("programmatic-curator") and roles.is_programmatic("")
    assert not roles.is_programmatic("gpt-5.4-mini")
