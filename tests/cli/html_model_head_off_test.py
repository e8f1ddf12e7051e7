#!/usr/bin/env python3
"""html_model_head_off_test.py MHA_EXPLAIN GPT2_DIR LLAMA_DIR BERT_DIR
[SHOTS]: the head view's switches on the page of a --model run
(model_switches.js, model_open.js; docs/html.md, "Switching a head off")
in headless Chromium, with the keyboard only.

The Portuguese page of `mha-explain --lang pt_BR --model two_layers
--html` (a GPT-2 reference checkpoint of two layers of two heads) is
opened at 1280 x 900 and its folder given to its picker, reached with
Tab. The head view's switch of a head, reached with Tab and pressed with
Enter, adds the head to the run's --ablate and the families core (in its
worker) runs the text again: after each press the page's data must be the
data of the page the program writes for `--model DIR --ablate ... --
TEXT` (and differ from the run without it), every data-weight of the head
view the value `--format csv` writes, the command line shown must name
the heads, the model view must dim them, the switch must say "on" in
Portuguese and keep the focus. Then --ablate-mode mean (the box's field,
chosen with the arrow keys), a head of layer 1 too (two heads), and both
on again (the clean run). A page written with --ablate keeps it: the
model view marks the head before the folder opens, and the opened run is
the ablated one; a page written with --ablate all-heads --metric prob
runs the opened folder with them, its map's caption the program's page's
(and again once a head switched off is on again). A Llama-style folder switches a head off the same way;
a BERT folder (no lm_head) shows the program's refusal and keeps the
head on. With SHOTS, screenshots go there. Exits 77 (skipped) without a
browser or the WebAssembly core.
"""
import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402  (skips: 77)
from html_open_families_test import WATCH  # noqa: E402
from html_live_test import LINES  # noqa: E402
from html_open_model_test import ENV, runs, wait_state  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

SHOTS = sys.argv[5] if len(sys.argv) > 5 else None
TEXT = "hello world again"
LANG = ["--lang", "pt_BR"]

# The page's data with the page's own caches left out.
PAGE_DATA = """
return JSON.stringify(window.mhaPage.data(), function (k, v) {
  return k === 'decoded' || k === 'derivedWeights' ? undefined : v;
});"""


def press_tab_to(driver, selector, limit=200):
    """Tab from where the focus is (round the page) until selector has
    it."""
    for _ in range(limit):
        if driver.execute_script(
                "return document.activeElement.matches(arguments[0]);",
                selector):
            return True
        ActionChains(driver).send_keys(Keys.TAB).perform()
    return False


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def ablation(heads, mode):
    a = ["--ablate", ",".join(heads)] if heads else []
    return a + (["--ablate-mode", mode] if heads and mode != "zero" else [])


def program_run(mha, tmp, name, heads, mode, more=()):
    """The program's run of --model name with heads switched off (and the
    options more): (status, first stderr line, page data, {(layer, head,
    row, col): value} of --format csv's attn_weights)."""
    page = os.path.join(tmp, "program.html")
    r = mha.run(LANG + ["--model", name, "--format", "csv", "--html", page] +
                ablation(heads, mode) + list(more) + ["--", TEXT], env=ENV,
                cwd=tmp)
    message = r.stderr.decode("utf-8").split("\n")[0]
    if r.returncode != 0:
        return r.returncode, message[len("mha-explain: "):], None, None
    values = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))):
        if row["table"] == "attn_weights":
            values[(row["layer"], row["head"], row["row"],
                    row["col"])] = row["value"]
    with open(page, encoding="utf-8") as f:
        html = f.read()
    data = json.loads(re.search(r'id="mha-data">(.*?)</script>', html,
                                re.S).group(1))
    return 0, "", data, values


def page_lines(driver):
    """The head view's lines of every layer: [layer, head, query, key,
    weight], each layer's button pressed with Enter in turn."""
    lines = []
    driver.find_element(
        By.CSS_SELECTOR,
        "[aria-label=View] button[data-value=head]").send_keys(Keys.ENTER)
    group = "[aria-label=Layer] button"
    for i in range(len(driver.find_elements(By.CSS_SELECTOR, group))):
        driver.find_elements(By.CSS_SELECTOR, group)[i].send_keys(Keys.ENTER)
        for v, h, q, k, w in driver.execute_script(LINES):
            lines.append((v.split(".")[-1], h, q, k, w))
    return lines


