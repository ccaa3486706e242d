"""The benchmark files every stage reads, each pinned by sha256, with where it comes from and under which licence.

Paths are relative to the data folder (`data_dir`, env TAILMEM_DATA_DIR, default ../shared/data). A `file` entry is
one file; a `tree` entry is a folder pinned by the sha256 of its listing (one "relative/path<TAB>sha256" line per
file, sorted), as the ALFWorld games are hundreds of files. `url` is a download URL whose bytes match the pin (a
raw file at a pinned commit); None where no public URL serves these exact bytes (our LongMemEval files were
reassembled from per-question files; trees have no single URL): `source` then says where to get them. A mirror
(`python -m tailmem data --mirror URL`) serves any entry of kind `file` at <mirror>/<path>.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

_RAW = "https://raw.githubusercontent.com"
_LOCOMO = f"{_RAW}/snap-research/locomo/3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376"
_REALTALK = f"{_RAW}/danny911kr/REALTALK/b903e06a9770bf4e5fe9018c3e132889666d3b4a/data"
_PERSONAMEM = f"{_RAW}/PengHongyiNTU/agentscope/01d547957aef71a5bf5dd87b31deedf0cb4e50ce/data/personamem"
_EXPEL = f"{_RAW}/LeapLabTHU/ExpeL/e9fa78bde2633e43d09ec9328157e60c4de7607f/data/alfworld"
_ALFWORLD = f"{_RAW}/alfworld/alfworld/ca98194122f6759fdc11960e56f520d6175fd960/alfworld/data"

LOCOMO_LICENCE = "CC BY-NC 4.0 (non-commercial; cite Maharana et al., ACL 2024)"
LME_LICENCE = "MIT (LongMemEval, Wu et al., ICLR 2025)"
LME_SOURCE = (
    "the official release at huggingface.co/datasets/xiaowu0162/longmemeval-cleaned "
    "(ours: reassembled from hussainzs/Memoria@959167b8 evaluations/data/lme_jsons, sorted by question_id; "
    "see PROVENANCE.md)"
)
REALTALK_LICENCE = "no licence file (research use with citation, Lee et al., 2025; do not redistribute)"
ALFWORLD_LICENCE = "MIT (ALFWorld)"


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the data folder
    sha256: str
    size: int  # bytes (a tree: the sum over its files)
    benchmark: str
    licence: str
    source: str  # where to get it by hand
    url: str | None = None  # direct download of exactly these bytes
    kind: str = "file"  # file | tree
    files: int = 1  # a tree: how many files


def _realtalk(name: str, size: int, sha: str) -> Entry:
    return Entry(
        f"realtalk/{name}",
        sha,
        size,
        "REALTALK",
        REALTALK_LICENCE,
        "github.com/danny911kr/REALTALK @ b903e06a, data/",
        f"{_REALTALK}/{name}",
    )


MANIFEST: tuple[Entry, ...] = (
    Entry(
        "locomo/locomo10.json",
        "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
        2805274,
        "LoCoMo",
        LOCOMO_LICENCE,
        "github.com/snap-research/locomo @ 3eb6f2c5, data/locomo10.json",
        f"{_LOCOMO}/data/locomo10.json",
    ),
    Entry(
        "locomo/LICENSE_LoCoMo_CC-BY-NC-4.0.txt",
        "41003d4a74749c0220e33dd415042164b5a1093ed401f36277234f772d22d3d0",
        19347,
        "LoCoMo",
        LOCOMO_LICENCE,
        "github.com/snap-research/locomo, LICENSE.txt",
    ),
    Entry(
        "longmemeval/longmemeval_oracle.json",
        "65a8b2afea9ccb19bd9a1655c4c3e4d4de23aa19ccf94cff85b613d6b3380271",
        14230736,
        "LongMemEval",
        LME_LICENCE,
        f"longmemeval_oracle.json from {LME_SOURCE}",
    ),
    Entry(
        "longmemeval/longmemeval_s_cleaned.sample60.json",
        "22fb03c8de3dbb81ced5a6641042023fa6024459113ea918def62656e9a09a26",
        31068126,
        "LongMemEval",
        LME_LICENCE,
        f"a 60-question stratified sample (10 per type) of longmemeval_s_cleaned.json from {LME_SOURCE}",
    ),
    Entry(
        "longmemeval/LICENSE_LongMemEval_MIT.txt",
        "d3c4b9aa54759df6ded337978a6f3b55b75615e5e4525c3b82d7e2627d4b9732",
        1062,
        "LongMemEval",
        LME_LICENCE,
        "github.com/xiaowu0162/LongMemEval, LICENSE",
    ),
    Entry(
        "personamem/questions_32k.csv",
        "23f306a8d28b7ffcf133fe7dad09ade06fcb862fc7c3f19691362a5cd69409bd",
        1304777,
        "PersonaMem",
        "none found (research use; cite Jiang et al., 2025)",
        "github.com/PengHongyiNTU/agentscope @ 01d54795 (branch feature/eval/add-personamem), data/personamem/ "
        "(a copy of huggingface.co/datasets/bowen-upenn/PersonaMem)",
        f"{_PERSONAMEM}/questions_32k.csv",
    ),
    _realtalk("Chat_1_Emi_Elise.json", 236990, "4e947998a751a1ba2c3710fc873b90fbcbc234fda7a5e4e75db2b762e0f25a36"),
    _realtalk("Chat_2_Kevin_Elise.json", 228327, "4ac6e319c206731aa9a025c93325eb1edb43686cf39473f058c87ae7deb2d62a"),
    _realtalk("Chat_3_Kevin_Paola.json", 231570, "10c9208016538cbe7a28aafa6cfd72587b072677964c36ec242159fdf58961f2"),
    _realtalk("Chat_4_Emi_Paola.json", 232501, "80aa012ed6a918f5b317bd942b4d4811a158d27a6e07b7a5c6182994107a9367"),
    _realtalk(
        "Chat_5_Nicolas_Nebraas.json", 466832, "32dd7c45786b1a26861dc1574a1bb698a855196fd2ae3fc0c091f3c9ab2d6d06"
    ),
    _realtalk(
        "Chat_6_Vanessa_Nicolas.json", 467008, "9d5ee072ab5a0667ef71d5644d7cd3a4c6777a1e6e2252bf306f310d982e40ac"
    ),
    _realtalk(
        "Chat_7_Nebraas_Vanessa.json", 383849, "b5716bb093217980e747dec0d98996829b569febc09587a025efc6b79806e9ce"
    ),
    _realtalk("Chat_8_Akib_Muhhamed.json", 364402, "814f64ad7e8a46f0398f550fe84184e2ba495a292290b9ff96ffc95448280800"),
    _realtalk("Chat_9_Fahim_Akib.json", 400397, "05b9b4331bf0e25a2a64dc89c404622c83a61ab5e7c935fb7d844449caf6dd39"),
    _realtalk(
        "Chat_10_Fahim_Muhhamed.json", 283618, "26135a9e3482f40bea4c71de570a2d994a361848111067e60587be1dd82a0127"
    ),
    Entry(
        "alfworld/manifest_solvable.json",
        "12b4748fa4d78545d0cd94252b5342d2f8b155bdea7cedcf78e306d7caf242b4",
        46899,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "made for this project (the solvable games of the two eval splits); comes with the shared data folder",
    ),
    Entry(
        "alfworld/json_2.1.1/valid_seen",
        "b53c6191a207ced2235e5d9663f9fe7661ffebeba64a0e61553282e9af9f4468",
        44413574,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "github.com/LeapLabTHU/ExpeL @ e9fa78bd, data/alfworld/json_2.1.1/valid_seen (the solvable games only; "
        "ALFWorld release 0.2.2 json_2.1.1)",
        kind="tree",
        files=420,
    ),
    Entry(
        "alfworld/json_2.1.1/valid_unseen",
        "00ac73ebf37f78fc7eb75c7cd966e22593844c751d033ba1aafd4e93bf710043",
        46598029,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "github.com/LeapLabTHU/ExpeL @ e9fa78bd, data/alfworld/json_2.1.1/valid_unseen (the solvable games only)",
        kind="tree",
        files=402,
    ),
    Entry(
        "alfworld/logic_2.1.1_expel/alfred.pddl",
        "e64e8c0002648c403e05adedc25be5ea8b9863924f32cc7611051bed1f386e46",
        17067,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "github.com/LeapLabTHU/ExpeL @ e9fa78bd, data/alfworld/logic/",
        f"{_EXPEL}/logic/alfred.pddl",
    ),
    Entry(
        "alfworld/logic_2.1.1_expel/alfred.twl2",
        "d955e6db384c68ac5797e881b795fd36d788e87a03547f9a87e48fbd7c5b361b",
        12154,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "github.com/LeapLabTHU/ExpeL @ e9fa78bd, data/alfworld/logic/",
        f"{_EXPEL}/logic/alfred.twl2",
    ),
    Entry(
        "alfworld/logic_alfworld_head/alfred.pddl",
        "f1473041ed01da514de1f87adfd7ef0804862361f83ccf63c75e43633b0eb280",
        17202,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "github.com/alfworld/alfworld @ ca981941, alfworld/data/",
        f"{_ALFWORLD}/alfred.pddl",
    ),
    Entry(
        "alfworld/logic_alfworld_head/alfred.twl2",
        "c5b22f0f73309a7fd7c8e5b71de42ad4803b60766ab4a51cc2feb34162be036b",
        13263,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "github.com/alfworld/alfworld @ ca981941, alfworld/data/",
        f"{_ALFWORLD}/alfred.twl2",
    ),
    Entry(
        "alfworld/_LICENSE_alfworld_MIT.txt",
        "0bdf8c0558499c192b6ab55818e99e91ef0eb02c6e2d19d907b3f2e14df40590",
        1082,
        "ALFWorld",
        ALFWORLD_LICENCE,
        "github.com/alfworld/alfworld, LICENSE",
    ),
    Entry(
        "alfworld/_LICENSE_ExpeL_Apache2.txt",
        "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4",
        11357,
        "ALFWorld",
        "Apache-2.0 (ExpeL code)",
        "github.com/LeapLabTHU/ExpeL, LICENSE",
    ),
)


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


def tree_listing(folder: Path) -> list[tuple[str, str]]:
    """(relative path, sha256) of every file under a folder, sorted by path."""
    return sorted((p.relative_to(folder).as_posix(), file_sha256(p)) for p in folder.rglob("*") if p.is_file())


def tree_sha256(folder: Path) -> str:
    return hashlib.sha256("".join(f"{rel}\t{sha}\n" for rel, sha in tree_listing(folder)).encode()).hexdigest()


def status(entry: Entry, data_dir: Path, deep: bool = True) -> str:
    """'ok', 'missing' or 'wrong sha256' (deep) / 'wrong size' (shallow: sizes only, for a quick check)."""
    path = Path(data_dir) / entry.path
    if entry.kind == "tree":
        if not path.is_dir():
            return "missing"
        if not deep:
            return "ok"
        return "ok" if tree_sha256(path) == entry.sha256 else "wrong sha256"
    if not path.is_file():
        return "missing"
    if path.stat().st_size != entry.size:
        return "wrong size"
    if deep and file_sha256(path) != entry.sha256:
        return "wrong sha256"
    return "ok"


def problems(data_dir: Path, deep: bool = True, entries=MANIFEST) -> list[tuple[Entry, str]]:
    """Every entry that is not as pinned, with why."""
    return [(e, s) for e in entries if (s := status(e, data_dir, deep)) != "ok"]
