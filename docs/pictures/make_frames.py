"""Regenerate the frames in docs/pictures, from the repository root:
``PYTHONPATH=. python docs/pictures/make_frames.py``."""

import random
from pathlib import Path

from PIL import Image

from commerce_env.engine import new_game
from commerce_env.frames import render_frame
from commerce_env.rules import make_rules

HERE = Path(__file__).parent


def save(variant: str, players: int, seed: int, stop, viewer: int | None, name: str) -> None:
    """Random play from ``seed`` until ``stop(game)``; the frame from ``viewer``'s point of view."""
    game = new_game(make_rules(variant), players, seed=seed)
    rng = random.Random(seed)
    while not game.over and not stop(game):
        game.apply(rng.choice(game.legal_actions()))
    Image.fromarray(render_frame(game, viewer)).save(HERE / f"{name}.png", optimize=True)


if __name__ == "__main__":
    save("trade_barter", 4, 5, lambda g: len(g.history) >= 3, 1, "frame_trade_barter_seat1")
    save("widow", 4, 8, lambda g: g.last_showdown is not None, None, "frame_widow_showdown")
    save("pool", 5, 2, lambda g: len(g.history) >= 30, 2, "frame_pool_seat2")
