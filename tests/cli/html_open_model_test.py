#!/usr/bin/env python3
"""The page's "Open a model" (model_open.js) in headless Chromium.

Usage: html_open_model_test.py MHA_EXPLAIN GPT2_CASES_DIR [SCREENSHOT_DIR]

A classroom page (no model) is opened at 1280 x 720, and GPT-2 reference
checkpoints (tests/reference/gpt2: F32 and BF16) are chosen in its folder
picker, as a reader chooses a folder on the computer. After each, the
page's data (every layer and head: scores, weights, softmax's parts,
queries and keys; the tokens; the steps' tables) must be the data of the
page the program writes with `--model DIR --html` but the step-through's
notes, which the classroom page's core leaves out, and every layer's and
head's attn_scores and attn_weights must be `--format csv`'s, bit for bit;
a new text typed in runs again. The lesson editor's head switches
(on the lesson run's head view) are not drawn on the model's, and come
back when the editor runs the lesson again. Broken folders (merges.txt missing, a
safetensors file truncated, an unknown model_type) show the program's
message, a file over 2 GB is refused with its size, and the page keeps
working. A page written with `--model DIR` opens asking for that
folder (the hint goes once a folder runs; the note in the editor's place,
on the page's own run, goes while another folder's run is on view), and
its core (the families core) gives the program's page's data
for GPT-2 folders, the step-through's notes too. No console error, no
request. Exits 77 (skipped) without a browser or the WebAssembly core.
"""
import base64
import csv
import io
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core, requests_made  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ENV = {"LANGUAGE": "", "LC_ALL": "C.UTF-8"}

# The page's data with the page's own caches left out.
PAGE_DATA = """
return JSON.stringify(window.mhaPage.data(), function (k, v) {
  return k === 'decoded' || k === 'derivedWeights' ? undefined : v;
});"""


def wait_state(driver, before, seconds=30):
    """The box's data-state once a run ended after `before` runs."""
    end = time.time() + seconds
    while time.time() < end:
        runs = driver.execute_script("return window.mhaModelRuns || 0;")
        state = driver.execute_script(
            "return document.getElementById('model-open')"
            ".getAttribute('data-state');")
        if runs > before or state == "error":
            return state
        time.sleep(0.05)
    return None


def runs(driver):
    return driver.execute_script("return window.mhaModelRuns || 0;")


def choose(driver, folder):
    """The folder chosen in the picker; the box's state after it."""
    before = runs(driver)
    # the picker's files from before forgotten (chromedriver adds to them)
    driver.execute_script("document.getElementById('model-open')"
                          ".removeAttribute('data-state');"
                          "document.getElementById('model-open-folder')"
                          ".value = '';")
    driver.find_element(By.ID, "model-open-folder").send_keys(folder)
    return wait_state(driver, before)


def switches(driver):
    """The head switches in the head view (the view pressed first)."""
    driver.find_element(
        By.CSS_SELECTOR,
        "[aria-label=View] button[data-value=head]").send_keys(Keys.ENTER)
    return [b.get_attribute("data-head-off") for b in
            driver.find_elements(By.CSS_SELECTOR, "[data-head-off]")]


def program_data(mha, cwd, name, text):
    """The data of the page the program writes for --model name text."""
    page = os.path.join(cwd, "program.html")
    r = mha.run(["--model", name, "--html", page, "--", text], env=ENV,
                cwd=cwd)
    assert r.returncode == 0, r.stderr
    with open(page, encoding="utf-8") as f:
        html = f.read()
    return json.loads(re.search(r'id="mha-data">(.*?)</script>', html,
                                re.S).group(1))


def without_labels(data):
    """data without its labels (the page's words, which the page keeps
    from the page it was written as)."""
    data = json.loads(json.dumps(data))
    data.pop("labels", None)
    return data


def steps_of(data):
    return [s for steps in [data["steps"]] +
            [v["steps"] for v in data["variants"]] for s in steps]


def without_notes(data):
    """data without its labels and the steps' notes."""
    data = without_labels(data)
    for s in steps_of(data):
        s.pop("note", None)
    return data


def floats(m):
    """A page matrix's float32 values, as their 32-bit patterns."""
    raw = base64.b64decode(m["f32"])
    return list(struct.unpack("<%dI" % (len(raw) // 4), raw))


def bits(text):
    return struct.unpack("<I", struct.pack("<f", float(text)))[0]


def check_csv(mha, cwd, name, text, data, label):
    """Every layer's and head's scores and weights against the CSV."""
    r = mha.run(["--model", name, "--format", "csv", "--", text], env=ENV,
                cwd=cwd)
    table = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))):
        if row["table"] in ("attn_scores", "attn_weights"):
            key = (row["layer"], row["head"], row["table"])
            table.setdefault(key, []).append(bits(row["value"]))
    compared = differ = 0
    for v in data["variants"]:
        layer = v["name"].split(".")[-1]
        for h in v["heads"]:
            for kind, tname in (("scores", "attn_scores"),
                                ("weights", "attn_weights")):
                if kind not in h:
                    continue
                want = table.get((layer, str(h["head"]), tname))
                got = floats(h[kind])
                compared += 1
                differ += want != got
    n_heads = len({(k[0], k[1]) for k in table})
    ok(compared >= n_heads and n_heads > 0 and differ == 0,
       "%s: every layer's and head's attn_scores and attn_weights are the "
       "CSV's, bit for bit (%d tables, %d heads)" % (label, compared,
                                                     n_heads),
       "%d differ" % differ)


