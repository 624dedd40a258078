"""Shared by the browser tests: the app served on a free port, headless Chromium, and the page's steps.

Needs Debian's ``chromium`` and ``chromium-driver`` (``apt-get install -y chromium chromium-driver``);
the test modules are skipped without them (:data:`needs_chromium`).
"""

from __future__ import annotations

import contextlib
import shutil
import threading

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="no chromium/chromedriver: apt-get install -y chromium chromium-driver (Debian) to run the browser tests")
CARD_VERBS = ("ready_money", "offer", "give", "exchange")
PHONE_WIDTH = 400


def serve(app):
    """Serve ``app`` on a free local port: yields ``(url, app)``."""
    from werkzeug.serving import make_server

    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", app
    httpd.shutdown()
    thread.join(timeout=10)


def chromium(performance_log: bool = False):
    """Headless Chromium, 1200 px wide (yields the driver)."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--no-first-run", "--disable-dev-shm-usage", "--window-size=1200,1300"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    if performance_log:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@contextlib.contextmanager
def phone(browser, width: int = PHONE_WIDTH, height: int = 860):
    """The page as a phone shows it: ``width`` CSS pixels wide, the page's viewport tag applied."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    try:
        yield
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@contextlib.contextmanager
def width(browser, pixels: int, height: int = 900):
    """The page ``pixels`` CSS pixels wide: a phone's (with the page's viewport tag) below 800, else a desktop's."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": pixels, "height": height, "deviceScaleFactor": 1, "mobile": pixels < 800})
    try:
        yield
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def wait(browser, condition, timeout=30):
    return WebDriverWait(browser, timeout).until(lambda d: condition(d))


def idle(browser):
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") != "yes")


def open_page(browser, url):
    browser.get(url)
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "yes")


def fill(browser, field: str, value) -> None:
    """Type ``value`` into the setup form's ``field`` and leave the box (its change event)."""
    box = browser.find_element(By.ID, field)
    box.clear()
    box.send_keys(str(value), Keys.TAB)


def setup(browser, url, variant, players=3, seat=0, opponents="random", seed=1, options=None):
    """The setup form filled in (not started)."""
    open_page(browser, url)
    Select(browser.find_element(By.ID, "variant")).select_by_value(variant)
    for field, value in (("players", players), ("seat", seat), ("opponents", opponents), ("seed", seed)):
        fill(browser, field, value)
    if options:
        browser.find_element(By.CSS_SELECTOR, "#options-box summary").click()
        for name, value in options.items():
            browser.find_element(By.ID, f"option-{name}").send_keys(value)


def start(browser, url, variant, **settings):
    """A match started from the setup form; the page shows the table."""
    setup(browser, url, variant, **settings)
    browser.find_element(By.ID, "start").click()
    idle(browser)
    assert browser.find_element(By.ID, "setup-error").text == ""
    wait(browser, lambda d: d.find_element(By.ID, "game").is_displayed())


def visible(browser, selector):
    return [e for e in browser.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed()]


def click_turn(browser, rng) -> None:
    """One of the human's legal choices, clicked: a card, a table card, then the action."""
    button = rng.choice(visible(browser, "#actions button"))
    verb = button.get_attribute("data-verb")
    if verb in CARD_VERBS:
        rng.choice(browser.find_elements(By.CSS_SELECTOR, ".my-hand .card.clickable")).click()
        if verb == "exchange":
            rng.choice(browser.find_elements(By.CSS_SELECTOR, "#table-cards .card")).click()
        button = browser.find_element(By.CSS_SELECTOR, f"#actions button[data-verb={verb}]")
    button.click()
    idle(browser)
    assert browser.find_element(By.ID, "error").text == ""


def play_out(browser, rng, limit=400, until=None):
    """Click through the match (legal choices only) until it is over, or ``until(browser)`` holds."""
    for _ in range(limit):
        if until is not None and until(browser):
            return
        if visible(browser, "#continue-deal"):
            visible(browser, "#continue-deal")[0].click()
            continue
        if visible(browser, "#again"):
            return
        assert visible(browser, "#actions button"), "no action to click and the match is not over"
        click_turn(browser, rng)
    raise AssertionError("the match did not end")
