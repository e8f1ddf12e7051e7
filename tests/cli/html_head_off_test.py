#!/usr/bin/env python3
"""html_head_off_test.py MHA_EXPLAIN [SHOTS]: the live page's switches
that turn a head off (head_view.js, editor.js; docs/html.md) in headless
Chromium, with the keyboard only.

On the classroom page, in Portuguese: the head view's switch of a head,
reached with Tab and pressed with Enter, adds the head to the editor's
--ablate and the page's core recomputes; the page's data must then be the
data of the page `mha-explain ... --ablate L.H --html` writes for the same
command line (and differ from the run without it), every data-weight of
the head view the value `--format csv` writes, the model view must mark
the head as switched off, and the switch says "on" in Portuguese. The
editor's --ablate-mode (chosen with the arrow keys) gives the run of
--ablate-mode mean; pressing the switch again gives back the run without
--ablate. A stack of two blocks checks a head of block 0 changing block
1's weights. With SHOTS, screenshots go there. Exits 77 (skipped) when no
browser can be run.
"""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402  (skips: 77)
from html_live_test import (PAGE_DATA, SET_FIELDS, args_of,  # noqa: E402
                            native, page_lines, wait_ready,
                            wait_recomputed)
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

SHOTS = sys.argv[2] if len(sys.argv) > 2 else None


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def with_ablation(s):
    """args_of(s) with the editor's --ablate and --ablate-mode."""
    a = args_of(s)
    if s.get("ablate"):
        a += ["--ablate", ",".join(s["ablate"])]
        if s.get("mode", "zero") != "zero":
            a += ["--ablate-mode", s["mode"]]
    return a


def program_run(mha, tmp, s):
    """native() for settings s with their ablation."""
    import html_live_test
    saved = html_live_test.args_of
    html_live_test.args_of = lambda t: with_ablation(t)
    try:
        return native(mha, tmp, s, lang="pt_BR")
    finally:
        html_live_test.args_of = saved


def press_tab_to(driver, selector, limit=300):
    """Tab from the page's start until selector has the focus."""
    driver.execute_script("document.activeElement.blur();"
                          "window.scrollTo(0, 0);")
    body = driver.find_element(By.TAG_NAME, "body")
    body.click()
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.execute_script(
                "return document.activeElement.matches(arguments[0]);",
                selector):
            return True
    return False


def head_view(driver, variant):
    """The head view of variant (a keyboard press on its buttons)."""
    driver.find_element(
        By.CSS_SELECTOR,
        "[aria-label=View] button[data-value=head]").send_keys(Keys.ENTER)
    b = driver.execute_script("""
      var name = arguments[0];
      return Array.from(document.querySelectorAll(
        '[aria-label=Variant] button, [aria-label=Layer] button'))
        .filter(function (b) { return b.textContent === name; })[0];
      """, variant)
    b.send_keys(Keys.ENTER)
    time.sleep(0.05)


def compare(driver, mha, tmp, s, name, clean=None):
    """The page's data and lines against the program's run of s."""
    status, values, data, message = program_run(mha, tmp, s)
    ok(status == 0, "%s: the program runs it" % name, message)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(got == data, "%s: the page's data is the program's" % name)
    if clean is not None:
        ok(data != clean, "%s: and differs from the run without --ablate"
           % name)
    lines = page_lines(driver)
    wrong = [l for l in lines
             if values.get((l[0], l[1], l[2], l[3])) != l[4]]
    ok(lines and not wrong,
       "%s: %d data-weight values equal --format csv" % (name, len(lines)),
       wrong[:3])
    return data


