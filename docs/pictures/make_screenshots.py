"""Regenerate the web app's screenshots in docs/pictures, from the repository root:
``PYTHONPATH=. python docs/pictures/make_screenshots.py`` (needs chromium and chromium-driver).

The same match twice: in a desktop window (``web_*.png``) and on a 390 px wide phone
(``web_phone_*.png``): the setup, a turn with cards chosen, a showdown, the match's end and a replay.
"""

import base64
import random
import shutil
import tempfile
import threading
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait
from werkzeug.serving import make_server

from commerce_env.engine import new_game
from commerce_env.replay import record_game, write_records
from commerce_env.rules import make_rules
from commerce_web.app import create_app

HERE = Path(__file__).parent
MODELS = HERE.parent.parent / "models"


def shoot(browser, url: str, prefix: str, replay_file: Path) -> None:
    """The screenshots of one screen size, named ``prefix`` + view."""
    wait = WebDriverWait(browser, 60)

    def idle() -> None:
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") != "yes")

    def save(name: str) -> None:  # the whole page, however long
        width, height = browser.execute_script("return [document.documentElement.scrollWidth, "
                                               "document.documentElement.scrollHeight]")
        shot = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
        (HERE / f"{prefix}{name}.png").write_bytes(base64.b64decode(shot["data"]))

    def click(verb: str, hand: int | None = None, table: int | None = None) -> None:
        if hand is not None:
            browser.find_elements(By.CSS_SELECTOR, ".my-hand .card.clickable")[hand].click()
        if table is not None:
            browser.find_elements(By.CSS_SELECTOR, "#table-cards .card")[table].click()
        browser.find_element(By.CSS_SELECTOR, f"#actions button[data-verb={verb}]").click()
        idle()

    browser.get(url)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "yes")
    Select(browser.find_element(By.ID, "variant")).select_by_value("widow")
    for field, value in (("opponents", "model:widow, greedy"), ("seed", "12")):
        box = browser.find_element(By.ID, field)
        box.clear()
        box.send_keys(value, Keys.TAB)
    browser.find_element(By.CSS_SELECTOR, "#options-box summary").click()
    browser.find_element(By.ID, "option-deals").send_keys("2")
    save("setup")
    browser.find_element(By.ID, "start").click()
    idle()
    rng = random.Random(3)
    shots = {"turn", "showdown"}
    for _ in range(300):
        if browser.find_elements(By.ID, "continue-deal"):
            if "showdown" in shots:
                save("showdown")
                shots.discard("showdown")
            browser.find_element(By.ID, "continue-deal").click()
            continue
        buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button") if b.is_displayed()]
        if not buttons:
            break
        verbs = [b.get_attribute("data-verb") for b in buttons]
        if "exchange" in verbs and "turn" in shots:
            browser.find_elements(By.CSS_SELECTOR, ".my-hand .card.clickable")[0].click()
            browser.find_elements(By.CSS_SELECTOR, "#table-cards .card")[1].click()
            save("turn")
            shots.discard("turn")
            click("exchange")
        elif "exchange" in verbs and rng.random() < 0.5:
            click("exchange", 0, rng.randrange(3))
        else:
            click("knock" if "knock" in verbs else rng.choice([v for v in verbs if v != "exchange"]))
    browser.execute_script("window.scrollTo(0, 0)")
    save("match_over")
    browser.find_element(By.ID, "tab-replay").click()
    browser.find_element(By.ID, "replay-file").send_keys(str(replay_file))
    browser.find_element(By.ID, "replay-load").click()
    idle()
    browser.find_element(By.ID, "replay-next").click()
    browser.find_element(By.ID, "replay-next").click()
    save("replay")


def main() -> None:
    httpd = make_server("127.0.0.1", 0, create_app(MODELS), threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_port}/"
    options = webdriver.ChromeOptions()
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--no-first-run", "--window-size=1150,1220"):
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium")
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "games.jsonl"
            game = new_game(make_rules("trade_barter"), 4, rng=random.Random(5))
            play = random.Random(5)
            while not game.over:
                game.apply(play.choice(game.legal_actions()))
            write_records(path, [record_game(game, ["search", "greedy", "expected_value", "random"])])
            shoot(browser, url, "web_", path)
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 390, "height": 860, "deviceScaleFactor": 1, "mobile": True})
            shoot(browser, url, "web_phone_", path)
    finally:
        browser.quit()
        httpd.shutdown()


if __name__ == "__main__":
    main()