def check_run(driver, mha, cwd, name, text, label, notes=True):
    """The page's data against the program's page for --model name text:
    the same, the step-through's notes too; with notes=False (the
    classroom page's core, which leaves the checkpoint families' notes
    out: src/render/explain_checkpoints_page.c), the same but the notes, and
    the page's steps without one."""
    data = json.loads(driver.execute_script(PAGE_DATA))
    want = program_data(mha, cwd, name, text)
    n_notes = sum(bool(s.get("note")) for s in steps_of(want))
    if notes:
        ok(without_labels(data) == without_labels(want) and n_notes > 0,
           "%s: the page's data is the program's page's, the "
           "step-through's %d notes too (%d layers)" %
           (label, n_notes, len(want["variants"])))
    else:
        ok(without_notes(data) == without_notes(want) and
           not any(s.get("note") for s in steps_of(data)),
           "%s: the page's data is the program's page's but the "
           "checkpoint's notes, which the classroom core leaves out "
           "(%d layers)" % (label, len(want["variants"])))
    check_csv(mha, cwd, name, text, data, label)


def program_message(mha, cwd, name, text):
    r = mha.run(["--model", name, "--", text], env=ENV, cwd=cwd)
    first = r.stderr.decode("utf-8").split("\n")[0]
    return r.returncode, first.replace("mha-explain: ", "", 1)