def head_view(driver, layer):
    """The head view of the checkpoint's layer (its button's text)."""
    driver.find_element(
        By.CSS_SELECTOR,
        "[aria-label=View] button[data-value=head]").send_keys(Keys.ENTER)
    b = driver.execute_script("""
      var name = arguments[0];
      return Array.from(document.querySelectorAll(
        '[aria-label=Layer] button')).filter(function (b) {
          return b.textContent === name; })[0];""", layer)
    b.send_keys(Keys.ENTER)


def compare(driver, mha, tmp, name, heads, mode, what, clean=None):
    """The page's data, lines and command line against the program's run."""
    status, message, data, values = program_run(mha, tmp, name, heads, mode)
    ok(status == 0, "%s: the program runs it" % what, message)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(got == data, "%s: the page's data is the program's page's" % what)
    if clean is not None:
        ok(data != clean, "%s: and differs from the run with every head on"
           % what)
    command = driver.execute_script(
        "var c = document.getElementById('model-open-command');"
        "return c ? c.textContent : null;")
    want = " ".join(["--model", name] + ablation(heads, mode) + ["--"])
    ok(command is not None and want in command,
       "%s: the command line is %s ..." % (what, want),
       command)
    lines = page_lines(driver)
    wrong = [l for l in lines if values.get(l[:4]) != l[4]]
    ok(lines and not wrong, "%s: %d data-weight values equal --format csv"
       % (what, len(lines)), wrong[:3])
    return data


def ran(driver, before, what):
    state = wait_state(driver, before, 60)
    ok(state == "ok", "%s: the run is drawn" % what,
       driver.find_element(By.ID, "model-open-error").text)
    return state


def switch(driver, name, what):
    """The switch of head name, reached with Tab and pressed with Enter;
    the run answered."""
    sel = "[data-head-off='%s']" % name
    ok(press_tab_to(driver, sel), "%s: Tab reaches the switch of %s"
       % (what, name))
    before = runs(driver)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    state = wait_state(driver, before, 60)
    ok(driver.execute_script(
        "return document.activeElement.matches(arguments[0]);", sel),
       "%s: the focus stays on the switch" % what)
    return state, driver.find_element(By.CSS_SELECTOR, sel)


def model_marks(driver):
    driver.find_element(
        By.CSS_SELECTOR,
        "[aria-label=View] button[data-value=model]").send_keys(Keys.ENTER)
    return driver.execute_script("""
      return Array.from(document.querySelectorAll(
        'button.thumb.head-off')).map(function (b) {
          return b.getAttribute('data-variant') + '/' +
                 b.getAttribute('data-head') + ': ' +
                 b.parentNode.querySelector('.head-off-mark').textContent;
        });""")


def choose(driver, folder):
    """The folder given to the picker reached with Tab (as a file dialog
    gives it); the box's state after the run."""
    driver.execute_script("document.getElementById('model-open')"
                          ".removeAttribute('data-state');"
                          "document.getElementById('model-open-folder')"
                          ".value = '';")
    ok(press_tab_to(driver, "#model-open-folder"), "Tab reaches the picker")
    before = runs(driver)
    driver.switch_to.active_element.send_keys(folder)
    return wait_state(driver, before, 60)


def map_captions(data):
    return [(m["table"], m["measure"]) for m in data.get("maps", [])]


