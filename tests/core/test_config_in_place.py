"""Saving settings edits `.vault/config.toml` in place: the user's comments, blank lines,
order, unknown keys and tables are kept byte for byte (issue 12, "Defects found while
trying it": the hand-written writer rewrote the whole file and dropped the comments).

Variants thought of, and where they are covered:

- a file with a header comment, full-line and trailing comments, blank lines, unknown
  keys and tables, tables and keys in an odd order; one setting changed: exactly that
  value changes, its trailing comment stays (`test_one_change_keeps_every_other_byte`);
- every setting changed one at a time, from that file: it loads back, and only its line
  changed (`test_every_setting_round_trips_alone`); all at once
  (`test_all_settings_at_once_round_trip`);
- unchanged settings: the file is not rewritten at all, `32` stays `32` although the
  setting is the float 32.0 (`test_saving_unchanged_settings_changes_no_byte`);
- decay levels: a value changed in place, a level added, a level removed (the others'
  comments kept) (`test_decay_levels_edit_in_place`);
- the model unset: its line removed, the comment above it kept
  (`test_an_unset_model_removes_only_its_line`);
- a setting or a whole table missing from the file: added, with its explanation
  (`test_missing_settings_are_added_with_their_notes`);
- inline tables and dotted keys (`test_inline_tables_and_dotted_keys`);
- CRLF line endings (`test_crlf_line_endings_are_kept`);
- a BOM: dropped (the loader reads UTF-8 without one), nothing else changed
  (`test_a_bom_is_dropped_and_nothing_else`);
- the settings dialog saves through `VaultConfig.save`: tests/ui/test_settings.py;
- the write path itself (lock, backup, atomic replace, audit line; not valid TOML left
  alone unless replaced): tests/core/test_config.py; a symlinked config.toml is neither
  read nor written through: tests/core/test_hardening_symlinks.py::test_config_file_symlink.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vault_app.core import config, decay
from vault_app.core import vault as vault_module

USER_FILE = """\
# My vault's settings — tuned by hand, please keep these notes.
# (last reviewed in March)

[search]
# Hybrid search leans on BM25 for names.
bm25_weight = 0.5          # raised from 0.2: exact names matter here
semantic = true
min_cosine = 0.3           # my model is noisier
future_mode = "rerank"     # an option of a later version

[ui]
zoom = 1.25
recent = ["a", "b"]        # not a vault setting

[storage]
lock_timeout_s = 10
max_file_mb = 32           # an integer, though the setting is a float
backups_per_file = 5

[[decay.levels]]           # my own thresholds
min_access = 0
hot_days = 5
warm_days = 25

[[decay.levels]]           # frequently used facts
min_access = 8
hot_days = 12
warm_days = 50

[synthesis]
time = "06:00"             # before breakfast
weekday = "monday"

