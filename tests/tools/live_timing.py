#!/usr/bin/python3
"""live_timing.py MHA_EXPLAIN [REPEATS]: how fast the live --html page
recomputes (docs/html.md, "The live page"; README).

Writes two pages, the classroom example ("O gato sobe no tapete",
--heads 2) and 48 words at --d-model 32 --d-out 32 --heads 4, opens each
in headless Chromium at 1280x720 (selenium, chromium-driver) and changes
the seed in the editor REPEATS times (default 10), each a `change` event.
A recompute is timed from the event to the next painted frame: the core's
run, the page's data parsed and every view of the page drawn again. Also
with the matrix view on screen. Prints the median and the slowest. Run by
hand (not part of the test suite).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

RECOMPUTE = """var cb = arguments[arguments.length - 1];
var seed = document.querySelector('[data-edit=seed]');
var t = performance.now();
seed.value = String(arguments[0]);
seed.dispatchEvent(new Event('change', {bubbles: true}));
requestAnimationFrame(function () {
  setTimeout(function () {
    cb([performance.now() - t,
        document.getElementById('editor-error').textContent]);
  }, 0);
});"""


def measure(driver, page, repeats, view):
    driver.get("file://" + page)
    end = time.monotonic() + 30
    while not driver.execute_script(
            "var e = document.getElementById('editor');"
            "return e && e.getAttribute('data-ready');"):
        if time.monotonic() > end:
            raise SystemExit("the page's core did not load")
        time.sleep(0.05)
    driver.execute_script(
        "document.querySelector('[aria-label=View] "
        "button[data-value=%s]').click();" % view)
    times = []
    for i in range(repeats + 1):
        ms, error = driver.execute_async_script(RECOMPUTE, 100 + i)
        if error:
            raise SystemExit(error)
        if i > 0:  # the first warms the browser up
            times.append(ms)
    return statistics.median(times), max(times)


def main():
    program = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    opts = webdriver.ChromeOptions()
    for flag in ["--headless", "--no-sandbox", "--disable-gpu",
                 "--window-size=1280,720"]:
        opts.add_argument(flag)
    runs = [
        ("classroom: \"O gato sobe no tapete\" --heads 2",
         ["O gato sobe no tapete", "--heads", "2"]),
        ("48 words --d-model 32 --d-out 32 --heads 4",
         [" ".join("w%d" % i for i in range(48)), "--d-model", "32",
          "--d-out", "32", "--heads", "4"]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                                  options=opts)
        try:
            for name, args in runs:
                page = os.path.join(tmp, "page.html")
                subprocess.run([program] + args + ["--html", page],
                               check=True, stdout=subprocess.DEVNULL)
                for view in ("head", "matrix"):
                    median, worst = measure(driver, page, repeats, view)
                    print("%s, %s view: median %.0f ms, slowest %.0f ms "
                          "(%d recomputes)" % (name, view, median, worst,
                                               repeats))
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
