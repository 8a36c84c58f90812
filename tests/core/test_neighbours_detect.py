"""Which memory folder a path is: the marks of each format, and the refusals that name
what was looked for (unknown) or found (ambiguous). Fixtures in each neighbour's format
live in tests/fixtures/neighbours/ (see that folder's files)."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from pathlib import Path

import pytest

from vault_app.core import errors, vault
from vault_app.core.neighbours import detect, open_folder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"


def copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / name, tmp_path / name))


def tree_digest(root: Path) -> dict[str, str]:
    """Every file below `root` with its sha256 (names of folders too)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"
        for p in sorted(root.rglob("*"))
    }


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("hermes", "hermes"),
        ("hermes-drift", "hermes"),
        ("picoclaw", "picoclaw"),
        ("microclaw", "microclaw"),
    ],
)
def test_each_fixture_is_recognised_by_its_own_files(name: str, expected: str) -> None:
    found = detect.detect(FIXTURES / name)
    assert found.format == expected
    assert found.evidence  # says what it saw


def test_a_para_vault_and_an_empty_folder_are_para(tmp_path: Path) -> None:
    made = vault.Vault.create(tmp_path / "v")
    assert detect.detect(made.root).format == "para"
    (tmp_path / "empty").mkdir()
    assert detect.detect(tmp_path / "empty").format == "para"
    (tmp_path / "start" / "agents").mkdir(parents=True)
    assert detect.detect(tmp_path / "start").format == "para"
    assert open_folder(made.root) is None


def test_each_mark_alone_is_enough(tmp_path: Path) -> None:
    cases = {
        "memories/USER.md": "hermes",
        "memory/profile.json": "picoclaw",
        "memory/202611/20261124.md": "picoclaw",
        "groups/AGENTS.md": "microclaw",
        "groups/-100/3/MEMORY.md": "microclaw",
        "groups/77/memory/2026-11-24.md": "microclaw",
        "global/life/README.md": "para",
    }
    for i, (rel, expected) in enumerate(cases.items()):
        path = tmp_path / str(i) / rel
        path.parent.mkdir(parents=True)
        path.write_text("x", encoding="utf-8")
        assert detect.detect(tmp_path / str(i)).format == expected, rel


def test_files_that_only_look_alike_are_no_marks(tmp_path: Path) -> None:
    # a month folder that does not match the day, a chat folder that is not an id
    for rel in ("memory/202612/20261124.md", "groups/general/1/MEMORY.md", "notes.txt"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
    with pytest.raises(detect.UnknownFormatError) as caught:
        detect.detect(tmp_path)
    message = str(caught.value)
    for looked_for in (
        "memories/MEMORY.md",
        "memory/profile.json",
        "groups/AGENTS.md",
        ".vault/",
        "Hermes home",
        "PicoClaw workspace",
        "MicroClaw runtime",
    ):
        assert looked_for in message


def test_a_folder_of_two_formats_is_refused_naming_both() -> None:
    with pytest.raises(detect.AmbiguousFormatError) as caught:
        detect.detect(FIXTURES / "ambiguous")
    message = str(caught.value)
    assert "Hermes home (memories/MEMORY.md)" in message
    assert "PicoClaw workspace (memory/MEMORY.md)" in message


def test_the_folder_meant_is_named_when_one_level_off(tmp_path: Path) -> None:
    pico_home = tmp_path / ".picoclaw"
    shutil.copytree(FIXTURES / "picoclaw", pico_home / "workspace")
    (pico_home / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(detect.UnknownFormatError, match=r"workspace is a PicoClaw workspace"):
        detect.detect(pico_home)
    home = copy("hermes", tmp_path)
    with pytest.raises(detect.UnknownFormatError, match=r"its parent .* is a Hermes home"):
        detect.detect(home / "memories")


def test_not_a_folder_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(errors.NotFoundError, match="not a folder"):
        detect.detect(tmp_path / "nowhere")


@pytest.mark.parametrize("name", ["hermes", "picoclaw", "microclaw"])
def test_opening_and_reading_a_neighbour_writes_nothing_there(name: str, tmp_path: Path) -> None:
    root = copy(name, tmp_path)
    before = tree_digest(root)
    opened = open_folder(root)
    assert opened is not None and opened.format == name
    opened.describe()
    for agent in opened.agents():
        for read in (opened.read_tiers, opened.read_profile, opened.daily_dates):
            with contextlib.suppress(errors.VaultError):  # a structure it has not
                read(agent)
    assert tree_digest(root) == before
    assert not (root / ".vault").exists()