[[plugins]]
name = 'x'                 # literal string kept as written
[plugins.options]
depth = 2
"""


def config_path(v: vault_module.Vault) -> Path:
    return v.paths.state_dir / config.CONFIG_NAME


@pytest.fixture
def user_vault(vault: vault_module.Vault) -> vault_module.Vault:
    config_path(vault).write_text(USER_FILE, encoding="utf-8")
    return vault


def loaded(v: vault_module.Vault) -> config.VaultConfig:
    """The known settings as the vault reads them (the unknown keys taken out)."""
    import tomllib

    data = tomllib.loads(config_path(v).read_text(encoding="utf-8"))
    data.pop("ui", None)
    data.pop("plugins", None)
    data.get("search", {}).pop("future_mode", None)
    return config.VaultConfig.model_validate(data)


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new), (before, after)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_one_change_keeps_every_other_byte(user_vault: vault_module.Vault) -> None:
    settings = loaded(user_vault)
    settings.search.bm25_weight = 0.35
    settings.save(user_vault.storage)
    text = config_path(user_vault).read_text(encoding="utf-8")
    assert text == USER_FILE.replace(
        "bm25_weight = 0.5          # raised", "bm25_weight = 0.35          # raised"
    )


def test_saving_unchanged_settings_changes_no_byte(user_vault: vault_module.Vault) -> None:
    before = config_path(user_vault).read_bytes()
    backups = user_vault.storage.backups(config_path(user_vault))
    loaded(user_vault).save(user_vault.storage)
    assert config_path(user_vault).read_bytes() == before
    assert user_vault.storage.backups(config_path(user_vault)) == backups  # nothing written


EVERY_SETTING = [
    ("decay.levels[0].hot_days", lambda s: setattr(s.decay.levels[0], "hot_days", 4), "4"),
    ("synthesis.weekday", lambda s: setattr(s.synthesis, "weekday", "friday"), '"friday"'),
    ("synthesis.time", lambda s: setattr(s.synthesis, "time", "21:15"), '"21:15"'),
    ("storage.backups_per_file", lambda s: setattr(s.storage, "backups_per_file", 9), "9"),
    ("storage.max_file_mb", lambda s: setattr(s.storage, "max_file_mb", 12.5), "12.5"),
    ("storage.lock_timeout_s", lambda s: setattr(s.storage, "lock_timeout_s", 2.5), "2.5"),
    ("search.semantic", lambda s: setattr(s.search, "semantic", False), "false"),
    ("search.bm25_weight", lambda s: setattr(s.search, "bm25_weight", 0.0), "0.0"),
    ("search.min_cosine", lambda s: setattr(s.search, "min_cosine", -0.25), "-0.25"),
]


@pytest.mark.parametrize(
    ("name", "change", "spelled"), EVERY_SETTING, ids=[e[0] for e in EVERY_SETTING]
)
def test_every_setting_round_trips_alone(
    user_vault: vault_module.Vault, name: str, change: object, spelled: str
) -> None:
    settings = loaded(user_vault)
    change(settings)  # type: ignore[operator]
    settings.save(user_vault.storage)
    assert loaded(user_vault) == settings
    after = config_path(user_vault).read_text(encoding="utf-8")
    [(old, new)] = changed_lines(USER_FILE, after)
    key = name.rsplit(".", 1)[1]
    assert old.split("=")[0] == new.split("=")[0] and new.startswith(key)
    value, _, comment = new.partition("#")
    assert value.split("=", 1)[1].strip() == spelled
    assert comment == old.partition("#")[2]


def test_all_settings_at_once_round_trip(user_vault: vault_module.Vault) -> None:
    settings = loaded(user_vault)
    for _, change, _ in EVERY_SETTING:
        change(settings)  # type: ignore[operator]
    settings.search.model = "/models/mini"
    settings.save(user_vault.storage)
    assert loaded(user_vault) == settings
    text = config_path(user_vault).read_text(encoding="utf-8")
    for line in USER_FILE.splitlines():
        if line.startswith("#") or "not a vault setting" in line or "literal" in line:
            assert line in text.splitlines()


def test_decay_levels_edit_in_place(user_vault: vault_module.Vault) -> None:
    settings = loaded(user_vault)
    settings.decay.levels.append(decay.DecayLevel(min_access=30, hot_days=20, warm_days=90))
    settings.save(user_vault.storage)
    assert loaded(user_vault) == settings
    text = config_path(user_vault).read_text(encoding="utf-8")
    assert text.count("[[decay.levels]]") == 3
    assert "# my own thresholds" in text and "# frequently used facts" in text
    assert text.startswith(USER_FILE.split("[synthesis]")[0].rstrip("\n"))

    fewer = loaded(user_vault)
    fewer.decay.levels = fewer.decay.levels[:1]
    fewer.save(user_vault.storage)
    assert loaded(user_vault) == fewer
    text = config_path(user_vault).read_text(encoding="utf-8")
    assert text.count("[[decay.levels]]") == 1
    assert "# my own thresholds" in text and "# frequently used facts" not in text
    assert "# before breakfast" in text and "[plugins.options]" in text


def test_an_unset_model_removes_only_its_line(vault: vault_module.Vault) -> None:
    original = config_path(vault).read_text(encoding="utf-8")  # the default file
    assert "# model = " in original
    settings = loaded(vault)
    settings.search.model = "/models/mini"
    settings.save(vault.storage)
    with_model = config_path(vault).read_text(encoding="utf-8")
    assert 'model = "/models/mini"' in with_model
    assert loaded(vault).search.model == "/models/mini"
    settings.search.model = None
    settings.save(vault.storage)
    assert config_path(vault).read_text(encoding="utf-8") == original


def test_missing_settings_are_added_with_their_notes(vault: vault_module.Vault) -> None:
    text = "# only one thing set\n[search]\nsemantic = false  # no model on this box\n"
    config_path(vault).write_text(text, encoding="utf-8")
    settings = loaded(vault)
    settings.storage.backups_per_file = 3
    settings.save(vault.storage)
    after = config_path(vault).read_text(encoding="utf-8")
    assert after.startswith(text)
    assert loaded(vault) == settings
    assert vault_module.Vault(vault.root).config == settings
    assert "backups_per_file = 3  # versions kept per file in .vault/backups" in after
    assert "[synthesis]" in after and "[[decay.levels]]" in after


def test_inline_tables_and_dotted_keys(vault: vault_module.Vault) -> None:
    text = (
        "storage = { backups_per_file = 4, max_file_mb = 8 }  # inline\n"
        "search.semantic = false  # dotted\n"
        "search.min_cosine = 0.4\n"
    )
    config_path(vault).write_text(text, encoding="utf-8")
    settings = loaded(vault)
    settings.storage.backups_per_file = 6
    settings.search.min_cosine = 0.5
    settings.save(vault.storage)
    assert loaded(vault) == settings
    after = config_path(vault).read_text(encoding="utf-8")
    assert "# inline" in after and "# dotted" in after
    assert "max_file_mb = 8" in after


def test_crlf_line_endings_are_kept(vault: vault_module.Vault) -> None:
    text = "# windows\r\n[search]\r\nbm25_weight = 0.5  # w\r\nsemantic = true\r\n"
    config_path(vault).write_bytes(text.encode())
    settings = loaded(vault)
    settings.search.bm25_weight = 0.25
    settings.save(vault.storage)
    after = config_path(vault).read_bytes().decode()
    assert after.startswith(text.replace("0.5", "0.25"))
    assert loaded(vault) == settings


def test_a_bom_is_dropped_and_nothing_else(vault: vault_module.Vault) -> None:
    text = "# with a BOM\n[search]\nsemantic = true  # keep\n"
    config_path(vault).write_bytes(b"\xef\xbb\xbf" + text.encode())
    settings = config.VaultConfig()
    settings.search.semantic = False
    settings.save(vault.storage)
    after = config_path(vault).read_text(encoding="utf-8")
    assert after.startswith(text.replace("true", "false"))
    assert vault_module.Vault(vault.root).config == settings


def test_agent_memory_tables_are_kept_as_written(tmp_path: Path) -> None:
    v = vault_module.Vault.create(tmp_path / "v")
    path = v.root / ".vault" / "config.toml"
    path.write_text(path.read_text() + "\n[agents.memory.household]   # mine\nnotes = false\n")
    before = path.read_text()
    settings = config.VaultConfig.load(v.root)
    assert settings.agents.memory_of("household").notes is False
    assert settings.agents.memory_of("other").memory_chars == 2200  # no table: defaults
    settings.save(v.storage)
    assert path.read_text() == before  # nothing changed, nothing written
    settings.agents.memory["household"].memory_chars = 3000
    settings.agents.memory["other"] = config.AgentMemorySettings(profile=False)
    settings.save(v.storage)
    assert (
        path.read_text()
        == before.replace("notes = false\n", "notes = false\nmemory_chars = 3000\n")
        + "\n[agents.memory.other]\nprofile = false\n"
    )
    again = config.VaultConfig.load(v.root).agents
    assert again.memory_of("household").memory_chars == 3000
    assert again.memory_of("other").profile is False
