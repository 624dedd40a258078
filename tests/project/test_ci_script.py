"""CI runs the README's two commands in a fresh virtualenv outside the checkout, then ruff."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def commands(path: Path) -> list[str]:
    lines = [line.split("#", 1)[0].strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line]


def test_ci_makes_a_fresh_virtualenv_outside_the_checkout_then_runs_make_test_make_demo_and_ruff():
    script = commands(ROOT / ".ci" / "run")
    venv = next(i for i, line in enumerate(script) if re.search(r"python3 -m venv \"?\$", line))
    assert any("mktemp -d" in line for line in script[:venv]), "the virtualenv must live outside the checkout"
    activate = next(i for i, line in enumerate(script) if line.startswith("source ") and "bin/activate" in line)
    order = [script.index(c) for c in ("make test", "make demo", "ruff check .")]
    assert venv < activate < order[0] < order[1] < order[2] == len(script) - 1
    assert "set -euo pipefail" in script  # a failing `make test` (pytest exit 5 included) fails CI
    assert not any("pip install" in line for line in script), "install only through the README's commands"


def test_make_test_installs_every_extra_and_make_demo_only_what_the_demo_needs():
    import tomllib

    makefile = (ROOT / "Makefile").read_text()
    extras = set(re.search(r"^EXTRAS = (\S+)$", makefile, re.M).group(1).split(","))
    demo = set(re.search(r"^DEMO_EXTRAS = (\S+)$", makefile, re.M).group(1).split(","))
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    assert extras == declared  # no test is skipped for a missing package
    assert demo == {"train", "vector"}  # the demo trains on the batched engine: no more
    assert '-e ".[$(EXTRAS)]"' in makefile and '-e ".[$(DEMO_EXTRAS)]"' in makefile
