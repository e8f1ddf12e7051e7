#!/usr/bin/env python3
"""A model opened in a Portuguese and a Chinese page: every word in the
page's language, with the keyboard alone, in headless Chromium.

Usage: html_open_words_test.py MHA_EXPLAIN GPT2_DIR LLAMA_DIR PO_DIR
       [SCREENSHOT_DIR]

For --lang pt_BR and zh_CN, the page of `mha-explain --lang L --model
tiny --generate 2 --html` (the families core, in a worker) is opened at
1280 x 720 and used with the keyboard only: Tab reaches the folder picker
(the folder is then given to the focused picker, as a file dialog would),
the text (typed, Enter runs it), the generation's new tokens (typed:
"Generating" shows), the view buttons (Enter) and the step-through's Next
(Enter, to its last step). A Llama folder is opened too, then every bad
folder of the CLI's tests (the status saying the folder's model loads,
never that it generates, before the message: a file missing, a
safetensors file truncated, too short or its header past its end, an
unknown model_type, a vocabulary or a tokenizer that does not match the
weights, a file too large); each shows the program's message for --lang
L, word for word, and the page keeps working; a classroom page refuses a
Llama folder, naming the page that reads it. Everything the page showed
on the way (its text, the statuses and messages, titles, placeholders and
accessible names) must hold no English word: no word of the English
messages (po/LANG.po's msgids) that LANG.po's translations never write,
once the names the page shows as the program writes them are set aside
(the run's tokens, files, folders and options, the tables' and layers'
names).
Screenshots of each page when SCREENSHOT_DIR is given. Exits 77 (skipped)
without a browser or the WebAssembly core.
"""
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402  (skips: 77)
from html_open_families_test import WATCH, statuses  # noqa: E402
from html_open_model_test import ENV, choose, runs, wait_state  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

LANGS = ("pt_BR", "zh_CN")

# What the page shows to a reader: its text, and the titles, placeholders,
# values' words and accessible names of what is on view.
SHOWN = """
var out = [document.body.innerText];
document.querySelectorAll('*').forEach(function (e) {
  if (e.getClientRects().length === 0) return;
  ['title', 'placeholder', 'aria-valuetext'].forEach(function (a) {
    if (e.getAttribute(a)) out.push(e.getAttribute(a));
  });
  if (e.getAttribute('aria-labelledby')) return;
  if (e.getAttribute('aria-label')) out.push(e.getAttribute('aria-label'));
});
return out.join('\\n');"""

# The tokens the run shows (its text's, the generated ones and the
# likeliest next ones): the model's, not the page's words.
TOKENS = """
var d = window.mhaPage.data(), out = [].concat(d.queries, d.keys);
if (d.generation) out = out.concat(d.generation.tokens || [],
                                   d.generation.topTokens || []);
return out;"""

WORD = re.compile(r"[A-Za-z\u00c0-\u00ff]{2,}")


