#!/usr/bin/env python3
"""html_trained_head_off_test.py MHA_EXPLAIN [SHOTS]: the switches that
turn a head off on a trained model's page and in a run the editor trains
(editor_switches.js, head_view.js, training.js; docs/html.md, "Switching
a head off") in headless Chromium, with the keyboard.

A block is trained on a small corpus (--train, --corpus, --csv-dir DIR,
--html). On its page, head 1's switch in the head view, reached with Tab
and pressed with Enter, runs the trained model with the head off in the
page's core: the page's data must then be the data of the page
`mha-explain SENTENCE --weights DIR --ablate 0.1 --html` writes (and
differ from the run without it: its steps hold ablation_effect and
ablation_loss), the command line shown must name the head, the model view
marks it. --ablate-mode mean (the field, with the arrow keys), further
training on the corpus with the head off, and the Training view's switch
(the head on again) each equal the program's run of the command line the
page shows, --explain's notes included (the classroom core carries
--ablate's: render/explain_ablation.c). The page of `--weights DIR` (no
training history) has no Training view and the same switches; written
in English, Portuguese and Chinese, its step-through's Output step shows,
once a head is switched off, the notes the program's `--explain` prints
before ablation_effect and ablation_loss for the command line the page
shows, in the page's language. On the classroom page, a block the
editor trains has the switches in its Training view, equal to the
program's `--train N ... --ablate L.H`; a trained module that is not a
block has none (the program refuses --ablate on it). With SHOTS,
screenshots go there. Exits 77 (skipped) without a browser or the core.
"""
import json
import os
import re
import shlex
import sys
import tempfile
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402  (skips: 77)
from html_live_test import (PAGE_DATA, SET_FIELDS, args_of,  # noqa: E402
                            wait_ready, wait_recomputed)
from html_head_off_test import press_tab_to  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

SHOTS = sys.argv[2] if len(sys.argv) > 2 else None
ENV = {"LANGUAGE": "", "LC_ALL": "C.UTF-8"}
SENTENCE = "the cat sat on the mat"
CORPUS = ["the cat sat on the mat", "the dog sat on the rug",
          "a cat saw the dog", "the dog saw a cat on the mat"]
MODEL = ["--variant", "block", "--d-model", "4", "--d-out", "4", "--heads",
         "2", "--seed", "7"]


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def page_data(path):
    with open(path, encoding="utf-8") as f:
        html = f.read()
    return json.loads(re.search(r'id="mha-data">\n(.*?)\n</script>', html,
                                re.S).group(1))


def program(mha, tmp, args):
    """The data of the page the program writes for args (in tmp, where
    the corpus is), or the program's message."""
    page = os.path.join(tmp, "program.html")
    r = mha.run(["--html", page] + args, env=ENV, cwd=tmp)
    if r.returncode != 0:
        return None, r.stderr.decode("utf-8").split("\n")[0]
    return page_data(page), ""


def shown_command(driver):
    return driver.find_element(By.ID, "editor-command").get_attribute(
        "textContent")


def same_as_shown(driver, mha, tmp, what, clean=None):
    """The page's data against the program's run of the command line the
    page shows; returns it."""
    command = shown_command(driver)
    data, message = program(mha, tmp, shlex.split(command)[1:])
    ok(data is not None, "%s: the program runs %s" % (what, command),
       message)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(got == data,
       "%s: the page's data is the program's page's, its notes too" % what)
    if clean is not None:
        ok(data != clean, "%s: and differs from the run with every head on"
           % what)
    return data


def steps_text(data):
    return "".join(s["text"] for v in data["variants"] for s in v["steps"])


def view(driver, name):
    driver.find_element(
        By.CSS_SELECTOR,
        "[aria-label=View] button[data-value=%s]" % name).send_keys(
            Keys.ENTER)


