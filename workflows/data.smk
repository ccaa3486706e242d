# Benchmark data: `snakemake --cores 1 data` verifies every benchmark file against its pinned sha256
# (tailmem.data.manifest) and fetches what is absent when a download URL or a mirror is configured
# (`--config data_mirror=URL`: a copy of the data folder served over HTTP). Same as `python -m tailmem data`.
# At parse time a quick check (presence and size) lists anything missing in one message; `TAILMEM.data_ready` says whether
# the benchmark stages can run, so the graph-world stages need not wait on data a fresh clone lacks.
import sys

from tailmem.dag import dag_of
from tailmem.data import fetch as data_fetch
from tailmem.data.manifest import MANIFEST

TAILMEM = dag_of(config, workflow.basedir)

DATA_MIRROR = config.get("data_mirror")
if TAILMEM.data_missing and not TAILMEM.in_slice:  # once: the model slice (a module of this file) reads the same data
    print(data_fetch.report(TAILMEM.data_missing, TAILMEM.data_dir, len(MANIFEST)), file=sys.stderr)


rule data:
    params:
        data_dir=TAILMEM.data_dir,
        mirror=f"--mirror {DATA_MIRROR}" if DATA_MIRROR else "",
    log:
        TAILMEM.log_of("data"),
    conda:
        TAILMEM.conda_env
    shell:
        "python -m tailmem data --data-dir {params.data_dir} {params.mirror} 2>&1 | tee {log}"
