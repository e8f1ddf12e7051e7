#!/usr/bin/env python3
"""html_model_interventions_test.py MHA_EXPLAIN GPT2_DIR [SHOTS]: the page
of a --model run that made a map of the interventions (--patch, --ablate
all-heads, --head-scores; docs/html.md, "A model on the page") keeps its
experiment once its folder is open, in headless Chromium.

For each experiment the program writes the page of `mha-explain --model
two_layers EXPERIMENT --html` (a GPT-2 reference checkpoint of two
layers of two heads) and the folder is given to its picker. The page's
core (the families core, in its worker) must then run the same
experiment: the page's data equal to the data of the page the program
writes for the command line the box shows, that command line naming the
experiment, the Interventions view still there, its map's cells the
program's, and no head switch (the program runs one intervention at a
time). A new text runs the experiment again (with --patch, as --clean)
and equals the program's page for it; a --clean of another length than
--corrupt shows the program's message. --ablate all-heads' mode field
runs the map at --ablate-mode mean. With SHOTS, screenshots go there.
Exits 77 (skipped) without a browser or the WebAssembly core.
"""
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402  (skips: 77)
from html_open_families_test import WATCH  # noqa: E402
from html_live_test import wait_recomputed  # noqa: E402
from html_open_model_test import ENV, PAGE_DATA, runs, wait_state  # noqa
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa

SHOTS = sys.argv[3] if len(sys.argv) > 3 else None
G = "two_layers"
TEXT = "the cat sat on the mat"
PATCH = ["--patch", "--corrupt", "the mat sat on the cat", "--answer",
         " cat", "--wrong", " mat"]

# (what, the experiment's options, the option the text is given to)
EXPERIMENTS = [
    ("--patch", PATCH, "--clean"),
    ("--ablate all-heads", ["--ablate", "all-heads"], "--"),
    ("--head-scores", ["--head-scores"], "--"),
]


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def program(mha, tmp, args):
    """The program's page for --model G args: (status, its message without
    the program's name, its data)."""
    page = os.path.join(tmp, "program.html")
    if os.path.exists(page):
        os.remove(page)
    r = mha.run(["--model", G, "--html", page] + args, env=ENV, cwd=tmp)
    message = r.stderr.decode("utf-8").split("\n")[0]
    if r.returncode != 0:
        return r.returncode, message[len("mha-explain: "):], None
    with open(page, encoding="utf-8") as f:
        html = f.read()
    return 0, "", json.loads(re.search(r'id="mha-data">(.*?)</script>',
                                       html, re.S).group(1))


def maps_button(driver):
    return len(driver.find_elements(
        By.CSS_SELECTOR, "[aria-label=View] button[data-value=maps]"))


def map_cells(driver):
    """The Interventions view's cells: (map, row, col, value); None
    without the view."""
    b = driver.find_elements(By.CSS_SELECTOR,
                             "[aria-label=View] button[data-value=maps]")
    if not b:
        return None
    b[0].send_keys(Keys.ENTER)
    return driver.execute_script("""
      return Array.from(document.querySelectorAll(
        '#maps-view td.map-cell')).map(function (c) {
          return [c.getAttribute('data-map'), c.getAttribute('data-row'),
                  c.getAttribute('data-col'), c.getAttribute('data-value')];
        });""")


def command(driver):
    return driver.execute_script(
        "var c = document.getElementById('model-open-command');"
        "return c && !c.parentNode.hidden ? c.textContent : null;")


def compare(driver, mha, tmp, args, what):
    """The command line the box shows, which must hold args, and the
    page's data against the program's page for that command line."""
    shown = command(driver)
    words = shlex.split(shown)[1:] if shown else []
    ok(words[:2] == ["--model", G] and all(a in words for a in args),
       "%s: the command line shown is the experiment's" % what, shown)
    status, message, data = program(mha, tmp, words[2:])
    ok(status == 0, "%s: the program runs it" % what, message)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(data is not None and got == data,
       "%s: the page's data is the program's page's" % what)
    ok(data is not None and len(data.get("maps", [])) > 0 and
       maps_button(driver) == 1,
       "%s: the Interventions view is there" % what, maps_button(driver))
    return data


def set_text(driver, text):
    """The box's text changed as a reader types it; the box's state after
    the run."""
    field = driver.find_element(By.ID, "model-open-text")
    before = runs(driver)
    # the old text selected and typed over: one change, on Tab
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text)
    ActionChains(driver).send_keys(Keys.TAB).perform()
    return wait_state(driver, before, 60)


