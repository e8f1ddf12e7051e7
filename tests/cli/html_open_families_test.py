#!/usr/bin/env python3
"""The page of a --model run opening Llama-style and BERT folders, in
headless Chromium.

Usage: html_open_families_test.py MHA_EXPLAIN LLAMA_DIR BERT_DIR GPT2_DIR
       [SCREENSHOT_DIR]

The page of `mha-explain --model DIR --html` carries the families core
and runs it in a Web Worker (model_runner.js, model_worker.js). In such
a page at 1280 x 720, reference checkpoints of tests/reference/llama
(F32, F16, BF16, grouped-query heads, Qwen2's biases, a sharded folder)
and tests/reference/bert (F32, F16), and a GPT-2 folder (BF16), are
chosen in the folder picker:
the page's data must be the program's page's for the same folder and
text (the step-through's notes too) and every layer's and head's attn_scores
and attn_weights `--format csv`'s, bit for bit. While a folder loads,
the status says "Loading layer k of N" for every layer in turn, then
"Loading the model in DIR" for its first run; a text
given while another runs ends that run with its worker, and the second
is run and shown alone; a
Portuguese page says its progress in Portuguese; a classroom page (the
core of every page) refuses a Llama folder with the program's message.
No console error, no request but the page and its worker. Exits 77
(skipped) without a browser or the WebAssembly core.
"""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core, requests_made  # noqa: E402
from html_open_model_test import (ENV, check_run, choose, runs,  # noqa: E402
                                  wait_state)
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

# the status line's texts, as they were shown
WATCH = """
window.mhaStatus = [];
new MutationObserver(function () {
  window.mhaStatus.push(document.getElementById('model-open-status')
                        .textContent);
}).observe(document.getElementById('model-open-status'),
           {childList: true, characterData: true, subtree: true});
document.addEventListener('mha-model-ran', function () {
  window.mhaModelRuns = (window.mhaModelRuns || 0) + 1; });
"""


def statuses(driver):
    return driver.execute_script("var s = window.mhaStatus;"
                                 " window.mhaStatus = []; return s;")


def layers_of(folder):
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    return config.get("num_hidden_layers", config.get("n_layer"))


def open_page(driver, page):
    driver.get("file://" + page)
    driver.execute_script(WATCH)


def main():
    mha = Program(sys.argv[1])
    llama, bert, gpt2 = (os.path.abspath(a) for a in sys.argv[2:5])
    shots = sys.argv[5] if len(sys.argv) > 5 else None
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("llama", c) for c in sorted(os.listdir(llama))
                 if "." not in c]
        cases += [("bert", c) for c in ("mlm", "mlm_f16")]
        cases += [("gpt2", "four_heads_bf16")]
        source = {"llama": llama, "bert": bert, "gpt2": gpt2}
        for family, c in cases:
            shutil.copytree(os.path.join(source[family], c),
                            os.path.join(tmp, c))
        first = cases[0][1]
        page = os.path.join(tmp, "page.html")
        r = mha.run(["--model", os.path.join(tmp, first), "--html", page,
                     "hello world"], env=ENV)
        html = need_core(page)
        ok('id="mha-worker"' in html and "worker-src blob:" in html,
           "the page of a --model run carries the worker and allows it")
        driver = browser(tmp)
        try:
            driver.set_window_size(1280, 720)
            open_page(driver, page)
            driver.get_log("performance")
            driver.get_log("browser")
            text = "the cat sat"
            field = driver.find_element(By.ID, "model-open-text")
            driver.execute_script("arguments[0].value = arguments[1];",
                                  field, text)
            for family, c in cases:
                state = choose(driver, os.path.join(tmp, c))
                seen = statuses(driver)
                ok(state == "ok", "%s: the folder is opened and run" % c,
                   driver.find_element(By.ID, "model-open-error").text)
                check_run(driver, mha, tmp, c, text, c)
                n = layers_of(os.path.join(tmp, c))
                want = ["Loading layer %d of %d\u2026" % (k, n)
                        for k in range(1, n + 1)]
                got = [s for s in seen if s.startswith("Loading layer")]
                # the folder's first run reads its model: the status
                # names it
                ok(sorted(set(got)) == want and got[0] == want[0] and
                   got[-1] == want[-1] and
                   "Loading the model in %s\u2026" % c in seen and
                   seen.index("Loading the model in %s\u2026" % c) >
                   seen.index(want[-1]),
                   "%s: 'Loading layer k of %d' for every layer in turn, "
                   "then 'Loading the model in %s'" % (c, n, c), seen)
                if shots and c == first:
                    driver.save_screenshot(os.path.join(shots,
                                                        "open-llama.png"))

            # a second text while the first runs: the first run is ended
            # with its worker (the second text is given the moment the
            # first is handed to the worker), the second shown
            before = runs(driver)
            driver.execute_script("""
              var f = document.getElementById('model-open-text');
              var post = Worker.prototype.postMessage, given = false;
              Worker.prototype.postMessage = function (m, t) {
                post.call(this, m, t);
                if (m && m.type === 'run' && !given) {
                  given = true;
                  f.value = 'the second text';
                  f.dispatchEvent(new Event('change'));
                }
              };
              f.value = 'a first text';
              f.dispatchEvent(new Event('change'));""")
            state = wait_state(driver, before)
            seen = statuses(driver)
            ok(state == "ok" and runs(driver) == before + 1,
               "a second text while the first runs: one run answered",
               [state, runs(driver), before])
            ok(any(s.startswith("Loading layer") for s in seen),
               "the run under way was ended: a new worker loaded the folder",
               seen)
            check_run(driver, mha, tmp, cases[-1][1], "the second text",
                      "the second text")

            errors = [e for e in driver.get_log("browser")
                      if e["level"] in ("SEVERE", "WARNING")]
            ok(not errors, "no console error or warning", errors)
            asked = [u for u in requests_made(driver)
                     if not u.startswith("file://" + page) and
                     not u.startswith("blob:")]
            ok(not asked, "no request but the page and its worker", asked)

            # a Portuguese page says its progress in Portuguese
            pt = os.path.join(tmp, "pt.html")
            mha.run(["--lang", "pt_BR", "--model", os.path.join(tmp, first),
                     "--html", pt, "hello world"], env=ENV)
            open_page(driver, pt)
            state = choose(driver, os.path.join(tmp, first))
            seen = statuses(driver)
            n = layers_of(os.path.join(tmp, first))
            ok(state == "ok" and
               "Carregando a camada %d de %d\u2026" % (n, n) in seen,
               "a Portuguese page: 'Carregando a camada k de N'", seen)

            # the core of every page reads GPT-2 folders only
            lesson = os.path.join(tmp, "lesson.html")
            mha.run(["O gato sobe no tapete", "--heads", "2", "--html",
                     lesson], env=ENV)
            with open(lesson, encoding="utf-8") as f:
                text_of = f.read()
            ok('id="mha-worker"' not in text_of and
               "worker-src" not in text_of,
               "a classroom page carries no worker")
            open_page(driver, lesson)
            state = choose(driver, os.path.join(tmp, first))
            got = driver.find_element(By.ID, "model-open-error").text
            ok(state == "error" and "mha-explain --model DIR --html FILE"
               in got, "a classroom page: a Llama folder is refused, "
               "naming the page that reads it", got)
            if shots:
                driver.save_screenshot(os.path.join(shots,
                                                    "open-llama-refused.png"))
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
