"""The user docs say what the code does, cite files that exist, and hold no internal notes (issue 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
USER_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", USER_DOCS, ids=lambda p: p.name)
def test_docs_cite_only_files_in_the_repository_and_hold_no_internal_notes(path):
    text = path.read_text()
    for cited in set(re.findall(r"\b([A-Z]+\.md)\b", text)) - {"README.md"}:
        assert (ROOT / cited).exists(), f"{path.name} cites {cited}, which is not in the repository: cite docs/rules.md"
    for note in ("for the lead", "another helper", "helper session"):
        assert note not in text, f"{path.name}: internal note {note!r}"
    assert not re.search(r"\bcommit [0-9a-f]{7,40}\b", text), f"{path.name} cites a commit id"


def test_readme_and_training_doc_agree_on_what_registers_the_gymnasium_id():
    import subprocess
    import sys

    code = "import gymnasium, commerce_env; print('commerce/Commerce-v0' in gymnasium.registry)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout.strip() \
        == "True"
    for path in (ROOT / "README.md", ROOT / "docs" / "training.md"):
        assert "does not register" not in path.read_text()


@pytest.mark.parametrize("variant, options", [
    ("widow", {"match_end": "whiskey"}),  # R6.5: the first player out pays for the whiskey, the one loser
    ("widow", {"match_end": "freeze_out"}),  # R6.5: everyone out but the winner loses
    ("trade_barter", {"deals": 3}),  # R4.5: the fewest counters after the deals lose
])
def test_readme_describes_the_outcome_reward_the_engine_pays(variant, options):
    import random

    from commerce_env.engine import new_game
    from commerce_env.rules import make_rules

    text = " ".join((ROOT / "README.md").read_text().split())
    assert "each gets `−1/k`" in text and "each gets `+1/(n − k)`" in text
    rules = make_rules(variant, reward="outcome", **options)
    for seed in range(6):
        game = new_game(rules, 4, seed=seed)
        rng = random.Random(seed)
        while not game.over:
            game.apply(rng.choice(game.legal_actions()))
        losers, k = game.match_losers, len(game.match_losers)
        expected = [(-1 / k if s in losers else 1 / (4 - k)) if k else 0.0 for s in range(4)]
        assert game.returns() == pytest.approx(expected)


def test_readme_says_the_env_is_turn_based_and_how_to_use_vector_tooling():
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "turn-based" in text and "no parallel API" in text and "SuperSuit" in text


def test_gitignore_keeps_virtualenvs_and_runs_out():
    lines = (ROOT / ".gitignore").read_text().split()
    assert ".venv/" in lines and "runs/" in lines
