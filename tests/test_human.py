"""The human agent driven by scripted input: the view (R11), bad input refused, a whole match."""

import io
import random

from agents.human import HumanAgent, public_action_text
from commerce_env.cards import CARDS, parse_cards
from commerce_env.engine import actions as A
from commerce_env.engine import new_game
from commerce_env.rules import make_rules
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
    assert action == A.READY_MONEY + game.hands[0].index(parse_cards("AS")[0])
    refusals = [line for line in written if line.startswith("Not accepted")]
    assert len(refusals) == 5
    assert "unknown action text 'fold'" in refusals[1]
    assert "99 is not one of your choices" in refusals[2]
    assert "'give AS' is not allowed now" in refusals[3]
    assert "2C is not in the hand" in refusals[4]


def test_an_action_number_is_accepted():
    game = _game_with("trade_barter", "AS 2C 3D 4H AH 5C 6D 7H AD 8C 9D JH")
    human, _ = _scripted(str(A.KNOCK))
    assert human.act(seat_view(game, 0)) == A.KNOCK


def test_view_shows_own_hand_table_counters_and_hides_face_down_cards():  # R11
    game = _game_with("widow", "AS 3C 3D 4H AH 5C 6D 7H 2C 8C 9D JH AD 10C 5S")
    human, written = _scripted("keep_hand")
    assert human.act(seat_view(game, 3)) == A.KEEP_HAND  # seat 3 deals: a blind choice (R6.2)
    assert "face down, unseen" in written[0]
    assert "Face up on the table: A♦(AD) 10♣(10C) 5♠(5S)" in written[0]
    game.apply(A.KEEP_HAND)
    human, written = _scripted("exchange 2C AD")
    assert game.action_text(human.act(seat_view(game, 0)), 0) == "exchange 2C AD"
    view = written[0]
    assert "Your hand (player_0): 2♣(2C) A♥(AH) A♠(AS)" in view
    assert "player_3: keep_hand" in view
    assert "player_0 2 lives" in view  # three lives, one anted (R6.1)

    trade = new_game(make_rules("trade_barter"), 4, rng=random.Random(5))
    seat = trade.current_player
    trade.apply(A.READY_MONEY + 0)
    secret = trade.record[-1][2][0]
    viewer = (seat + 1) % 4
    history = seat_view(trade, viewer).history
    assert public_action_text(history, len(history) - 1, viewer) == "ready_money (a card face down)"
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
    assert "The hands are shown:" in out
    assert "Match over. Returns:" in out


def test_play_command_refuses_a_bad_seat(capsys):
    from training.cli import main

    assert main(["play", "--opponents", "greedy", "--seat", "5"]) == 2
    assert "--seat must be a seat from 0 to 1" in capsys.readouterr().err