def switch(driver, name, what):
    """The switch of head name, reached with Tab and pressed with Enter;
    its words after the run is recomputed."""
    sel = "[data-head-off='%s']" % name
    ok(press_tab_to(driver, sel), "%s: Tab reaches the switch of %s"
       % (what, name))
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    ok(wait_recomputed(driver), "%s: recomputed" % what)
    ok(driver.execute_script(
        "return document.activeElement.matches(arguments[0]);", sel),
       "%s: the focus stays on the switch" % what)
    return driver.find_element(By.CSS_SELECTOR, sel)


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        driver = browser(tmp)
        try:
            page = os.path.join(tmp, "live.html")
            r = mha.run(["O gato sobe no tapete", "--heads", "2", "--lang",
                         "pt_BR", "--html", page],
                        env={"LANGUAGE": "", "LC_ALL": "C.UTF-8"})
            need_core(page)
            ok(r.returncode == 0, "the Portuguese classroom page is written")
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": 1280, "height": 900, "deviceScaleFactor": 1,
                "mobile": False})
            driver.get("file://" + page)
            ok(wait_ready(driver), "the page's core is ready")
            s = {"sentence": "O gato sobe no tapete", "kv": "", "seed": "42",
                 "dModel": "3", "dOut": "4", "heads": "2",
                 "variants": ["single", "wrapper", "fused"],
                 "causal": True, "scale": True, "qkvBias": False,
                 "tokens": "words"}
            clean = program_run(mha, tmp, s)[2]
            head_view(driver, "fused")
            b = driver.find_element(By.CSS_SELECTOR, "[data-head-off='0.1']")
            ok(b.text == "cabeça 1: Desligar esta cabeça",
               "the switch speaks Portuguese", b.text)
            shot(driver, "head-off-before")

            b = switch(driver, "0.1", "head 1 off")
            s["ablate"] = ["0.1"]
            ok(b.text == "cabeça 1: Religar esta cabeça" and
               b.get_attribute("data-off") == "true",
               "the switch now says it switches the head on", b.text)
            command = driver.find_element(By.ID, "editor-command").get_attribute(
                "textContent")
            ok("--ablate 0.1" in command, "the command line has --ablate",
               command)
            shot(driver, "head-off-after")
            compare(driver, mha, tmp, s, "--ablate 0.1", clean)

            driver.find_element(
                By.CSS_SELECTOR,
                "[aria-label=View] button[data-value=model]").send_keys(
                    Keys.ENTER)
            marks = driver.execute_script("""
              return Array.from(document.querySelectorAll(
                'button.thumb.head-off')).map(function (b) {
                  return b.getAttribute('data-variant') + '/' +
                         b.getAttribute('data-head') + ': ' +
                         b.parentNode.querySelector('.head-off-mark')
                           .textContent;
                });""")
            ok(marks == ["wrapper/1: cabeça 1: desligada",
                         "fused/1: cabeça 1: desligada"],
               "the model view marks head 1 off where it exists", marks)
            shot(driver, "head-off-model")

            # --ablate-mode mean, with the arrow keys on the editor's field
            driver.find_element(By.CSS_SELECTOR, "#editor summary").send_keys(
                Keys.ENTER)
            ok(press_tab_to(driver, "[data-edit=ablate-mode]"),
               "Tab reaches --ablate-mode")
            ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
            ok(wait_recomputed(driver), "--ablate-mode mean: recomputed")
            s["mode"] = "mean"
            compare(driver, mha, tmp, s, "--ablate 0.1 --ablate-mode mean",
                    clean)

            # two heads at once, then head 1 on again
            head_view(driver, "fused")
            switch(driver, "0.0", "head 0 off too")
            s["ablate"] = ["0.1", "0.0"]
            compare(driver, mha, tmp, s, "--ablate 0.1,0.0 (mean)", clean)
            switch(driver, "0.0", "head 0 on")
            switch(driver, "0.1", "head 1 on")
            s["ablate"] = []
            data = compare(driver, mha, tmp, s, "every head on again")
            ok(data == clean, "every head on again: the clean run")

            # a stack: block 0's head changes block 1's weights
            stack = dict(s, variants=["block"], dModel="4", dOut="4",
                         layers="2", positions=False, train="0",
                         optimizer="adam", lr="", grad=False)
            driver.execute_script(SET_FIELDS, stack)
            ok(wait_recomputed(driver), "a stack of two blocks")
            clean = program_run(mha, tmp, stack)[2]
            head_view(driver, "block.0")
            switch(driver, "0.0", "block 0 head 0 off")
            stack["ablate"] = ["0.0"]
            stack["mode"] = "mean"
            compare(driver, mha, tmp, stack, "stack --ablate 0.0", clean)
            shot(driver, "head-off-stack")
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
