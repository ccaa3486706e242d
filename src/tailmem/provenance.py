"""Provenance saved beside every artifact: the resolved config and who/what produced it."""

from __future__ import annotations

import platform
import socket
import sys
import time
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

import tailmem
from tailmem.artifacts import write_json, write_text
from tailmem.paths import CONFIG_FILE, META_FILE


def save_provenance(out: Path, cfg: DictConfig, prefix: str = "", **extra: Any) -> None:
    """Write `config.yaml` (resolved) and `meta.json` (stage, agent/model, seed, versions, time) into `out`.

    `prefix` names them apart where several stages share one folder (`results/tables/`).
    """
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / f"{prefix}{CONFIG_FILE}", OmegaConf.to_yaml(cfg, resolve=True))
    meta = {
        "stage": cfg.get("stage"),
        "seed": cfg.get("seed"),
        "tailmem_version": tailmem.__version__,
        "python": sys.version.split()[0],
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **extra,
    }
    write_json(out / f"{prefix}{META_FILE}", meta)
