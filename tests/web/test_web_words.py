"""The web table speaks the game's language and holds its shape at 360, 390 and 1280 px, in headless
Chromium: at every step of whole matches no text a player reads holds an action token, a rule
number or a learner's term (tests/web_helpers.JARGON), nothing scrolls sideways, no seat covers
another, the dealer's badge covers no name, and no line of "Since your last turn" is cut off.
Element boxes are compared, never pixels."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("flask")
pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from web_browser import (  # noqa: E402
    chromium,
    idle,
    needs_chromium,
    open_page,
    play_out,
    serve,
    start,
    visible,
    width,
)
from web_helpers import jargon  # noqa: E402

from commerce_env.engine import new_game  # noqa: E402
from commerce_env.replay import record_game, write_records  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_web.app import create_app  # noqa: E402

pytestmark = needs_chromium
WIDTHS = [360, 390, 1280]
TABLES = [("trade_barter", 8, "greedy, search(worlds=4)"), ("widow", 4, "greedy, expected_value"),
          ("my_ship_sails", 4, "random, greedy"), ("old_game", 3, "expected_value"),
          ("pool", 12, "expected_value, greedy")]
# Boxes that must not meet, each a list of [selector, where] pairs: what the test found, or nothing.
LAYOUT = """
const width = window.innerWidth;
const found = [];
const box = (e) => e.getBoundingClientRect();
const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 &&
  b.top < a.bottom - 0.5;
const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5;
const shown = (e) => { const r = box(e); return r.width > 0 && r.height > 0; };
const name = (e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className} "${e.textContent.slice(0, 30)}"`;
const scrolled = document.documentElement.scrollWidth;
if (scrolled > width) found.push(`the page scrolls sideways: ${scrolled} > ${width}`);
for (const e of document.querySelectorAll("#game *")) {
  if (!shown(e)) continue;
  const r = box(e);
  if (r.right > width + 0.5 || r.left < -0.5) found.push(`past the screen's edge: ${name(e)}`);
  const style = getComputedStyle(e);
  if (style.overflowX !== "visible" && e.scrollWidth > e.clientWidth + 1) found.push(`cut off: ${name(e)}`);
}
const seats = [...document.querySelectorAll("#table .seat")].filter(shown);
for (const [i, a] of seats.entries()) {
  for (const b of seats.slice(i + 1)) if (meet(box(a), box(b))) found.push(`seats meet: ${name(a)} ${name(b)}`);
  for (const c of document.querySelectorAll("#table .centre")) if (shown(c) && meet(box(a), box(c)))
    found.push(`a seat covers the table's centre: ${name(a)}`);
  const badges = [...document.querySelectorAll("#table .dealer")].filter(shown).map(box);
  const label = a.querySelector(".seat-name");
  if (label) {  // the room the name may fill (its block's content box), not only where it ends now
    const block = getComputedStyle(label).display === "inline" ? label.parentElement : label;
    const r = box(block), pad = getComputedStyle(block);
    const room = { left: r.left + parseFloat(pad.borderLeftWidth) + parseFloat(pad.paddingLeft),
                   right: r.right - parseFloat(pad.borderRightWidth) - parseFloat(pad.paddingRight),
                   top: r.top, bottom: r.bottom };
    if (badges.some((badge) => meet(room, badge))) found.push(`a name may run under the badge: ${name(label)}`);
  }
  for (const part of a.querySelectorAll(".seat-name, .seat-number")) {
    for (const line of part.getClientRects()) {
      if (badges.some((badge) => meet(line, badge))) found.push(`the dealer's badge covers ${name(part)}`);
      if (!inside(line, box(a))) found.push(`a name runs out of its seat: ${name(part)}`);
    }
  }
}
const since = document.getElementById("since");
for (const line of since.querySelectorAll("li")) {
  if (shown(line) && !inside(box(line), box(since))) found.push(`a line since your last turn is cut: ${name(line)}`);
  const style = getComputedStyle(line);  // a number hanging left of its line is cut off once it has two digits
  if (style.display === "list-item" && style.listStyleType !== "none" && style.listStylePosition === "outside")
    found.push(`a line since your last turn hangs its number outside the list: ${name(line)}`);
}
return found;
"""


@pytest.fixture(scope="module")
def server():
    yield from serve(create_app())


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def _check(page) -> list[str]:
    """What is wrong with the page now: its layout, and the jargon in what it shows."""
    problems = page.execute_script(LAYOUT)
    words = jargon(page.find_element(By.ID, "game").text)
    return problems + [f"jargon: {sorted(set(words))}"] if words else problems


@pytest.mark.parametrize("pixels", WIDTHS)
@pytest.mark.parametrize("variant, players, opponents", TABLES)
def test_a_whole_match_reads_right_and_holds_its_shape(server, browser, pixels, variant, players, opponents):
    url, _ = server
    problems: list[str] = []

    def check(page):
        problems.extend(_check(page))
        return bool(problems)

    with width(browser, pixels):
        start(browser, url, variant, players=players, seat=1, opponents=opponents, seed=players + pixels,
              options={"deals": "2"})
        intro = browser.find_element(By.ID, "intro").text
        assert intro and str(browser.execute_script(  # the first balance shown is explained at the start
            "return document.querySelector('#seat-1 .balance').textContent")).split()[0].lstrip("-") in intro
        play_out(browser, random.Random(pixels), until=check)
        check(browser)
    assert not problems, problems[:5]


def test_a_replay_reads_right(server, browser, tmp_path):
    url, _ = server
    game = new_game(make_rules("widow"), 4, rng=random.Random(1))
    rng = random.Random(1)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    path = tmp_path / "games.jsonl"
    write_records(path, [record_game(game, ["ann", "bob", "cy", "dee"])])
    with width(browser, 390):
        open_page(browser, url)
        browser.find_element(By.ID, "tab-replay").click()
        browser.find_element(By.ID, "replay-file").send_keys(str(path))
        browser.find_element(By.ID, "replay-load").click()
        idle(browser)
        seen = set()
        while True:
            text = browser.find_element(By.ID, "replay-view").text
            seen |= set(jargon(text))
            if "Match over" in text:
                break
            visible(browser, "#replay-next")[0].click()
    assert not seen, sorted(seen)
