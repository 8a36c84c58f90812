"""Portable, unspoofable names: what a creation refuses, and what still opens.

A name made new (an entity created by `create_entity` or `add_fact(create=True)`, an
agent created, an entity moved to archives/) is refused with the reason when it is legal
on Linux but breaks elsewhere or can pass for another. The variants thought of:

- Windows device names, any case, with or without an extension: `con`, `PRN`, `aux`,
  `nul.tar.gz`, `com1`..`com9`, `lpt1`..`lpt9`, `COM¹`, `conin$`
- a trailing dot or space (`roof.`; a trailing space is padding, refused before)
- invisible characters: zero-width U+200B..U+200D, U+2060, U+FEFF, soft hyphen, a
  Hangul filler, a variation selector
- bidirectional controls: U+202A..U+202E, U+2066..U+2069, U+200E/U+200F, U+061C
- odd spaces: no-break space, ideographic space
- look-alike letters from another script in one part (a Cyrillic `а` in `pаypal`, a
  Greek `ο` in `rοof`); whole-script names are fine (`почта`, `東京タワー`, `Tシャツ`,
  `서울`, `Ελλάδα`), as are digits and `-`/`_` with any script
- a form other than NFC (`cafe` + U+0301), and a sibling equal but for case or
  normalisation (`Café` beside `café`: one folder on Windows and macOS)
- a part over 255 bytes (refused for reading too: no file system holds it), an id over
  1,024 bytes; a name from a non-UTF-8 folder
- the same for agent ids (`con`, `Nul`, `gardener.`, `JANITOR` beside `janitor`)
- archiving next to a folder equal but for case takes the next free name

Reading stays tolerant (`test_existing_odd_names_still_open`): folders already on disk
with any of these names are listed, opened, written and archived; creating inside an
odd group folder works; `doctor` warns about each (a warning, not an error). The CLI
says the same in one line (`test_the_command_line_says_why`). `relatedEntities` are
references, not names made new: they are not judged (a fact may name an existing odd
entity).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vault_app.core import doctor, errors, layout, vault

ROOT = Path(__file__).resolve().parents[2]

REFUSED = {
    "con": "device name",
    "CON": "device name",
    "Prn": "device name",
    "aux.txt": "device name",
    "nul.tar.gz": "device name",
    "com1": "device name",
    "COM9.json": "device name",
    "lpt5": "device name",
    "COM¹": "device name",
    "conin$": "device name",
    "roof.": "ends with a dot",
    "ro\u200bof": "U+200B ZERO WIDTH SPACE",
    "ro\u200cof": "U+200C",
    "ro\u200dof": "U+200D",
    "ro\u2060of": "U+2060",
    "\ufeffroof": "U+FEFF",
    "ro\u00adof": "U+00AD SOFT HYPHEN",
    "ro\u3164of": "U+3164 HANGUL FILLER",
    "roof\ufe0f": "U+FE0F",
    "ro\u202aof": "U+202A",
    "ro\u202eof": "U+202E RIGHT-TO-LEFT OVERRIDE",
    "ro\u2066of": "U+2066",
    "ro\u2069of": "U+2069",
    "ro\u200eof": "U+200E",
    "ro\u200fof": "U+200F",
    "ro\u061cof": "U+061C",
    "new\u00a0roof": "U+00A0 NO-BREAK SPACE",
    "new\u3000roof": "U+3000",
    "p\u0430ypal": "mixes letters of Cyrillic and Latin",
    "r\u03bfof": "mixes letters of Greek and Latin",
    "cafe\u0301": "not in NFC form",
    "é" * 128: "longer than 255 bytes",
}
ACCEPTED = [
    "roof",
    "roof-2026",
    "roof_v2",
    "con-ed",
    "console",
    "com10",
    "lpt",
    "café",
    "почта",
    "東京タワー",
    "Tシャツ",
    "서울-office",
    "Ελλάδα",
    "déjà vu",
    "é" * 127,
]


@pytest.mark.parametrize("name", list(REFUSED))
def test_new_entity_names_are_refused_with_the_reason(vault: vault.Vault, name: str) -> None:
    vault.create_agent("finance")
    for address in (f"projects/{name}", f"areas/people/{name}", f"agent:finance:areas/{name}"):
        with pytest.raises(errors.InvalidIdError, match=_escaped(REFUSED[name])):
            vault.create_entity(address)
        with pytest.raises(errors.InvalidIdError, match=_escaped(REFUSED[name])):
            vault.add_fact(address, "a fact", "status", create=True)
    assert list((vault.paths.life_dir / "projects").iterdir()) == []
    assert not (vault.paths.life_dir / "areas" / "people").exists()  # no group made either


def _escaped(text: str) -> str:
    return re.escape(text)


@pytest.mark.parametrize("name", ACCEPTED)
def test_portable_names_are_created(vault: vault.Vault, name: str) -> None:
    folder = vault.create_entity(f"projects/{name}")
    assert folder.name == name and (folder / "items.json").is_file()
    assert layout.name_problem(name) is None


def test_a_twin_but_for_case_or_normalisation_is_refused(vault: vault.Vault) -> None:
    vault.create_entity("projects/café")
    vault.create_entity("areas/people/jane")
    for twin in ("projects/Café", "projects/CAFÉ", "areas/People/bob", "areas/people/JANE"):
        with pytest.raises(errors.AlreadyExistsError, match="same name on Windows and macOS"):
            vault.create_entity(twin)
    assert sorted(p.name for p in (vault.paths.life_dir / "projects").iterdir()) == ["café"]


def test_long_ids_are_refused(vault: vault.Vault) -> None:
    with pytest.raises(errors.InvalidIdError, match="longer than 255 bytes"):
        vault.entity("projects/" + "a" * 256)  # reading too: no file system holds it
    deep = "projects/" + "/".join(["b" * 200] * 6)
    with pytest.raises(errors.InvalidIdError, match="over 1024"):
        vault.create_entity(deep)


def test_new_agent_ids(vault: vault.Vault) -> None:
    vault.create_agent("janitor")
    for agent, reason in (
        ("con", "device name"),
        ("Nul", "device name"),
        ("com3.d", "device name"),
        ("gardener.", "ends with a dot"),
    ):
        with pytest.raises(errors.InvalidIdError, match=reason):
            vault.create_agent(agent)
    with pytest.raises(errors.AlreadyExistsError, match="same name on Windows and macOS"):
        vault.create_agent("JANITOR")
    assert vault.paths.agent_ids() == ["janitor"]
    vault.create_agent("con-ops")  # fine


def test_archiving_beside_a_twin_takes_the_next_name(vault: vault.Vault) -> None:
    os.makedirs(vault.paths.life_dir / "archives" / "Roof")
    (vault.paths.life_dir / "archives" / "Roof" / "items.json").write_text("[]\n")
    vault.create_entity("projects/roof")
    assert str(vault.archive_entity("projects/roof")) == "archives/roof-2"


def _odd_folder(root: Path, name: str | bytes) -> Path:
    parent = os.fsencode(root / "global/life/projects")
    folder = os.path.join(parent, os.fsencode(name))
    os.makedirs(folder)
    with open(os.path.join(folder, b"items.json"), "wb") as handle:
        handle.write(b"[]\n")
    return Path(os.fsdecode(folder))


def test_existing_odd_names_still_open(vault: vault.Vault) -> None:
    odd = ["con", "ro\u200bof", "p\u0430ypal", "cafe\u0301", "roof.", b"caf\xe9", "Roof"]
    made = [_odd_folder(vault.root, name) for name in odd]
    (vault.paths.life_dir / "projects" / "roof").mkdir()  # the twin of Roof
    (vault.paths.life_dir / "projects" / "roof" / "items.json").write_text("[]\n")
    os.makedirs(vault.paths.life_dir / "areas" / "COM1")  # an odd group

    listed = {e.path for e in vault.scan().entities}
    for folder in made:
        ref = layout.EntityRef(None, f"projects/{folder.name}")
        assert ref.path in listed
        fact = vault.add_fact(ref, "still writable", "status")
        assert vault.entity(ref).fact(fact.id).fact == "still writable"
    assert vault.entity("projects/con").facts  # and through a parsed address
    vault.create_entity("areas/COM1/new")  # a new name inside an odd group: fine
    assert str(vault.archive_entity("projects/con")) == "archives/con"

    report = doctor.run(vault)
    warned = {
        p.path.rsplit("/", 1)[-1] for p in report.problems if "could not be named" in p.message
    }
    assert warned >= {"ro\u200bof", "p\u0430ypal", "cafe\u0301", "roof.", "caf\udce9", "COM1"}
    assert "con" in {p.path.rsplit("/", 1)[-1] for p in report.problems}  # now in archives/
    assert any("the same name as" in p.message for p in report.problems)  # Roof and roof
    assert all(p.severity == "warning" for p in report.problems), report.problems
    assert report.ok


def test_the_command_line_says_why(vault: vault.Vault) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    for argv, reason in (
        (["entity", "create", "projects/con"], "device name Windows reserves"),
        (["entity", "create", "projects/p\u0430ypal"], "mixes letters of Cyrillic and Latin"),
        (["agent", "create", "nul"], "device name Windows reserves"),
        (
            [
                "fact",
                "add",
                "projects/ro\u202eof",
                "--text",
                "x",
                "--category",
                "status",
                "--create",
            ],
            "U+202E",
        ),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "vault_app", "--vault", str(vault.root), *argv],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 1 and done.stdout == "", done
        assert done.stderr.startswith("vault-app: error: ") and done.stderr.count("\n") == 1
        assert reason in done.stderr, done.stderr
