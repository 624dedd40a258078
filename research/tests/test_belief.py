"""research.belief: search on worlds weighted by a learned model of the others' choices (a probe)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.heuristics import ExpectedValueAgent, value_function
from agents.learned import load_agent
from agents.search import SearchAgent, rollout
from commerce_env.engine import ENGINES, new_game
from commerce_env.engine.base import HORSE
from commerce_env.features import append_features
from commerce_env.rules import make_rules
from commerce_env.view import seat_view

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # research/ runs from the checkout

from research.belief import BeliefSearch, NetworkBelief, deal_choices, main, replay_deal, true_deal_rank  # noqa: E402

MODEL = Path(__file__).resolve().parents[2] / "models" / "widow"


def played_views(variant: str, seed: int, steps: int = 120):
    """(game, view) at each decision of a match of expected_value players (the game copied)."""
    game = new_game(make_rules(variant), 4, seed=seed)
    agent = ExpectedValueAgent()
    for _ in range(steps):
        if game.over:
            return
        view = seat_view(game, game.current_player)
        yield game.clone(), view
        game.apply(agent.act(view))


@pytest.mark.parametrize("variant", sorted(ENGINES))
def test_replaying_the_deal_from_its_pack_rebuilds_every_world(variant):
    # R11: a sampled world is a whole deal consistent with the seat's record; its pack (the
    # record's deal entry) and the deal's actions rebuild it exactly, as they do the true game.
    rng = random.Random(7)
    checked = 0
    for seed in range(6):
        for game, view in played_views(variant, seed, steps=60):
            if view.phase == HORSE:
                continue
            for world in (game, view.sample_world(rng)):
                again = replay_deal(world)
                assert dict(again.public_state()) == dict(world.public_state())
                assert again.hands == world.hands and again.table == world.table
                assert list(again.stock) == list(world.stock) and again.record == world.record
                checked += 1
    assert checked >= 20


def test_the_true_deals_weight_is_the_models_probability_of_what_the_others_did():
    # R6.3: every exchange and pass is public; the belief scores them with the model's
    # probabilities at each player's own view, as the model itself would have seen it.
    model = load_agent(MODEL, search=False)
    belief = NetworkBelief(model, temperature=2.0, eps=0.1)
    seen: list = []  # (deal, view, action) of every choice of seats 1-3 that saw their hands
    game = new_game(make_rules("widow"), 4, seed=11)
    agent = ExpectedValueAgent()
    compared = 0
    while not game.over and compared < 12:
        seat = game.current_player
        view = seat_view(game, seat)
        if seat == 0 and view.phase == "act":
            expected = 0.0
            for other, action in [(v, a) for deal, v, a in seen if deal == game.deals_dealt]:
                inputs = append_features(model.model_input(other.observation), model.feature_builders)
                scores = model.logits(inputs).astype(float) / 2.0
                scores[~np.asarray(other.action_mask, dtype=bool)] = -np.inf
                p = np.exp(scores - scores.max())
                p /= p.sum()
                expected += np.log(0.9 * p[action] + 0.1 / len(other.legal_actions))
                compared += 1
            assert belief.log_weights(view, [game.clone()])[0] == pytest.approx(expected, rel=1e-5)  # float32 batches
        action = agent.act(view)
        if seat != 0 and view.hand and len(view.legal_actions) > 1:
            seen.append((game.deals_dealt, view, action))
        game.apply(action)
    assert compared >= 3


def test_without_a_belief_it_is_search_on_the_same_worlds():
    # The same generator draws the same worlds in the same order: the plain argmax of search.
    for _, view in played_views("widow", 3):
        if len(view.legal_actions) > 1:
            assert BeliefSearch(seed=5).act(view) == SearchAgent(prior=False, seed=5).act(view)


class OneWorld:
    """A belief sure of one world: the third sampled."""

    def log_weights(self, view, worlds):
        return np.array([0.0 if i == 2 else -np.inf for i in range(len(worlds))])


def test_resampling_keeps_the_worlds_the_belief_trusts():
    view = next(v for _, v in played_views("widow", 4) if v.phase == "act" and len(v.legal_actions) > 1)
    agent = BeliefSearch(OneWorld(), draws=4, worlds=8, seed=1)
    agent.act(view)
    assert agent.distinct == [1] and list(agent.weights) == [1.0]
    rng = random.Random()
    rng.seed(1)
    third = [view.sample_world(rng) for _ in range(3)][2]
    assert set(agent.last_values) == set(agent.candidate_actions(view))
    threshold, value = agent.rollout_threshold(view), value_function(view.engine, view.rules.combinations)
    for action, result in agent.last_values.items():
        assert result == rollout(third.clone(), view.seat, threshold, value, action, agent.barter)


def test_bad_settings_are_refused_by_name():
    model = load_agent(MODEL, search=False)
    with pytest.raises(ValueError, match="temperature"):
        NetworkBelief(model, temperature=0)
    with pytest.raises(ValueError, match="eps"):
        NetworkBelief(model, eps=1.5)
    with pytest.raises(ValueError, match="draws"):
        BeliefSearch(NetworkBelief(model), draws=0)
    with pytest.raises(ValueError, match="belief"):
        BeliefSearch(draws=3)


def test_the_model_ranks_the_true_deal_above_the_sampled_worlds():
    # What the others chose tells where the cards are: a uniform belief (eps 1) ranks nothing.
    model = load_agent(MODEL, search=False)
    knows = true_deal_rank("widow", NetworkBelief(model), matches=6, seed=3, worlds=16)
    assert knows["decisions"] >= 5 and knows["rank"] > 0.6
    blind = true_deal_rank("widow", NetworkBelief(model, eps=1.0), matches=2, seed=3, worlds=8)
    assert blind["decisions"] == 0


def test_deal_choices_are_the_other_seats_choices_with_their_hands_seen():
    for game, view in played_views("widow", 5):
        for other, action in deal_choices(game, view.seat):
            assert other.seat != view.seat and other.hand and action in other.legal_actions


def test_main_prints_the_table(capsys):
    assert main(["--games", "8", "--workers", "1", "--draws", "1", "--rank-matches", "1",
                 "--model", str(MODEL)]) == 0
    out = capsys.readouterr().out
    assert "uniform" in out and "belief(temperature=1.0, draws=1)" in out and "paired" in out
