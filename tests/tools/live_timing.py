#!/usr/bin/python3
"""live_timing.py MHA_EXPLAIN [REPEATS]: how fast the live --html page
recomputes (docs/html.md, "The live page"; README).

Writes two pages, the classroom example ("O gato sobe no tapete",
--heads 2) and 48 words at --d-model 32 --d-out 32 --heads 4, opens each
in headless Chromium at 1280x720 (selenium, chromium-driver) and changes
the seed in the editor REPEATS times (default 10), each a `change` event.
A recompute is timed from the event to the next painted frame: the core's
run, the page's data parsed and every view of the page drawn again. Also
with the matrix view on screen. Then the lesson's training: 32 words at
--d-model 64 --d-out 64 --heads 4 (the fused variant), trained in the
editor for 300 Adam steps (--train 300), each time with another seed:
timed from the event to the "Training..." status painted, and to the
trained run painted. Prints each page's size, the median and the
slowest, and the machine's load average (the times mean little on a busy
machine). Run by hand (not part of the test suite).
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


# Turns training on (--train 300) with seed arguments[0]; the run trains
# after the status is painted, and ends with the mha-recomputed event.
TRAIN = """var cb = arguments[arguments.length - 1];
var f = function (n) {
  return document.querySelector('[data-edit=' + n + ']');
};
var painted = null, t = performance.now();
document.addEventListener('mha-recomputed', function done(e) {
  document.removeEventListener('mha-recomputed', done);
  requestAnimationFrame(function () {
    setTimeout(function () {
      cb([painted, performance.now() - t,
          document.getElementById('editor-error').textContent]);
    }, 0);
  });
});
f('seed').value = String(arguments[0]);
f('train').value = '300';
f('train').dispatchEvent(new Event('change', {bubbles: true}));
var status = document.getElementById('editor-status').textContent;
requestAnimationFrame(function () {
  painted = status.indexOf('300') >= 0 ? performance.now() - t : -1;
});"""


def load(driver, page):
    driver.get("file://" + page)
    end = time.monotonic() + 30
    while not driver.execute_script(
            "var e = document.getElementById('editor');"
            "return e && e.getAttribute('data-ready');"):
        if time.monotonic() > end:
            raise SystemExit("the page's core did not load")
        time.sleep(0.05)


def measure(driver, page, repeats, view):
    load(driver, page)
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


def measure_training(driver, page, repeats):
    """The status's and the trained run's times (median, slowest)."""
    load(driver, page)
    driver.set_script_timeout(300)
    status, trained = [], []
    for i in range(repeats):
        painted, ms, error = driver.execute_async_script(TRAIN, 100 + i)
        if error or painted is None or painted < 0:
            raise SystemExit(error or "no training status before the run")
        status.append(painted)
        trained.append(ms)
    return (statistics.median(status), max(status),
            statistics.median(trained), max(trained))


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
                print("%s: the page is %d bytes" % (name,
                                                   os.path.getsize(page)))
                for view in ("head", "matrix"):
                    median, worst = measure(driver, page, repeats, view)
                    print("%s, %s view: median %.0f ms, slowest %.0f ms "
                          "(%d recomputes)" % (name, view, median, worst,
                                               repeats))
            page = os.path.join(tmp, "lesson.html")
            subprocess.run([program, " ".join("w%d" % i for i in range(32)),
                            "--d-model", "64", "--d-out", "64", "--heads",
                            "4", "--variant", "fused", "--html", page],
                           check=True, stdout=subprocess.DEVNULL)
            times = measure_training(driver, page, max(3, repeats // 2))
            print("32 words --d-model 64 --d-out 64 --heads 4 --variant "
                  "fused, --train 300 (adam) set in the editor: status "
                  "painted after median %.0f ms (slowest %.0f), trained run "
                  "painted after median %.0f ms (slowest %.0f)" % times)
        finally:
            driver.quit()
    print("load average at the end: %.1f, %.1f, %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
