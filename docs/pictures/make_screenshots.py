"""Regenerate the web app's screenshots in docs/pictures, from the repository root:
``PYTHONPATH=. python docs/pictures/make_screenshots.py`` (needs chromium and chromium-driver)."""

import random
import shutil
import tempfile
import threading
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from werkzeug.serving import make_server

from commerce_env.engine import new_game
from commerce_env.replay import record_game, write_records
from commerce_env.rules import make_rules
from commerce_web.app import create_app

HERE = Path(__file__).parent


def main() -> None:
    httpd = make_server("127.0.0.1", 0, create_app(), threaded=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_port}/"
    options = webdriver.ChromeOptions()
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--no-first-run", "--window-size=1150,1220"):
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium")
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    wait = WebDriverWait(browser, 30)

    def idle() -> None:
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") != "yes")

    try:
        browser.get(url)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "yes")
        Select(browser.find_element(By.ID, "variant")).select_by_value("widow")
        for field, value in (("players", "4"), ("opponents", "greedy,expected_value"), ("seed", "12")):
            box = browser.find_element(By.ID, field)
            box.clear()
            box.send_keys(value)
        browser.find_element(By.CSS_SELECTOR, "#options-box summary").click()
        browser.save_screenshot(str(HERE / "web_setup.png"))
        browser.find_element(By.ID, "start").click()
        idle()
        rng = random.Random(3)
        shots = {"web_turn.png": False, "web_showdown.png": False}
        for _ in range(200):
            if browser.find_elements(By.ID, "continue-deal"):
                if not shots["web_showdown.png"]:
                    browser.save_screenshot(str(HERE / "web_showdown.png"))
                    shots["web_showdown.png"] = True
                browser.find_element(By.ID, "continue-deal").click()
                continue
            buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "#actions button") if b.is_displayed()]
            if not buttons or all(shots.values()):
                break
            verbs = [b.get_attribute("data-verb") for b in buttons]
            if "exchange" in verbs and not shots["web_turn.png"]:
                browser.find_elements(By.CSS_SELECTOR, ".my-hand .card.clickable")[0].click()
                browser.find_elements(By.CSS_SELECTOR, "#table-cards .card")[1].click()
                browser.save_screenshot(str(HERE / "web_turn.png"))
                shots["web_turn.png"] = True
                browser.find_element(By.CSS_SELECTOR, "#actions button[data-verb=exchange]").click()
            else:
                verb = "knock" if "knock" in verbs and rng.random() < 0.4 else rng.choice(verbs)
                if verb == "exchange":
                    browser.find_elements(By.CSS_SELECTOR, ".my-hand .card.clickable")[0].click()
                    browser.find_elements(By.CSS_SELECTOR, "#table-cards .card")[0].click()
                browser.find_element(By.CSS_SELECTOR, f"#actions button[data-verb={verb}]").click()
            idle()
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "games.jsonl"
            game = new_game(make_rules("trade_barter"), 4, rng=random.Random(5))
            play = random.Random(5)
            while not game.over:
                game.apply(play.choice(game.legal_actions()))
            write_records(path, [record_game(game, ["search", "greedy", "expected_value", "random"])])
            browser.find_element(By.ID, "tab-replay").click()
            browser.find_element(By.ID, "replay-file").send_keys(str(path))
            browser.find_element(By.ID, "replay-load").click()
            idle()
            browser.find_element(By.ID, "replay-next").click()
            browser.find_element(By.ID, "replay-next").click()
            browser.save_screenshot(str(HERE / "web_replay.png"))
    finally:
        browser.quit()
        httpd.shutdown()


if __name__ == "__main__":
    main()
