"""The web table reads right, in headless Chromium, on a desktop and a phone (400 px): the result line
never covers a seat, each seat's label shows its number and name in full, an incomplete exchange says
what to choose, "you win", a failed replay leaves no old one on screen, errors are red, and nothing
is clipped or scrolls sideways at 400 px."""

from __future__ import annotations

import contextlib
import random

import pytest

pytest.importorskip("flask")
pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from web_browser import (  # noqa: E402
    PHONE_WIDTH,
    chromium,
    idle,
    needs_chromium,
    open_page,
    phone,
    play_out,
    serve,
    setup,
    start,
    visible,
)

from commerce_env.engine import new_game  # noqa: E402
from commerce_env.replay import record_game, write_records  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_web.app import create_app  # noqa: E402

pytestmark = needs_chromium
WIDTHS = [None, PHONE_WIDTH]  # None: the desktop window, 1200 px
OVERLAPS = """
const boxes = (selector) => [...document.querySelectorAll(selector)].map((e) => e.getBoundingClientRect())
  .filter((r) => r.width && r.height);
const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const seats = boxes(arguments[1]);
return boxes(arguments[0]).filter((line) => seats.some((seat) => meet(line, seat))).length;
"""
SIDEWAYS = """
const width = window.innerWidth;
const out = [...document.querySelectorAll("body *")].filter((e) => {
  const r = e.getBoundingClientRect();
  return r.width && r.height && (r.right > width + 0.5 || r.left < -0.5);
}).map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);
return [document.documentElement.scrollWidth, width, out.slice(0, 10)];
"""


@pytest.fixture(scope="module")
def server(tiny_model, tmp_path_factory):
    models = tmp_path_factory.mktemp("served")
    tiny_model("trade_barter", 3, models / "trade_barter")
    yield from serve(create_app(models_root=models))


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def _width(browser, width):
    return phone(browser, width) if width else contextlib.nullcontext()


def _red(browser, element_id: str) -> bool:
    colour = browser.execute_script(f"return getComputedStyle(document.getElementById('{element_id}')).color")
    red, green, blue = (int(part) for part in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3])
    return red >= 150 and green <= 80 and blue <= 80


def _fits(browser) -> None:
    scroll_width, width, out = browser.execute_script(SIDEWAYS)
    assert scroll_width <= width and not out, (scroll_width, width, out)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_result_line_never_covers_a_seat(server, browser, width):
    url, _ = server
    seen = []

    def check(page):
        if visible(page, ".result"):
            seen.append(page.execute_script(OVERLAPS, ".result", ".seat"))
        return False

    with _width(browser, width):
        start(browser, url, "trade_barter", players=3, opponents="model:trade_barter,expected_value", seed=3,
              options={"deals": "2"})
        play_out(browser, random.Random(3), until=check)
        check(browser)
    assert seen and not any(seen)  # results were shown, none over a seat


@pytest.mark.parametrize("width", WIDTHS)
def test_each_seat_label_shows_its_number_and_its_name_in_full(server, browser, width):
    url, _ = server
    with _width(browser, width):
        start(browser, url, "trade_barter", players=3, opponents="model:trade_barter")
        for seat, name in enumerate(["you", "model trade_barter", "model trade_barter"]):
            label = browser.find_element(By.CSS_SELECTOR, f"#seat-{seat} .name")
            assert str(seat) in label.text and name in label.text, label.text
            clipped = browser.execute_script("const e = arguments[0]; return e.scrollWidth > e.clientWidth || "
                                             "e.scrollHeight > e.clientHeight", label)
            assert not clipped, label.text


def test_an_incomplete_exchange_says_which_cards_to_choose(server, browser):
    url, _ = server
    start(browser, url, "widow", players=3, opponents="greedy", seed=2)
    actions = browser.find_element(By.TAG_NAME, "body").get_attribute("data-actions")
    hand, widow = ".my-hand .card.clickable", "#table-cards .card"
    for clicks in ([], [hand], [hand, widow]):  # nothing; a card of the hand; then that card off, a widow card
        for card in clicks:
            browser.find_elements(By.CSS_SELECTOR, card)[0].click()
        browser.find_element(By.CSS_SELECTOR, "#actions button[data-verb=exchange]").click()
        idle(browser)
        assert "choose one of your cards and a widow card first" in browser.find_element(By.ID, "error").text
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-actions") == actions


