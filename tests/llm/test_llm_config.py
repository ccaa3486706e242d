"""configs/llm/*.yaml compose and validate; `python -m tailmem cache stats` prints per role and stage."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from llm_testkit import llm_cfg
from tailmem.cli import main as cli_main
from tailmem.errors import ConfigError, LLMError
from tailmem.llm import get_client
from tailmem.llm.group import settings
from tailmem.roles import ROLES
from tailmem.settings.llm import cache_path, price, prices
from tailmem.settings.schema import register as register_schema

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
register_schema()  # configs/config.yaml starts from it; a worker that runs this file alone has not registered it yet


@pytest.mark.parametrize("option", ["offline", "local", "openai", "replay"])
def test_every_option_composes(option, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")  # never used: no call is made
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose("config", overrides=[f"llm={option}"])
    s = settings(cfg)
    assert s.name == option and set(s.roles) == set(ROLES)
    assert price(prices(s), "gpt-5.4-mini").output == 4.50 and str(cache_path(s)).endswith("llm_cache.sqlite")
    if option in ("offline", "replay"):
        clients = [get_client(cfg, r, "test") for r in ROLES]
        assert all(c.backend == ("programmatic" if option == "offline" else "replay") for c in clients)


def test_offline_roles_name_their_programmatic_agent():
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose("config")
    client = get_client(cfg, "policy", "rollout")
    assert (client.backend, client.label) == ("programmatic", "programmatic-semantic")
    with pytest.raises(LLMError, match="role policy .*has no model configured.*programmatic-semantic"):
        client.chat([{"role": "user", "content": "hi"}])
    with pytest.raises(LLMError, match="role policy"):
        client.choose("which?", ["a", "b"])


def test_wrong_keys_fail_naming_the_key(tmp_path):
    cfg = llm_cfg(tmp_path, "http://127.0.0.1:9/v1")
    cfg["llm"]["roles"]["judge"]["temprature"] = 0
    with pytest.raises(ConfigError, match=r"llm.roles.judge has unknown key\(s\) \['temprature'\]"):
        get_client(cfg, "judge", "test")
    with pytest.raises(ConfigError, match="unknown role 'critic'"):
        get_client(llm_cfg(tmp_path, "x"), "critic", "test")
    bad = llm_cfg(tmp_path, "x")
    bad["llm"]["roles"]["judge"] = {"backend": "vllm", "model": "m"}
    with pytest.raises(ConfigError, match="llm.roles.judge.backend='vllm': expected one of"):
        get_client(bad, "judge", "test")


def test_cache_stats_command(server, tmp_path, capsys):
    cfg = llm_cfg(tmp_path, server.base_url)
    client = get_client(cfg, "judge", "answer")
    for _ in range(2):
        client.chat([{"role": "user", "content": "q"}])
    client.cache.flush()
    assert cli_main(["cache", "stats", "--db", cfg["llm"]["cache_path"]]) == 0
    out = capsys.readouterr().out
    judge = next(line for line in out.splitlines() if line.startswith("judge"))
    assert judge.split()[:5] == ["judge", "answer", "1", "1", "1"]
    assert cli_main(["cache", "stats", "--db", str(tmp_path / "none.sqlite")]) == 1


def test_prices_file_prices_models_whose_names_have_dots(tmp_path):
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose("config", overrides=["llm=openai"])
    with pytest.raises(ConfigError, match="no entry for model 'gpt-5.4-nano'"):
        price(prices(settings(cfg)), "gpt-5.4-nano")
    table_file = tmp_path / "prices.yaml"
    table_file.write_text(
        "gpt-5.4-nano: {input: 1.0, cached_input: 0.1, output: 4.0}  # test values, not real prices\n"
    )
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose("config", overrides=["llm=openai", f"llm.prices_file={table_file}"])
    table = prices(settings(cfg))
    assert price(table, "gpt-5.4-nano").output == 4.0 and price(table, "gpt-5.4-mini").output == 4.50
    table_file.write_text("gpt-5.4-nano: [1, 2]\n")
    with pytest.raises(ConfigError, match=r"llm.prices.gpt-5.4-nano needs numbers"):
        settings(cfg)
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose("config", overrides=["llm=openai", f"llm.prices_file={tmp_path}/absent.yaml"])
    with pytest.raises(ConfigError, match="llm.prices_file: .*absent.yaml not found"):
        settings(cfg)


def test_the_llm_setting_recipe_holds():
    """docs/extending.md, the `llm` exception: every RoleGroup key is unset in the schema and gets its group-wide
    value from offline.yaml or, for the few offline.yaml leaves out, from UNSET_IN_PRESETS (`backend` is each
    role's own); a role's record after inheritance has exactly RoleGroup's keys, so a new key needs no other class."""
    import dataclasses

    import yaml
    from omegaconf import MISSING

    from tailmem.llm.group import role_settings
    from tailmem.settings.llm import ROLE_KEYS, UNSET_IN_PRESETS, RoleGroup

    assert all(f.default == MISSING for f in dataclasses.fields(RoleGroup))
    offline = yaml.safe_load((CONFIGS / "llm" / "offline.yaml").read_text())
    group_wide = set(offline) & set(ROLE_KEYS)
    assert not group_wide & set(UNSET_IN_PRESETS)
    assert group_wide | set(UNSET_IN_PRESETS) | {"backend"} == set(ROLE_KEYS)
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose("config")
    record = role_settings(settings(cfg), "judge")
    assert [f.name for f in dataclasses.fields(record)] == ["role", *ROLE_KEYS]
