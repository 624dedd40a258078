"""The web app's JSON API (commerce_web), through Flask's test client: matches, errors,
isolation between browsers, replays, and that no response names a card the human has not seen."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("flask")
from web_helpers import cards_in, seen_by_action_count  # noqa: E402

from commerce_env.engine import new_game  # noqa: E402
from commerce_env.replay import record_game  # noqa: E402
from commerce_env.rules import VARIANTS, make_rules  # noqa: E402
from commerce_web.app import create_app  # noqa: E402


@pytest.fixture
def client():
    app = create_app()
    app.testing = True
    return app.test_client()


def _new(client, **fields):
    body = {"variant": "old_game", "players": 3, "seat": 0, "opponents": ["random"], "seed": 1, **fields}
    return client.post("/api/matches", json=body)


def _play_out(client, key, state, rng, responses=None):
    while not state["over"]:
        text = rng.choice(state["legal"])["text"]
        reply = client.post(f"/api/matches/{key}/actions", json={"action": text})
        assert reply.status_code == 200, reply.get_json()
        state = reply.get_json()
        if responses is not None:
            responses.append(reply.get_data(as_text=True))
    return state


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and b"<title>Commerce</title>" in page.data
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    info = client.get("/api/variants").get_json()
    assert list(info["variants"]) == list(VARIANTS)
    assert {"random", "greedy", "expected_value", "search"} <= set(info["agents"])
    assert info["variants"]["widow"]["options"]["match_end"] == "whiskey"  # R12 defaults


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_match_of_every_variant(client, variant):
    reply = _new(client, variant=variant, players=3, options={"deals": "1"}, seed=3)
    assert reply.status_code == 200, reply.get_json()
    key, state = reply.get_json()["id"], reply.get_json()["state"]
    state = _play_out(client, key, state, random.Random(0))
    assert state["over"] and state["scene"]["match_result"].startswith("Match over")
    assert len(state["returns"]) == 3
    assert state["deals"] and all(d["winners"] for d in state["deals"])  # each deal's result


def test_the_human_moves_first_in_the_first_deal(client):
    # The human is the eldest hand of deal 1, so the agents cannot knock before his first turn (R3.1).
    for seat in range(3):
        state = _new(client, variant="trade_barter", seat=seat, opponents=["greedy"]).get_json()["state"]
        assert state["my_turn"] and state["actions"] == 0
        assert state["scene"]["seats"][(seat - 1) % 3]["dealer"]


@pytest.mark.parametrize("fields, message", [
    ({"variant": "poker"}, "unknown variant 'poker'"),
    ({"options": {"dealer_pays": "x"}}, "option 'dealer_pays' does not apply"),
    ({"variant": "trade_barter", "options": {"dealer_pays": "nobody"}}, "bad value 'nobody'"),
    ({"players": 20}, "num_players=20"),
    ({"players": "3"}, "players must be a whole number"),
    ({"seat": 3}, "seat must be a number from 0 to 2"),
    ({"opponents": ["grandmaster"]}, "opponent 'grandmaster': unknown agent"),
    ({"opponents": "greedy"}, "opponents must be a non-empty list"),
    ({"opponents": ["model:/no/such/folder"]}, "opponent 'model:/no/such/folder'"),
    ({"colour": "red"}, "unknown field 'colour'"),
])
def test_a_bad_new_match_is_a_clear_json_error(client, fields, message):
    reply = _new(client, **fields)
    assert reply.status_code == 400
    assert message in reply.get_json()["error"]


def test_bad_requests_get_json_errors(client):
    assert client.post("/api/matches", data="not json").status_code == 400
    assert "JSON object" in client.post("/api/matches", data="[1]", content_type="application/json"
                                        ).get_json()["error"]
    missing = client.get("/api/matches/nosuchmatch")
    assert missing.status_code == 404 and "no match" in missing.get_json()["error"]
    assert client.get("/api/nothing").get_json()["error"].startswith("404")
    assert client.delete("/api/matches").status_code == 405


def test_an_illegal_action_is_refused_and_changes_nothing(client):
    created = _new(client).get_json()
    key, state = created["id"], created["state"]
    hand = state["scene"]["seats"][0]["cards"]
    for action, message in [("knock", "'knock' is not one of your choices"),  # R8.2: no knock in the old game
                            (f"exchange {hand[0]}", "choose one of your cards and a table card first"),
                            ("exchange", "choose one of your cards and a table card first"),
                            ("offer", "choose one of your cards first"),
                            ("exchange AS AS", ""), ("dance", "unknown action text"), (7, "an action is a text")]:
        reply = client.post(f"/api/matches/{key}/actions", json={"action": action})
        assert reply.status_code == 400 and message in reply.get_json()["error"]
        assert client.get(f"/api/matches/{key}").get_json() == state
    reply = client.post(f"/api/matches/{key}/actions", json={"move": "stand"})
    assert reply.status_code == 400 and '{"action"' in reply.get_json()["error"]


def test_one_browser_cannot_see_or_change_another_match(client):
    first, second = _new(client).get_json(), _new(client, seed=2).get_json()
    assert first["id"] != second["id"] and len(first["id"]) >= 24  # secrets.token_urlsafe
    before = client.get(f"/api/matches/{second['id']}").get_json()
    client.post(f"/api/matches/{first['id']}/actions", json={"action": first["state"]["legal"][0]["text"]})
    assert client.get(f"/api/matches/{second['id']}").get_json() == before
    assert client.get(f"/api/matches/{first['id'][:-1]}").status_code == 404


def test_a_clients_old_matches_are_dropped_beyond_its_limit():
    client = create_app(matches_per_client=2).test_client()
    keys = [_new(client, seed=s).get_json()["id"] for s in range(3)]
    assert client.get(f"/api/matches/{keys[0]}").status_code == 404
    assert all(client.get(f"/api/matches/{k}").status_code == 200 for k in keys[1:])


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_response_names_a_card_the_human_has_not_seen(client, variant):
    # R11: every JSON the server sends is checked against the cards the human's seat had seen by then.
    app_matches = client.application.extensions["commerce_matches"]
    for seed in range(3):
        reply = _new(client, variant=variant, players=4, seat=seed % 4, seed=seed, options={"deals": "2"})
        responses = [reply.get_data(as_text=True)]
        created = reply.get_json()
        _play_out(client, created["id"], created["state"], random.Random(seed), responses)
        match = app_matches.get(created["id"])
        seen = seen_by_action_count(match.game, match.seat)
        for text in responses:
            state = json.loads(text)
            state = state.get("state", state)
            leaked = cards_in(text) - seen[state["actions"]]
            assert not leaked, f"{variant}: cards {leaked} sent before the human saw them"


def test_the_leak_check_can_fail(client):
    # The check above is not vacuous: the everything view of the same match names unseen cards.
    from commerce_env.scene import build_scene

    created = _new(client, variant="trade_barter", players=4).get_json()
    match = client.application.extensions["commerce_matches"].get(created["id"])
    seen = seen_by_action_count(match.game, match.seat)
    assert cards_in(build_scene(match.game, None).to_dict()) - seen[len(match.game.history)]
    assert not cards_in(created) - seen[len(match.game.history)]


def test_the_card_scan_skips_the_random_match_id():
    # The id is random URL-safe text: "-9H" in it once failed the leak check above in CI.
    payload = {"id": "aOUYxZfALTkweLEDNGd5w-9H", "state": {"lines": ["you give 10S"], "table": ["AD"]}}
    assert cards_in(payload) == {"10S", "AD"}
    assert cards_in(json.dumps(payload)) == {"10S", "AD"}


def _replay_text(variant="widow", games=2):
    lines = []
    for seed in range(games):
        game = new_game(make_rules(variant), 3, rng=random.Random(seed))
        rng = random.Random(seed)
        while not game.over:
            game.apply(rng.choice(game.legal_actions()))
        lines.append(json.dumps(record_game(game)))
    return "\n".join(lines) + "\n"


def test_a_replay_opens_for_stepping(client):
    reply = client.post("/api/replays", json={"text": _replay_text(), "game": 2})
    assert reply.status_code == 200, reply.get_json()
    data = reply.get_json()
    assert data["game"] == 2 and data["games"] == 2
    assert any(s["showdown"] for s in data["scenes"]) and data["scenes"][-1]["over"]
    assert all(None not in seat["cards"] for s in data["scenes"] for seat in s["seats"])  # everything shown


@pytest.mark.parametrize("body, message", [
    ({"text": "{not json\n"}, "replay line 1: not JSON"),
    ({"text": _replay_text(games=1), "game": 3}, "game 3 asked for, but the file has 1"),
    ({"text": ""}, "send the replay file's text"),
    ({"text": _replay_text(games=1).replace('"knock"', '"stand"', 1)}, "replay line 1: action"),
])
def test_a_bad_replay_is_a_clear_json_error(client, body, message):
    reply = client.post("/api/replays", json=body)
    assert reply.status_code == 400 and message in reply.get_json()["error"]


def test_commerce_serve_listens_on_localhost_at_the_given_port(tmp_path, tiny_model):
    # The contract: `commerce serve --port P` serves the web app on 127.0.0.1, offers the
    # models of --models DIR by name, and answers no request for another host name (DNS rebinding).
    import http.client
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    tiny_model("old_game", 3, tmp_path / "served" / "old3")
    server = subprocess.Popen([sys.executable, "-m", "training.cli", "serve", "--port", str(port),
                               "--models", str(tmp_path / "served")], cwd=root,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/variants", timeout=5) as reply:
                    info = json.loads(reply.read())
                    assert "widow" in info["variants"] and [m["name"] for m in info["models"]] == ["model:old3"]
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
            assert b"Commerce" in reply.read()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", "/api/variants", headers={"Host": f"evil.example:{port}"})
        assert connection.getresponse().status == 403
        connection.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_commerce_serve_refuses_a_bad_port(capsys):
    from training.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be from 1 to 65535" in capsys.readouterr().err


def test_a_model_folder_as_an_opponent(tmp_path):
    np = pytest.importorskip("numpy")
    from agents.learned import expected_shapes, make_meta, save_model
    from commerce_env import observation as obs

    shapes = expected_shapes(obs.observation_size(3), [8])
    rng = np.random.default_rng(0)
    weights = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}
    save_model(tmp_path / "models" / "trade_barter", weights,
               make_meta(make_rules("trade_barter"), 3, {"hidden": [8], "activation": "tanh"}), use_safetensors=False)
    client = create_app(models_root=tmp_path / "models").test_client()
    assert client.get("/api/variants").get_json()["models"] == [
        {"name": "model:trade_barter", "variant": "trade_barter", "num_players": 3}]  # by name, not by path
    reply = _new(client, variant="trade_barter", players=3, opponents=["model:trade_barter"])
    assert reply.status_code == 200, reply.get_json()
    created = reply.get_json()
    assert created["state"]["names"][1] == "model trade_barter (1)"  # a short label, not the path
    assert _play_out(client, created["id"], created["state"], random.Random(0))["over"]
    wrong = _new(client, variant="trade_barter", players=4, opponents=["model:trade_barter"])
    assert wrong.status_code == 400 and "3 players" in wrong.get_json()["error"]


def test_rule_options_are_read_as_the_form_types_them(client):
    reply = _new(client, options={"combinations": "[pair]", "max_rounds": "2", "tie_break": ""})
    assert reply.status_code == 200, reply.get_json()
    match = client.application.extensions["commerce_matches"].get(reply.get_json()["id"])
    # R2: tricon, sequence and point always count; pair is asked for, flush is not
    assert match.rules.combinations == frozenset({"tricon", "sequence", "pair", "point"})
    assert match.rules.max_rounds == 2
    assert match.rules.tie_break == "split"  # empty: R12's default for the old game
    bad = _new(client, options={"max_rounds": "[1"})
    assert bad.status_code == 400 and "max_rounds" in bad.get_json()["error"]


def test_the_page_gets_how_to_play(client):
    info = client.get("/api/variants").get_json()
    assert all(v["help"] and v["title"] for v in info["variants"].values())
    assert set(info["actions"]) == set(info["action_names"]) >= {"knock", "offer", "give", "exchange",
                                                                  "take_widow", "buy_horse"}
    assert all("reward" not in v["options"] for v in info["variants"].values())  # a learner's, not the table's


def test_an_incomplete_exchange_asks_for_both_cards(client):
    reply = _new(client, variant="widow", players=3, opponents=["greedy"], seed=2)
    key, state = reply.get_json()["id"], reply.get_json()["state"]
    assert "exchange" in {a["verb"] for a in state["legal"]}
    for action in ("exchange", f"exchange {state['scene']['seats'][0]['cards'][0]}"):
        reply = client.post(f"/api/matches/{key}/actions", json={"action": action})
        assert reply.status_code == 400
        assert "choose one of your cards and a widow card first" in reply.get_json()["error"]


def test_the_human_is_told_you_win():
    # Seat 0 holds three aces and knocks (R5): "you win", in the showdown scene and the lines since.
    from commerce_env.cards import CARDS, parse_cards
    from commerce_web.opponents import choose
    from commerce_web.session import Match

    match = Match("trade_barter", 3, 0, [choose("random", {})], {"deals": "1"}, seed=1)
    cards = list(parse_cards("AS 2C 3D AH 4H 5C AD 6D 7H"))  # dealt from the eldest, seat 0
    match.game = new_game(match.rules, 3, decks=[cards + [c for c in CARDS if c not in cards]], dealer=2)
    match.act("knock")
    state = match.state()
    texts = [state["showdown"]["result"], *state["since"]]
    assert "you win " in texts[0] and any("you win" in line for line in texts[1:])
    assert not any("you wins" in text for text in texts)


def test_skipped_browser_tests_are_named_in_one_line(tmp_path):
    # make test once skipped the browser tests without a word when Chromium was missing.
    import os
    import subprocess
    import sys

    env = {**os.environ, "PATH": str(tmp_path)}  # no chromium, no chromedriver on it
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           "tests/web/test_web_table.py"], capture_output=True, text=True, env=env, timeout=600)
    lines = [line for line in done.stdout.splitlines() if "browser tests skipped" in line]
    assert done.returncode == 0 and len(lines) == 1, done.stdout[-2000:]
    assert "test_web_table.py" in lines[0] and "apt-get install -y chromium chromium-driver" in lines[0]
