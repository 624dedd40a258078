"""research.margin_table: one agent's margin over the other, whichever side of the pair it is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agents.arena import run_arena

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # research/ runs from the checkout

from research.margin_table import margin_row, print_rows  # noqa: E402


def test_margin_row_is_the_named_agent_minus_the_other(capsys):
    result = run_arena(["greedy", "random"], variant="widow", games=24, seed=3, progress=False)
    greedy, random_ = margin_row(result, "greedy"), margin_row(result, "random")
    assert greedy["margin"] == -random_["margin"] and greedy["margin"] > 0
    for key in ("ci95", "ci99"):
        assert greedy[key] == sorted(-x for x in random_[key]) and greedy[key][0] <= greedy["margin"]
    with pytest.raises(ValueError, match="'search'"):
        margin_row(result, "search")
    print_rows("agent", [("greedy", greedy)])
    out = capsys.readouterr().out
    assert f"| greedy | {greedy['margin']:+.3f} |" in out and "not meaningful" in out  # 24 games: said so
