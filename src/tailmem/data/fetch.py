"""`python -m tailmem data`: verify every benchmark file against its pinned sha256 and fetch what is absent.

A file is fetched only from a URL that serves its exact bytes: the manifest's own `url`, or a mirror of the data
folder (`--mirror URL` or env TAILMEM_DATA_MIRROR; it serves <mirror>/<path>). Downloads go to `<file>.part` and
resume from its size with an HTTP Range request (a server that ignores Range starts over); the file takes its name
only once its sha256 matches, and a mismatched download is deleted. Anything still missing is listed with where to
get it and its licence, and the command exits 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tailmem.data.manifest import MANIFEST, Entry, file_sha256, problems
from tailmem.errors import DataError

COMMAND = "python -m tailmem data"
DEFAULT_DATA_DIR = "../shared/data"  # as configs/config.yaml's data_dir: from the checkout


def data_dir_default() -> Path:
    """$TAILMEM_DATA_DIR, else ../shared/data from the checkout (not the working directory), as the config's."""
    from tailmem.settings.schema import from_checkout

    return Path(os.environ.get("TAILMEM_DATA_DIR") or from_checkout(DEFAULT_DATA_DIR))


def download(url: str, dest: Path, entry: Entry, timeout: float = 30.0, chunk: int = 1 << 16) -> int:
    """Fetch `url` into `dest` (resuming `dest.part`), check size and sha256, then rename; returns bytes received."""
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    if have > entry.size:
        part.unlink()
        have = 0
    received = 0
    if have < entry.size:
        request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            resumed = (
                have > 0 and resp.status == 206 and resp.headers.get("Content-Range", "").startswith(f"bytes {have}-")
            )
            with open(part, "ab" if resumed else "wb") as f:
                while block := resp.read(chunk):
                    f.write(block)
                    received += len(block)
    got = file_sha256(part)
    if got != entry.sha256:
        part.unlink()
        raise DataError(
            f"{url}: downloaded {entry.path} has sha256 {got}, expected {entry.sha256}; the download was deleted"
        )
    os.replace(part, dest)
    return received


def urls(entry: Entry, mirror: str | None) -> list[str]:
    out = [f"{mirror.rstrip('/')}/{entry.path}"] if mirror and entry.kind == "file" else []
    return out + ([entry.url] if entry.url and entry.kind == "file" else [])


def fetch(entry: Entry, data_dir: Path, mirror: str | None, log=print) -> bool:
    """Try each URL in turn (mirror first); True once the file is in place and verified. A wrong download is
    retried once from scratch, since a stale `.part` may have been resumed."""
    for url in urls(entry, mirror):
        for attempt in (1, 2):
            try:
                n = download(url, Path(data_dir) / entry.path, entry)
                log(f"  fetched {entry.path} ({n:,} bytes) from {url}")
                return True
            except DataError as exc:
                log(f"  {exc}")
                if attempt == 2:
                    break
            except (urllib.error.URLError, OSError, ValueError) as exc:
                log(f"  {url}: unreachable ({getattr(exc, 'reason', exc)})")
                break
    return False


def report(bad: list[tuple[Entry, str]], data_dir: Path, total: int = len(MANIFEST)) -> str:
    """The one message a run without its data gets: what is missing, where to get it, and the command."""
    lines = [f"Benchmark data: {len(bad)} of {total} entries missing or not as pinned under {data_dir}:"]
    by_benchmark: dict[str, list[tuple[Entry, str]]] = {}
    for e, why in bad:
        by_benchmark.setdefault(e.benchmark, []).append((e, why))
    for benchmark, items in by_benchmark.items():
        licences = sorted({e.licence for e, _ in items})
        lines.append(f"  {benchmark} (licence: {'; '.join(licences)})")
        for e, why in items:
            url = f"; download: {e.url}" if e.url else ""
            lines.append(f"    - {e.path}: {why}; from {e.source}{url}")
    lines.append(f"Fetch them with: {COMMAND}   (add --mirror URL for a copy of the data folder served over HTTP)")
    lines.append("or point TAILMEM_DATA_DIR (Hydra key data_dir=) at a folder that has them.")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="data folder (default: $TAILMEM_DATA_DIR or ../shared/data beside the checkout)",
    )
    ap.add_argument(
        "--mirror",
        default=os.environ.get("TAILMEM_DATA_MIRROR"),
        help="base URL serving a copy of the data folder (default: $TAILMEM_DATA_MIRROR)",
    )
    ap.add_argument("--check", action="store_true", help="verify only; download nothing")
    args = ap.parse_args(argv)
    data_dir = args.data_dir or data_dir_default()
    bad = problems(data_dir, entries=MANIFEST)
    if bad and not args.check:
        for entry, why in bad:
            if entry.kind == "file" and urls(entry, args.mirror):
                print(f"{entry.path}: {why}; fetching")
                fetch(entry, data_dir, args.mirror)
        bad = problems(data_dir, entries=MANIFEST)
    if bad:
        print(report(bad, data_dir, len(MANIFEST)), file=sys.stderr)
        return 1
    print(f"Benchmark data: all {len(MANIFEST)} entries verified by sha256 under {data_dir}")
    return 0
