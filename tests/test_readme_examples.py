"""Every command the README and the docs show runs as written, on a fresh clone, against
the demo vault.

The commands are taken from README.md and then docs/*.md (in name order), as a reader
goes from the README to the pages it links: every line of a fenced code block that
starts with `vault-app ` or `scripts/dev run` (with its `\\` continuations), plus the
inline code spans that do (`scripts/dev run info --json`). They run in real processes,
`python -m vault_app` standing for both names (`scripts/dev run ARGS` is `vault-app
ARGS` once the virtualenv exists), with HOME and the XDG folders in tmp:

- the code blocks run in order in one bash session, as a reader types them: the first
  command (`vault-app init ~/memory --demo`) makes a fresh demo vault, `cd ~/memory`
  enters it, each later command sees what the earlier ones did; the files an example
  reads (`new-context.md`, `questions.txt`, `chats.jsonl`; a Hermes home at `~/.hermes`, copied from
  the tests' fixtures) are put where it looks just before it runs;
- the inline ones run from a folder that is no vault (a fresh clone), where, as
  `scripts/dev run` does for the window, the CLI uses the demo vault in the user's data
  folder (created on first use);
- a command whose comment says `# fails:` must fail with exit status 1 and one error
  line; every other one must exit 0 with nothing like a traceback on stderr;
- a search shows what it promises: at least one hit (for each query of a `--queries`
  file), never "no good matches";
- `vault-app watch` and `vault-app serve` run until SIGTERM (after 3 s here) and must then
  exit 0; `vault-app mcp` reads its stdin, which is empty here, and must exit 0 at its end;
- the commands that open the window (`scripts/dev run` with no command, or with only
  `--vault PATH`) are the only ones not run, and the test checks that they are exactly
  these;
- every ```python block (the Library section) runs as a script against a fresh demo vault
  at `~/memory`, and what it wrote is on disk afterwards.

The semantic search examples load the model in each process (the embeddings are cached
in the vault after the first); the whole runs in about 40 s once the model's ONNX export
is cached (the first export, shared with the other tests of a run, takes a minute more).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]  # as a reader goes: README first
WATCH_SECONDS = 3
# What the examples read, written where they look for it just before they run
INPUTS = {
    "new-context.md": "# Current context — finance\n\nClosing the November books.\n",
    "questions.txt": "who fixes our pipes\nwhen is the roof replaced\nplumber\n",
    "chats.jsonl": (
        '{"time": "2026-11-20T08:00:00", "speaker": "user", "conversation": "kitchen", '
        '"text": "Remember that the recycling pickup moved to Thursdays."}\n'
    ),
}
# The neighbours' folders the examples open, copied from the tests' real-format fixtures
FOLDERS = {"~/.hermes": ROOT / "tests" / "fixtures" / "neighbours" / "hermes"}
GUI_COMMANDS = {"scripts/dev run", "scripts/dev run --vault PATH"}


@dataclass(frozen=True)
class Example:
    command: str  # as the README writes it (continuations joined)
    inline: bool  # from an inline code span, not a code block

    @property
    def expected_to_fail(self) -> bool:
        return "# fails:" in self.command

    @property
    def words(self) -> list[str]:
        return shlex.split(self.command, comments=True)

    @property
    def opens_the_window(self) -> bool:
        args = self.words[2:] if self.words[:2] == ["scripts/dev", "run"] else self.words[1:]
        if {"--version", "--help", "-h"} & set(args):
            return False  # answered by the parser: no window
        commands = [a for a in args if not a.startswith("-") and a != "PATH"]
        return not commands or commands[0] == "gui"


def _split_fences(text: str) -> tuple[list[str], str]:
    """The fenced code blocks of a markdown text (their bodies), and the prose around them."""
    blocks: list[str] = []
    prose: list[str] = []
    body: list[str] | None = None
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if body is None:
                body = []
            else:
                blocks.append("".join(body))
                body = None
        elif body is None:
            prose.append(line)
        else:
            body.append(line)
    return blocks, "".join(prose)


def readme_examples(text: str) -> tuple[list[Example], list[str]]:
    """The example commands of the README, and the shell lines of its code blocks in
    order (commands and the `cd` between them)."""
    examples: list[Example] = []
    session: list[str] = []
    blocks, prose = _split_fences(text)
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith(("vault-app ", "scripts/dev run")):
                examples.append(Example(line, inline=False))
                session.append(line)
            elif line.startswith("cd "):
                session.append(line)
    for span in re.findall(r"`((?:vault-app|scripts/dev run)(?: [^`]*)?)`", prose):
        if span.startswith("scripts/dev run") or " " in span:
            examples.append(Example(span, inline=True))
    return examples, session


def _shell_line(example: Example) -> str:
    """The line bash runs for an example: the program name made `python -m vault_app`."""
    line = example.command
    line = re.sub(r"^scripts/dev run\b", "vault-app", line)
    if {"watch", "serve"} & set(example.words[1:2] + example.words[2:3]):
        # runs until stopped: SIGTERM after a while, which it answers with exit 0
        prefix = f'timeout --preserve-status -s TERM {WATCH_SECONDS} "$PY" -m vault_app'
        line = re.sub(r"^vault-app\b", prefix, line)
    for name, content in INPUTS.items():
        if re.search(rf"(?<![\w/.-]){re.escape(name)}\b", line):
            line = f"[ -e {name} ] || printf %s {shlex.quote(content)} > {name}\n{line}"
    for name, fixture in FOLDERS.items():
        if name in line:
            copy = f"cp -r {shlex.quote(str(fixture))} {name}"
            line = f"[ -e {name} ] || {copy}\n{line}"
    return line


def _run_session(lines: list[str], cwd: Path, out: Path, env: dict[str, str]) -> list[dict]:
    """Run `lines` in one bash process, each with its output and exit status recorded."""
    script = ['vault-app() { "$PY" -m vault_app "$@"; }', f"cd {shlex.quote(str(cwd))}"]
    for i, line in enumerate(lines):
        script.append(
            "{\n" + line + f"\n}} >{out}/{i}.out 2>{out}/{i}.err </dev/null; echo $? >{out}/{i}.rc"
        )
    subprocess.run(["bash", "-c", "\n".join(script)], env=env, check=True, timeout=600)
    return [
        {
            "line": line,
            "rc": int((out / f"{i}.rc").read_text()),
            "stdout": (out / f"{i}.out").read_text(errors="replace"),
            "stderr": (out / f"{i}.err").read_text(errors="replace"),
        }
        for i, line in enumerate(lines)
    ]


def _check(result: dict, example: Example) -> str | None:
    """What is wrong with how an example ran, or None."""
    err = result["stderr"]
    if "Traceback" in err:
        return f"a traceback:\n{err[-1500:]}"
    if example.expected_to_fail:
        errors = [ln for ln in err.splitlines() if ln.startswith("vault-app: error: ")]
        if result["rc"] != 1 or len(errors) != 1:
            return f"was to fail with one error line, exit {result['rc']}:\n{err[-800:]}"
        return None
    if result["rc"] != 0:
        return f"exit {result['rc']}:\n{err[-800:]}"
    if _command(example) == "search" and not _found_something(result["stdout"], example):
        return f"a search that found nothing:\n{result['stdout'][-800:]}"
    return None


def _command(example: Example) -> str | None:
    """The vault-app command an example runs (`search`, `info`...), options skipped."""
    words = example.words[1:]
    while words and words[0].startswith("-"):
        takes_value = words[0] in ("--vault", "--actor", "--now")
        words = words[2:] if takes_value else words[1:]
    return words[0] if words else None


def _found_something(stdout: str, example: Example) -> bool:
    if "--json" not in example.words:
        return bool(stdout.strip()) and "no good matches" not in stdout
    answers = (
        [json.loads(line) for line in stdout.splitlines() if line.strip()]
        if "--queries" in example.words
        else [json.loads(stdout)]
    )
    return bool(answers) and all(answer["hits"] for answer in answers)


def pages_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def test_every_readme_command_runs_as_written(tmp_path: Path) -> None:
    examples, session = readme_examples(pages_text())
    skipped = {" ".join(e.words) for e in examples if e.opens_the_window}
    assert skipped == GUI_COMMANDS, f"only the window-opening examples may be skipped: {skipped}"
    runnable = [e for e in examples if not e.opens_the_window]
    assert len(runnable) >= 30, [e.command for e in runnable]  # the extraction works
    assert any(e.expected_to_fail for e in runnable)
    assert "scripts/dev run info --json" in {e.command for e in runnable}

    home = tmp_path / "home"
    clone = tmp_path / "clone"  # no vault here: a fresh checkout
    for folder in (home, clone):
        folder.mkdir()
    env = dict(os.environ)
    env.update(
        PY=sys.executable,
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    env.pop("VAULT_APP_VAULT", None)
    by_line = {e.command: e for e in examples}
    problems = []

    inline = [e for e in runnable if e.inline]
    out = tmp_path / "inline"
    out.mkdir()
    for example, result in zip(
        inline, _run_session([_shell_line(e) for e in inline], clone, out, env), strict=True
    ):
        if (problem := _check(result, example)) is not None:
            problems.append(f"{example.command}: {problem}")
        if example.command == "scripts/dev run info --json":
            assert "demo-vault" in result["stdout"], result  # the demo vault, as the window

    lines = [ln for ln in session if ln.startswith("cd ") or not by_line[ln].opens_the_window]
    out = tmp_path / "blocks"
    out.mkdir()
    shell_lines = [ln if ln.startswith("cd ") else _shell_line(by_line[ln]) for ln in lines]
    for line, result in zip(lines, _run_session(shell_lines, tmp_path, out, env), strict=True):
        if line.startswith("cd "):
            if result["rc"] != 0:
                problems.append(f"{line}: {result['stderr']}")
            continue
        if (problem := _check(result, by_line[line])) is not None:
            problems.append(f"{line}: {problem}")
    assert not problems, "\n\n".join(problems)
    assert (home / "memory" / "agents" / "gardener").is_dir()  # the commands really ran there


def python_blocks(text: str) -> list[str]:
    """The bodies of the README's ```python code blocks."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_every_readme_python_example_runs(tmp_path: Path) -> None:
    blocks = python_blocks(pages_text())
    assert blocks, "the Library section has a python example"
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
    )
    env.pop("VAULT_APP_VAULT", None)
    demo = subprocess.run(
        [sys.executable, "-m", "vault_app", "init", str(home / "memory"), "--demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert demo.returncode == 0, demo.stderr
    for block in blocks:
        done = subprocess.run(
            [sys.executable, "-c", block],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{block}\n{done.stderr[-2000:]}"
    audit = (home / "memory" / ".vault" / "audit.jsonl").read_text(encoding="utf-8")
    assert "agent:finance" in audit  # the example's writes really happened, as that agent
