"""What a seat's knowledge of the other hands is worth: ``python -m research.public_hands_probe``.

``expected_value`` against a copy of itself that is not told which cards it
knows to be in the other hands (``view.public_hands``, R11: table cards taken,
the widow taken, cards bartered away; those cards are counted among the
unseen instead), alternating around the table on duplicate deals.  A clear
gain says a learned model may gain from the ``known_hands`` feature
(docs/training.md, "Known hands, in the widow game").
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from agents.arena import run_arena
from agents.heuristics import ExpectedValueAgent
from commerce_env.view import SeatView


class BlankedExpectedValue(ExpectedValueAgent):
    """``expected_value`` that sees no card in another hand: ``public_hands`` blanked."""

    name = "expected_value_blank"

    def act(self, view: SeatView) -> int:
        others = {c for s, cards in enumerate(view.public_hands) if s != view.seat for c in cards}
        blanked = dataclasses.replace(
            view, public_hands=tuple(cards if s == view.seat else () for s, cards in enumerate(view.public_hands)),
            unseen=tuple(sorted(set(view.unseen) | others)))
        return super().act(blanked)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="widow")
    parser.add_argument("--games", type=int, default=720)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    blanked = BlankedExpectedValue()  # one agent in both its seats (agents with the same name are one)
    lineup = ["expected_value", blanked, "expected_value", blanked]
    result = run_arena(lineup, variant=args.variant, games=args.games, seed=args.seed, workers=args.workers,
                       progress=False)
    pair = result["pairwise"][0]
    sign = 1.0 if pair["a"] == "expected_value" else -1.0
    low, high = sorted(sign * x for x in pair["ci95"])
    print(f"{args.variant}: expected_value - blanked, per deal: {sign * pair['mean_difference']:+.3f} "
          f"[{low:+.3f}, {high:+.3f}] (95%), p {pair['p_value']:.2g}, {result['games']} games "
          f"in {result['groups']} duplicate groups (arena seed {args.seed})")
    for warning in result["warnings"]:
        print(warning)
    return 0


if __name__ == "__main__":
    sys.exit(main())
