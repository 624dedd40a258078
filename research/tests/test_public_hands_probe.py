"""research.public_hands_probe: expected_value told nothing of the other hands it has seen."""

from __future__ import annotations

import random

from commerce_env.engine import new_game
from commerce_env.rules import make_rules
from commerce_env.view import seat_view


def test_the_probe_blanks_what_the_seat_knows_of_other_hands(monkeypatch, capsys):
    # research.public_hands_probe: its copy of expected_value is told no card in another hand
    # (R11's public_hands), and those cards join its unseen ones.
    from agents.heuristics import ExpectedValueAgent
    from research.public_hands_probe import BlankedExpectedValue, main

    rules = make_rules("widow")
    game = new_game(rules, 4, dealer=0, rng=random.Random(2))
    rng = random.Random(2)
    view = None
    while not game.over:
        view = seat_view(game, game.current_player)
        if any(cards for s, cards in enumerate(view.public_hands) if s != view.seat):
            break
        game.apply(rng.choice(game.legal_actions()))
    assert view is not None and not game.over
    seen = []
    monkeypatch.setattr(ExpectedValueAgent, "act", lambda self, v: seen.append(v) or v.legal_actions[0])
    BlankedExpectedValue().act(view)
    others = {c for s, cards in enumerate(view.public_hands) if s != view.seat for c in cards}
    assert all(not cards for s, cards in enumerate(seen[0].public_hands) if s != view.seat)
    assert others and others <= set(seen[0].unseen) and not others & set(view.unseen)
    monkeypatch.undo()
    assert main(["--variant", "widow", "--games", "24", "--workers", "1"]) == 0
    assert "expected_value - blanked, per deal:" in capsys.readouterr().out
