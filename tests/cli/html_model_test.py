#!/usr/bin/env python3
"""html_model_test.py MHA_EXPLAIN: the page of a trained model
(docs/html.md, "A trained model's page") in headless Chromium.

A model is trained on a small Portuguese corpus written as sentences
(capitals, commas, full stops: --lower --punct split) and saved with
--csv-dir; the page of that training run, and the page of a run of the
saved folder with --weights, each carry the model. On each page the
class types new sentences of the model's words: after each, the page's
data must be the program's (the JSON of the page `mha-explain SENTENCE
--weights DIR --html` writes), every `data-weight` of the head view the
value `--format csv` of the same command line writes, and a sentence
with a word the model does not know must show the program's refusal. The
page lists the words the model knows (model.json's vocabulary); the
command line it shows makes the page on screen. A model with --unk takes
any word. The sentence field marks the words the model does not know:
exactly the whitespace pieces that `mha-explain PIECE --weights DIR`
refuses (with --unk: that it reads as <unk>). A page whose model was
trained on a corpus carries the corpus, and the class keeps training on
it: after each number of further steps (and learning rate) is typed, the
page's data and head view must be those of `SENTENCE --weights DIR
--train K --corpus FILE --column NAME --optimizer adam [--lr RATE]`. A model too large for a page is refused with status 2 and no
page. Exits 77 (skipped) when no browser can be run.
"""
import csv
import io
import json
import os
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import requests_made, start_browser  # noqa: E402  (skips: 77)
from html_live_test import (PAGE_DATA, page_lines, type_into,  # noqa: E402
                            wait_ready, wait_recomputed)
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ENV = {"LANGUAGE": "", "LC_ALL": "C.UTF-8"}
CORPUS = ["O gato come o peixe.", "O cachorro, bravo, late.",
          "A menina lê o livro.", "O peixe nada no rio.",
          "A menina vê o gato, e o gato dorme."]
SIZES = ["--d-model", "8", "--d-out", "8", "--heads", "2"]


def page_data(path):
    with open(path, encoding="utf-8") as f:
        html = f.read()
    start = html.index('id="mha-data">\n') + len('id="mha-data">\n')
    return json.loads(html[start:html.index("\n</script>", start)])


def page_run(path):
    """The page's command line (<script id="mha-run">)."""
    with open(path, encoding="utf-8") as f:
        html = f.read()
    start = html.index('id="mha-run">\n') + len('id="mha-run">\n')
    return json.loads(html[start:html.index("\n</script>", start)])


def native(mha, tmp, sentence, folder, extra=()):
    """`SENTENCE --weights folder EXTRA`: (status, CSV weights, page data,
    message)."""
    page = os.path.join(tmp, "native.html")
    r = mha.run(["--format", "csv", "--html", page, "--weights", folder] +
                list(extra) + ["--", sentence], env=ENV, cwd=tmp)
    message = r.stderr.decode("utf-8").split("\n")[0]
    if r.returncode != 0:
        return r.returncode, None, None, message[len("mha-explain: "):]
    values = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))):
        if row["table"] == "attn_weights" and row["head"] != "":
            values[(row["variant"], row["head"], row["row"],
                    row["col"])] = row["value"]
    return 0, values, page_data(page), ""


def compare(driver, mha, tmp, sentence, folder, name, extra=()):
    """The page after the sentence was typed, against the program."""
    status, values, data, message = native(mha, tmp, sentence, folder,
                                           extra)
    error = driver.find_element(By.ID, "editor-error")
    if status != 0:
        ok(error.is_displayed() and error.text == message,
           "%s: refused with the program's message" % name,
           [error.text, message])
        return False
    ok(not error.is_displayed(), "%s: no error shown" % name, error.text)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(got == data, "%s: the page's data is the program's" % name)
    lines = page_lines(driver)
    wrong = [l for l in lines
             if values.get((l[0], l[1], l[2], l[3])) != l[4]]
    ok(lines and not wrong,
       "%s: %d data-weight values equal --format csv" % (name, len(lines)),
       wrong[:3])
    return True


def check_command(driver, mha, tmp):
    """The command line the editor shows makes the page on screen."""
    command = driver.execute_script(
        "return document.getElementById('editor-command').textContent;")
    shown = os.path.join(tmp, "shown.html")
    r = mha.run(["--html", shown] + shlex.split(command)[1:], env=ENV,
                cwd=tmp)
    ok(r.returncode == 0 and page_data(shown) ==
       json.loads(driver.execute_script(PAGE_DATA)),
       "the command line the editor shows makes the page on screen: %s" %
       command, r.stderr)


