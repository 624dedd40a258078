"""rgb_array frames (commerce_env.frames): the contract, what a seat's picture may show (R11),
and the wrappers that consume frames (Gymnasium's RenderCollection / RecordVideo, SB3's make_vec_env)."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agents  # noqa: F401 - registers the resolver of opponent specs ("random", ...)
import commerce_env
from commerce_env.engine import new_game
from commerce_env.engine.base import DEAL, SHOW
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view

pytest.importorskip("PIL")
from commerce_env.frames import HEIGHT, WIDTH, render_frame  # noqa: E402
from commerce_env.scene import build_scene  # noqa: E402


def _play(variant: str, players: int, seed: int, steps: int):
    game = new_game(make_rules(variant), players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_import_commerce_env_does_not_import_pillow():
    code = "import sys, commerce_env, commerce_env.scene; print('PIL' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("variant", VARIANTS)
def test_aec_rgb_array_frames_have_the_contract_shape(variant):
    env = commerce_env.env(variant=variant, num_players=4, render_mode="rgb_array")
    env.reset(seed=3)
    rng = random.Random(3)
    frames = [env.render()]
    for _agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(rng.choice(env.unwrapped.legal_actions()))
        frames.append(env.render())
        if len(frames) > 40:
            break
    for frame in frames:
        assert isinstance(frame, np.ndarray)
        assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    assert len({f.tobytes() for f in frames}) > 1  # the picture follows the game


def test_bad_render_mode_names_the_choices():
    with pytest.raises(ValueError, match="rgb_array"):
        commerce_env.env(variant="widow", render_mode="rgb")


def _twin(game, seat: int, rng: random.Random):
    """The same match with every card of the current deal that ``seat`` has not seen dealt anew:
    the earlier deals' packs and actions, then the deal a sampled world of the seat's view holds
    (R11), replayed through the engine."""
    world = seat_view(game, seat).sample_world(rng)
    # the actions of earlier deals (the world keeps them, their hidden cards unknown) come from the game
    earlier = sum(1 for _, kind, _, _ in game.record[:game.deal_start] if kind not in (DEAL, SHOW))
    twin = new_game(game.rules, game.num_players, decks=[*game.packs_dealt[:-1], world.deal_pack],
                    dealer=game.first_dealer, rng=random.Random(0))
    for actor, text in [*game.history_texts()[:earlier], *world.history_texts()[earlier:]]:
        twin.apply(twin.action_from_text(text, actor))
    return twin


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 40), seat=st.integers(0, 3))
def test_a_seat_frame_does_not_depend_on_cards_it_has_not_seen(variant, seed, steps, seat):
    # R11: a twin match whose unseen cards are dealt anew gives the same picture, showdowns included.
    game = _play(variant, 4, seed, steps)
    if game.over or game.shown:
        return
    twin = _twin(game, seat, random.Random(seed + 1))
    assert build_scene(twin, seat) == build_scene(game, seat)
    assert np.array_equal(render_frame(twin, seat), render_frame(game, seat))


def test_the_everything_view_shows_the_hidden_cards():
    # The twin test above could not fail if frames showed no card at all.
    game = _play("trade_barter", 4, 11, 2)
    twin = _twin(game, 0, random.Random(5))
    assert any(twin.hands[s] != game.hands[s] for s in range(1, 4))
    assert not np.array_equal(render_frame(twin, None), render_frame(game, None))
    assert np.array_equal(render_frame(twin, 0), render_frame(game, 0))


def test_a_seat_sees_the_cards_it_knows_in_other_hands():
    # R6.2 / R11: after the widow dealer takes the widow, his whole hand is the old face-up widow.
    game = _play("widow", 4, 1, 0)
    widow = [str(c) for c in game.table]
    game.apply(game.action_from_text("take_widow"))
    assert sorted(build_scene(game, 1).seats[0].cards) == sorted(widow)
    assert build_scene(game, 1).seats[2].cards == (None, None, None)


def test_a_seat_sees_its_own_cards_and_backs_elsewhere():
    game = _play("old_game", 4, 2, 0)
    scene = build_scene(game, 1)
    assert scene.seats[1].cards == tuple(str(c) for c in sorted(game.hands[1]))
    assert all(card is None for s in (0, 2, 3) for card in scene.seats[s].cards)
    assert scene.table == tuple(str(c) for c in game.table)  # face up (R8.1)
    everything = build_scene(game, None)
    assert all(None not in s.cards for s in everything.seats)


def test_the_widow_dealer_does_not_see_his_hand_before_his_choice():
    game = _play("widow", 4, 1, 0)  # R6.2: the dealer (seat 0) decides blind
    assert game.current_player == 0
    assert build_scene(game, 0).seats[0].cards == (None, None, None)
    game.apply(game.action_from_text("keep_hand"))
    assert None not in build_scene(game, 0).seats[0].cards


def test_a_face_down_card_is_named_only_to_those_who_saw_it():
    # R11: an offered and a given card are face down; the trader takes the given card.
    game = _play("trade_barter", 4, 7, 0)
    trader = game.current_player
    neighbour = game.left_of(trader)
    offered = game.hands[trader][0]
    game.apply(game.action_from_text(f"offer {offered}"))
    given = game.hands[neighbour][2]
    game.apply(game.action_from_text(f"give {given}"))
    third = next(s for s in range(4) if s not in (trader, neighbour))
    assert str(given) not in build_scene(game, third).last_action
    assert build_scene(game, trader).last_action.endswith(f"gave you {given}")
    assert build_scene(game, neighbour).last_action.endswith(f"gave {given}")


def test_the_showdown_frame_shows_every_hand_categories_and_winners():
    game = _play("old_game", 4, 4, 0)
    before = render_frame(game, 2)
    while not game.over:
        game.apply(game.action_from_text("stand") if 1 in game.legal_actions() else game.legal_actions()[0])
    scene = build_scene(game, 2)
    shown = game.last_showdown
    assert scene.showdown and scene.over
    for seat in scene.seats:  # R11: at the showdown all hands are shown
        assert seat.cards == tuple(str(c) for c in shown.hands[seat.seat])
        assert seat.category == shown.categories[seat.seat] != ""
    assert [s.seat for s in scene.seats if s.winner] == list(shown.winners)
    assert sum(s.change for s in scene.seats) == 0  # R8.4: stakes pass between players
    assert "wins" in scene.result or "win" in scene.result
    assert scene.match_result.startswith("Match over.")
    assert not np.array_equal(render_frame(game, 2), before)


def test_a_showdown_mid_match_is_shown_until_the_next_action():
    game = new_game(make_rules("widow"), 3, seed=5)
    game.apply(game.action_from_text("keep_hand"))
    deal = game.deals_dealt
    game.apply(game.action_from_text("knock"))  # R6.4: the hands are shown, the next deal is dealt
    assert game.deals_dealt == deal + 1 and not game.over
    scene = build_scene(game, 1)
    assert scene.showdown and scene.deal == deal
    assert scene.seats[0].cards == tuple(str(c) for c in game.last_showdown.hands[0])
    assert [s.seat for s in scene.seats if s.dealer] == [game.last_showdown.dealer] != [game.dealer]  # R3.2
    game.apply(game.legal_actions()[0])  # the new deal's dealer chooses
    assert not build_scene(game, 1).showdown


def test_frames_of_many_players_and_pool_commerce():
    for variant, players in (("widow", 12), ("pool", 5), ("my_ship_sails", 7)):
        frame = render_frame(_play(variant, players, 3, 10), None)
        assert frame.shape == (HEIGHT, WIDTH, 3)
    scene = build_scene(_play("pool", 5, 3, 0), 0)
    assert all(s.money is not None for s in scene.seats)  # R9: money apart from lives


def test_single_agent_env_renders_the_learner_view():
    from commerce_env.single_agent import CommerceEnv

    env = CommerceEnv(variant="trade_barter", opponents=["random"],
                      render_mode="rgb_array", seat=2)
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    assert np.array_equal(frame, render_frame(env.game, 2, ["player_0", "player_1", "learner", "player_3"]))


def test_gymnasium_render_collection():
    import gymnasium
    from gymnasium.wrappers import RenderCollection

    env = RenderCollection(gymnasium.make("commerce/Commerce-v0", variant="widow", opponents=["greedy"],
                                          render_mode="rgb_array"))
    env.reset(seed=0)
    done, steps = False, 0
    while not done and steps < 30:
        mask = env.unwrapped.action_masks()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
        done = terminated or truncated
        steps += 1
    frames = env.render()
    assert len(frames) == steps + 1
    assert all(f.shape == (HEIGHT, WIDTH, 3) and f.dtype == np.uint8 for f in frames)


def test_gymnasium_record_video(tmp_path):
    pytest.importorskip("moviepy")
    import gymnasium
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gymnasium.make("commerce/Commerce-v0", render_mode="rgb_array"), str(tmp_path),
                      episode_trigger=lambda _: True, disable_logger=True)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        done = terminated or truncated
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def test_sb3_make_vec_env_with_its_defaults():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("commerce/Commerce-v0", n_envs=2, seed=0, env_kwargs={"opponents": ["random"]})
    try:
        assert vec.render_mode == "rgb_array"  # SB3 asks for it when none is given
        vec.reset()
        for _ in range(3):
            vec.step(np.array([int(np.flatnonzero(m)[0]) for m in vec.env_method("action_masks")]))
        frames = vec.get_images()
        assert all(f.shape == (HEIGHT, WIDTH, 3) for f in frames)
    finally:
        vec.close()


class _CountingDraw:
    """A Pillow draw that counts the texts it measures (and stops a runaway count)."""

    def __init__(self, limit: int = 40):
        from PIL import Image, ImageDraw

        self.draw, self.measured, self.limit = ImageDraw.Draw(Image.new("RGB", (WIDTH, HEIGHT))), 0, limit

    def textlength(self, text, font):
        self.measured += 1
        assert self.measured <= self.limit, "measured the text too often"
        return self.draw.textlength(text, font=font)


def _longest_fitting(draw, text, limit):
    """The longest prefix that fits with "..." after it, one character at a time (the reference)."""
    from commerce_env.frames import _font

    font = _font(15, True)
    if draw.textlength(text, font=font) <= limit:
        return text
    while text and draw.textlength(text + "...", font=font) > limit:
        text = text[:-1]
    return text + "..."


def test_a_twenty_thousand_character_name_is_fitted_in_few_measurements():
    # A replay may name a player with 20,000 characters: fitting the footer line measures the text a
    # logarithmic number of times, and the line still fits as a prefix of the text and "...".
    from commerce_env.frames import _fit, _font

    text = "last: " + "Wide Name W" * 1819 + " knocks"
    draw = _CountingDraw()
    fitted = _fit(draw, text, WIDTH - 28)
    assert draw.measured < 40
    assert fitted.endswith("...") and text.startswith(fitted[:-3])
    assert draw.draw.textlength(fitted, font=_font(15, True)) <= WIDTH - 28
    assert fitted == _longest_fitting(draw.draw, text[:400], WIDTH - 28)


@settings(max_examples=30, deadline=None)
@given(text=st.text(st.characters(codec="latin-1", exclude_categories=("Cc",)), max_size=300),
       limit=st.integers(0, 400))
def test_fitting_keeps_the_longest_prefix_that_fits(text, limit):
    # Short texts stay whole; long ones keep as much as fits before "..." (as one character at a time did).
    from PIL import Image, ImageDraw

    from commerce_env.frames import _fit

    draw = ImageDraw.Draw(Image.new("RGB", (WIDTH, HEIGHT)))
    assert _fit(draw, text, limit) == _longest_fitting(draw, text, limit)
