#!/usr/bin/env python3
"""html_live_limit_test.py MHA_EXPLAIN: the live --html page's editor and
a long sentence (docs/html.md, "The live page").

The editor recomputes on the page's own thread, so it refuses a sentence
longer than it recomputes (its `data-most-tokens`, editor_settings.js)
before the core runs: the message, in the page's language, with the
number of tokens and the limit, the command line that runs it, the views
left as they were, and the page answering at once; the same for --kv and
for --tokens chars. A sentence at the limit is recomputed, saying so
first (`data-recomputed=busy`, "Recomputing N tokens..."), and after a
refusal a short sentence is recomputed as before. Exits 77 (skipped)
when no browser can be run.
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402
from html_live_test import wait_ready  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

# Sets the sentence (and --kv, --tokens) and sends one change event; the
# editor's state, status, message and command line just after it.
SET = """
var f = function (n) {
  return document.querySelector('[data-edit=' + n + ']');
};
f('sentence').value = arguments[0];
f('kv').value = arguments[1];
f('tokens').value = arguments[2];
f('sentence').dispatchEvent(new Event('change', {bubbles: true}));
var error = document.getElementById('editor-error');
return [document.getElementById('editor').getAttribute('data-recomputed'),
        document.getElementById('editor-status').textContent,
        error.hidden ? '' : error.textContent,
        document.getElementById('editor-command').textContent];
"""

QUERIES = "return window.mhaPage.data().queries;"

MESSAGES = {
    "en": "A sentence of {0} tokens is longer than the {1} this page "
          "recomputes; run it on the command line (below).",
    "pt_BR": "Uma frase de {0} tokens é mais longa que os {1} que esta "
             "página recalcula; rode-a na linha de comando (abaixo).",
}


def load(driver, page):
    driver.get("file://" + page)
    return wait_ready(driver, 60)


def wait_recomputed(driver):
    end = time.monotonic() + 240
    while time.monotonic() < end:
        state = driver.execute_script(
            "return document.getElementById('editor')"
            ".getAttribute('data-recomputed');")
        if state != "busy":
            return state
        time.sleep(0.1)
    return "busy"


def words(n):
    return " ".join("w%d" % (i % 50) for i in range(n))


def check_refused(driver, name, lang, sentence, kv, tokens, count, most):
    before = driver.execute_script(QUERIES)
    t0 = time.monotonic()
    state = driver.execute_script(SET, sentence, kv, tokens)
    answered = driver.execute_script("return 1 + 1;") == 2
    took = time.monotonic() - t0
    want = MESSAGES[lang].format(count, most)
    ok(state[0] == "error" and state[2] == want,
       "%s: refused with its message" % name, [state[0], state[2], want])
    ok(state[1] == "" and "--tokens %s" % tokens in state[3],
       "%s: no status, the command line shown" % name, state)
    ok(answered and driver.execute_script(QUERIES) == before,
       "%s: the page answers, its views the last run's" % name,
       "%.1f s" % took)


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        driver = browser(tmp)
        driver.set_script_timeout(300)
        try:
            page = os.path.join(tmp, "live.html")
            r = mha.run(["O gato sobe no tapete", "--heads", "2", "--html",
                         page], env={"LANGUAGE": "", "LC_ALL": "C.UTF-8"})
            ok(r.returncode == 0, "the classroom page is written", r.stderr)
            need_core(page)
            ok(load(driver, page), "the page's core is ready")
            most = int(driver.execute_script(
                "return document.getElementById('editor')"
                ".getAttribute('data-most-tokens');"))
            ok(20 <= most <= 8000, "the page recomputes up to %d tokens"
               % most)

            check_refused(driver, "%d words" % (most + 1), "en",
                          words(most + 1), "", "words", most + 1, most)
            check_refused(driver, "--kv of %d words" % (most + 7), "en",
                          "the cat", words(most + 7), "words", most + 7,
                          most)
            check_refused(driver, "%d characters" % (most + 1), "en",
                          "猫 " * (most + 1), "", "chars", most + 1, most)

            state = driver.execute_script(SET, "the cat sat", "", "words")
            ok(state[0] == "ok" and state[2] == "" and
               driver.execute_script(QUERIES) == ["the", "cat", "sat"],
               "after a refusal a short sentence is recomputed at once",
               state)

            long = words(most)
            state = driver.execute_script(SET, long, "", "words")
            ok(state[0] == "busy" and
               state[1] == "Recomputing %d tokens\u2026" % most,
               "%d words: the page says it recomputes before it stops"
               % most, state)
            ok(wait_recomputed(driver) == "ok" and
               driver.execute_script(QUERIES) == long.split(),
               "%d words: recomputed" % most)

            pt = os.path.join(tmp, "pt.html")
            r = mha.run(["O gato sobe no tapete", "--heads", "2", "--html",
                         pt, "--lang", "pt_BR"])
            ok(r.returncode == 0, "the Portuguese page is written")
            ok(load(driver, pt), "the Portuguese page's core is ready")
            check_refused(driver, "pt_BR: %d words" % (most + 2), "pt_BR",
                          words(most + 2), "", "words", most + 2, most)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
