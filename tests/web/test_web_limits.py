"""No web client can break the server for another (commerce_web): matches are kept per client
and dropped when idle, agent turns are bounded in time per request (a slow agent leaves the
server answering, with the match "thinking"), and replays cost work linear in their size."""

from __future__ import annotations

import json
import random
import threading

import pytest

pytest.importorskip("flask")
import commerce_web.opponents as opponents  # noqa: E402
import commerce_web.session as session  # noqa: E402
from agents.base import RandomAgent  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.engine.base import Game  # noqa: E402
from commerce_env.replay import record_game  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_web.app import MAX_REPLAY_ACTIONS, create_app  # noqa: E402
from commerce_web.session import MAX_DEAL_TURNS  # noqa: E402
from commerce_web.store import FULL_WAIT_SECONDS, MATCHES_PER_BLOCK, address_block  # noqa: E402

JOIN = 30  # seconds: a generous bound for a request that must not hang


def _new(client, address="10.0.0.1", **fields):
    body = {"variant": "old_game", "players": 2, "seat": 0, "opponents": ["random"], "seed": 1, **fields}
    return client.post("/api/matches", json=body, environ_base={"REMOTE_ADDR": address})


def _get(client, key, address="10.0.0.1"):
    return client.get(f"/api/matches/{key}", environ_base={"REMOTE_ADDR": address})


def test_one_client_cannot_evict_another_clients_match():
    client = create_app().test_client()
    theirs = _new(client, address="10.0.2.2").get_json()["id"]
    for seed in range(1000):
        assert _new(client, address="10.0.1.1", seed=seed).status_code == 200
    assert _get(client, theirs, address="10.0.2.2").status_code == 200


def test_many_loopback_addresses_cannot_fill_the_server():
    # 64 loopback addresses x 16 matches once filled the server, and every new client got 503 for two hours.
    app = create_app()
    client = app.test_client()
    for k in range(64):
        for seed in range(16):
            assert _new(client, address=f"127.0.0.{k + 1}", seed=seed).status_code == 200
    assert len(app.extensions["commerce_matches"]) <= MATCHES_PER_BLOCK  # the whole of loopback shares one quota
    assert _new(client, address="10.0.0.1").status_code == 200
    assert _new(client, address="127.0.0.1").status_code == 200


def test_the_addresses_of_one_block_share_a_quota():
    app = create_app(matches_per_client=16, matches_per_block=8)
    client = app.test_client()
    theirs = _new(client, address="2001:db8:1::1").get_json()["id"]
    for k in range(40):  # one /64: an IPv6 client holds millions of addresses
        assert _new(client, address=f"2001:db8:2::{k + 1:x}").status_code == 200
    assert len(app.extensions["commerce_matches"]) == 8 + 1
    assert _get(client, theirs, address="2001:db8:1::1").status_code == 200


@pytest.mark.parametrize("address, block", [
    ("127.0.0.1", "loopback"), ("127.45.6.7", "loopback"), ("::1", "loopback"), ("::ffff:127.0.0.9", "loopback"),
    ("10.1.2.3", "10.1.2.0/24"), ("::ffff:10.1.2.3", "10.1.2.0/24"), ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("unknown", "unknown")])
def test_address_blocks(address, block):
    assert address_block(address) == block


def test_a_full_server_refuses_for_a_bounded_time_only():
    # A full server once refused every new client until its oldest match had been idle two hours.
    now = [0.0]
    client = create_app(max_matches=3, clock=lambda: now[0]).test_client()
    keys = [_new(client, address=f"10.0.{k}.1").get_json()["id"] for k in range(3)]  # three blocks
    now[0] = 60
    refused = _new(client, address="10.0.9.1")
    assert refused.status_code == 503 and refused.get_json()["error"]
    wait = int(refused.headers["Retry-After"])
    assert 0 < wait <= FULL_WAIT_SECONDS
    assert _get(client, keys[1], address="10.0.1.1").status_code == 200  # used: not the oldest any more
    now[0] += wait
    assert _new(client, address="10.0.9.1").status_code == 200
    assert _get(client, keys[0], address="10.0.0.1").status_code == 404  # the least recently used made room
    assert _get(client, keys[1], address="10.0.1.1").status_code == 200
    assert _get(client, keys[2], address="10.0.2.1").status_code == 200


def test_a_client_keeps_its_most_recent_matches():
    client = create_app(matches_per_client=3).test_client()
    keys = [_new(client, seed=s).get_json()["id"] for s in range(5)]
    assert [_get(client, k).status_code for k in keys] == [404, 404, 200, 200, 200]