def check_all_heads(driver, mha, tmp, g):
    """A page written with --ablate all-heads --metric prob: the opened
    folder's run is that run, its map and the map's caption (in
    Portuguese) the program's page's; with a head switched off and on
    again, the map comes back."""
    metric = ["--metric", "prob", "--answer", " world"]
    page = os.path.join(tmp, "all_heads.html")
    r = mha.run(LANG + ["--model", g, "--ablate", "all-heads"] + metric +
                ["--html", page, "--", TEXT], env=ENV, cwd=tmp)
    ok(r.returncode == 0, "a page written with --ablate all-heads "
       "--metric prob", r.stderr)
    status, message, want, _ = program_run(mha, tmp, g, ["all-heads"],
                                           "zero", metric)
    caption = "varia\u00e7\u00e3o da probabilidade de --answer " \
        "(--metric prob)"
    ok(status == 0 and map_captions(want) == [("ablation_map", caption)],
       "the program's page: the map says it measures --metric prob, in "
       "Portuguese", [message, want and map_captions(want)])
    driver.get("file://" + page)
    driver.execute_script(WATCH)
    ok(choose(driver, os.path.join(tmp, g)) == "ok",
       "--ablate all-heads: the folder is run")
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(map_captions(got) == map_captions(want) and got == want,
       "--ablate all-heads --metric prob: the page's run is the program's "
       "page's, the map's caption too", (map_captions(got),
                                         map_captions(want)))
    command = driver.execute_script(
        "return document.getElementById('model-open-command').textContent;")
    ok("--ablate all-heads --metric prob --answer ' world' --" in command,
       "--ablate all-heads: the command line names the metric", command)
    view = driver.find_elements(
        By.CSS_SELECTOR, "[aria-label=View] button[data-value=maps]")
    if view:
        view[0].send_keys(Keys.ENTER)
    legend = "".join(e.text for e in driver.find_elements(
        By.CSS_SELECTOR, "#maps-view .map-legend .map-measure"))
    ok(legend == caption, "the Interventions view's scale "
       "names the metric", legend)
    shot(driver, "model-all-heads-map")
    head_view(driver, "h.0")
    switch(driver, "0.1", "all-heads page: head 0.1 off")
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(map_captions(got) == [], "head 0.1 off: --ablate 0.1, no map")
    head_view(driver, "h.0")
    switch(driver, "0.1", "all-heads page: head 0.1 on")
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(got == want, "every head on again: the map of --ablate all-heads "
       "--metric prob again")