def views(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll("
        "'[aria-label=View] button')).map(function (b) {"
        " return b.getAttribute('data-value'); });")


def press(driver, name, what, within=""):
    """The switch of head name (in the view within), reached with Tab and
    pressed with Enter."""
    sel = "%s [data-head-off='%s']" % (within, name)
    ok(press_tab_to(driver, sel.strip()), "%s: Tab reaches the switch of %s"
       % (what, name))
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    ok(wait_recomputed(driver), "%s: recomputed" % what)
    ok(driver.execute_script(
        "return document.getElementById('editor')"
        ".getAttribute('data-recomputed');") == "ok",
       "%s: the run is made" % what,
       driver.find_element(By.ID, "editor-error").get_attribute(
           "textContent"))
    ok(driver.execute_script(
        "return document.activeElement.matches(arguments[0]);", sel.strip()),
       "%s: the focus stays on the switch" % what)


def check_trained_page(driver, mha, tmp, folder):
    """The page of the training run on the corpus."""
    page = os.path.join(tmp, "trained.html")
    r = mha.run([SENTENCE, "--train", "20", "--corpus", "corpus.csv",
                 "--column", "text", "--csv-dir", "model", "--html",
                 page] + MODEL, env=ENV, cwd=tmp)
    ok(r.returncode == 0, "the trained run's page is written",
       r.stderr.decode("utf-8"))
    need_core(page)
    driver.get("file://" + page)
    ok(wait_ready(driver), "the trained page's core is ready")
    ok("training" in views(driver), "the trained page has its Training view")
    clean, _ = program(mha, tmp, [SENTENCE, "--weights", "model"])
    ok(clean is not None and "ablation_effect" not in steps_text(clean),
       "the clean run has no ablation tables")
    view(driver, "head")
    press(driver, "0.1", "trained page, head 1 off", "#head-view")
    ok("--ablate 0.1" in shown_command(driver),
       "the command line names the head", shown_command(driver))
    data = same_as_shown(driver, mha, tmp, "trained page --ablate 0.1",
                         clean)
    text = steps_text(data)
    ok("[block] ablation_effect" in text and "[block] ablation_loss" in text,
       "the steps show ablation_effect and ablation_loss")
    shot(driver, "trained-head-off")
    view(driver, "model")
    marks = driver.execute_script(
        "return Array.from(document.querySelectorAll('button.thumb.head-off'"
        ")).map(function (b) { return b.getAttribute('data-head'); });")
    ok(marks == ["1"], "the model view marks head 1 off", marks)

    # --ablate-mode mean, with the arrow keys (mean over the corpus)
    driver.find_element(By.CSS_SELECTOR, "#editor summary").send_keys(
        Keys.ENTER)
    ok(press_tab_to(driver, "[data-edit=ablate-mode]"),
       "Tab reaches --ablate-mode on the trained page")
    ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
    ok(wait_recomputed(driver), "--ablate-mode mean: recomputed")
    ok("--ablate-mode mean" in shown_command(driver),
       "the command line has --ablate-mode mean", shown_command(driver))
    mean = same_as_shown(driver, mha, tmp, "trained page, mean", clean)
    ok(mean != data, "mean differs from zero")

    # further training on the corpus, the head still off
    e = driver.find_element(By.CSS_SELECTOR, "[data-edit=train]")
    e.send_keys(Keys.CONTROL, "a")
    e.send_keys("3")
    e.send_keys(Keys.TAB)
    ok(wait_recomputed(driver), "3 further steps: recomputed")
    ok("--train 3" in shown_command(driver) and
       "--ablate 0.1" in shown_command(driver),
       "the command line trains and switches the head off",
       shown_command(driver))
    same_as_shown(driver, mha, tmp, "3 further steps, head 1 off")

    # the Training view's switch: head 1 on again
    view(driver, "training")
    ok(driver.execute_script(
        "return document.querySelectorAll("
        "'#training-view [data-head-off]').length;") == 2,
       "the Training view has a switch per head")
    shot(driver, "trained-training-switches")
    press(driver, "0.1", "training view, head 1 on", "#training-view")
    ok("--ablate" not in shown_command(driver),
       "the command line has no --ablate", shown_command(driver))
    same_as_shown(driver, mha, tmp, "3 further steps, every head on")


def check_weights_page(driver, mha, tmp):
    """The page of --weights DIR: no training history, the same switches."""
    page = os.path.join(tmp, "weights.html")
    r = mha.run([SENTENCE, "--weights", "model", "--html", page], env=ENV,
                cwd=tmp)
    ok(r.returncode == 0, "the --weights page is written")
    driver.get("file://" + page)
    ok(wait_ready(driver), "the --weights page's core is ready")
    ok("training" not in views(driver),
       "the --weights page has no Training view (no training history)",
       views(driver))
    clean = page_data(page)
    view(driver, "head")
    press(driver, "0.0", "--weights page, head 0 off", "#head-view")
    same_as_shown(driver, mha, tmp, "--weights page --ablate 0.0", clean)
    shot(driver, "weights-head-off")


def wide(c):
    return unicodedata.east_asian_width(c) in "WF"


def explain_notes(text, heading):
    """The note --explain's text prints before the table heading ("[block]
    ablation_effect"), its "# " lines joined as they were before they
    were wrapped: with a space, or with none between Chinese characters
    (render/explain_say.c); None without the table."""
    lines = text.split("\n")
    at = next((i for i, line in enumerate(lines)
               if line.startswith(heading + " (")), None)
    if at is None:
        return None
    i = at - 1
    while i >= 0 and lines[i] == "":
        i -= 1
    note = []
    while i >= 0 and lines[i].startswith("# "):
        note.insert(0, lines[i][2:])
        i -= 1
    joined = ""
    for part in note:
        if joined and not (wide(joined[-1]) or wide(part[0])):
            joined += " "
        joined += part
    return joined


STEP_WITH = """
function button(name) {
  return document.querySelector('[data-step=' + name + ']');
}
for (var k = 0; k < 400 && !button('prev').disabled; k++)
  button('prev').click();
for (var k = 0; k < 400; k++) {
  var t = document.getElementById('step-title');
  if (t.getAttribute('data-step-id') === 'output' &&
      document.getElementById('step-text').textContent.indexOf(
          arguments[0]) >= 0)
    return Array.from(document.querySelectorAll('#step-note p')).map(
        function (p) { return p.textContent; });
  if (button('next').disabled) break;
  button('next').click();
}
return null;"""


def check_notes(driver, mha, tmp, lang):
    """The page of --weights DIR in lang: head 1 switched off, its
    step-through's Output step shows the notes the program's --explain
    prints before ablation_effect and ablation_loss, in lang."""
    page = os.path.join(tmp, "weights-%s.html" % lang)
    r = mha.run([SENTENCE, "--weights", "model", "--lang", lang, "--html",
                 page], env=ENV, cwd=tmp)
    ok(r.returncode == 0, "%s: the --weights page is written" % lang)
    driver.get("file://" + page)
    ok(wait_ready(driver), "%s: the --weights page's core is ready" % lang)
    view(driver, "steps")
    before = driver.execute_script(STEP_WITH, "ablation_effect")
    ok(before is None, "%s: no ablation_effect with every head on" % lang)
    view(driver, "head")
    press(driver, "0.1", "%s: --weights page, head 1 off" % lang,
          "#head-view")
    args = shlex.split(shown_command(driver))[1:] + ["--lang", lang]
    r = mha.run(args + ["--explain"], env=ENV, cwd=tmp)
    text = r.stdout.decode("utf-8")
    want = [explain_notes(text, "[block] " + name)
            for name in ("ablation_effect", "ablation_loss")]
    ok(r.returncode == 0 and None not in want and all(want),
       "%s: the program's --explain of %s has both notes" % (lang, args),
       r.stderr.decode("utf-8"))
    view(driver, "steps")
    shown = driver.execute_script(STEP_WITH, "ablation_effect")
    ok(shown is not None, "%s: an Output step shows ablation_effect" % lang)
    shown = shown or []
    ok(all(w in shown for w in want) and
       shown.index(want[0]) < shown.index(want[1]),
       "%s: the step's notes are the program's --explain notes of "
       "ablation_effect and ablation_loss, in order" % lang, (want, shown))
    shot(driver, "weights-notes-" + lang)


def check_classroom(driver, mha, tmp):
    """A block the classroom page's editor trains."""
    page = os.path.join(tmp, "live.html")
    r = mha.run([SENTENCE, "--heads", "2", "--html", page], env=ENV)
    ok(r.returncode == 0, "the classroom page is written")
    driver.get("file://" + page)
    ok(wait_ready(driver), "the classroom page's core is ready")
    s = {"sentence": SENTENCE, "kv": "", "seed": "42", "dModel": "4",
         "dOut": "4", "heads": "2", "variants": ["fused"], "causal": True,
         "scale": True, "qkvBias": False, "tokens": "words",
         "positions": False, "layers": "", "train": "5",
         "optimizer": "adam", "lr": "", "grad": False}
    driver.execute_script(SET_FIELDS, s)
    ok(wait_recomputed(driver), "the fused module trained")
    view(driver, "training")
    ok(driver.execute_script(
        "return document.querySelectorAll('[data-head-off]').length;") == 0,
       "a trained module that is not a block has no switch")
    s["variants"] = ["block"]
    driver.execute_script(SET_FIELDS, s)
    ok(wait_recomputed(driver), "the block trained")
    clean, _ = program(mha, tmp, args_of(s) + ["--", SENTENCE])
    view(driver, "training")
    press(driver, "0.0", "classroom training view, head 0 off",
          "#training-view")
    want = args_of(s) + ["--ablate", "0.0", "--", SENTENCE]
    data, message = program(mha, tmp, want)
    ok(data is not None, "the program trains with --ablate 0.0", message)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(got == data and data != clean,
       "the page's data is the program's page's of --train 5 ... "
       "--ablate 0.0")
    shot(driver, "classroom-training-head-off")


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "corpus.csv"), "w",
                  encoding="utf-8") as f:
            f.write("text\n" + "\n".join(CORPUS) + "\n")
        driver = browser(tmp)
        try:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": 1280, "height": 900, "deviceScaleFactor": 1,
                "mobile": False})
            check_trained_page(driver, mha, tmp, "model")
            check_weights_page(driver, mha, tmp)
            for lang in ("en", "pt_BR", "zh_CN"):
                check_notes(driver, mha, tmp, lang)
            check_classroom(driver, mha, tmp)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
