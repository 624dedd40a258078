"""The whole game tree of a small game (:mod:`commerce_env.small_game`), walked through the readable
engine and kept as flat arrays, for exact best responses and CFR (:mod:`agents.exact`, :mod:`agents.cfr`).

Every node is a chance node, a decision or the end of the match.  The root is chance's choice of
the whole first deal (:meth:`SmallGame.deals`, equally likely); a ready-money action (R5.3) is
followed by a chance node that draws its card, uniformly among the stock cards nobody has drawn
(the stock's order is a uniform shuffle nobody has seen, R11); every other edge is an action the
engine allows, in the order of ``legal_actions()``.  A decision's information state is what its
seat knows (R11): the engine's record of the deal with every card the seat did not see blanked
(perfect recall: the record only grows).  Nodes are stored level by level (a node's children
are consecutive, one level down), so the algorithms sweep levels with numpy.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np

from .engine import Game
from .engine.actions import OFFER, READY_MONEY
from .small_game import SmallGame
from .view import SeatView, seat_view

__all__ = ["CHANCE", "TERMINAL", "GameTree", "build_tree", "draws_card", "info_key", "replayed", "stacked",
           "stock_top", "unseen_stock", "view_key"]

CHANCE, TERMINAL = -1, -2  # a node's `player` when no seat decides there


def info_key(game: Game, seat: int) -> tuple:
    """What ``seat`` knows of the current deal (R11): the record's entries since the deal, each card
    it did not see replaced by -1.  Equal keys are one information state."""
    bit = game.seat_bits[seat]
    return (seat, *((s, kind, tuple(c if m & bit else -1 for c, m in zip(cards, seen, strict=True)))
                    for s, kind, cards, seen in game.record[game.deal_start - 1:]))


def view_key(view: SeatView) -> tuple:
    """The information state of a seat view, from what the view says (its seat, hand, table and the
    history as it knows it), whatever pack dealt the game and whoever dealt it (seats are counted
    from the dealer, as the rules count them, R3.1): a policy over views maps to a tree's
    information states through this key (:meth:`GameTree.view_keys`)."""
    n, dealer = view.num_players, view.dealer
    history = tuple(((s - dealer) % n, kind, tuple(cards)) for s, kind, cards in view.history)
    return (view.seat - dealer) % n, view.phase, tuple(view.hand), tuple(view.table), history


def draws_card(game: Game, action: int) -> bool:
    """Whether ``action`` draws the stock's top card (R5.3)."""
    return game.has_stock and READY_MONEY <= action < OFFER


class GameTree:
    """A small game's tree as arrays, nodes level by level (see the module docstring).

    ``player[i]``: the seat deciding at node ``i``, or :data:`CHANCE` / :data:`TERMINAL`;
    ``parent[i]`` (-1 at the root); ``label[i]``: the edge into it (a deal's index below the root,
    an action below a decision, the card drawn below a draw); ``slot[i]``: which child of its
    parent it is; ``chance[i]``: the probability of the edge from a chance parent (1 below a
    decision); ``infoset[i]``: a decision's information state (-1 elsewhere); ``first_child[i]``;
    ``returns[i]``: each seat's return at a terminal node (zero elsewhere); ``levels``: each
    level's first node, and one past the last.  Per information state: ``info_player``,
    ``info_actions`` (the legal actions, padded with -1 to ``max_actions``), ``num_actions``,
    ``info_node`` (a node in it); ``keys[k]`` is its :func:`info_key`.
    """

    def __init__(self, game: SmallGame, deals: Sequence[tuple[int, ...]], arrays: dict[str, np.ndarray],
                 keys: list[tuple]):
        self.game, self.deals, self.keys = game, list(deals), keys
        self.num_players = game.num_players
        self.top = stock_top(game)
        for name, value in arrays.items():
            setattr(self, name, value)
        self._view_keys: dict[tuple, int] | None = None
        self.num_nodes = len(self.player)
        self.num_infosets = len(self.info_player)
        self.max_actions = self.info_actions.shape[1]

    def path(self, node: int) -> list[tuple[int, int]]:
        """``(parent's player, label)`` of each edge from the root to ``node``."""
        edges = []
        while node > 0:
            parent = int(self.parent[node])
            edges.append((int(self.player[parent]), int(self.label[node])))
            node = parent
        return edges[::-1]

    def state(self, node: int) -> Game:
        """The engine's state at ``node``, replayed from the root."""
        (_, deal), *steps = self.path(node)
        drawn = [label for player, label in steps if player == CHANCE]
        actions = [label for player, label in steps if player != CHANCE]
        return replayed(self.game, self.deals[deal], drawn, actions, self.top)

    def view(self, infoset: int) -> SeatView:
        """The seat view at information state ``infoset`` (at its node ``info_node``)."""
        return seat_view(self.state(int(self.info_node[infoset])), int(self.info_player[infoset]))

    def view_keys(self) -> dict[tuple, int]:
        """:func:`view_key` of each information state's view -> the information state (made once); a
        ``ValueError`` if two information states had one view key (views would not tell them apart)."""
        if self._view_keys is None:
            found: dict[tuple, int] = {}
            for infoset in range(self.num_infosets):
                key = view_key(self.view(infoset))
                if key in found:
                    raise ValueError(f"information states {found[key]} and {infoset} have one seat view")
                found[key] = infoset
            self._view_keys = found
        return dict(self._view_keys)

    def legal(self, infoset: int) -> list[int]:
        """The legal actions at ``infoset``."""
        return [int(a) for a in self.info_actions[infoset, :self.num_actions[infoset]]]

    def value_range(self) -> float:
        """The largest spread of one seat's returns over the terminal nodes."""
        ends = self.returns[self.player == TERMINAL]
        return float((ends.max(axis=0) - ends.min(axis=0)).max())


