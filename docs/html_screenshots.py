#!/usr/bin/python3
"""html_screenshots.py MHA_EXPLAIN OUTDIR: pictures of the --html page.

Writes the classroom page ("the cat sat on the mat", two heads) and
photographs it in headless Chromium at 1280x720: OUTDIR/html-head-view.png
(the pointer on the query "sat"), OUTDIR/html-matrix-view.png,
OUTDIR/html-neuron-view.png, OUTDIR/html-step-view.png and, after an
edit in the live page's editor, OUTDIR/html-live-editor.png (at
1280x960). The README shows docs/html-head-view.png and docs/html.md
docs/html-live-editor.png, made with
    docs/html_screenshots.py build/src/mha-explain docs
"""
import os
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By


def main():
    program, outdir = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        subprocess.run([program, "the cat sat on the mat", "--heads", "2",
                        "--html", page], check=True,
                       stdout=subprocess.DEVNULL)
        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for flag in ["--headless", "--no-sandbox", "--disable-gpu",
                     "--disable-background-networking",
                     "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--window-size=1280,720",
                     "--hide-scrollbars",
                     "--user-data-dir=" + os.path.join(tmp, "profile")]:
            opts.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                                  options=opts)
        try:
            driver.get("file://" + page)
            driver.find_element(
                By.CSS_SELECTOR,
                "[aria-label=Variant] button[data-value='1']").click()
            sat = driver.find_element(
                By.CSS_SELECTOR, "[data-side=query][data-token='2']")
            ActionChains(driver).move_to_element(sat).perform()
            time.sleep(0.3)
            driver.save_screenshot(os.path.join(outdir,
                                                "html-head-view.png"))
            driver.find_element(
                By.CSS_SELECTOR,
                "[aria-label=View] button[data-value=matrix]").click()
            cell = driver.find_elements(By.CSS_SELECTOR, "td.cell")[13]
            ActionChains(driver).move_to_element(cell).perform()
            time.sleep(0.3)
            driver.save_screenshot(os.path.join(outdir,
                                                "html-matrix-view.png"))
            driver.find_element(
                By.CSS_SELECTOR,
                "[aria-label=View] button[data-value=neuron]").click()
            driver.find_element(
                By.CSS_SELECTOR, "select[data-pick=Query]").click()
            driver.execute_script(
                "var s = document.querySelector('select[data-pick=Query]');"
                "s.value = '3'; s.dispatchEvent(new Event('change'));")
            time.sleep(0.3)
            driver.save_screenshot(os.path.join(outdir,
                                                "html-neuron-view.png"))
            driver.find_element(
                By.CSS_SELECTOR,
                "[aria-label=View] button[data-value=steps]").click()
            for _ in range(5):
                driver.find_element(By.CSS_SELECTOR,
                                    "[data-step=next]").click()
            time.sleep(0.3)
            driver.save_screenshot(os.path.join(outdir,
                                                "html-step-view.png"))
            # the live page's editor after an edit, the head view under it
            driver.set_window_size(1280, 960)
            driver.find_element(
                By.CSS_SELECTOR,
                "[aria-label=View] button[data-value=head]").click()
            driver.find_element(By.CSS_SELECTOR, "#editor summary").click()
            for _ in range(100):
                if driver.execute_script(
                        "return document.getElementById('editor')"
                        ".getAttribute('data-ready');"):
                    break
                time.sleep(0.05)
            driver.execute_script(
                "var f = function (n) {"
                "  return document.querySelector('[data-edit=' + n + ']'); };"
                "f('sentence').value = 'the cat sat on the warm mat';"
                "f('heads').value = '3'; f('d-out').value = '6';"
                "f('heads').dispatchEvent(new Event('change',"
                "                                   {bubbles: true}));")
            time.sleep(0.3)
            driver.save_screenshot(os.path.join(outdir,
                                                "html-live-editor.png"))
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
