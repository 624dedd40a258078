"""commerce_env.chain: a growing record's snapshots read, compare and pickle as the tuples of its items."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commerce_env.chain import LEAF, Chain, ChainBuilder

# Lengths around the leaf and the levels of the tree: 32 items a leaf, 32 leaves a node.
LENGTHS = st.one_of(st.integers(0, 3 * LEAF), st.sampled_from([LEAF ** 2 - 1, LEAF ** 2, LEAF ** 2 + 1,
                                                               LEAF ** 3 + LEAF + 3]))


@settings(max_examples=60, deadline=None)
@given(size=LENGTHS, cuts=st.lists(st.integers(0, LEAF ** 3 + LEAF + 3), max_size=6), data=st.data())
def test_every_snapshot_reads_as_the_tuple_of_what_was_appended_before_it(size, cuts, data):
    items = [(i, "offer", (i % 52, None)) for i in range(size)]
    builder, snapshots = ChainBuilder(), {}
    cuts = set(cuts)
    for count, item in enumerate(items):
        if count in cuts:
            snapshots[count] = builder.chain()
        builder.append(item)
    snapshots[size] = builder.chain()
    for count, chain in snapshots.items():  # later appends leave an earlier snapshot alone
        whole = tuple(items[:count])
        assert len(chain) == count and tuple(chain) == whole and list(reversed(chain)) == list(reversed(whole))
        assert chain == whole and whole == chain and not chain != whole and hash(chain) == hash(whole)
        assert chain != whole + (None,) and chain != list(whole)  # as a tuple: never equal to a list
        start = data.draw(st.integers(-count - 2, count + 2))
        stop = data.draw(st.integers(-count - 2, count + 2))
        step = data.draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
        assert chain[start:stop:step] == whole[start:stop:step]
        if count:
            index = data.draw(st.integers(-count, count - 1))
            assert chain[index] == whole[index]
            assert chain.index(whole[index]) == whole.index(whole[index]) and whole[index] in chain
        for copied in (pickle.loads(pickle.dumps(chain)), copy.copy(chain), copy.deepcopy(chain)):
            assert type(copied) is tuple and copied == whole
        assert chain + (1,) == whole + (1,) and (1,) + chain == (1,) + whole


def test_an_index_out_of_range_raises_as_a_tuples_does():
    builder = ChainBuilder()
    for item in range(LEAF + 1):
        builder.append(item)
    chain = builder.chain()
    assert chain[-1] == LEAF and chain[LEAF - 1] == LEAF - 1 and chain[-LEAF - 1] == 0
    for index in (LEAF + 1, -LEAF - 2):
        with pytest.raises(IndexError):
            chain[index]
    with pytest.raises(IndexError):
        Chain()[0]
