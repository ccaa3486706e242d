"""The `data` target (issue 16 finding 5): every benchmark file verified by pinned sha256; absent files fetched from a
loopback HTTP server serving the shared data folder, with resume and checksum; one clear message otherwise.
Tests never reach the internet: manifest URLs are blanked, only the loopback mirror is used."""

import dataclasses
import http.server
import threading
from functools import partial
from pathlib import Path

import pytest

from tailmem.data import fetch as fetch_mod
from tailmem.data.fetch import download, main, report
from tailmem.data.manifest import MANIFEST, file_sha256, problems, status, tree_sha256
from tailmem.errors import DataError


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files, honouring `Range: bytes=N-` (the stdlib handler ignores it); records what it was asked."""

    seen: list = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        RangeHandler.seen.append((self.path, self.headers.get("Range")))
        rng = self.headers.get("Range")
        path = Path(self.translate_path(self.path))
        if not rng or not path.is_file():
            return super().do_GET()
        start = int(rng.split("=")[1].split("-")[0])
        data = path.read_bytes()
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        self.wfile.write(data[start:])


class PlainHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(handler, folder):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def mirror(data_dir):
    RangeHandler.seen = []
    server, url = _serve(RangeHandler, data_dir)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture
def offline_manifest(monkeypatch):
    """The manifest without its internet URLs, so only the loopback mirror is ever asked."""
    entries = tuple(dataclasses.replace(e, url=None) for e in MANIFEST)
    monkeypatch.setattr(fetch_mod, "MANIFEST", entries)
    return entries


def _entry(path):
    return next(e for e in MANIFEST if e.path == path)


def test_manifest_pins_the_shared_data(data_dir):
    """Every entry (files and the two ALFWorld trees) matches its sha256 in the shared folder."""
    assert problems(data_dir) == []
    assert {e.kind for e in MANIFEST} == {"file", "tree"}
    assert len({e.path for e in MANIFEST}) == len(MANIFEST)


def test_tree_digest_changes_with_any_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.json").write_text("1")
    before = tree_sha256(tmp_path)
    (tmp_path / "a" / "x.json").write_text("2")
    assert tree_sha256(tmp_path) != before


def test_fresh_clone_gets_one_message_listing_everything(tmp_path, offline_manifest, capsys):
    assert main(["--data-dir", str(tmp_path), "--check"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Benchmark data: {len(MANIFEST)} of {len(MANIFEST)} entries missing")
    for e in MANIFEST:
        assert e.path in err
    assert "python -m tailmem data" in err and "CC BY-NC 4.0" in err and "TAILMEM_DATA_DIR" in err
    assert list(tmp_path.iterdir()) == []  # --check downloads nothing


def test_fetch_everything_fetchable_from_the_loopback_mirror(tmp_path, data_dir, mirror, offline_manifest, capsys):
    small = [e for e in offline_manifest if e.kind == "file" and e.size < 3_000_000]
    trees = [e for e in offline_manifest if e.kind == "tree"]
    fetch_mod.MANIFEST = tuple(small + trees)
    assert main(["--data-dir", str(tmp_path), "--mirror", mirror]) == 1  # trees have no single URL
    for e in small:
        assert status(e, tmp_path) == "ok", e.path
        assert not (tmp_path / (e.path + ".part")).exists()
    err = capsys.readouterr().err
    assert f"{len(trees)} of {len(small) + len(trees)} entries" in err
    assert all(t.path in err for t in trees) and "ExpeL" in err
    assert all(path.startswith("/") and rng is None for path, rng in RangeHandler.seen)


def test_resume_asks_only_for_the_rest(tmp_path, data_dir, mirror):
    e = _entry("locomo/locomo10.json")
    dest = tmp_path / e.path
    dest.parent.mkdir(parents=True)
    head = (data_dir / e.path).read_bytes()[:1_000_000]
    (tmp_path / (e.path + ".part")).write_bytes(head)
    received = download(f"{mirror}/{e.path}", dest, e)
    assert received == e.size - len(head)
    assert RangeHandler.seen[-1][1] == f"bytes={len(head)}-"
    assert file_sha256(dest) == e.sha256 and not (tmp_path / (e.path + ".part")).exists()


def test_a_server_that_ignores_range_starts_over(tmp_path, data_dir):
    server, url = _serve(PlainHandler, data_dir)
    try:
        e = _entry("realtalk/Chat_1_Emi_Elise.json")
        (tmp_path / "realtalk").mkdir()
        (tmp_path / (e.path + ".part")).write_bytes(b"garbage-from-an-old-attempt")
        assert download(f"{url}/{e.path}", tmp_path / e.path, e) == e.size
        assert status(e, tmp_path) == "ok"
    finally:
        server.shutdown()
        server.server_close()


def test_checksum_mismatch_deletes_the_download(tmp_path, mirror):
    e = dataclasses.replace(_entry("realtalk/Chat_2_Kevin_Elise.json"), sha256="0" * 64)
    with pytest.raises(DataError, match="expected 0000"):
        download(f"{mirror}/{e.path}", tmp_path / e.path, e)
    assert not (tmp_path / e.path).exists() and not (tmp_path / (e.path + ".part")).exists()


def test_a_corrupt_partial_is_retried_from_scratch(tmp_path, mirror):
    e = _entry("realtalk/Chat_3_Kevin_Paola.json")
    (tmp_path / "realtalk").mkdir()
    (tmp_path / (e.path + ".part")).write_bytes(b"x" * 1000)  # resumed onto wrong bytes: fails, then restarts
    assert fetch_mod.fetch(dataclasses.replace(e, url=None), tmp_path, mirror, log=lambda m: None)
    assert status(e, tmp_path) == "ok"


def test_wrong_bytes_are_reported_and_replaced(tmp_path, mirror, offline_manifest):
    e = _entry("realtalk/Chat_4_Emi_Paola.json")
    fetch_mod.MANIFEST = (dataclasses.replace(e, url=None),)
    (tmp_path / "realtalk").mkdir()
    (tmp_path / e.path).write_bytes(b"y" * e.size)  # right size, wrong content
    assert status(e, tmp_path, deep=False) == "ok" and status(e, tmp_path) == "wrong sha256"
    assert main(["--data-dir", str(tmp_path), "--mirror", mirror]) == 0
    assert status(e, tmp_path) == "ok"


def test_unreachable_mirror_leaves_the_message(tmp_path, offline_manifest, capsys):
    fetch_mod.MANIFEST = offline_manifest[:2]
    assert main(["--data-dir", str(tmp_path), "--mirror", "http://127.0.0.1:9"]) == 1
    out = capsys.readouterr()
    assert "unreachable" in out.out and "python -m tailmem data" in out.err


def test_report_names_download_url_when_there_is_one():
    e = _entry("locomo/locomo10.json")
    text = report([(e, "missing")], Path("/nowhere"))
    assert "download: https://" in text and "/nowhere" in text and "1 of" in text


def test_cli_dispatches_the_data_command(tmp_path, offline_manifest, capsys):
    from tailmem.cli import main as cli_main

    assert cli_main(["data", "--check", "--data-dir", str(tmp_path)]) == 1
    assert "python -m tailmem data" in capsys.readouterr().err


def test_a_stage_without_its_data_names_the_command(tmp_path):
    from tailmem.data import locomo

    with pytest.raises(DataError, match="python -m tailmem data"):
        locomo.load(tmp_path / "locomo10.json", "conv-50")
