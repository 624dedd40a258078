"""The human agent driven by scripted input: the view (R11), bad input refused, a whole match."""

import io
import random

import pytest

from agents.human import HumanAgent, public_action_text
from commerce_env import guide
from commerce_env.cards import CARDS, parse_cards
from commerce_env.engine import new_game
from commerce_env.engine.actions import KEEP_HAND, KNOCK, READY_MONEY
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view


def _scripted(*answers):
    replies = iter(answers)
    written = []
    return HumanAgent(read=lambda prompt: next(replies), write=written.append), written


def _game_with(variant, pack, dealer=3):
    cards = list(parse_cards(pack))
    rest = [c for c in CARDS if c not in cards]
    return new_game(make_rules(variant), 4, decks=[cards + rest], dealer=dealer)


def test_bad_input_is_refused_until_a_legal_action_is_typed():  # R12 texts
    game = _game_with("trade_barter", "AS 2C 3D 4H AH 5C 6D 7H AD 8C 9D JH")
    human, written = _scripted("", "fold", "99", "give AS", "ready_money 2C", "ready_money as")
    action = human.act(seat_view(game, 0))
    assert action == READY_MONEY + game.hands[0].index(parse_cards("AS")[0])
    refusals = [line for line in written if line.startswith("Not accepted")]
    assert len(refusals) == 5
    assert "'fold'" in refusals[1]
    assert "99 is not one of your choices" in refusals[2]
    assert "'give AS' is not allowed now" in refusals[3]
    assert "2C is not in the hand" in refusals[4]


def test_a_choice_is_accepted_by_its_words_as_listed():
    game = _game_with("trade_barter", "AS 2C 3D 4H AH 5C 6D 7H AD 8C 9D JH")
    human, written = _scripted("Trade  AS for ready money")
    assert human.act(seat_view(game, 0)) == READY_MONEY + game.hands[0].index(parse_cards("AS")[0])
    assert "trade AS for ready money" in written[0]  # as the choices list it


def test_an_action_number_is_accepted():
    game = _game_with("trade_barter", "AS 2C 3D 4H AH 5C 6D 7H AD 8C 9D JH")
    human, _ = _scripted(str(KNOCK))
    assert human.act(seat_view(game, 0)) == KNOCK


def test_view_shows_own_hand_table_counters_and_hides_face_down_cards():  # R11
    game = _game_with("widow", "AS 3C 3D 4H AH 5C 6D 7H 2C 8C 9D JH AD 10C 5S")
    human, written = _scripted("keep_hand")
    assert human.act(seat_view(game, 3)) == KEEP_HAND  # seat 3 deals: a blind choice (R6.2)
    assert "Your hand (player_3): face down" in written[0] and "3C" not in written[0]
    assert "A♦(AD) 10♣(10C) 5♠(5S)" in written[0]
    game.apply(KEEP_HAND)
    human, written = _scripted("exchange 2C AD")
    assert game.action_text(human.act(seat_view(game, 0)), 0) == "exchange 2C AD"
    view = written[0]
    assert "Your hand (player_0): 2♣(2C) A♥(AH) A♠(AS)" in view
    assert "player_3 kept their hand" in view
    assert "  player_0: 2 lives" in view  # three lives, one anted (R6.1); one line per player

    trade = new_game(make_rules("trade_barter"), 4, rng=random.Random(5))
    seat = trade.current_player
    trade.apply(READY_MONEY + 0)
    secret = trade.record[-1][2][0]
    viewer = (seat + 1) % 4
    history = seat_view(trade, viewer).history
    assert str(CARDS[secret]) not in public_action_text(history, len(history) - 1, viewer)
    history = seat_view(trade, seat).history
    assert str(CARDS[secret]) in public_action_text(history, len(history) - 1, seat)


