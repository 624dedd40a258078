"""The arena's settings, one typed record checked once (agents/arena_settings.py): each bad value is
refused by name before anything is played, and a record plays as its keywords do."""

from __future__ import annotations

import pytest

from agents.arena import run_arena
from agents.arena_settings import ArenaSettings

TIMINGS = ("seconds", "deals_per_second", "games_per_second")


@pytest.mark.parametrize("name, value", [
    ("games", 0), ("games", 2.5), ("workers", 0), ("workers", True), ("seed", -1), ("seed", 2**63),
    ("duplicate", "yes"), ("overwrite", 1), ("progress", None), ("isolate", "no"), ("backend", "dask"),
    ("batched", "auto"), ("time_limit", 0), ("num_players", 13), ("variant", "bridge"), ("out_dir", 3),
])
def test_a_bad_setting_is_refused_naming_it_and_its_value(name, value):
    with pytest.raises((ValueError, TypeError)) as error:
        ArenaSettings(**{name: value})
    text = str(error.value)
    assert repr(value) in text or str(value) in text
    assert name in text or name in ("num_players", "variant")  # R1.4 and the registry word their own


def test_settings_that_contradict_each_other_are_refused():
    with pytest.raises(ValueError, match="isolate"):
        ArenaSettings(isolate=True, workers=2)
    with pytest.raises(ValueError, match="time_limit"):
        ArenaSettings(time_limit=1.0)


def test_a_record_plays_as_its_keywords_and_both_at_once_are_refused():
    keywords = dict(variant="widow", num_players=3, games=6, seed=4, progress=False, batched=False)
    by_record = run_arena(["greedy", "random"], ArenaSettings(**keywords))
    by_keywords = run_arena(["greedy", "random"], **keywords)
    assert {k: v for k, v in by_record.items() if k not in TIMINGS} == \
        {k: v for k, v in by_keywords.items() if k not in TIMINGS}
    with pytest.raises(ValueError, match="not both"):
        run_arena(["greedy", "random"], ArenaSettings(**keywords), games=6)


def test_an_isolated_run_without_a_seed_draws_a_secret_one():
    assert ArenaSettings().seed == 0
    assert len({ArenaSettings(isolate=True).seed for _ in range(3)}) == 3


def test_games_none_or_deals_are_the_older_spellings_of_the_default_and_of_games():
    plain = run_arena(["greedy", "random"], variant="widow", num_players=3, games=None, seed=4, progress=False,
                      batched=False)
    assert plain["games"] >= 1000
    older = run_arena(["greedy", "random"], variant="widow", num_players=3, deals=6, seed=4, progress=False,
                      batched=False)
    assert older["games"] == run_arena(["greedy", "random"], variant="widow", num_players=3, games=6, seed=4,
                                       progress=False, batched=False)["games"]
    with pytest.raises(ValueError, match="not both"):
        run_arena(["greedy", "random"], games=6, deals=6)
