"""The web app in a real browser: headless Chromium driven by Selenium.

A full match of every variant by clicking cards and actions, an illegal click,
a saved replay opened and stepped through, and the page's network traffic
checked for cards the human had not seen (R11).  Needs Debian's ``chromium``
and ``chromium-driver`` (``apt-get install -y chromium chromium-driver``);
skipped without them.
"""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("flask")
pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from web_browser import chromium, idle, needs_chromium, open_page, play_out, serve, start  # noqa: E402
from web_helpers import cards_in, seen_by_action_count  # noqa: E402

from commerce_env.engine import new_game  # noqa: E402
from commerce_env.replay import record_game, write_records  # noqa: E402
from commerce_env.rules import VARIANTS, make_rules  # noqa: E402
from commerce_web.app import create_app  # noqa: E402

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server():
    yield from serve(create_app())


@pytest.fixture(scope="module")
def thinking_server():
    """A server that never waits for its agents: every answer after the human's action says they
    are thinking, and the page must ask again until the human's turn."""
    yield from serve(create_app(turn_seconds=0.0))


@pytest.fixture(scope="module")
def browser():
    yield from chromium(performance_log=True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_full_match_of_every_variant_by_clicking(server, browser, variant):
    url, _ = server
    start(browser, url, variant, options={"deals": "1"}, seed=VARIANTS.index(variant))
    play_out(browser, random.Random(0))
    assert browser.find_element(By.ID, "result").text.startswith("Match over")
    assert browser.find_elements(By.CSS_SELECTOR, "#deals tbody tr")  # the result of each deal
    assert "Match over" in browser.find_element(By.ID, "table-status").text


def test_the_page_waits_for_thinking_agents(thinking_server, browser):
    url, _ = thinking_server
    start(browser, url, "pool", players=6, opponents="random, search(worlds=4, margin=2)", options={"deals": "2"})
    play_out(browser, random.Random(2))
    assert browser.find_element(By.ID, "result").text.startswith("Match over")


def test_an_illegal_click_is_explained_and_changes_nothing(server, browser):
    url, _ = server
    start(browser, url, "old_game", seed=4)
    hand = [c.get_attribute("data-card") for c in browser.find_elements(By.CSS_SELECTOR, ".my-hand .card")]
    browser.find_elements(By.CSS_SELECTOR, ".my-hand .card.clickable")[0].click()
    browser.find_element(By.CSS_SELECTOR, "#actions button[data-verb=exchange]").click()  # no table card
    idle(browser)
    assert "choose one of your cards and a table card first" in browser.find_element(By.ID, "error").text
    assert [c.get_attribute("data-card") for c in browser.find_elements(By.CSS_SELECTOR, ".my-hand .card")] == hand
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-actions") == "0"
    play_out(browser, random.Random(1))  # the match goes on normally


def test_a_saved_replay_opens_and_steps(server, browser, tmp_path):
    url, _ = server
    path = tmp_path / "games.jsonl"
    records = []
    for seed in range(2):
        game = new_game(make_rules("widow"), 3, rng=random.Random(seed))
        rng = random.Random(seed)
        while not game.over:
            game.apply(rng.choice(game.legal_actions()))
        records.append(record_game(game, ["ann", "bob", "cy"]))
    write_records(path, records)
    open_page(browser, url)
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    game_box = browser.find_element(By.ID, "replay-game")
    game_box.clear()
    game_box.send_keys("2")
    browser.find_element(By.ID, "replay-load").click()
    idle(browser)
    assert browser.find_element(By.ID, "replay-error").text == ""
    position = browser.find_element(By.ID, "replay-position")
    assert position.text.startswith("step 1 of") and "game 2 of 2" in position.text
    assert {e.text for e in browser.find_elements(By.CSS_SELECTOR, "#replay-table .seat-name")} == {"ann", "bob", "cy"}
    browser.find_element(By.ID, "replay-next").click()
    assert position.text.startswith("step 2 of")
    browser.find_element(By.ID, "replay-last").click()
    assert "Match over" in browser.find_element(By.ID, "replay-table-status").text
    assert "SHOWDOWN" in browser.find_element(By.ID, "replay-table").text
    # a bad file: a clear message on the page
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "commerce-replay"}\n')
    browser.find_element(By.ID, "replay-file").send_keys(str(bad))
    game_box.clear()
    game_box.send_keys("1")
    browser.find_element(By.ID, "replay-load").click()
    idle(browser)
    assert "replay line 1: missing" in browser.find_element(By.ID, "replay-error").text


def _api_responses(browser):
    """The bodies of the JSON responses the page received from /api/matches (Chrome's network log)."""
    bodies = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] != "Network.responseReceived":
            continue
        response = message["params"]["response"]
        if "/api/matches" not in response["url"]:
            continue
        body = browser.execute_cdp_cmd("Network.getResponseBody", {"requestId": message["params"]["requestId"]})
        bodies.append(body["body"])
    return bodies


@pytest.mark.parametrize("variant", ["trade_barter", "widow", "my_ship_sails"])
def test_the_network_traffic_names_no_card_the_human_has_not_seen(server, browser, variant):
    url, app = server
    browser.get_log("performance")  # drop what earlier tests logged
    start(browser, url, variant, players=4, seat=2, seed=7, options={"deals": "2"})
    play_out(browser, random.Random(7))
    bodies = _api_responses(browser)
    assert len(bodies) >= 2
    match = app.extensions["commerce_matches"].get(browser.find_element(By.TAG_NAME, "body").get_attribute(
        "data-match"))
    seen = seen_by_action_count(match.game, match.seat)
    for body in bodies:
        data = json.loads(body)
        state = data.get("state", data)
        leaked = cards_in(body) - seen[state["actions"]]
        assert not leaked, f"the page received {leaked} before the human saw them"
