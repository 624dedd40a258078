"""A first end-to-end check that every variant plays through the AEC env."""

import pytest
from pettingzoo.test import api_test

import commerce_env
from commerce_env.rules import VARIANTS


@pytest.mark.parametrize("variant", VARIANTS)
def test_api(variant):  # R4.5: an episode is one match
    api_test(commerce_env.env(variant=variant, num_players=3), num_cycles=100)
