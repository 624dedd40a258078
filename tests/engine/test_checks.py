"""The checking vocabulary below every layer (commerce_env/checks.py): one wording for a bad whole
number, bounded number, choice or flag, each naming the setting; a bool is never a number."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from commerce_env import checks


@given(value=st.one_of(st.integers(), st.floats(allow_nan=True), st.booleans(), st.text(max_size=3), st.none()))
def test_the_checking_vocabulary_takes_exactly_its_values_and_names_the_setting(value):
    # one wording below every layer: a bool is never a number, True is not 1
    whole = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 9
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 9
    for check, ok in ((lambda: checks.whole_number("seat", value, 0, 9), whole),
                      (lambda: checks.bounded_number("seat", value, 0, 9, above=True), number),
                      (lambda: checks.one_of("seat", value, (1, "a")), value in (1, "a") and type(value) in (int, str)),
                      (lambda: checks.flag("seat", value), isinstance(value, bool))):
        if ok:
            assert check() == value
        else:
            with pytest.raises(ValueError, match="for seat; "):
                check()