def main():
    mha = Program(sys.argv[1])
    gpt2, llama, bert = (os.path.abspath(a) for a in sys.argv[2:5])
    with tempfile.TemporaryDirectory() as tmp:
        for src, c in ((gpt2, "two_layers"), (llama, "llama_gqa4_bf16"),
                       (bert, "mlm")):
            shutil.copytree(os.path.join(src, c), os.path.join(tmp, c))
        g = "two_layers"
        page = os.path.join(tmp, "page.html")
        r = mha.run(LANG + ["--model", g, "--html", page, "--", TEXT],
                    env=ENV, cwd=tmp)
        need_core(page)
        ok(r.returncode == 0, "the Portuguese page of --model is written")
        driver = browser(tmp)
        try:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": 1280, "height": 900, "deviceScaleFactor": 1,
                "mobile": False})
            driver.get("file://" + page)
            driver.execute_script(WATCH)
            head_view(driver, "h.0")
            ok(not driver.find_elements(By.CSS_SELECTOR, "[data-head-off]"),
               "no switch before a folder is open")
            ok(choose(driver, os.path.join(tmp, g)) == "ok",
               "the folder is opened and run",
               driver.find_element(By.ID, "model-open-error").text)
            clean = compare(driver, mha, tmp, g, [], "zero", "every head on")
            head_view(driver, "h.0")
            b = driver.find_elements(By.CSS_SELECTOR, "[data-head-off='0.1']")
            ok(b and b[0].text == "cabeça 1: Desligar esta cabeça",
               "the head view has a switch on each head, in Portuguese",
               b and b[0].text)
            if not b:
                return done()
            shot(driver, "model-head-off-before")

            state, b = switch(driver, "0.1", "head 0.1 off")
            ok(state == "ok" and b.text == "cabeça 1: Religar esta cabeça" and
               b.get_attribute("data-off") == "true",
               "head 0.1 off: the switch now says it switches the head on",
               [state, b.text])
            shot(driver, "model-head-off-after")
            compare(driver, mha, tmp, g, ["0.1"], "zero", "--ablate 0.1",
                    clean)
            marks = model_marks(driver)
            ok(marks == ["h.0/1: cabeça 1: desligada"],
               "the model view dims head 1 of h.0", marks)
            shot(driver, "model-head-off-model")

            # --ablate-mode mean, with the arrow keys on the box's field
            ok(press_tab_to(driver, "#model-open-ablate-mode"),
               "Tab reaches --ablate-mode")
            before = runs(driver)
            ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
            ran(driver, before, "--ablate-mode mean")
            compare(driver, mha, tmp, g, ["0.1"], "mean",
                    "--ablate 0.1 --ablate-mode mean", clean)

            # two heads: layer 1's head 0 too, then both on again
            head_view(driver, "h.1")
            state, b = switch(driver, "1.0", "head 1.0 off too")
            ok(state == "ok", "head 1.0 off too: the run is drawn")
            two = compare(driver, mha, tmp, g, ["0.1", "1.0"], "mean",
                          "--ablate 0.1,1.0 --ablate-mode mean", clean)
            marks = model_marks(driver)
            ok(marks == ["h.0/1: cabeça 1: desligada",
                         "h.1/0: cabeça 0: desligada"],
               "the model view dims both heads", marks)
            shot(driver, "model-head-off-two")
            head_view(driver, "h.1")
            switch(driver, "1.0", "head 1.0 on")
            head_view(driver, "h.0")
            switch(driver, "0.1", "head 0.1 on")
            data = compare(driver, mha, tmp, g, [], "mean",
                           "every head on again")
            ok(data == clean and data != two,
               "every head on again: the clean run")
            ok(model_marks(driver) == [], "the model view dims no head")

            # a Llama-style folder: a head of its first layer off
            ll = "llama_gqa4_bf16"
            ok(choose(driver, os.path.join(tmp, ll)) == "ok",
               "the Llama-style folder is opened and run")
            lclean = json.loads(driver.execute_script(PAGE_DATA))
            layer0 = lclean["variants"][0]["name"]
            head_view(driver, layer0)
            state, b = switch(driver, "0.2", "Llama head 0.2 off")
            ok(state == "ok", "Llama head 0.2 off: the run is drawn")
            compare(driver, mha, tmp, ll, ["0.2"], "mean",
                    "Llama --ablate 0.2 --ablate-mode mean", lclean)
            head_view(driver, layer0)
            switch(driver, "0.2", "Llama head 0.2 on")

            # BERT has no lm_head: the program's refusal, the head kept on
            ok(choose(driver, os.path.join(tmp, "mlm")) == "ok",
               "the BERT folder is opened and run")
            bert_data = driver.execute_script(PAGE_DATA)
            head_view(driver, json.loads(bert_data)["variants"][0]["name"])
            state, b = switch(driver, "0.0", "BERT head 0.0")
            status, message, _, _ = program_run(mha, tmp, "mlm", ["0.0"],
                                                "zero")
            got = driver.find_element(By.ID, "model-open-error").text
            ok(state == "error" and status == 2 and got == message,
               "BERT: refused with the program's Portuguese message",
               [state, got, message])
            ok(driver.execute_script(PAGE_DATA) == bert_data and
               b.get_attribute("data-off") == "false",
               "BERT: the views keep the run, the head is on")
            shot(driver, "model-head-off-bert")

            # a page written with --ablate keeps it
            kept = os.path.join(tmp, "kept.html")
            mha.run(LANG + ["--model", g, "--ablate", "1.1", "--html", kept,
                            "--", TEXT], env=ENV, cwd=tmp)
            driver.get("file://" + kept)
            driver.execute_script(WATCH)
            ok(model_marks(driver) == ["h.1/1: cabeça 1: desligada"],
               "a page written with --ablate 1.1: the model view dims it "
               "before a folder opens")
            ok(choose(driver, os.path.join(tmp, g)) == "ok",
               "a page written with --ablate 1.1: the folder is run")
            compare(driver, mha, tmp, g, ["1.1"], "zero",
                    "a page written with --ablate 1.1", clean)
            check_all_heads(driver, mha, tmp, g)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
