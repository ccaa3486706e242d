# Benchmark data: `snakemake --cores 1 data` verifies every benchmark file against its pinned sha256
# (tailmem.data.manifest) and fetches what is absent when a download URL or a mirror is configured
# (`--config data_mirror=URL`: a copy of the data folder served over HTTP). Same as `python -m tailmem data`.
# At parse time a quick check (presence and size) lists anything missing in one message; DATA_READY says whether
# the benchmark stages can run, so the graph-world stages need not wait on data a fresh clone lacks.
import sys
from pathlib import Path

from tailmem.data import fetch as data_fetch
from tailmem.data.manifest import MANIFEST, problems

DATA_DIR = Path(str(CFG.data_dir))
DATA_MIRROR = config.get("data_mirror")
DATA_MISSING = problems(DATA_DIR, deep=False)
DATA_READY = not DATA_MISSING
if DATA_MISSING and not config.get("slice_of"):  # once: the model slice (a module of this file) reads the same data
    print(data_fetch.report(DATA_MISSING, DATA_DIR, len(MANIFEST)), file=sys.stderr)


rule data:
    params:
        data_dir=str(DATA_DIR),
        mirror=f"--mirror {DATA_MIRROR}" if DATA_MIRROR else "",
    log:
        log_of("data"),
    conda:
        CONDA_ENV
    shell:
        "python -m tailmem data --data-dir {params.data_dir} {params.mirror} 2>&1 | tee {log}"
