"""The docs' code runs as printed.

Every fenced ```python block of the README and of the pages of docs/ is marked runnable (the line
before it is ``<!-- runnable -->``, a comment GitHub does not show) and runs here alone, as a user
would paste it into a file: ``python snippet.py`` in a fresh interpreter, in a scratch folder that
sees the repository's ``models/``, ``configs/`` and ``docs/`` (so an import that only another block
made is missed).  Every ``commerce ...`` command of the README runs too, in the order printed and
with short budgets appended, so that a command reading what the one before it wrote finds it.
"""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = "<!-- runnable -->"
SHARED = ("models", "configs", "docs")  # what a snippet may read by its relative path


def runnable_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, code) of every ```python block marked runnable."""
    blocks = []
    for m in re.finditer(rf"^{re.escape(MARKER)}\n```python\n(.*?)^```$", text, re.M | re.S):
        blocks.append((text[:m.start()].count("\n") + 2, m.group(1)))
    return blocks


BLOCKS = [(page, line, code) for page in PAGES for line, code in runnable_blocks(page.read_text())]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A folder to run in: writes land here, reads of models/, configs/, docs/ reach the repository."""
    for name in SHARED:
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page, line, code", BLOCKS,
                         ids=[f"{p.relative_to(ROOT)}:{line}" for p, line, _ in BLOCKS])
def test_a_runnable_snippet_runs(page, line, code, scratch):
    script = scratch / f"snippet_{line}.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, script.name], cwd=scratch, capture_output=True, text=True, timeout=900,
                          check=False)
    assert done.returncode == 0, f"{page.relative_to(ROOT)}:{line} fails alone:\n{done.stderr[-3000:]}"


def test_every_marker_is_on_a_python_block():
    for page in PAGES:
        text = page.read_text()
        assert text.count(MARKER) == len(runnable_blocks(text)), f"{page.name}: a {MARKER} not on a ```python block"


def test_every_python_block_is_marked_runnable():
    for page in PAGES:
        text = page.read_text()
        blocks = len(re.findall(r"^```python\n", text, re.M))
        assert blocks == len(runnable_blocks(text)), f"{page.name}: a ```python block without {MARKER}"


def test_a_block_that_needs_another_blocks_import_fails(scratch):
    """The reason for a fresh interpreter: in one shared process this block would pass after any
    block that registered the OpenSpiel games."""
    import commerce_env.openspiel  # noqa: F401  (what a shared process would already hold)

    code = 'import pyspiel\npyspiel.load_game("python_commerce_widow", {"players": 4})\n'
    with pytest.raises(AssertionError, match="fails alone"):
        test_a_runnable_snippet_runs(ROOT / "README.md", 0, code, scratch)


def test_the_readme_shows_a_runnable_quickstart_for_every_front_end():
    code = "\n".join(c for _, c in runnable_blocks((ROOT / "README.md").read_text()))
    for front_end in ("commerce_env.env(", "gymnasium.make(", "gymnasium.make_vec(", "make_vec_env(",
                      "pyspiel.load_game(", "TurnBasedCommerceEnv("):
        assert front_end in code, front_end


def readme_commands() -> list[list[str]]:
    """Every ``commerce ...`` command of the README (shell blocks and inline code outside blocks), in order."""
    commands, fence = [], None
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            fence = None if fence is not None else (line[3:].strip() or "text")
            continue
        if fence is None:
            texts = re.findall(r"`(commerce [^`]+)`", line)
        else:
            texts = [line] if fence in ("bash", "sh", "shell", "text") else []
        for text in texts:
            words = shlex.split(text, comments=True)
            if words[:1] == ["commerce"]:
                commands.append(words[1:])
    return commands


# Short budgets appended to each kind of command (a later flag overrides the printed one).
SHORT = {"train": ["--steps", "64", "--no-progress"], "arena": ["--games", "48", "--no-progress"],
         "export": [], "play": []}


def uses_ray(argv: list[str]) -> bool:
    """A training command whose config trains on RLlib (it starts Ray: run under the ``ray`` marker)."""
    if argv[0] != "train":
        return False
    config = yaml.safe_load((ROOT / argv[argv.index("--config") + 1]).read_text())
    return config.get("backend") == "rllib"


class NoMoves(io.StringIO):
    """The terminal of `commerce play` with no moves typed: counts how often the game asked for one."""

    asked = 0

    def readline(self, *args):
        self.asked += 1
        return super().readline(*args)


def run_command(argv: list[str], monkeypatch) -> None:
    from training.cli import main

    assert argv[0] in SHORT, f"`commerce {' '.join(argv)}` in the README: give it short flags in SHORT"
    terminal = NoMoves("")
    monkeypatch.setattr("sys.stdin", terminal)
    try:
        code = main([*argv, *SHORT[argv[0]]])
    except SystemExit as stop:  # `commerce play` leaves the game when its input ends
        assert argv[0] == "play" and terminal.asked, (argv, stop.code)
        return
    assert code in (0, None), argv


def test_the_readme_has_commands_to_run():
    kinds = {argv[0] for argv in readme_commands()}
    assert {"train", "export", "arena", "play"} <= kinds


def test_the_readme_commands_chain_as_printed(scratch, monkeypatch, capsys):
    for argv in readme_commands():
        if not uses_ray(argv):
            run_command(argv, monkeypatch)


@pytest.mark.ray
def test_the_readme_rllib_commands_run(scratch, monkeypatch, capsys):
    for argv in readme_commands():
        if uses_ray(argv):
            run_command([*argv, "--minutes", "1"], monkeypatch)