def test_play_command_runs_a_match_from_scripted_stdin(monkeypatch, capsys):
    from training.cli import main

    # Knock (action 0) whenever asked: in trade and barter it is legal in every phase but stand/continue.
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\n0\n" * 20))
    code = main(["play", "--variant", "trade_barter", "--opponents", "greedy,random", "--players", "3",
                 "--seed", "8"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Not accepted" in out  # "hello" refused
    assert "Deal 1: the hands are shown:" in out
    assert "Match over." in out


def test_play_command_refuses_a_bad_seat(capsys):
    from training.cli import main

    assert main(["play", "--opponents", "greedy", "--seat", "5"]) == 2
    assert "--seat must be a seat from 0 to 1" in capsys.readouterr().err


def _play(monkeypatch, capsys, lines, *args):
    from training.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = main(["play", *args])
    return code, capsys.readouterr().out


def test_help_explains_the_variant_and_the_choices(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["help", "?", "0"] * 10, "--variant", "trade_barter",
                      "--opponents", "greedy", "--seed", "3")
    assert code == 0 and "Not accepted" not in out  # help is no bad input
    assert out.count(guide.variant_help("trade_barter")[:40]) >= 2
    for kind in ("knock", "offer"):
        assert f"{guide.ACTION_NAMES[kind]}: {guide.ACTIONS[kind][:30]}" in out


def test_you_act_first_and_each_deal_is_announced_before_its_moves(monkeypatch, capsys):
    # With seat 0 dealing, greedy (the eldest) could knock before the human ever played (R3.1).
    for seat in (0, 1):
        code, out = _play(monkeypatch, capsys, ["0"] * 20, "--variant", "trade_barter", "--opponents", "greedy",
                          "--seat", str(seat), "--seed", "1")
        lines = out.splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("--- Deal 1, dealt by "))
        assert "Your choices" in "\n".join(lines[header:header + 12])  # the human's turn comes first
        assert not any(line.startswith("greedy (") for line in lines[1:header])  # no move before the deal


def test_showdowns_name_categories_winners_and_payments(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["6", "0"] * 40, "--variant", "widow", "--opponents", "greedy",
                      "--players", "3", "--seed", "5", "--option", "deals=2")
    assert code == 0
    assert "Deal 1: the hands are shown:" in out and "Deal 2: the hands are shown:" in out
    shown = out.split("Deal 1: the hands are shown:")[1].splitlines()
    assert any(" WINS" in line and "(" in line for line in shown[:4])  # a hand, its category, the winner
    assert " wins with a" in out and "Lives now: " in out
    assert "Match over." in out and "the match." in out  # who loses it (R6.5)


def test_since_your_last_turn_does_not_repeat_the_live_moves_or_span_deals(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["6", "3", "0"] * 40, "--variant", "widow", "--opponents",
                      "greedy", "--players", "3", "--seed", "2", "--option", "deals=3")
    assert code == 0 and "Since your last turn" not in out  # every move is printed as it is made
    game = _game_with("widow", "AS 3C 3D 4H AH 5C 6D 7H 2C 8C 9D JH AD 10C 5S")
    game.apply(KEEP_HAND)
    game.apply(KNOCK)  # deal 1 ends; deal 2: its dealer (seat 0) chooses blind
    human, written = _scripted("keep_hand")
    human.act(seat_view(game, 0))
    assert "Since your last turn" not in written[0]  # the knock belongs to the deal before


def test_ctrl_c_leaves_without_a_traceback(capsys):
    import argparse

    from agents.cli import play_command

    def interrupt(prompt):
        raise KeyboardInterrupt

    args = argparse.Namespace(variant="old_game", opponents="greedy", players=None, seat=0, seed=1, option=None)
    written = []
    assert play_command(args, read=interrupt, write=written.append) == 130
    assert written[-1].strip() == "Left the game."


def test_play_again(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["stand", "y", "stand", "n"], "--variant",
                      "old_game", "--opponents", "greedy", "--seed", "4")
    assert code == 0
    assert out.count("Match over.") == 2 and out.count("Play again?") == 2


def test_model_opponents_get_short_labels():
    from agents.specs import short_label

    assert short_label("model:runs/foster/model") == "model model"
    assert short_label("model:models/widow") == "model widow"
    assert short_label("exports/widow.json") == "model widow"
    assert short_label("greedy") == "greedy"


def test_lines_fit_the_terminal():
    from agents.human import fit

    text = "Players: " + "; ".join(f"player_{s} (expected_value) 3 lives" for s in range(8))
    wrapped = fit(text, width=60).splitlines()
    assert len(wrapped) > 1 and all(len(line) < 60 for line in wrapped)
    assert all(not line.endswith("expected_") for line in wrapped)  # never mid-word


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_terminal_speaks_the_tables_language(variant):
    # Every line of a whole match: no action token, rule number or learner's term; the lives and
    # money explained at the start (the intro names the first balance the players see).
    import argparse
    import re

    from web_helpers import jargon

    from agents.cli import play_command

    rng = random.Random(VARIANTS.index(variant))
    written: list[str] = []

    def read(prompt):
        if prompt.startswith("Play again"):
            return "n"
        choices = re.findall(r"^ +(\d+)  ", written[-1], re.MULTILINE)  # the numbers of the listed choices
        return rng.choice(choices)

    args = argparse.Namespace(variant=variant, opponents="greedy,search(worlds=2)", players=4, seat=1, seed=3,
                              option=["deals=2"])
    assert play_command(args, read=read, write=written.append) == 0
    out = "\n".join(written)
    assert "Match over." in out  # played to the end
    assert not jargon(out), sorted(set(jargon(out)))