def catalogue_words(po):
    """(the words of the English messages, those of the translations)."""
    english, translated = set(), set()
    key = None
    with open(po, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                key = None
                continue
            m = re.match(r'(msgid|msgid_plural|msgstr(?:\[\d\])?) "(.*)"$',
                         line.rstrip("\n"))
            if m:
                key, text = m.group(1), m.group(2)
            elif line.startswith('"') and key:
                text = line.strip()[1:-1]
            else:
                key = None
                continue
            (translated if key.startswith("msgstr") else english).update(
                WORD.findall(text))
    return english, translated


def names_set_aside(text):
    """text without what the page shows as the program writes it: file
    names and paths, options, the run's tokens, the folders, identifiers
    (attn_scores, h.0, dim3, GPT-2, float32), the tables' names before
    their shapes ("queries (2 x 8)") and the program's name."""
    text = re.sub(r"\S*/\S*", " ", text)
    text = re.sub(r"\S+\.(json|txt|safetensors)\b|\.safetensors", " ", text)
    text = re.sub(r"--[a-z][a-z-]*", " ", text)
    text = re.sub(r"\b(\w+) \(\d+ x \d+\)", " ", text)
    text = text.replace("mha-explain", " ")
    return re.sub(r"[\w.-]*[_\d][\w.-]*", " ", text)


def english_words(texts, names, english, translated):
    """The words of texts that are English: words of the English
    messages the translations never write, but names (the run's tokens
    and the folders' names, whole words)."""
    found = set()
    for t in texts:
        for w in WORD.findall(names_set_aside(t)):
            if w in english and w not in translated and w not in names:
                found.add(w)
    return sorted(found)


def press(driver, *keys):
    ActionChains(driver).send_keys(*keys).perform()


def tab_to(driver, selector, limit=120):
    """Tab pressed until the focus is on selector's element: the number
    of presses, or None."""
    for n in range(1, limit + 1):
        press(driver, Keys.TAB)
        if driver.execute_script(
                "return document.activeElement.matches(arguments[0]);",
                selector):
            return n
    return None


def broken_folders(tmp, gpt2, llama):
    """The bad folders of the CLI's tests: (name, its path)."""
    def made(name, base, change):
        d = os.path.join(tmp, name)
        shutil.copytree(base, d)
        change(d)
        return name, d

    def rm(f):
        return lambda d: os.remove(os.path.join(d, f))

    def rewrite(f, change):
        def go(d):
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                b = change(bytearray(fh.read()))
            with open(p, "wb") as fh:
                fh.write(b)
        return go

    def json_change(f, change):
        def go(b):
            v = json.loads(b.decode("utf-8"))
            change(v)
            return json.dumps(v).encode("utf-8")
        return rewrite(f, go)

    def past_end(b):
        b[0:8] = struct.pack("<Q", len(b))
        return b

    def too_large(d):
        os.truncate(os.path.join(d, "model.safetensors"), 2 ** 31 + 12345)

    w = "model.safetensors"
    return [
        made("no_merges", gpt2, rm("merges.txt")),
        made("no_weights", gpt2, rm(w)),
        made("no_config", llama, rm("config.json")),
        made("truncated", gpt2, rewrite(w, lambda b: b[:-7])),
        made("short", gpt2, rewrite(w, lambda b: bytearray(b"abc"))),
        made("header_past_end", gpt2, rewrite(w, past_end)),
        made("unknown_type", gpt2, json_change(
            "config.json", lambda c: c.update(model_type="mamba"))),
        made("other_vocabulary", gpt2, json_change(
            "vocab.json", lambda v: v.update({"\u0120zzz": len(v) + 9}))),
        made("other_vocab_size", llama, json_change(
            "config.json",
            lambda c: c.update(vocab_size=c["vocab_size"] + 7))),
        made("too_large", gpt2, too_large),
    ]


def cli_message(mha, lang, folder, cwd):
    r = mha.run(["--lang", lang, "--model", folder, "--", "hello world"],
                env=ENV, cwd=cwd)
    first = r.stderr.decode("utf-8").split("\n")[0]
    return r.returncode, first.replace("mha-explain: ", "", 1)


def walk(driver, lang, shown, mha, tmp, tiny, llama, bad, shots):
    """One language's page, with the keyboard: what it showed."""
    def grab():
        shown.append(driver.execute_script(SHOWN))

    page = os.path.join(tmp, lang + ".html")
    r = mha.run(["--lang", lang, "--model", tiny, "--generate", "2",
                 "--html", page, "hello world"], env=ENV)
    driver.get("file://" + page)
    driver.execute_script(WATCH)
    grab()
    tr = lambda *a: driver.execute_script(  # noqa: E731
        "return window.mhaPage.tr.apply(null, arguments);", *a)

    n = tab_to(driver, "#model-open-folder")
    ok(n is not None, "%s: Tab reaches the folder picker (%s presses)" %
       (lang, n))
    # the browser's own button ("Choose Files") is not drawn: the
    # picker's label, in the page's words, is, with a focus ring
    drawn = driver.execute_script("""
      var i = document.getElementById('model-open-folder');
      var l = document.querySelector('label[for=model-open-folder]');
      var r = i.getBoundingClientRect();
      return [r.width, r.height, getComputedStyle(i).opacity, l.innerText,
              getComputedStyle(l).outlineStyle];""")
    ok(drawn[0] <= 1 and drawn[1] <= 1 and drawn[2] == "0" and
       drawn[3] == tr("Open a model") != "Open a model" and
       drawn[4] == "solid",
       "%s: the picker is drawn by its label in the page's words, with a "
       "focus ring" % lang, drawn)
    before = runs(driver)
    driver.switch_to.active_element.send_keys(tiny)
    state = wait_state(driver, before)
    seen = statuses(driver)
    shown.extend(seen)
    loading = tr("Loading layer {0} of {1}\u2026", 1, 1)
    ok(state == "ok" and loading in seen and
       loading != "Loading layer 1 of 1\u2026",
       "%s: the folder given to the focused picker loads (%r) and runs" %
       (lang, loading), seen)
    grab()

    n = tab_to(driver, "#model-open-text", 3)
    ok(n is not None, "%s: Tab goes from the picker to the text" % lang)
    before = runs(driver)
    press(driver, Keys.END, Keys.BACKSPACE * 40, "the cat", Keys.ENTER)
    state = wait_state(driver, before)
    got = driver.execute_script("return window.mhaPage.data().queries;")
    ok(state == "ok" and "".join(got).replace("\u2423", " ") ==
       "the cat", "%s: a text typed and Enter run it" % lang, got)
    shown.extend(statuses(driver))
    grab()

    n = tab_to(driver, "#model-open-generate", 12)
    before = runs(driver)
    press(driver, Keys.END, Keys.BACKSPACE * 5, "3", Keys.TAB)
    state = wait_state(driver, before)
    seen = statuses(driver)
    shown.extend(seen)
    generating = driver.execute_script(
        "return mhaGenerationSay(window.mhaPage.tr)(arguments[0], 3);",
        "Generating {0} tokens\u2026")
    ok(n is not None and state == "ok" and
       any(s.startswith(generating.split("3")[0]) and "3" in s
           for s in seen) and generating != "Generating 3 tokens\u2026",
       "%s: the new tokens typed: '%s' while it generates" %
       (lang, generating), seen)
    grab()

    views = ("head", "matrix", "neuron", "model", "generation", "steps")
    reached = 0
    for v in views:
        sel = "[aria-label=View] button[data-value=%s]" % v
        driver.execute_script("document.activeElement.blur();"
                              "document.body.focus();")
        if tab_to(driver, sel) is None:
            continue
        press(driver, Keys.ENTER)
        time.sleep(0.2)
        if driver.find_element(By.CSS_SELECTOR, sel).get_attribute(
                "aria-pressed") == "true":
            reached += 1
        grab()
    ok(reached == len(views), "%s: every view opened by Tab and Enter "
       "(%d of %d)" % (lang, reached, len(views)))
    # Next reached with Tab; Enter on it (which first scrolls a step
    # taller than the window) until it is disabled, at the last step
    count = set()
    if tab_to(driver, "[data-step=next]", 20) is not None:
        count.add(driver.find_element(By.ID, "step-count").text)
        for _ in range(200):
            if not driver.find_element(
                    By.CSS_SELECTOR, "[data-step=next]").is_enabled():
                break
            press(driver, Keys.ENTER)
            now = driver.find_element(By.ID, "step-count").text
            if now not in count:
                count.add(now)
                grab()
    total = len(driver.execute_script(
        "var d = window.mhaPage.data(); return d.steps.concat.apply("
        "d.steps, d.variants.map(function (v) { return v.steps; }));"))
    notes = driver.find_element(By.ID, "step-note").text
    ok(len(count) > 1 and len(count) == total and notes != "",
       "%s: the step-through walked with Enter on Next, %d steps, to its "
       "last note" % (lang, len(count)), [len(count), total])
    if shots:
        driver.save_screenshot(os.path.join(shots, "open-words-%s.png" %
                                            lang))

    state = choose(driver, llama)
    shown.extend(statuses(driver))
    ok(state == "ok", "%s: a Llama folder runs" % lang)
    grab()

    for name, folder in bad:
        state = choose(driver, folder)
        seen = statuses(driver)
        shown.extend(seen)
        got = driver.find_element(By.ID, "model-open-error").text
        status, want = cli_message(mha, lang, name, tmp)
        ok(state == "error" and got != "" and (got == want or
                                                name == "too_large"),
           "%s: %s: the program's message in the page's language" %
           (lang, name), [got, want, status])
        # while the folder loads, the status says so (not that it
        # generates), then the error alone
        loading = tr("Loading the model in {0}\u2026", name)
        ok(name == "too_large" or
           (loading in seen and loading != "Loading the model in %s\u2026"
            % name and not any(generating.split("3")[0] in s for s in seen)
            and seen[-1] == ""),
           "%s: %s: the status says the model loads, then the error" %
           (lang, name), seen)
        shown.append(got)
        grab()
    if shots:
        driver.save_screenshot(os.path.join(shots,
                                            "open-words-%s-error.png" % lang))
    state = choose(driver, tiny)
    ok(state == "ok", "%s: after the bad folders, a good one runs" % lang)
    grab()
    tokens = set(driver.execute_script(TOKENS))

    # a classroom page (the core of every page) refuses a Llama folder,
    # naming the page that reads it with the value names of --help
    lesson = os.path.join(tmp, lang + "-lesson.html")
    mha.run(["--lang", lang, "O gato sobe", "--heads", "2", "--html",
             lesson], env=ENV)
    driver.get("file://" + lesson)
    driver.execute_script(WATCH)
    state = choose(driver, llama)
    got = driver.find_element(By.ID, "model-open-error").text
    ok(state == "error" and "--model " in got,
       "%s: a classroom page refuses a Llama folder" % lang, got)
    shown.append(got)
    grab()
    return tokens | set(driver.execute_script(TOKENS))


def main():
    mha = Program(sys.argv[1])
    gpt2, llama_dir, po_dir = (os.path.abspath(a) for a in sys.argv[2:5])
    shots = sys.argv[5] if len(sys.argv) > 5 else None
    with tempfile.TemporaryDirectory() as tmp:
        tiny = os.path.join(tmp, "tiny")
        llama = os.path.join(tmp, "llama")
        shutil.copytree(os.path.join(gpt2, "tiny"), tiny)
        shutil.copytree(os.path.join(llama_dir, "llama_tied_f32"), llama)
        bad = broken_folders(tmp, tiny, llama)
        probe = os.path.join(tmp, "probe.html")
        mha.run(["--model", tiny, "--html", probe, "hello"], env=ENV)
        need_core(probe)
        driver = browser(tmp)
        folders = {"tiny", "llama"} | {name for name, _ in bad}
        try:
            driver.set_window_size(1280, 720)
            for lang in LANGS:
                shown = []
                tokens = walk(driver, lang, shown, mha, tmp, tiny, llama,
                              bad, shots)
                names = folders | {"hello", "world", "the", "cat", "gato",
                                   "sobe"} | {
                    t.replace("\u2423", "").strip() for t in tokens}
                english, translated = catalogue_words(
                    os.path.join(po_dir, lang + ".po"))
                found = english_words(shown, names, english, translated)
                ok(not found and len(shown) > 20,
                   "%s: no English word in what the page showed (%d "
                   "texts)" % (lang, len(shown)), found)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