def shown_text(driver, ident, seconds=10):
    """The text of the element with id ident once it is shown, or None;
    an element the page draws again while it is read is looked up
    again."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            found = driver.find_elements(By.ID, ident)
            if found and found[0].is_displayed():
                return found[0].text
        except StaleElementReferenceException:
            pass
        time.sleep(0.1)
    return None


def lesson(driver, mha, tmp):
    """A trained --variant block's page with --patch: its core runs no
    interventions, and the Interventions view says so; a new sentence in
    the editor is a plain run."""
    corpus = os.path.join(tmp, "corpus.csv")
    with open(corpus, "w") as f:
        f.write("text\n" + TEXT + "\nthe mat sat on the cat\n"
                "the dog sat on the log\n")
    page = os.path.join(tmp, "lesson.html")
    r = mha.run(["--variant", "block", "--d-model", "4", "--train", "5",
                 "--corpus", corpus, "--column", "text", "--patch",
                 "--clean", TEXT, "--corrupt", "the mat sat on the cat",
                 "--answer", "cat", "--wrong", "mat", "--html", page],
                env=ENV, cwd=tmp)
    ok(r.returncode == 0, "a lesson page with --patch is written",
       r.stderr.decode("utf-8"))
    driver.get("file://" + page)
    ok(map_cells(driver), "the lesson page has the program's maps")
    note = shown_text(driver, "maps-program")
    ok(note is not None and
       note.startswith("These maps are the program's run"),
       "the Interventions view says they are the program's run", note)
    shot(driver, "lesson-maps-program")
    driver.execute_script("document.getElementById('editor').open = true;")
    end = time.monotonic() + 60
    while time.monotonic() < end and driver.execute_script(
            "return document.getElementById('editor')"
            ".getAttribute('data-ready');") != "true":
        time.sleep(0.05)
    field = driver.find_element(By.CSS_SELECTOR, "[data-edit=sentence]")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("the dog sat on the mat")
    ActionChains(driver).send_keys(Keys.TAB).perform()
    time.sleep(0.2)
    ok(wait_recomputed(driver) and maps_button(driver) == 0 and
       json.loads(driver.execute_script(PAGE_DATA))["queries"][1] == "dog",
       "a new sentence is a plain run, as the note says",
       driver.execute_script(
           "return document.getElementById('editor-status').textContent"))


def main():
    mha = Program(sys.argv[1])
    gpt2 = os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(gpt2, G), os.path.join(tmp, G))
        driver = None
        try:
            for what, exp, text_as in EXPERIMENTS:
                page = os.path.join(tmp, "page.html")
                r = mha.run(["--model", G, "--html", page] + exp +
                            [text_as, TEXT], env=ENV, cwd=tmp)
                ok(r.returncode == 0, "%s: the page is written" % what,
                   r.stderr.decode("utf-8"))
                need_core(page)
                if driver is None:
                    driver = browser(tmp)
                driver.get("file://" + page)
                driver.execute_script(WATCH)
                ok(maps_button(driver) == 1,
                   "%s: the page has the Interventions view" % what)
                written = map_cells(driver)
                before = runs(driver)
                driver.find_element(By.ID, "model-open-folder").send_keys(
                    os.path.join(tmp, G))
                state = wait_state(driver, before, 60)
                ok(state == "ok", "%s: the folder is opened and run" % what,
                   driver.find_element(By.ID, "model-open-error").text)
                compare(driver, mha, tmp, exp + [text_as, TEXT], what)
                ok(written and map_cells(driver) == written,
                   "%s: the map's cells are the written page's" % what)
                if exp[0] != "--ablate":
                    ok(not driver.find_elements(By.CSS_SELECTOR,
                                                "[data-head-off]"),
                       "%s: no head switch (one intervention at a time)"
                       % what)
                shot(driver, "model-maps-" + exp[0].strip("-"))
                driver.execute_script(
                    "document.getElementById('maps-view').scrollIntoView()")
                shot(driver, "model-maps-" + exp[0].strip("-") + "-view")

                # a new text runs the experiment again
                new = "the mat sat on the mat"
                ok(set_text(driver, new) == "ok",
                   "%s: a new text is run" % what,
                   driver.find_element(By.ID, "model-open-error").text)
                data = compare(driver, mha, tmp, exp + [text_as, new],
                               what + " with a new text")
                cells = map_cells(driver)
                ok(cells is not None and cells != written,
                   "%s: a new text changes the map" % what)
                if text_as == "--clean":
                    # as many tokens as --corrupt, or the program's message
                    status, message, _ = program(
                        mha, tmp, exp + [text_as, "the cat"])
                    state = set_text(driver, "the cat")
                    got = driver.find_element(By.ID, "model-open-error").text
                    ok(state == "error" and status == 2 and got == message,
                       "%s: a --clean of 2 tokens is refused with the "
                       "program's message" % what, [state, got, message])
                    ok(json.loads(driver.execute_script(PAGE_DATA)) == data,
                       "%s: the views keep the last run" % what)
                if exp[1:2] == ["all-heads"]:
                    sel = "#model-open-ablate-mode"
                    field = driver.find_elements(By.CSS_SELECTOR, sel)
                    ok(field and field[0].is_displayed(),
                       "%s: the box has --ablate-mode" % what)
                    before = runs(driver)
                    field[0].send_keys(Keys.ARROW_DOWN)
                    ok(wait_state(driver, before, 60) == "ok",
                       "%s: --ablate-mode mean is run" % what)
                    compare(driver, mha, tmp, exp + ["--ablate-mode", "mean",
                                                     "--", new],
                            what + " --ablate-mode mean")
                elif text_as == "--":
                    ok(not driver.find_elements(By.CSS_SELECTOR,
                                                "#model-open-ablate-mode"),
                       "%s: the box has no --ablate-mode" % what)
            ok(not driver.find_elements(By.ID, "maps-program"),
               "a --model page: no note that the maps are the program's")
            lesson(driver, mha, tmp)
        finally:
            if driver is not None:
                driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