def stock_top(game: SmallGame) -> int:
    """Where the stock starts in a pack: after the hands and the table (R1.5)."""
    return 3 * game.num_players + (3 if game.rules().info.engine.has_table else 0)


def stacked(pack: tuple[int, ...], drawn: Sequence[int], top: int) -> tuple[int, ...]:
    """``pack`` with ``drawn`` on the top of its stock, in the order they are drawn."""
    rest = [c for c in pack[top:] if c not in drawn]
    return (*pack[:top], *drawn, *rest)


def unseen_stock(game: Game, pack: tuple[int, ...], drawn: Sequence[int], top: int) -> list[int]:
    """The cards a draw from ``game``'s stock can give (chance's outcomes, R5.3, R11): the stock cards
    of ``pack`` (its cards from ``top`` on) that nobody has drawn yet, in pack order."""
    return [c for c in pack[top:] if c not in drawn and c in game.stock]


def replayed(game: SmallGame, pack: tuple[int, ...], drawn: Sequence[int], actions: Sequence[int],
             top: int) -> Game:
    """``game`` dealt from ``pack`` with ``drawn`` on the top of its stock, ``actions`` taken: a
    position again after chance has drawn a card (the engine draws from the pack it was dealt)."""
    engine = game.new_game(stacked(pack, drawn, top))
    for action in actions:
        engine.apply(action)
    return engine


