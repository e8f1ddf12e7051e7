#!/usr/bin/env python3
"""html_trained_block_test.py MHA_EXPLAIN [SHOTS]: the page of the
induction-head lesson's training (docs/interventions.md: a stack of two
attention-only blocks with positions, trained on a corpus of repeated
random sequences, --html) in headless Chromium.

Its editor runs a new sentence as `SENTENCE --weights MODEL --attn-only`
(--attn-only is kept, model.json repeats it): the sentence typed and
Enter pressed, the page must show no error, its data must be the
program's (the page `--weights DIR --attn-only --html` writes, DIR saved
by the same training with --csv-dir) and every `data-weight` of its head
view the value `--format csv` writes; the command line the editor shows
makes the page on screen. With SHOTS, a folder, the page is saved there
as trained-block.png. Exits 77 (skipped) when no browser can be run.
"""
import csv
import io
import json
import os
import random
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402  (skips: 77)
from html_live_test import (PAGE_DATA, page_lines, wait_ready,  # noqa
                            wait_recomputed)
from html_model_test import ENV, page_data  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

SHOTS = sys.argv[2] if len(sys.argv) > 2 else None
LESSON = ["--corpus", "rr.csv", "--column", "text", "--train", "30",
          "--variant", "block", "--layers", "2", "--attn-only", "--d-model",
          "8", "--heads", "2", "--positions", "--seed", "2", "--lr", "0.003"]
SHOWN = "w1 w2 w3 w4 w1 w2 w3 w4"


def native(mha, tmp, args):
    """The program's run of args: (status, CSV weights by (block.LAYER,
    head, row, col), page data, stderr)."""
    page = os.path.join(tmp, "native.html")
    r = mha.run(["--format", "csv", "--html", page] + args, env=ENV,
                cwd=tmp)
    if r.returncode != 0:
        return r.returncode, None, None, r.stderr
    values = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))):
        if row["table"] == "attn_weights" and row["head"] != "":
            values[(row["variant"] + "." + row["layer"], row["head"],
                    row["row"], row["col"])] = row["value"]
    return 0, values, page_data(page), r.stderr


def compare(driver, mha, tmp, sentence, name):
    """The page after the sentence was typed against the program's run of
    the saved model, and the command line the editor shows (its MODEL the
    saved folder) against the page on screen."""
    error = driver.find_element(By.ID, "editor-error")
    ok(not error.is_displayed(), "%s: no error shown" % name, error.text)
    status, values, data, stderr = native(
        mha, tmp, ["--weights", "model", "--attn-only", "--", sentence])
    ok(status == 0, "%s: the program runs it" % name, stderr)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(status == 0 and got == data,
       "%s: the page's data is the program's" % name)
    lines = page_lines(driver)
    wrong = [l for l in lines
             if values is None or values.get(tuple(l[:4])) != l[4]]
    ok(lines and not wrong,
       "%s: %d data-weight values equal --format csv" % (name, len(lines)),
       wrong[:3])
    command = driver.execute_script(
        "return document.getElementById('editor-command').textContent;")
    args = ["model" if a == "MODEL" else a
            for a in shlex.split(command)[1:]]
    ok("--attn-only" in args and "--weights" in args,
       "%s: the editor runs the model with --attn-only: %s" % (name, command))
    status, _, shown, stderr = native(mha, tmp, args)
    ok(status == 0 and shown == got, "%s: the command line the editor "
       "shows makes the page on screen" % name, stderr)


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        rnd = random.Random(2)
        with open(os.path.join(tmp, "rr.csv"), "w", encoding="utf-8") as f:
            f.write("text\n")
            for _ in range(40):
                half = ["w%d" % rnd.randrange(10)
                        for _ in range(rnd.randint(3, 6))]
                f.write(" ".join(half + half) + "\n")
        page = os.path.join(tmp, "ind.html")
        r = mha.run(LESSON + ["--html", page, SHOWN], env=ENV, cwd=tmp)
        ok(r.returncode == 0, "the lesson's training writes its page",
           r.stderr)
        r = mha.run(LESSON + ["--csv-dir", "model", "--tables", "loss",
                              SHOWN], env=ENV, cwd=tmp)
        ok(r.returncode == 0, "the same training saves its model", r.stderr)
        need_core(page)
        driver = browser(tmp)
        try:
            driver.get("file://" + page)
            ok(wait_ready(driver), "the page's core is ready")
            if not driver.execute_script(
                    "return document.getElementById('editor').open;"):
                driver.find_element(By.CSS_SELECTOR,
                                    "#editor summary").click()
            for sentence in ("w5 w6 w7 w5 w6 w7", "w9 w0 w9 w0 w9"):
                e = driver.find_element(By.CSS_SELECTOR,
                                        "[data-edit=sentence]")
                e.send_keys(Keys.CONTROL, "a")
                e.send_keys(sentence)
                e.send_keys(Keys.ENTER)
                ok(wait_recomputed(driver), "%r: recomputed" % sentence)
                compare(driver, mha, tmp, sentence,
                        "%r typed, Enter" % sentence)
            if SHOTS:
                # the editor's last run and, under it, its head view
                driver.execute_script(
                    "document.getElementById('editor-command')"
                    ".scrollIntoView();")
                driver.save_screenshot(os.path.join(SHOTS,
                                                    "trained-block.png"))
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
