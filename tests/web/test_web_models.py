"""The page's opponents, in headless Chromium: it lists only the models that fit the chosen variant and
player count, a model chosen brings its player count (or the page says plainly why it cannot), and at
the page's defaults every listed opponent starts a match."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("flask")
pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from web_browser import chromium, fill, idle, needs_chromium, open_page, serve, wait  # noqa: E402

from commerce_web.app import create_app  # noqa: E402

pytestmark = needs_chromium
SHIPPED_MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def models(tiny_model, tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    tiny_model("trade_barter", 4, root / "trade_barter")
    tiny_model("widow", 4, root / "widow")
    tiny_model("trade_barter", 3, root / "barter3")
    return root


@pytest.fixture(scope="module")
def server(models):
    yield from serve(create_app(models_root=models))


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def _listed(browser) -> set[str]:
    return {o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#agent-list option")}


def _models_listed(browser) -> set[str]:
    return {name for name in _listed(browser) if name.startswith("model:")}


def test_only_the_models_that_fit_the_variant_and_players_are_listed(server, browser):
    url, _ = server
    open_page(browser, url)
    assert _models_listed(browser) == {"model:trade_barter"}  # the defaults: trade and barter, 4 players
    fill(browser, "players", 3)
    assert _models_listed(browser) == {"model:barter3"}
    Select(browser.find_element(By.ID, "variant")).select_by_value("widow")
    assert _models_listed(browser) == set()
    fill(browser, "players", 4)
    assert _models_listed(browser) == {"model:widow"}
    assert {"random", "greedy", "expected_value", "search"} <= _listed(browser)


def test_a_chosen_model_brings_its_player_count(server, browser):
    url, app = server
    open_page(browser, url)
    fill(browser, "players", 3)
    fill(browser, "opponents", "model:trade_barter, greedy")
    assert browser.find_element(By.ID, "players").get_attribute("value") == "4"
    assert browser.find_element(By.ID, "setup-error").text == ""
    browser.find_element(By.ID, "start").click()
    idle(browser)
    wait(browser, lambda d: d.find_element(By.ID, "game").is_displayed())
    assert len(browser.find_elements(By.CSS_SELECTOR, "#table .seat")) == 4


@pytest.mark.parametrize("opponents, named", [
    ("model:widow", ["model:widow"]),  # another variant's model
    ("model:trade_barter, model:barter3", ["model:trade_barter", "model:barter3"]),  # 4 and 3 players
    ("model:nowhere", ["model:nowhere"]),
])
def test_a_model_that_cannot_play_here_is_refused_plainly(server, browser, opponents, named):
    url, _ = server
    open_page(browser, url)
    fill(browser, "players", 3)
    fill(browser, "opponents", opponents)
    error = browser.find_element(By.ID, "setup-error").text
    assert all(name in error for name in named), error
    assert browser.find_element(By.ID, "players").get_attribute("value") == "3"
    browser.find_element(By.ID, "start").click()
    idle(browser)
    assert not browser.find_element(By.ID, "game").is_displayed()


@pytest.fixture(scope="module")
def shipped_server():
    if not SHIPPED_MODELS.is_dir():
        pytest.skip("no shipped models folder")
    yield from serve(create_app(models_root=SHIPPED_MODELS))


def test_at_the_defaults_every_listed_opponent_starts_a_match(shipped_server, browser):
    url, _ = shipped_server
    open_page(browser, url)
    listed = sorted(_listed(browser))
    assert any(name.startswith("model:") for name in listed)  # a shipped model fits the defaults
    for name in listed:
        open_page(browser, url)
        fill(browser, "opponents", name)
        browser.find_element(By.ID, "start").click()
        idle(browser)
        assert browser.find_element(By.ID, "setup-error").text == "", name
        wait(browser, lambda d: d.find_element(By.ID, "game").is_displayed())