def test_idle_matches_are_dropped():
    now = [0.0]
    app = create_app(idle_seconds=600, clock=lambda: now[0])
    client = app.test_client()
    old = _new(client, address="10.0.0.2").get_json()["id"]
    kept = _new(client, address="10.0.0.3").get_json()["id"]
    now[0] = 500
    assert _get(client, kept, address="10.0.0.3").status_code == 200  # used: its idle time starts again
    now[0] = 700
    _new(client, address="10.0.0.4")
    assert _get(client, old, address="10.0.0.2").status_code == 404
    assert _get(client, kept, address="10.0.0.3").status_code == 200


def test_a_full_server_refuses_new_matches_and_drops_none():
    client = create_app(max_matches=3).test_client()
    keys = [_new(client, address=f"10.0.1.{k}").get_json()["id"] for k in range(3)]
    refused = _new(client, address="10.0.1.9")
    assert refused.status_code == 503 and refused.get_json()["error"]
    assert all(_get(client, k, address=f"10.0.1.{i}").status_code == 200 for i, k in enumerate(keys))


class _WaitingAgent(RandomAgent):
    """An agent that thinks until the test lets it move (a deliberately slow agent)."""

    go = threading.Event()

    def act(self, view):
        assert self.go.wait(JOIN)
        return super().act(view)


def _in_thread(call):
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("reply", call()), daemon=True)
    thread.start()
    thread.join(JOIN)
    assert not thread.is_alive(), "the request did not return"
    return result["reply"]


def test_a_slow_agent_leaves_the_server_answering(monkeypatch):
    go = threading.Event()
    monkeypatch.setattr(_WaitingAgent, "go", go)
    monkeypatch.setitem(opponents.BUILT_IN, "random", opponents.BUILT_IN["random"]._replace(factory=_WaitingAgent))
    client = create_app(turn_seconds=0.01).test_client()
    try:
        created = _new(client, variant="trade_barter", players=3).get_json()
        key, state = created["id"], created["state"]
        assert state["my_turn"] and not state["thinking"]  # the human moves first (R3.1)
        action = next(a["text"] for a in state["legal"] if a["verb"] != "knock")  # a knock would end the deal
        reply = _in_thread(lambda: client.post(f"/api/matches/{key}/actions", json={"action": action},
                                               environ_base={"REMOTE_ADDR": "10.0.0.1"}))
        assert reply.status_code == 200 and reply.get_json()["thinking"] and not reply.get_json()["my_turn"]
        during = _in_thread(lambda: _get(client, key))
        assert during.status_code == 200 and during.get_json()["thinking"]
        early = _in_thread(lambda: client.post(f"/api/matches/{key}/actions", json={"action": action},
                                               environ_base={"REMOTE_ADDR": "10.0.0.1"}))
        assert early.status_code == 409 and early.get_json()["error"]
    finally:
        go.set()
    for _ in range(10_000):
        state = _in_thread(lambda: _get(client, key)).get_json()
        if not state["thinking"]:
            break
        threading.Event().wait(0.01)
    assert (state["my_turn"] or state["over"]) and not state["thinking"]


def test_agent_moves_do_not_rebuild_the_history(monkeypatch):
    # The match's runaway guard counts moves; it once rebuilt the whole history list before each one.
    calls = [0]
    history = Game.history

    def counted(game):
        calls[0] += 1
        return history.fget(game)

    client = create_app().test_client()
    created = _new(client, variant="pool", players=12).get_json()
    key, state = created["id"], created["state"]
    monkeypatch.setattr(Game, "history", property(counted))
    rng = random.Random(0)
    moves = 0
    while not state["over"] and moves < 2000:
        before = state["actions"]
        state = client.post(f"/api/matches/{key}/actions", json={"action": rng.choice(state["legal"])["text"]},
                            environ_base={"REMOTE_ADDR": "10.0.0.1"}).get_json()
        moves += state["actions"] - before
    assert moves > 100
    assert calls[0] == 0


def test_a_deal_longer_than_the_table_plays_is_refused():
    # 12 players and max_rounds 1000 made deals of 12,000 actions, where one search decision took seconds.
    client = create_app().test_client()
    reply = _new(client, variant="trade_barter", players=12, options={"max_rounds": "1000"})
    assert reply.status_code == 400 and "max_rounds" in reply.get_json()["error"]
    longest = MAX_DEAL_TURNS // 12
    assert _new(client, variant="trade_barter", players=12, options={"max_rounds": str(longest)}).status_code == 200
    assert _new(client, variant="trade_barter", players=12,
                options={"max_rounds": str(longest + 1)}).status_code == 400


class _TickingAgent(RandomAgent):
    """An agent whose every decision takes ``seconds`` on the test's clock."""

    now = [0.0]
    seconds = 7.0

    def act(self, view):
        self.now[0] += self.seconds
        return super().act(view)