def test_the_page_says_you_win(server, browser):
    url, app = server
    client = app.test_client()
    settings = {"variant": "trade_barter", "players": 3, "opponents": ["random"], "options": {"deals": "1"}}
    for seed in range(40):  # a deal the human wins by knocking at once (R5)
        key = client.post("/api/matches", json={**settings, "seed": seed}).get_json()["id"]
        if "you" in client.post(f"/api/matches/{key}/actions", json={"action": "knock"}).get_json()["deals"][0][
                "winners"]:
            break
    start(browser, url, "trade_barter", players=3, opponents="random", seed=seed, options={"deals": "1"})
    browser.find_element(By.CSS_SELECTOR, "#actions button[data-verb=knock]").click()
    idle(browser)
    page = browser.find_element(By.TAG_NAME, "body").text
    assert "you win " in page and "you wins" not in page


def _replay_file(folder):
    path = folder / "games.jsonl"
    game = new_game(make_rules("widow"), 3, rng=random.Random(0))
    rng = random.Random(0)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    write_records(path, [record_game(game, ["ann", "bob", "cy"])])
    bad = folder / "bad.jsonl"
    bad.write_text('{"format": "commerce-replay"}\n')
    return path, bad


def _load_replay(browser, path):
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    browser.find_element(By.ID, "replay-load").click()
    idle(browser)


def test_a_failed_replay_load_clears_the_old_replay(server, browser, tmp_path):
    url, _ = server
    good, bad = _replay_file(tmp_path)
    open_page(browser, url)
    browser.find_element(By.ID, "tab-replay").click()
    _load_replay(browser, good)
    assert visible(browser, "#replay-table .seat")
    _load_replay(browser, bad)
    assert browser.find_element(By.ID, "replay-error").text
    assert not visible(browser, "#replay-table .seat") and not visible(browser, "#replay-view")


def test_errors_are_red(server, browser, tmp_path):
    url, _ = server
    setup(browser, url, "old_game", options={"max_rounds": "lots"})
    browser.find_element(By.ID, "start").click()
    idle(browser)
    assert browser.find_element(By.ID, "setup-error").text and _red(browser, "setup-error")
    start(browser, url, "old_game", seed=4)
    browser.find_element(By.CSS_SELECTOR, "#actions button[data-verb=exchange]").click()
    idle(browser)
    assert browser.find_element(By.ID, "error").text and _red(browser, "error")
    browser.find_element(By.ID, "tab-replay").click()
    _load_replay(browser, _replay_file(tmp_path)[1])
    assert browser.find_element(By.ID, "replay-error").text and _red(browser, "replay-error")


def test_at_400_px_nothing_is_clipped_or_scrolls_sideways(server, browser, tmp_path):
    url, _ = server
    with phone(browser):
        open_page(browser, url)
        browser.find_element(By.CSS_SELECTOR, "#options-box summary").click()
        _fits(browser)
        setup(browser, url, "widow", players=4, opponents="model:trade_barter,expected_value")
        browser.find_element(By.ID, "start").click()  # the model does not fit: the page says why
        assert browser.find_element(By.ID, "setup-error").text
        _fits(browser)
        start(browser, url, "widow", players=4, opponents="greedy,expected_value", seed=12, options={"deals": "2"})

        def fits(page):  # at every step: turns, showdowns, the match's end
            _fits(page)
            assert page.execute_script(OVERLAPS, "#table .seat", "#table .centre") == 0
            return False

        play_out(browser, random.Random(1), until=fits)
        fits(browser)
        browser.find_element(By.ID, "tab-replay").click()
        _load_replay(browser, _replay_file(tmp_path)[0])
        _fits(browser)
