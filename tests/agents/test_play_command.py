"""``commerce play`` against a model: the model's player count and variant are the match's (or the
command refuses up front, naming both), and the terminal's help suggests only the variant's actions."""

from __future__ import annotations

import io
import re

import pytest

from agents.human import help_text
from commerce_env import guide
from commerce_env.engine import new_game
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view
from training.cli import main


def _play(monkeypatch, capsys, *argv: str) -> tuple[int | str, str, str]:
    """``commerce play ...`` with no input: the human leaves at his first turn, once the match is set up."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    try:
        code = main(["play", "--seed", "1", *argv])
    except SystemExit as leaving:
        code = str(leaving)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def widow4(tiny_model, tmp_path):
    return tiny_model("widow", 4, tmp_path / "widow")


def test_the_players_and_variant_default_to_the_models(widow4, monkeypatch, capsys):
    code, out, err = _play(monkeypatch, capsys, "--opponents", f"model:{widow4},greedy")
    assert "input ended" in str(code) and err == ""
    assert "widow, 4 players" in out.splitlines()[0]  # not 3 (you plus two opponents), not trade_barter


def test_players_or_variant_contradicting_the_model_are_refused_naming_both(widow4, capsys, monkeypatch):
    from agents import model_files

    loads = []
    monkeypatch.setattr(model_files, "_read_weights", lambda path: loads.append(path))
    for flags, named in ((["--players", "3"], ("3", "4")), (["--variant", "old_game"], ("old_game", "widow"))):
        code, _, error = _play(monkeypatch, capsys, "--opponents", f"model:{widow4},greedy", *flags)
        assert code == 2 and str(widow4) in error and all(word in error for word in named), error
    assert loads == []  # refused from model.json alone


def test_two_models_that_cannot_share_a_table_are_refused(widow4, tiny_model, tmp_path, monkeypatch, capsys):
    other = tiny_model("widow", 3, tmp_path / "widow3")
    code, _, error = _play(monkeypatch, capsys, "--opponents", f"model:{widow4},model:{other}")
    assert code == 2 and str(widow4) in error and str(other) in error


def test_without_a_model_the_defaults_are_unchanged(monkeypatch, capsys):
    code, out, _ = _play(monkeypatch, capsys, "--opponents", "greedy,random")
    assert f"{guide.variant_title('trade_barter')}, 3 players" in out.splitlines()[0]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_help_suggests_only_the_variants_own_actions(variant):
    game = new_game(make_rules(variant), 3, dealer=2)
    view = seat_view(game, game.current_player)
    verbs = {view.action_text(a).split()[0] for a in view.legal_actions}
    text = help_text(view).replace(guide.variant_help(variant), "")  # the choices, not the rules
    for verb in guide.ACTIONS:
        if verb not in verbs:
            assert not re.search(rf"\b{verb}\b", text), (verb, text)


def test_the_terminal_says_you_win(capsys):
    from agents.cli import _show
    from commerce_env.cards import CARDS, parse_cards
    from commerce_env.engine.actions import KNOCK

    cards = list(parse_cards("AS 2C 3D AH 4H 5C AD 6D 7H"))  # dealt from the eldest, seat 0: three aces
    game = new_game(make_rules("trade_barter", deals=1), 3, decks=[cards + [c for c in CARDS if c not in cards]],
                    dealer=2)
    game.apply(KNOCK)  # R5: the hands are shown; seat 0's tricon wins
    _show(game, game.showdowns[0], ["you", "greedy (1)", "greedy (2)"], print)
    out = capsys.readouterr().out
    assert "you win " in out and "you wins" not in out