def _play_until_stopped(client, key, state, rng):
    """The human's random legal actions until the match is over or stopped with an error."""
    while not (state["over"] or state["error"]):
        if state["thinking"]:
            state = _in_thread(lambda: _get(client, key)).get_json()
            continue
        text = rng.choice(state["legal"])["text"]
        state = _in_thread(lambda text=text: client.post(f"/api/matches/{key}/actions", json={"action": text},
                                                         environ_base={"REMOTE_ADDR": "10.0.0.1"})).get_json()
    return state


def test_the_agents_thinking_in_one_match_is_bounded(monkeypatch):
    # Opponents that never knock in a long deal once held the shared agent threads for minutes.
    now = [0.0]
    monkeypatch.setattr(_TickingAgent, "now", now)
    monkeypatch.setitem(opponents.BUILT_IN, "random", opponents.BUILT_IN["random"]._replace(factory=_TickingAgent))
    client = create_app(clock=lambda: now[0], agent_seconds=100).test_client()
    created = _new(client, variant="pool", players=6, options={"deals": "until_out"}).get_json()
    state = _play_until_stopped(client, created["id"], created["state"], random.Random(0))
    assert state["error"] and not state["legal"]
    assert now[0] <= 100 + _TickingAgent.seconds  # the decision that passed the budget is the last
    assert _get(client, created["id"]).get_json()["error"] == state["error"]


def test_a_deal_past_its_most_moves_ends_the_match(monkeypatch):
    monkeypatch.setattr(session, "MAX_DEAL_ACTIONS", 8)
    client = create_app().test_client()
    created = _new(client, variant="widow", players=4, options={"max_rounds": "30"}).get_json()
    key, state = created["id"], created["state"]
    rng = random.Random(1)
    while not (state["over"] or state["error"]):
        choices = [a["text"] for a in state["legal"] if a["verb"] != "knock"] or [state["legal"][0]["text"]]
        state = client.post(f"/api/matches/{key}/actions", json={"action": rng.choice(choices)},
                            environ_base={"REMOTE_ADDR": "10.0.0.1"}).get_json()
    assert state["error"] and state["actions"] <= 8 + 4  # a round past the limit at most


def _long_replay(actions: int) -> dict:
    """A record of a real match of at least ``actions`` actions (My Ship Sails, 12 players, random play)."""
    for seed in range(100):
        game = new_game(make_rules("my_ship_sails", max_rounds=4), 12, rng=random.Random(seed))
        rng = random.Random(seed)
        while not game.over:
            game.apply(rng.choice(game.legal_actions()))
        if game.actions_taken >= actions:
            return record_game(game)
    raise AssertionError("no match long enough")


def test_an_8_mb_replay_is_refused_before_any_work(monkeypatch):
    # The upload cap allows about 550,000 actions; a replay once cloned the whole game after each one.
    record = _long_replay(600)
    one = len(json.dumps({"text": json.dumps(record["actions"])}))  # as the upload sends it, quotes escaped
    record["actions"] = record["actions"] * (8_000_000 // one)
    text = json.dumps(record)
    assert 7_500_000 < len(json.dumps({"text": text})) < 8 * 1024 * 1024  # just under the upload cap
    assert len(record["actions"]) > MAX_REPLAY_ACTIONS
    applied = [0]
    apply = Game.apply

    def counted(game, action):
        applied[0] += 1
        return apply(game, action)

    monkeypatch.setattr(Game, "apply", counted)
    reply = create_app().test_client().post("/api/replays", json={"text": text})
    assert reply.status_code == 400 and str(MAX_REPLAY_ACTIONS) in reply.get_json()["error"]
    assert applied[0] == 0


def test_replay_work_is_linear_in_its_actions(monkeypatch):
    record = _long_replay(1500)
    counts = {"clone": 0, "apply": 0, "history": 0}
    clone, apply, history = Game.clone, Game.apply, Game.history

    def counting(name, function):
        def wrapper(*args):
            counts[name] += 1
            return function(*args)
        return wrapper

    monkeypatch.setattr(Game, "clone", counting("clone", clone))
    monkeypatch.setattr(Game, "apply", counting("apply", apply))
    monkeypatch.setattr(Game, "history", property(counting("history", history.fget)))
    reply = create_app().test_client().post("/api/replays", json={"text": json.dumps(record)})
    assert reply.status_code == 200
    n = len(record["actions"])
    assert len(reply.get_json()["scenes"]) > n
    assert counts["apply"] <= 2 * n and counts["clone"] <= 2 and counts["history"] <= 2
