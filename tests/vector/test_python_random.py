"""The compiled shuffles of commerce_env.vector.python_random draw exactly what Python's would."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from commerce_env.vector.python_random import shuffled_copies  # noqa: E402


def python_shuffles(rng: random.Random, items: list[int], count: int, skip_bits: int) -> list[list[int]]:
    out = []
    for _ in range(count):
        if skip_bits:
            rng.getrandbits(skip_bits)
        cards = list(items)
        rng.shuffle(cards)
        out.append(cards)
    return out


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 700), st.lists(st.integers(0, 51), max_size=52),
       st.integers(0, 40), st.sampled_from([0, 32, 64]))
def test_the_same_permutations_and_the_same_state_after(seed, warm_up, items, count, skip_bits):
    compiled, python = random.Random(seed), random.Random(seed)
    for rng in (compiled, python):  # anywhere in the generator's 624-word cycle
        rng.getrandbits(32 * warm_up + 1)
    got = shuffled_copies(compiled, items, count, skip_bits)
    assert got.shape == (count, len(items))
    assert got.tolist() == python_shuffles(python, items, count, skip_bits)
    assert compiled.getstate() == python.getstate()


def test_long_lists_shuffle_alike_and_bad_counts_are_refused():
    compiled, python = random.Random(9), random.Random(9)
    items = list(range(-500, 500))
    assert shuffled_copies(compiled, items, 3, 96).tolist() == python_shuffles(python, items, 3, 96)
    assert compiled.getstate() == python.getstate()
    for count, skip in ((-1, 0), (2, -32), (2, 1.5)):
        with pytest.raises(ValueError, match="for (count|skip_bits); expected a whole number of at least 0"):
            shuffled_copies(random.Random(1), [1, 2, 3], count, skip)


def test_a_generator_of_another_class_is_served_by_python_itself():
    class Counting(random.Random):
        calls = 0

        def getrandbits(self, k):
            Counting.calls += 1
            return super().getrandbits(k)

    got = shuffled_copies(Counting(5), [1, 2, 3, 4], 3, skip_bits=64)
    assert Counting.calls > 3 and np.array_equal(got, python_shuffles(random.Random(5), [1, 2, 3, 4], 3, 64))
