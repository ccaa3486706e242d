"""The `site` rule (workflows/site.smk): a dry run of the smoke DAG schedules it after every table and figure of
`all`, with the stage's command and its outputs under <results>/site/."""

import subprocess
import sys

import pytest


def _snakefile(repo_root, tmp_path):
    """The repository's Snakefile if it includes site.smk, else a copy that does (with absolute include paths)."""
    text = (repo_root / "Snakefile").read_text()
    if "workflows/site.smk" in text:
        return repo_root / "Snakefile"
    text = text.replace('include: "workflows/', f'include: "{repo_root}/workflows/')
    text += f'\ninclude: "{repo_root}/workflows/site.smk"\n'
    path = tmp_path / "Snakefile"
    path.write_text(text)
    return path


@pytest.mark.slow
def test_site_rule_waits_for_every_table_and_writes_the_site(repo_root, tmp_path, data_dir):
    snakefile = _snakefile(repo_root, tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(snakefile),
            "--directory",
            str(tmp_path),
            "-n",
            "-p",
            "--cores",
            "1",
            "site",
            "--config",
            "scale=smoke",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=repo_root,
        env={**__import__("os").environ, "TAILMEM_DATA_DIR": str(data_dir)},
    )
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]
    out = done.stdout
    rule = out[out.index("rule site:") :]
    assert "results/smoke/site/index.html" in rule and "results/smoke/site/site.json" in rule
    assert "python -m tailmem.warmstart site scale=smoke" in rule
    for table in (
        "table4_memory_baselines.md",
        "locomo_conv-50.md",
        "longmemeval_summary.md",
        "fsmem_rq1_store_shape.md",
    ):
        assert f"results/smoke/tables/{table}" in rule.split("output:")[0], table
