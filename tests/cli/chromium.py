"""chromium.py: the set-up the tests of the --html page in headless
Chromium share (html_*_test.py).

Importing it makes sure selenium is there: Debian's python3-selenium
lives with the system Python, so a test run by another Python is run
again by /usr/bin/python3; without it the test is skipped (exit 77,
TAP's "1..0 # SKIP"). browser(tmp) starts Chromium (through
chromium-driver) with a fresh profile under tmp, or skips the test with
the reason; need_core(page) skips it when the page the program wrote
carries no WebAssembly core (a build without src/wasm). requests_made
lists what a page asked for.
"""
import json
import os
import shutil
import sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists(
            "/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("1..0 # SKIP python3-selenium is not installed")
    sys.exit(77)

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--no-first-run", "--window-size=1280,720"]


def find(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def start_browser(profile):
    """(driver, None), or (None, why no browser can run)."""
    chromium = find(["chromium", "chromium-browser", "google-chrome"])
    driver = find(["chromedriver", "chromium-driver"])
    if chromium is None or driver is None:
        return None, "chromium or chromium-driver is not installed"
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in CHROMIUM_FLAGS + ["--user-data-dir=" + profile]:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs",
                        {"browser": "ALL", "performance": "ALL"})
    try:
        return webdriver.Chrome(service=Service(driver), options=opts), None
    except Exception as e:  # no display, sandbox, version mismatch...
        return None, "chromium does not start: %s" % str(e).splitlines()[0]


def skip(why):
    print("1..0 # SKIP " + why)
    sys.exit(77)


def browser(tmp):
    """Chromium with a fresh profile in tmp/profile; the test skipped when
    none can run."""
    profile = os.path.join(tmp, "profile")
    os.makedirs(profile, exist_ok=True)
    driver, why = start_browser(profile)
    if driver is None:
        skip(why)
    return driver


def need_core(page):
    """The page's text; the test skipped when it carries no WebAssembly
    core."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if 'id="mha-core"' not in text:
        skip("the program was built without the WebAssembly core "
             "(src/wasm)")
    return text


def requests_made(driver):
    """URLs the page asked for (Network.requestWillBeSent)."""
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls
