"""research.stronger_agents: a live agent against its frozen copy on duplicate deals."""

from __future__ import annotations


def test_new_against_old_cancels_the_cards_between_equal_agents():  # research.stronger_agents
    from research.agent_versions import ExpectedValueV1
    from research.stronger_agents import compare, line

    # The frozen copy against itself on duplicate deals: every seat gets the same cards twice.
    result = compare("expected_value", "old_game", 12, seed=0, new=ExpectedValueV1())
    assert (result["groups"], result["games"]) == (2, 12)
    assert result["per_deal"]["mean_difference"] == 0.0
    assert "per deal +0.000" in line(result)
