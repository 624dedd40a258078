"""How much room is left above ``search``: ``python -m research.oracle``.

The *oracle* is ``search`` that breaks R11 on purpose: instead of sampling
worlds consistent with what its seat knows, it searches the true deal (every
hand, the widow, the stock in its order).  Its greedy rollouts are then
deterministic, so one world is all it needs.  It plays ``expected_value``'s
choice unless the true deal shows another action strictly better: where
every action leads to the same end (a deal it cannot win whatever it does,
if everyone then played ``greedy``), a plain argmax would take the first
action, a knock, and give up a deal that real opponents might still lose.  It plays the arena's standard lineup
(the oracle in one seat, the opponent in the others, every seating, duplicate
deals), and its margin over ``search`` bounds what better knowledge of the
hidden cards (sharper beliefs, a learned opponent model) could add to a
greedy-rollout search: if even the oracle is level with ``search``, the
headroom is in the play after the decision, not in the cards.

``--swaps knock which`` says where that room is: ``search`` that hands one
kind of decision to the oracle (``research.decision_swap``'s kinds: which
exchange, whether to exchange, knock, the widow dealer's blind choice) and
makes the rest itself, on the same deals as the oracle and ``search``.

A probe, never an agent: it is not in the agent registry, and it plays only
inside :func:`oracle_table`, which hands it the game it sits at (agents are
otherwise given seat views only, ``agents.play``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import agents.play as play
from agents.arena import run_arena
from agents.search import SearchAgent
from commerce_env.engine.base import HORSE, Game
from commerce_env.view import SeatView
from research.decision_swap import KINDS, SwapAgent
from research.margin_table import margin_row, print_rows

_TABLE: dict[str, Game] = {}  # the game being played, while oracle_table() is on


@dataclasses.dataclass(frozen=True, eq=False)
class OracleView(SeatView):
    """A seat view that also holds the true game: its worlds are that game."""

    game: Game | None = None

    def sample_world(self, rng: Any) -> Game:
        return self.game.clone()


def _seat_view_with_game(game: Game, seat: int) -> SeatView:
    _TABLE["game"] = game
    return _seat_view(game, seat)


_seat_view = play.seat_view


@contextmanager
def oracle_table() -> Iterator[None]:
    """Within it, ``agents.play`` tells the oracle which game it sits at (the arena's
    worker processes are forked, so they inherit it)."""
    play.seat_view = _seat_view_with_game
    try:
        yield
    finally:
        play.seat_view = _seat_view
        _TABLE.clear()


class OracleSearch(SearchAgent):
    """``search`` over the true deal: one world; ``expected_value``'s choice unless another
    action is strictly better there."""

    name = "oracle"

    def __init__(self, seed: int | None = None):
        super().__init__(worlds=1, seed=seed)

    def act(self, view: SeatView) -> int:
        game = _TABLE.get("game")
        if game is None or game.current_player != view.seat:
            raise RuntimeError("the oracle plays only inside research.oracle.oracle_table(), "
                               "at the game whose seat view it is given")
        default = self.prior.act(view)
        if len(view.legal_actions) == 1 or view.phase == HORSE:  # R9.4: after the deal, as search
            return default
        fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(SeatView)}
        results = self.evaluate(OracleView(**fields, game=game), (default,))
        self.last_values = {a: float(v.mean()) for a, v in results.items()}
        best = max(self.last_values.values())
        if self.last_values[default] >= best:
            return default
        return min(a for a, value in self.last_values.items() if value >= best)


def oracle_margins(variant: str, opponents: list[str], games: int, seed: int, workers: int) -> list[dict]:
    """The oracle minus each opponent per deal (or match), the standard lineup."""
    with oracle_table():
        return [{"opponent": opponent, **margin_row(run_arena([OracleSearch(), opponent], variant=variant, games=games,
                                                             seed=seed, workers=workers, progress=False), "oracle")}
                for opponent in opponents]


def swap_margins(variant: str, kinds: list[str], opponent: str, games: int, seed: int,
                 workers: int) -> Iterator[dict]:
    """``search`` with the oracle's choice in one kind of decision, minus ``opponent`` per deal
    (one row per kind, as each is played)."""
    for kind in kinds:
        learner = SwapAgent(SearchAgent(), OracleSearch(), kind)
        learner.name = f"search, the oracle's {kind}"
        with oracle_table():
            result = run_arena([learner, opponent], variant=variant, games=games, seed=seed, workers=workers,
                               progress=False)
        yield {"opponent": opponent, "kind": kind, **margin_row(result, learner.name)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="widow")
    parser.add_argument("--opponents", nargs="*", default=["search"], help="agent specs, as the arena's")
    parser.add_argument("--games", type=int, default=480)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--swaps", nargs="*", default=[], choices=KINDS,
                        help="also search with the oracle's choice in one kind of decision, against each opponent")
    args = parser.parse_args(argv)
    print(f"{args.variant}: the oracle (search over the true deal) minus each opponent, per deal, "
          f"arena seed {args.seed}")
    rows = oracle_margins(args.variant, args.opponents, args.games, args.seed, args.workers)
    print_rows("opponent", ((row["opponent"], row) for row in rows))
    for opponent in args.opponents if args.swaps else []:
        print(f"\n`search` with the oracle's choice in one kind of decision, minus {opponent}")
        swaps = swap_margins(args.variant, args.swaps, opponent, args.games, args.seed, args.workers)
        print_rows("the oracle's", ((row["kind"], row) for row in swaps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