def marked(driver):
    """The words the sentence field marks as unknown."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#sentence-words "
        "mark.unknown-word')).map(function (m) { return m.textContent; });")


def refused_pieces(mha, tmp, sentence, folder, unk):
    """The whitespace pieces of sentence the program does not know, each
    run alone: refused (status 2), or with --unk read as <unk>."""
    with open(os.path.join(tmp, folder, "model.json"),
              encoding="utf-8") as f:
        first = json.load(f)["vocab"][0]
    out = []
    for piece in sentence.split():
        # after a word the model knows: a trained model reads two tokens
        # or more (the next word to predict)
        r = mha.run(["--weights", folder, "--tables", "tokens", "--format",
                     "csv", "--", first + " " + piece], env=ENV, cwd=tmp)
        if unk:
            rows = list(csv.DictReader(io.StringIO(
                r.stdout.decode("utf-8"))))
            if any(row["row_label"] == "<unk>" and row["row"] != "0"
                   for row in rows):
                out.append(piece)
        elif r.returncode == 2:
            out.append(piece)
    return out


def check_marks(driver, mha, tmp, folder, sentences, label, unk=False):
    """Typing each sentence (no change event: the marks follow the keys)
    marks the pieces the program does not know."""
    for sentence in sentences:
        e = driver.find_element(By.CSS_SELECTOR, "[data-edit=sentence]")
        e.send_keys(Keys.CONTROL, "a")
        e.send_keys(sentence)
        want = refused_pieces(mha, tmp, sentence, folder, unk)
        got = marked(driver)
        ok(got == want and (unk or want),
           "%s: %r marks %s, as the program takes them" %
           (label, sentence, want), got)
        e.send_keys(Keys.TAB)


def check_training(driver, mha, tmp, folder, sentence, label):
    """Further training in the page on the corpus it carries."""
    note = driver.find_element(By.ID, "model-corpus").text
    ok("5 sentences of corpus.csv" in note and "frase" in note,
       "%s: the page says which corpus it carries" % label, note)
    type_into(driver, "sentence", sentence)
    for steps, lr in (("12", ""), ("7", "0.05")):
        type_into(driver, "train", steps)
        ok(wait_recomputed(driver), "%s: %s further steps recomputed" %
           (label, steps))
        if lr:
            type_into(driver, "lr", lr)
            ok(wait_recomputed(driver), "%s: lr %s recomputed" % (label, lr))
        extra = ["--train", steps, "--corpus", "corpus.csv", "--column",
                 "frase", "--optimizer", "adam"] + (["--lr", lr] if lr
                                                    else [])
        if compare(driver, mha, tmp, sentence, folder,
                   "%s: %s further steps, lr %s" % (label, steps,
                                                    lr or "default"),
                   extra):
            check_command(driver, mha, tmp)
    type_into(driver, "lr", "")
    type_into(driver, "train", "0")
    ok(wait_recomputed(driver), "%s: back to the trained model" % label)


def check_page(driver, mha, tmp, page, folder, sentences, label,
               corpus=False):
    """The page's editor over the model of folder."""
    driver.get("file://" + page)
    driver.get_log("performance")
    driver.get_log("browser")
    driver.get("file://" + page)
    ok(wait_ready(driver), "%s: the page's core is ready" % label)
    with open(os.path.join(tmp, folder, "model.json"),
              encoding="utf-8") as f:
        vocab = json.load(f)["vocab"]
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#model-words "
        "code')).map(function (c) { return c.textContent; });")
    ok(shown == vocab, "%s: the page lists the %d words the model knows" %
       (label, len(vocab)), shown)
    hidden = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-edit]'))"
        ".filter(function (e) { return e.offsetParent !== null; })"
        ".map(function (e) { return e.getAttribute('data-edit'); });")
    edited = ["sentence"] + (["train", "optimizer", "lr", "grad"]
                             if corpus else [])
    ok(hidden == edited, "%s: only %s edited" % (label, ", ".join(edited)),
       hidden)
    for sentence in sentences:
        if not driver.execute_script(
                "return document.getElementById('editor').open;"):
            driver.find_element(By.CSS_SELECTOR, "#editor summary").click()
        type_into(driver, "sentence", sentence)
        if compare(driver, mha, tmp, sentence, folder,
                   "%s: %r" % (label, sentence)):
            check_command(driver, mha, tmp)
    if corpus:
        check_training(driver, mha, tmp, folder, sentences[0], label)
    errors = [e for e in driver.get_log("browser")
              if e["level"] in ("SEVERE", "WARNING")]
    ok(not errors, "%s: no console error or warning" % label, errors[:3])
    others = [u for u in requests_made(driver)
              if not u.startswith("file://") and u != "about:blank"]
    ok(not others, "%s: no request but the page" % label, others)


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "corpus.csv"), "w",
                  encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["frase"])
            for s in CORPUS:
                w.writerow([s])
        train = ["--train", "40", "--corpus", "corpus.csv", "--column",
                 "frase", "--lower", "--punct", "split", "--positions",
                 "--variant", "single,fused"] + SIZES
        r = mha.run(["O gato come o peixe."] + train +
                    ["--csv-dir", "modelo", "--html", "trained.html",
                     "--tables", "loss"], env=ENV, cwd=tmp)
        ok(r.returncode == 0, "a corpus-trained run writes its page and "
           "its folder", r.stderr)
        r = mha.run(["A menina come o peixe.", "--weights", "modelo",
                     "--html", "reloaded.html"], env=ENV, cwd=tmp)
        ok(r.returncode == 0, "a --weights run writes its page", r.stderr)
        r = mha.run(["A menina come o peixe.", "--weights", "modelo",
                     "--train", "3", "--corpus", "corpus.csv", "--column",
                     "frase", "--csv-dir", "modelo3", "--html",
                     "further.html"], env=ENV, cwd=tmp)
        ok(r.returncode == 0, "a --weights run trained further writes its "
           "page and its folder", r.stderr)
        ok(page_run(os.path.join(tmp, "further.html"))["model"]["dir"] ==
           "modelo3", "the page of a model trained further names the "
           "folder it was saved in, not the one it started from")
        r = mha.run(["o gato dorme", "--train", "20", "--corpus",
                     "corpus.csv", "--column", "frase", "--unk", "--lower",
                     "--punct", "drop", "--csv-dir", "unk",
                     "--html", "unk.html"] + SIZES, env=ENV, cwd=tmp)
        ok(r.returncode == 0, "a run with --unk writes its page", r.stderr)

        # a model too large for a page: refused, no page, no folder
        r = mha.run(["o gato come", "--train", "1", "--corpus", "corpus.csv",
                     "--column", "frase", "--variant", "fused", "--d-model",
                     "256", "--d-out", "256", "--html", "big.html",
                     "--csv-dir", "big"], env=ENV, cwd=tmp)
        message = r.stderr.decode("utf-8")
        ok(r.returncode == 2 and "--html: the trained model has" in message
           and "1048 kB a page carries" in message
           and not os.path.exists(os.path.join(tmp, "big.html"))
           and not os.path.exists(os.path.join(tmp, "big")),
           "a model too large for a page is refused, with its numbers",
           [r.returncode, message])

        with open(os.path.join(tmp, "trained.html"), encoding="utf-8") as f:
            text = f.read()
        if 'id="mha-core"' not in text:
            print("# the program was built without the WebAssembly core")
            return done()
        ok('id="mha-model"' in text, "the trained run's page carries "
           "its model")
        profile = os.path.join(tmp, "profile")
        os.mkdir(profile)
        driver, why = start_browser(profile)
        if driver is None:
            print("# SKIP the browser part: " + why)
            return done()
        try:
            # new sentences of the model's words, written as sentences;
            # one with a word it does not know; one longer than its
            # positions
            sentences = ["A menina come o peixe.", "O gato, bravo, late.",
                         "O rio nada", "O gato come o bolo.",
                         "o gato " * 8]
            check_page(driver, mha, tmp, os.path.join(tmp, "trained.html"),
                       "modelo", sentences, "trained page", corpus=True)
            check_marks(driver, mha, tmp, "modelo",
                        ["O gato come o bolo.", "A Menina, brava, canta!"],
                        "trained page")
            check_page(driver, mha, tmp, os.path.join(tmp, "reloaded.html"),
                       "modelo", sentences[:3], "--weights page")
            check_marks(driver, mha, tmp, "modelo", ["o rato roeu a roupa"],
                        "--weights page")
            check_page(driver, mha, tmp, os.path.join(tmp, "further.html"),
                       "modelo3", sentences[1:2], "--weights --train page",
                       corpus=True)
            check_page(driver, mha, tmp, os.path.join(tmp, "unk.html"),
                       "unk", ["O gato come o bolo de chocolate!"],
                       "--unk page", corpus=True)
            check_marks(driver, mha, tmp, "unk",
                        ["O gato come o bolo de chocolate!"], "--unk page",
                        unk=True)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
