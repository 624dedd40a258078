"""An immutable sequence that grows at no cost per item however long it is: what a seat view holds
of a long record (:mod:`commerce_env.view`).

A seat view holds the match's history as its seat knows it, and a deal may run to tens of
thousands of actions (docs/performance.md).  Copying that history into a new tuple for every
view makes a long deal quadratic; a list shared with the game would hand an agent a live
object of the game.  A :class:`Chain` is neither: its items are kept in tuples of
:data:`LEAF` items, hung from a tree of tuples (32 children a node, as a persistent
vector), so that a longer chain shares every full tuple with the shorter one it grew from
and a snapshot of a growing record costs at most one short tuple.  Nothing in it can be
changed, it reads like a tuple (length, indexing, slices, iteration, equality with tuples)
and it pickles as a tuple.  :class:`ChainBuilder` is the growing side, kept by the game's
caches (:mod:`commerce_env.knowledge`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["LEAF", "Chain", "ChainBuilder"]

BITS = 5
LEAF = 1 << BITS  # items per leaf tuple, children per node
_MASK = LEAF - 1


class Chain(Sequence):
    """A tuple's worth of items: the first ``LEAF * leaves`` in a tree of tuples, the rest in ``tail``.

    ``root`` is a tuple of ``height`` levels (a node's children are the nodes of the level below,
    the last level's children are the leaves), ``()`` with ``height`` 0 when there is no leaf.
    """

    def __init__(self, root: tuple = (), height: int = 0, leaves: int = 0, tail: tuple = ()):
        self._root, self._height, self._leaves, self._tail = root, height, leaves, tail
        self._size = leaves * LEAF + len(tail)

    # -------------------------------------------------------------- reading
    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._size)
            if step != 1:
                return tuple([self[i] for i in range(start, stop, step)])
            return tuple(self._span(start, stop))
        size = self._size
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("chain index out of range")
        start = self._leaves * LEAF
        if index >= start:
            return self._tail[index - start]
        return self._leaf(index >> BITS)[index & _MASK]

    def _span(self, start: int, stop: int) -> list:
        """The items from ``start`` to ``stop``, a leaf at a time."""
        items: list = []
        full = self._leaves * LEAF
        index = start
        while index < min(stop, full):
            offset = index & _MASK
            take = min(LEAF - offset, stop - index)
            items += self._leaf(index >> BITS)[offset:offset + take]
            index += take
        if index < stop:
            items += self._tail[index - full:stop - full]
        return items

    def _leaf(self, number: int) -> tuple:
        node = self._root
        for level in range(self._height - 1, -1, -1):
            node = node[(number >> (BITS * level)) & _MASK]
        return node

    def __iter__(self) -> Iterator[Any]:
        if self._height:
            yield from _items(self._root, self._height)
        yield from self._tail

    def __reversed__(self) -> Iterator[Any]:
        for index in range(self._size - 1, -1, -1):
            yield self[index]

    # ------------------------------------------------------ as a tuple does
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (Chain, tuple)):
            return NotImplemented
        return len(other) == self._size and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: object) -> tuple:
        if not isinstance(other, (Chain, tuple)):
            return NotImplemented
        return (*self, *other)

    def __radd__(self, other: object) -> tuple:
        if not isinstance(other, tuple):
            return NotImplemented
        return (*other, *self)

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __reduce__(self) -> tuple:
        """Pickled (and copied) as the tuple of its items: a copy owes nothing to this class."""
        return tuple, (tuple(self),)


def _items(node: tuple, height: int) -> Iterator[Any]:
    """The items of the leaves under ``node``, in order (``height``: levels of nodes above them)."""
    if height == 1:
        for leaf in node:
            yield from leaf
    else:
        for child in node:
            yield from _items(child, height - 1)


def _wrapped(leaf: tuple, height: int) -> tuple:
    """A branch of ``height`` levels holding only ``leaf``."""
    for _ in range(height):
        leaf = (leaf,)
    return leaf


def _pushed(node: tuple, height: int, number: int, leaf: tuple) -> tuple:
    """``node`` (``height`` levels) with ``leaf`` as its leaf ``number``, the next one: copies the
    nodes on the path to it (at most ``LEAF`` children each), shares all the others."""
    if height == 1:
        return (*node, leaf)
    child = (number >> (BITS * (height - 1))) & _MASK
    if child < len(node):
        return (*node[:-1], _pushed(node[-1], height - 1, number, leaf))
    return (*node, _wrapped(leaf, height - 1))


class ChainBuilder:
    """The growing end of a chain: :meth:`append` an item, :meth:`chain` the items so far.

    Each :data:`LEAF` items are frozen into a tuple and hung in the tree (a path copy, a few
    short tuples); :meth:`chain` copies only the items after the last full leaf."""

    __slots__ = ("root", "height", "leaves", "tail")

    def __init__(self) -> None:
        self.root: tuple = ()
        self.height = self.leaves = 0
        self.tail: list = []

    def __len__(self) -> int:
        return self.leaves * LEAF + len(self.tail)

    def append(self, item: Any) -> None:
        tail = self.tail
        tail.append(item)
        if len(tail) == LEAF:
            self._hang(tuple(tail))
            self.tail = []

    def _hang(self, leaf: tuple) -> None:
        number, height = self.leaves, self.height
        if not height:
            self.root = (leaf,)
            self.height = 1
        elif number == LEAF ** height:  # the tree is full: a new level on top
            self.root = (self.root, _wrapped(leaf, height))
            self.height = height + 1
        else:
            self.root = _pushed(self.root, height, number, leaf)
        self.leaves = number + 1

    def chain(self) -> Chain:
        """The items appended so far, as an immutable :class:`Chain` (later appends leave it alone)."""
        return Chain(self.root, self.height, self.leaves, tuple(self.tail))

    def extend(self, items: Sequence[Any]) -> None:
        for item in items:
            self.append(item)