def main():
    mha = Program(sys.argv[1])
    cases = os.path.abspath(sys.argv[2])
    shots = sys.argv[3] if len(sys.argv) > 3 else None
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        r = mha.run(["O gato sobe no tapete", "--heads", "2", "--html",
                     page], env=ENV)
        need_core(page)
        driver = browser(tmp)
        try:
            driver.set_window_size(1280, 720)
            for c in ("two_layers", "four_heads_bf16", "tiny"):
                shutil.copytree(os.path.join(cases, c), os.path.join(tmp, c))
            driver.get("file://" + page)
            driver.get_log("performance")
            driver.get_log("browser")
            driver.execute_script(
                "document.addEventListener('mha-model-ran', function () {"
                " window.mhaModelRuns = (window.mhaModelRuns || 0) + 1; });")
            box = driver.find_element(By.ID, "model-open")
            ok(box.get_attribute("open") is None,
               "a page without a model: Open a model is closed")
            box.find_element(By.TAG_NAME, "summary").send_keys(Keys.ENTER)
            ok(box.get_attribute("open") is not None,
               "Open a model opens with the keyboard")

            # the text first (no folder yet: nothing runs), then folders
            text = "hello world"
            field = driver.find_element(By.ID, "model-open-text")
            field.clear()
            field.send_keys(text + Keys.TAB)
            ok(switches(driver) == ["0.0", "0.1"],
               "the lesson run: the head view's switches of its heads",
               switches(driver))
            for c in ("two_layers", "four_heads_bf16"):
                state = choose(driver, os.path.join(tmp, c))
                ok(state == "ok", "%s: the folder is opened and run" % c,
                   driver.find_element(By.ID, "model-open-error").text)
                check_run(driver, mha, tmp, c, text, c, notes=False)
                # the classroom page's core runs no --ablate on a
                # checkpoint: the lesson editor's switches are not drawn
                ok(switches(driver) == [],
                   "%s: the model's head view has no switch" % c,
                   switches(driver))
            if shots:
                driver.save_screenshot(os.path.join(shots, "open-model.png"))
            # the lesson editor's run again: its switches are back
            before = driver.execute_script(
                "return window.mhaPage.data().variants[0].name;")
            driver.execute_script(
                "document.getElementById('editor-form').requestSubmit();")
            time.sleep(0.3)
            ok(before == "h.0" and switches(driver) == ["0.0", "0.1"] and
               driver.execute_script(
                   "return window.mhaPage.data().variants[0].name;") ==
               "single",
               "the lesson run again: the head view's switches are back",
               switches(driver))

            # a new text, typed
            field = driver.find_element(By.ID, "model-open-text")
            field.clear()
            before = runs(driver)
            field.send_keys("hello, hello world!" + Keys.ENTER)
            ok(wait_state(driver, before) == "ok", "a typed text runs")
            check_run(driver, mha, tmp, "four_heads_bf16",
                      "hello, hello world!", "typed text", notes=False)

            # broken folders: the program's message, the views kept
            def broken(name, change):
                shutil.copytree(os.path.join(cases, "tiny"),
                                os.path.join(tmp, name))
                change(os.path.join(tmp, name))
                state = choose(driver, os.path.join(tmp, name))
                got = driver.find_element(By.ID, "model-open-error").text
                status, want = program_message(mha, tmp, name,
                                               "hello, hello world!")
                ok(state == "error" and status == 2 and got == want,
                   "%s: the program's message" % name, [got, want])
                ok("stale" in driver.find_element(By.ID, "app")
                   .get_attribute("class"),
                   "%s: the views keep the last run, greyed" % name)

            broken("no_merges",
                   lambda d: os.remove(os.path.join(d, "merges.txt")))

            def truncate(d):
                p = os.path.join(d, "model.safetensors")
                with open(p, "rb") as f:
                    b = f.read()
                with open(p, "wb") as f:
                    f.write(b[:-5])
            broken("truncated", truncate)

            def unknown(d):
                p = os.path.join(d, "config.json")
                with open(p, encoding="utf-8") as f:
                    c = json.load(f)
                c["model_type"] = "mamba"
                with open(p, "w", encoding="utf-8") as f:
                    json.dump(c, f)
            broken("unknown_type", unknown)
            # a file past what the page's core can hold: refused before
            # it is read (a sparse file: nothing is written)
            big = os.path.join(tmp, "too_large")
            shutil.copytree(os.path.join(cases, "tiny"), big)
            size = 2 ** 31 + 12345
            os.truncate(os.path.join(big, "model.safetensors"), size)
            state = choose(driver, big)
            got = driver.find_element(By.ID, "model-open-error").text
            ok(state == "error" and got ==
               "too_large/model.safetensors: %d bytes, more than the "
               "2147483647 bytes the page can hold" % size,
               "a file over 2 GB is refused with its size", got)
            if shots:
                driver.save_screenshot(os.path.join(shots,
                                                    "open-model-error.png"))
            state = choose(driver, os.path.join(tmp, "tiny"))
            ok(state == "ok", "after a broken folder, a good one runs")
            check_run(driver, mha, tmp, "tiny", "hello, hello world!",
                      "tiny after the errors", notes=False)

            errors = [e for e in driver.get_log("browser")
                      if e["level"] in ("SEVERE", "WARNING")]
            ok(not errors, "no console error or warning", errors)
            asked = [u for u in requests_made(driver)
                     if not u.startswith("file://" + page)]
            ok(not asked, "no request but the page itself", asked)

            # a Portuguese page: its words and the program's message in
            # Portuguese
            pt = os.path.join(tmp, "pt.html")
            mha.run(["O gato sobe no tapete", "--heads", "2", "--lang",
                     "pt_BR", "--html", pt], env=ENV)
            driver.get("file://" + pt)
            summary = driver.find_element(
                By.CSS_SELECTOR, "#model-open summary").text
            state = choose(driver, os.path.join(tmp, "unknown_type"))
            got = driver.find_element(By.ID, "model-open-error").text
            r = mha.run(["--lang", "pt_BR", "--model", "unknown_type",
                         "hello"], env=ENV, cwd=tmp)
            want = r.stderr.decode("utf-8").split("\n")[0].replace(
                "mha-explain: ", "", 1)
            ok(summary == "Abrir um modelo" and state == "error" and
               got == want and "model_type" in got,
               "a Portuguese page: its words and the program's message in "
               "Portuguese", [summary, got, want])

            # a page written from a folder asks for it
            named = os.path.join(tmp, "named.html")
            r = mha.run(["--model", os.path.join(tmp, "tiny"), "--html",
                         named, "hello"], env=ENV)
            driver.get("file://" + named)
            box = driver.find_element(By.ID, "model-open")
            note = driver.find_element(By.ID, "model-open-named").text
            ok(box.get_attribute("open") is not None and "tiny" in note,
               "a --model page opens asking for its folder, named", note)
            changed = driver.find_element(By.ID, "editor-note")
            ok(changed.is_displayed() and "Open a model" in changed.text,
               "a --model page's note says Open a model changes its run",
               changed.text)
            if shots:
                driver.save_screenshot(os.path.join(shots,
                                                    "open-model-note.png"))
            # its core (the families core, in a worker) has the
            # checkpoint's step-through notes: the program's page's
            driver.execute_script(
                "document.addEventListener('mha-model-ran', function () {"
                " window.mhaModelRuns = (window.mhaModelRuns || 0) + 1; });")
            for c in ("two_layers", "tiny"):
                state = choose(driver, os.path.join(tmp, c))
                ok(state == "ok", "a --model page: %s is opened and run" % c,
                   driver.find_element(By.ID, "model-open-error").text)
                check_run(driver, mha, tmp, c, "hello", "a --model page, " + c)
                hint = driver.find_element(By.ID, "model-open-named")
                ok(not hint.is_displayed(),
                   "a --model page with %s open no longer asks for tiny" % c,
                   hint.text)
                # the note on the page's own run: gone while another
                # folder's run is on view, back with the page's folder
                shown = driver.find_element(By.ID,
                                            "editor-note").is_displayed()
                ok(shown == (c == "tiny"),
                   "a --model page with %s open: the note on its run %s"
                   % (c, "shows" if c == "tiny" else "is hidden"), shown)
                if shots and c == "two_layers":
                    driver.save_screenshot(os.path.join(
                        shots, "open-model-other-folder.png"))
            if shots:
                driver.save_screenshot(os.path.join(shots,
                                                    "open-model-named.png"))
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