class _Builder:
    """The walk: nodes appended in depth-first order, then sorted into levels."""

    def __init__(self, game: SmallGame):
        self.game, self.top = game, stock_top(game)
        self.parent, self.depth, self.player = array("i"), array("b"), array("b")
        self.label, self.chance, self.infoset = array("i"), array("d"), array("i")
        self.ends, self.returns = array("i"), array("d")
        self.infosets: dict[tuple, int] = {}
        self.keys: list[tuple] = []
        self.info_player: list[int] = []
        self.info_actions: list[tuple[int, ...]] = []
        self.info_node: list[int] = []
        self.info_depth: list[int] = []

    def add(self, parent: int, depth: int, label: int, chance: float, player: int) -> int:
        self.parent.append(parent)
        self.depth.append(depth)
        self.label.append(label)
        self.chance.append(chance)
        self.player.append(player)
        self.infoset.append(-1)
        return len(self.parent) - 1

    def visit(self, game: Game, parent: int, depth: int, label: int, chance: float,
              pack: tuple[int, ...], drawn: tuple[int, ...], actions: tuple[int, ...]) -> None:
        if game.over:
            self.ends.append(self.add(parent, depth, label, chance, TERMINAL))
            self.returns.extend(game.returns())
            return
        seat = game.current_player
        node = self.add(parent, depth, label, chance, seat)
        legal = tuple(game.legal_actions())
        self.infoset[node] = self.information_state(game, seat, legal, node, depth)
        for action in legal:
            unseen = unseen_stock(game, pack, drawn, self.top) if draws_card(game, action) else []
            if not unseen:
                child = game.clone()
                child.apply(action)
                self.visit(child, node, depth + 1, action, 1.0, pack, drawn, (*actions, action))
                continue
            draw = self.add(node, depth + 1, action, 1.0, CHANCE)  # R5.3: the card drawn is chance's
            for card in unseen:
                child = replayed(self.game, pack, (*drawn, card), actions, self.top)
                assert child.stock[-1] == card
                child.apply(action)
                self.visit(child, draw, depth + 2, card, 1.0 / len(unseen), pack, (*drawn, card),
                           (*actions, action))

    def information_state(self, game: Game, seat: int, legal: tuple[int, ...], node: int, depth: int) -> int:
        key = info_key(game, seat)
        found = self.infosets.get(key)
        if found is None:
            found = self.infosets[key] = len(self.keys)
            self.keys.append(key)
            self.info_player.append(seat)
            self.info_actions.append(legal)
            self.info_node.append(node)
            self.info_depth.append(depth)
        elif self.info_actions[found] != legal or self.info_depth[found] != depth:
            raise AssertionError(f"information state {key} has legal actions {legal} at depth {depth} and "
                                 f"{self.info_actions[found]} at depth {self.info_depth[found]}")
        return found

    def finish(self, deals: list[tuple[int, ...]], num_players: int) -> GameTree:
        depth = np.frombuffer(self.depth, dtype=np.int8)
        order = np.argsort(depth, kind="stable")  # levels; a parent's children stay consecutive, in order
        where = np.empty_like(order)
        where[order] = np.arange(len(order))
        old_parent = np.frombuffer(self.parent, dtype=np.int32)
        parent = np.where(old_parent[order] >= 0, where[np.maximum(old_parent[order], 0)], -1).astype(np.int32)
        player = np.frombuffer(self.player, dtype=np.int8)[order]
        returns = np.zeros((len(order), num_players))
        returns[where[np.frombuffer(self.ends, dtype=np.int32)]] = np.frombuffer(self.returns).reshape(-1, num_players)
        first_child = np.full(len(order), -1, dtype=np.int32)
        children = np.arange(1, len(order))
        first_child[parent[children][::-1]] = children[::-1]  # the lowest index wins
        slot = np.zeros(len(order), dtype=np.int16)
        slot[children] = children - first_child[parent[children]]
        width = max(map(len, self.info_actions))
        actions = np.full((len(self.info_actions), width), -1, dtype=np.int16)
        for k, legal in enumerate(self.info_actions):
            actions[k, :len(legal)] = legal
        arrays = dict(
            parent=parent, player=player, label=np.frombuffer(self.label, dtype=np.int32)[order],
            chance=np.frombuffer(self.chance)[order], infoset=np.frombuffer(self.infoset, dtype=np.int32)[order],
            first_child=first_child, slot=slot, returns=returns,
            levels=np.searchsorted(depth[order], np.arange(int(depth.max()) + 2)),
            info_player=np.array(self.info_player, dtype=np.int8), info_actions=actions,
            num_actions=np.array([len(a) for a in self.info_actions], dtype=np.int16),
            info_node=where[np.array(self.info_node, dtype=np.int64)])
        return GameTree(self.game, deals, arrays, self.keys)


def build_tree(game: SmallGame, deals: Sequence[tuple[int, ...]] | None = None) -> GameTree:
    """Walk ``game``'s whole tree through the engine; ``deals``: the first deals chance chooses
    among, equally likely (default every deal, :meth:`SmallGame.deals`; fewer make a smaller game
    for tests)."""
    deals = game.deals() if deals is None else [tuple(int(c) for c in d) for d in deals]
    if not deals:
        raise ValueError("a game tree needs at least one deal")
    builder = _Builder(game)
    root = builder.add(-1, 0, 0, 1.0, CHANCE)
    for index, pack in enumerate(deals):
        builder.visit(game.new_game(pack), root, 1, index, 1.0 / len(deals), pack, (), ())
    return builder.finish(deals, game.num_players)
