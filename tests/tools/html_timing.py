#!/usr/bin/python3
"""html_timing.py MHA_EXPLAIN [WORDS]: how fast a large --html page opens.

Writes the page of WORDS words (default 256) with --d-model 768 --d-out
768 --heads 12 --variant fused, opens it in headless Chromium at 1280x720
(selenium, chromium-driver) and prints, from the browser's performance
API: when the page was read, parsed and drawn, and how long each view and
hovering the last query token take. Run by hand (not part of the test
suite); docs/html.md quotes its figures.
"""
import os
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

AFTER_PAINT = """var cb = arguments[arguments.length - 1], t = performance.now();
%s
requestAnimationFrame(function () {
  setTimeout(function () { cb(performance.now() - t); }, 0);
});"""


def main():
    program = sys.argv[1]
    words = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    sentence = " ".join("w%d" % (i % 50) for i in range(words))
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "large.html")
        subprocess.run([program, sentence, "--d-model", "768", "--d-out",
                        "768", "--heads", "12", "--variant", "fused",
                        "--html", page], check=True,
                       stdout=subprocess.DEVNULL)
        print("page: %d bytes" % os.path.getsize(page))
        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for flag in ["--headless", "--no-sandbox", "--disable-gpu",
                     "--window-size=1280,720",
                     "--user-data-dir=" + os.path.join(tmp, "profile")]:
            opts.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                                  options=opts)
        driver.set_script_timeout(120)
        try:
            driver.get("file://" + page)
            driver.execute_async_script(AFTER_PAINT % "")
            t = driver.execute_script("""
                var n = performance.getEntriesByType('navigation')[0];
                var m = {};
                performance.getEntriesByType('mark').forEach(function (e) {
                  m[e.name] = e.startTime;
                });
                return [n.responseEnd, m['mha-start'], m['mha-parsed'],
                        m['mha-drawn'], n.domInteractive];""")
            print("file read by %.0f ms; data parsed in %.0f ms; head view "
                  "drawn in %.0f ms; page open (domInteractive) at %.0f ms" %
                  (t[0], t[2] - t[1], t[3] - t[2], t[4]))
            for view in ("matrix", "neuron", "steps", "head"):
                ms = driver.execute_async_script(AFTER_PAINT % (
                    "document.querySelector('[aria-label=View] "
                    "button[data-value=%s]').click();" % view))
                print("%s view: %.0f ms" % (view, ms))
            ms = driver.execute_async_script(AFTER_PAINT % (
                "document.querySelector('[data-side=query][data-token=\"%d\"]')"
                ".dispatchEvent(new MouseEvent('mouseenter'));" % (words - 1)))
            print("hovering query %d: %.0f ms" % (words - 1, ms))
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
