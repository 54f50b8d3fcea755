"""The HTML report in a real headless browser (Debian's chromium, driven by selenium through chromedriver):
it loads from a file with no console error, and shows Table 1, the plots and the drill-down."""

import os
import shutil

import pytest

from conftest import scbench

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--window-size=1400,1000")

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER) and not os.environ.get("CI"),
                                reason="chromium and chromium-driver are not installed (.ci/setup.d/20-browser.sh)")


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def test_the_report_page_loads_with_no_console_error_and_shows_the_table_and_plots(runs, tmp_path, browser):
    from selenium.webdriver.common.by import By
    page = tmp_path / "report.html"
    done = scbench("report", runs["sloppy"], runs["frozen"], runs["crashed"], "--html", page)
    assert done.returncode == 0, done.stderr
    browser.get(page.as_uri())
    assert [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")] == []
    table = browser.find_element(By.ID, "table1")
    assert table.is_displayed()
    rows = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert [row[:6] for row in rows] == [
        ["replay / just-solve", "1", "2/3 66.7%", "3/3 100.0%", "3/3 100.0%", "1/1 100.0%"],
        ["scripted / just-solve", "2", "2/6 33.3%", "2/6 33.3%", "2/6 33.3%", "2/2 100.0%"]]
    assert rows[1][6:8] == ["0.25±0.00 n=4", "1.00 n=4"]
    plots = browser.find_elements(By.CSS_SELECTOR, "figure.plot svg")
    assert len(plots) == 2
    assert all(plot.is_displayed() and plot.size["width"] > 400 and plot.size["height"] > 150 for plot in plots)
    assert all(len(plot.find_elements(By.CSS_SELECTOR, "path, polyline, line")) > 50 for plot in plots)
    checkpoint = browser.find_elements(By.CSS_SELECTOR, "details.checkpoint")[2]
    checkpoint.find_element(By.TAG_NAME, "summary").click()
    assert "checkpoint_3 (Final): done, isolated" in checkpoint.find_element(By.TAG_NAME, "summary").text
    assert "checkpoint_1/add [regression]" in checkpoint.text and "calc.py" in checkpoint.text
    assert [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")] == []
