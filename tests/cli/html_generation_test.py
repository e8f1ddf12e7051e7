#!/usr/bin/env python3
"""html_generation_test: the Generation view of a --generate run's --html
page, its settings in the live page, and the Logit lens view, in
headless Chromium at 1280 x 720 (and 1920 x 1080).

- a GPT-2 test checkpoint, greedy, and sampled with --kv-steps: at every
  step of the slider (moved with the arrow keys), the text shows the
  prompt and the tokens so far; the bars are generated_top's rows of the
  step (ids and probabilities as --format csv writes them), the one
  picked marked and equal to the table generated; every layer's and
  head's cell is the CSV's weight of the last token over the keys so far
  (the prompt's attn_weights at the first step, the step's table of
  --kv-steps after it);
- a Llama-style checkpoint without --kv-steps, which keeps the prompt's
  rows only: after the first step, the caption says the model keeps a
  cache and --kv-steps keeps every step's;
- GPT-2 and Llama-style checkpoints with --show-heads that leaves head 0
  out: at every step, a row per layer and head shown, the CSV's weights;
- a lesson model after --train (the wrapper, and a stack of two
  blocks), which runs the whole sequence again at each step: at every
  step its bars, and every layer's and head's row of the last token,
  the CSV's (the prompt's attn_weights at the first step, the step's
  table of --kv-steps after it);
- the generation's settings in a lesson page's editor and in the Open
  a model box of a checkpoint's page: after each change (typed with the
  keyboard) the page's data is the program's for the command line, and
  the status said Generating first;
- --logit-lens, on a checkpoint and on a trained lesson stack (one
  set-up, lens_page): the grid's cells are the CSV's likeliest next
  tokens and probabilities, the caption naming the final norm or the
  lm_head alone; a cell opens its layer with the keyboard; over a
  vocabulary of 4285 tokens (probabilities of five decimals, tokens of
  13 characters) no cell hides a character; the lesson page's view says
  the lens is the written run's, and an edit of its sentence recomputes
  the program's page without the lens, the view then saying the lens
  was the written sentence's;
- a page written without --generate has no Generation view and no
  view's script; stdout is the same with and without --html;
- Portuguese words (--lang pt_BR), no console error, no request.

Usage: html_generation_test.py MHA_EXPLAIN GPT2_DIR [SCREENSHOT_DIR]
Exits 77 (skipped) when no browser can run.
"""
import csv
import io
import json
import os
import shlex
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, requests_made  # noqa: E402  (skips: 77)
from taplib import Program, done, ok  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
from gpt2_checkpoint import write as write_checkpoint  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

GPT2 = os.path.join(sys.argv[2], "two_layers")
LLAMA = os.path.join(sys.argv[2], "..", "llama", "llama_tied_f32")
SHOTS = sys.argv[3] if len(sys.argv) > 3 else None
TEXT = "the cat sat on the mat"
# a lesson model's corpus: its longest sentence leaves room to generate
CORPUS = ["--corpus", os.path.join(sys.argv[2], "..", "lesson_generate",
                                   "greedy.corpus.csv"), "--column", "text",
          "--positions"]


def csv_rows(mha, args, tables):
    """The rows of --format csv of tables, as dicts."""
    r = mha.run(args + ["--format", "csv", "--tables", tables])
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))


def expected(mha, args, variant):
    """What the view must show, from the CSV: per step, (tokens picked,
    [(id, p)] of generated_top, (id, p) of generated) and the weights
    {(step, layer, head, key): value}."""
    gen, top, weights = {}, {}, {}
    rows = csv_rows(mha, args, "generated,generated_top,attn_weights")
    for row in rows:
        if row["variant"] != variant:
            continue
        r = int(row["row"])
        if row["table"] == "generated":
            gen.setdefault(r, {})[row["col_label"]] = row["value"]
            gen[r]["token"] = row["row_label"]
        elif row["table"] == "generated_top":
            top.setdefault(r, {})[row["col_label"]] = row["value"]
        elif row["table"] == "attn_weights":
            weights[(row.get("step") or "0", row.get("layer") or "",
                     row["head"], r, int(row["col"]))] = row["value"]
    k = len(top) // len(gen)
    steps = []
    for s in range(len(gen)):
        steps.append({"token": gen[s]["token"], "id": gen[s]["id"],
                      "p": gen[s]["probability"],
                      "top": [(top[r]["id"], top[r]["probability"])
                              for r in range(s * k, (s + 1) * k)]})
    return steps, weights


def open_view(driver, path, size=(1280, 720)):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1,
        "mobile": False})
    driver.get("file://" + path)
    time.sleep(0.4)
    driver.find_element(
        By.CSS_SELECTOR, '.controls button[data-value="generation"]').click()
    time.sleep(0.2)


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def check_step(driver, s, steps, weights, prompt, layered, name):
    """The view at step s against the CSV."""
    want = steps[s]
    view = driver.find_element(By.ID, "generation-at")
    ok(view.get_attribute("data-step") == str(s),
       "%s: step %d on view" % (name, s + 1), view.get_attribute("data-step"))
    new = [e.text for e in driver.find_elements(
        By.CSS_SELECTOR, "#generation-text .gen-new")]
    ok(len(driver.find_elements(By.CSS_SELECTOR, "#generation-text .gen-prompt"))
       == prompt and new == [steps[i]["token"] for i in range(s + 1)],
       "%s step %d: the prompt and the tokens so far" % (name, s + 1), new)
    bars = driver.find_elements(By.CSS_SELECTOR, "#generation-bars .gen-bar")
    got = [(b.get_attribute("data-id"), b.get_attribute("data-p"))
           for b in bars]
    ok(got == want["top"], "%s step %d: the bars are generated_top's"
       % (name, s + 1), "%r != %r" % (got[:3], want["top"][:3]))
    chosen = driver.find_elements(By.CSS_SELECTOR, ".gen-bar.chosen")
    ok(len(chosen) == 1 and chosen[0].get_attribute("data-id") == want["id"]
       and chosen[0].get_attribute("data-p") == want["p"],
       "%s step %d: the token picked is marked with generated's probability"
       % (name, s + 1),
       [(c.get_attribute("data-id"), c.get_attribute("data-p"))
        for c in chosen])
    cells = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll("
        "'td.gen-weight'), function (c) { return [c.dataset.layer, "
        "c.dataset.head, c.dataset.key, c.dataset.weight]; });")
    if weights is None:
        return cells
    wrong, S = 0, prompt + s
    for layer, head, key, value in cells:
        lay = layer.rsplit(".", 1)[-1] if layered else ""
        k = ((str(s), lay, head, 0, int(key)) if s > 0 else
             ("0", lay, head, prompt - 1, int(key)))
        wrong += weights.get(k) != value
    keys = {int(c[2]) for c in cells}
    ok(len(cells) > 0 and wrong == 0 and keys == set(range(S)),
       "%s step %d: %d cells of every layer and head over %d keys are the "
       "CSV's weights" % (name, s + 1, len(cells), S), "%d differ" % wrong)
    return cells


PAGE_DATA = """
return JSON.stringify(window.mhaPage.data(), function (k, v) {
  return k === 'decoded' || k === 'derivedWeights' ? undefined : v;
});"""


def page_data(path):
    """The data of the page the program wrote at path (its
    <script id="mha-data">)."""
    with open(path, encoding="utf-8") as f:
        html = f.read()
    start = html.index('id="mha-data">\n') + len('id="mha-data">\n')
    return json.loads(html[start:html.index("\n</script>", start)])


def program_data(mha, command, tmp, lang):
    """The data of the page the program writes for command (a shell
    line) in language lang, or None when it refuses it."""
    shown = os.path.join(tmp, "shown.html")
    r = mha.run(["--lang", lang, "--html", shown] + shlex.split(command)[1:])
    return page_data(shown) if r.returncode == 0 else None


def same_generation(driver, mha, args, tmp, state, name):
    """The Open a model box's run, which ended in state, against the
    program's: args run in tmp (where the folder is) with --html, the
    generation in its page's data is the page's in driver. Returns the
    program's result and its generation ({} when it failed)."""
    shown = os.path.join(tmp, "program.html")
    r = mha.run(["--html", shown] + args, cwd=tmp)
    want = page_data(shown).get("generation", {}) if r.returncode == 0 else {}
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(r.returncode == 0 and state == "ok" and want and
       want == got.get("generation"),
       "%s: the generation is the program's for %s" % (name, " ".join(args)),
       (state, r.stderr))
    return r, want


def set_field(driver, prefix, name, value):
    """A generation setting typed (or a box clicked) with the keyboard,
    then Tab: the browser sends the change event."""
    e = driver.find_element(By.ID, prefix + name)
    if e.get_attribute("type") == "checkbox":
        if e.is_selected() != value:
            e.send_keys(Keys.SPACE)
    else:
        e.send_keys(Keys.CONTROL, "a")
        e.send_keys(value)
    e.send_keys(Keys.TAB)


def editor(driver, mha, tmp):
    """A lesson page trained with --generate: the generation's settings
    in the editor, each change recomputed in the page as the program
    makes the page of the command line it shows."""
    page = os.path.join(tmp, "edit.html")
    r = mha.run(["the cat sat on the mat the cat", "--train", "20",
                 "--generate", "2", "--heads", "2", "--variant", "wrapper",
                 "--lang", "pt_BR", "--html", page])
    ok(r.returncode == 0, "editor: the page is written", r.stderr)
    driver.get("file://" + page)
    WebDriverWait(driver, 60).until(lambda d: d.execute_script(
        "var e = document.getElementById('editor');"
        "return e && e.getAttribute('data-ready') === 'true';"))
    driver.find_element(By.CSS_SELECTOR, "#editor summary").click()
    legend = driver.find_element(By.CSS_SELECTOR,
                                 "#edit-generation legend").text
    ok(legend == "Geração (--generate)" and driver.find_element(
        By.ID, "edit-generate").get_attribute("value") == "2" and
       not driver.find_element(By.ID, "edit-temperature").is_enabled(),
       "editor: the run's generation settings, in Portuguese, the sampling "
       "options off without --sample", legend)
    settings = [("generate", "3"), ("sample", True), ("temperature", "0.7"),
                ("top-k", "4"), ("top-p", "0.9"), ("seed", "11"),
                ("stop", "mat"), ("sample", False), ("generate", "0")]
    for name, value in settings:
        busy = []
        driver.execute_script(
            "window.mhaBusy = [];"
            "new MutationObserver(function () {"
            "  var s = document.getElementById('editor-status');"
            "  window.mhaBusy.push(s.textContent); })"
            ".observe(document.getElementById('editor-status'),"
            "         {childList: true, characterData: true, subtree: true});")
        if name == "seed":
            e = driver.find_element(By.ID, "edit-seed")
            e.send_keys(Keys.CONTROL, "a")
            e.send_keys(value + Keys.TAB)
        else:
            set_field(driver, "edit-", name, value)
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.getElementById('editor')"
            ".getAttribute('data-recomputed') !== 'busy';"))
        busy = driver.execute_script("return window.mhaBusy;")
        command = driver.find_element(By.ID, "editor-command").text
        want = program_data(mha, command, tmp, "pt_BR")
        got = json.loads(driver.execute_script(PAGE_DATA))
        state = driver.find_element(By.ID, "editor").get_attribute(
            "data-recomputed")
        ok(want is not None and state == "ok" and want == got,
           "editor, %s %s: the page's data is the program's for %s"
           % (name, value, command), state)
        generating = driver.find_element(By.ID, "edit-generate") \
            .get_attribute("value") != "0"
        ok(not generating or any("Gerando" in b for b in busy),
           "editor, %s %s: the status said Generating first" % (name, value),
           busy)
        if name == "top-p":
            shot(driver, "generation-editor-pt_BR")
    ok("generation" not in got and not driver.find_elements(
        By.CSS_SELECTOR, '.controls button[data-value="generation"]'),
       "editor: no tokens to generate, no Generation view")


def model_runs(driver):
    return driver.execute_script("return window.mhaModelRuns || 0;")


def wait_model_run(driver, before, seconds=60):
    """The Open a model box's state once a run ended after `before`."""
    end = time.time() + seconds
    while time.time() < end:
        if model_runs(driver) > before:
            return driver.find_element(By.ID, "model-open") \
                .get_attribute("data-state")
        time.sleep(0.05)
    return None


def open_model(driver, mha, tmp):
    """A checkpoint's generation page: the folder opened in the page, then
    each generation setting changed; every run's generation equals the
    program's for the same command line."""
    folder = os.path.join(tmp, "two_layers")
    if not os.path.isdir(folder):
        shutil.copytree(GPT2, folder)
    page = os.path.join(tmp, "model.html")
    r = mha.run(["--model", GPT2, TEXT, "--generate", "2", "--html", page])
    ok(r.returncode == 0, "Open a model: the page is written", r.stderr)
    driver.get("file://" + page)
    time.sleep(0.5)
    driver.execute_script(
        "document.addEventListener('mha-model-ran', function () {"
        " window.mhaModelRuns = (window.mhaModelRuns || 0) + 1; });"
        "window.mhaBusy = [];"
        "new MutationObserver(function () {"
        "  window.mhaBusy.push(document.getElementById("
        "    'model-open-status').textContent); })"
        ".observe(document.getElementById('model-open-status'),"
        "         {childList: true, characterData: true, subtree: true});")
    before = model_runs(driver)
    driver.find_element(By.ID, "model-open-folder").send_keys(folder)
    state = wait_model_run(driver, before)
    ok(state == "ok" and driver.find_element(
        By.ID, "model-open-generate").get_attribute("value") == "2",
       "Open a model: the folder runs with the page's generation settings",
       state)
    settings = [(None, None), ("generate", "4"), ("sample", True),
                ("temperature", "1.5"), ("top-k", "7"), ("gen-seed", "5"),
                ("top-p", "0.8")]
    for name, value in settings:
        before = model_runs(driver)
        if name is not None:
            set_field(driver, "model-open-", name, value)
            state = wait_model_run(driver, before)
        val = lambda n: driver.find_element(  # noqa: E731
            By.ID, "model-open-" + n).get_attribute("value")
        args = ["--model", "two_layers", "--generate", val("generate")]
        if driver.find_element(By.ID, "model-open-sample").is_selected():
            args += ["--sample"]
            for n in ("temperature", "top-k", "top-p"):
                if val(n):
                    args += ["--" + n, val(n)]
            args += ["--seed", val("gen-seed")]
        args += ["--", TEXT]
        same_generation(driver, mha, args, tmp, state,
                        "Open a model, %s %s" % (name, value))
    busy = driver.execute_script("return window.mhaBusy;")
    ok(any(b.startswith("Generating 4 tokens") for b in busy),
       "Open a model: the status said Generating before the runs", busy)
    driver.find_element(
        By.CSS_SELECTOR, '.controls button[data-value="generation"]').click()
    shot(driver, "generation-open-model")


def stopped_at_limit(driver, mha, tmp):
    """Open a model's generation reaching the checkpoint's 16 positions:
    a one-line notice says so, the generation is the program's; a longer
    text (fewer steps) keeps the Generation view, at its last step."""
    set_field(driver, "model-open-", "sample", False)

    def run(name, value, text):
        before = model_runs(driver)
        set_field(driver, "model-open-", name, value)
        state = wait_model_run(driver, before)
        n = driver.find_element(By.ID, "model-open-generate").get_attribute(
            "value")
        args = ["--model", "two_layers", "--generate", n, "--", text]
        r, want = same_generation(driver, mha, args, tmp, state,
                                  "stopped at the limit")
        ok(b"16 positions" in r.stderr and want.get("stopped") == 16,
           "stopped at the limit: the program notes it, the data says 16",
           r.stderr)
        return len(want.get("tokens", []))

    run("generate", "30", TEXT)
    driver.find_element(
        By.CSS_SELECTOR, '.controls button[data-value="generation"]').click()
    notice = driver.find_elements(By.ID, "generation-stopped")
    ok(len(notice) == 1 and notice[0].text ==
       "Generation stopped at the model's limit of 16 positions, with the "
       "tokens so far.", "stopped at the limit: the one-line notice",
       [n.text for n in notice])
    slider = driver.find_element(By.ID, "generation-step")
    slider.send_keys(Keys.END)
    time.sleep(0.05)
    longer = TEXT + " and"
    n = run("text", longer, longer)
    view = driver.execute_script(
        "var b = document.querySelector('.controls button[aria-pressed=true]"
        "[data-value]'); return b && b.getAttribute('data-value');")
    slider = driver.find_element(By.ID, "generation-step")
    ok(view == "generation" and
       slider.get_attribute("value") == str(n - 1),
       "a longer text, fewer steps: the view stays, at its last step",
       (view, slider.get_attribute("value"), n))
    shot(driver, "generation-stopped")


# The pages of the Logit lens view: (name, the run's arguments, its page's
# file, the layers' prefix in the CSV's layer column, the layers and the
# positions, what the caption says and what it does not)
LENS_CASES = {
    "checkpoint": ("logit lens", ["--model", GPT2, TEXT, "--logit-lens"],
                   "lens.html", "h.", 2, 6, "(the final norm and lm_head",
                   "this model has no final norm"),
    "lesson": ("lesson logit lens",
               CORPUS + ["--train", "20", "--variant", "block", "--layers",
                         "2", "--attn-only", "--d-model", "8", "--heads", "2",
                         "the dog ran to the", "--logit-lens"],
               "lesson_lens.html", "block.", 2, 5,
               "this model has no final norm", "final norm and"),
}


def lens_page(driver, mha, tmp, case, extra=()):
    """The page of LENS_CASES[case] (written with extra arguments too),
    its Logit lens view on view: a row per layer, a column per position,
    each cell the CSV's likeliest next token and its probability, and the
    caption naming what the lens applies. Returns the page's path."""
    name, args, file, prefix, layers, positions, says, not_says = \
        LENS_CASES[case]
    page = os.path.join(tmp, file)
    r = mha.run(args + list(extra) + ["--html", page])
    ok(r.returncode == 0, "%s: the page is written" % name, r.stderr)
    want = {}
    for row in csv_rows(mha, args, "logit_lens"):
        want.setdefault(prefix + row["layer"], []).append(
            (row["row_label"], row["value"]))
    driver.get("file://" + page)
    time.sleep(0.4)
    driver.find_element(
        By.CSS_SELECTOR, '.controls button[data-value="lens"]').click()
    time.sleep(0.2)
    cells = driver.find_elements(By.CSS_SELECTOR, "td.lens-cell")
    wrong = 0
    for c in cells:
        rows = want.get(c.get_attribute("data-layer"), [])
        t = int(c.get_attribute("data-position"))
        label, value = rows[t * 5] if len(rows) == 5 * positions else ("", "")
        wrong += not (label.endswith(" \u2192 " + c.get_attribute("data-next"))
                      and value == c.get_attribute("data-p"))
    hint = driver.find_element(By.CSS_SELECTOR, "#lens-grid").find_element(
        By.XPATH, "preceding::p[contains(@class, 'hint')][1]").text
    ok(len(cells) == layers * positions and wrong == 0 and says in hint and
       not_says not in hint,
       "%s: %d cells, a row per layer, each the likeliest next token of the "
       "CSV with its probability; the caption says what the lens applies"
       % (name, len(cells)), (len(cells), wrong, hint))
    return page


def logit_lens(driver, mha, tmp):
    """--logit-lens: the grid of layers x positions, each cell the CSV's
    likeliest next token and its probability; a cell opens its layer."""
    lens_page(driver, mha, tmp, "checkpoint")
    shot(driver, "logit-lens-1280x720")
    first = driver.find_element(By.CSS_SELECTOR, 'td.lens-cell[tabindex="0"]')
    first.send_keys(Keys.ARROW_DOWN)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    time.sleep(0.2)
    pressed = [b.text for b in driver.find_elements(
        By.CSS_SELECTOR, '.controls button[aria-pressed="true"]')]
    heads = [b.is_selected() for b in driver.find_elements(
        By.CSS_SELECTOR, "#head-toggles input")]
    ok(not driver.find_element(By.ID, "head-view").get_attribute("hidden")
       and "h.1" in pressed and all(heads),
       "logit lens: the arrow keys and Enter open the cell's layer in the "
       "head view, every head shown", (pressed, heads))
    lens_widths(driver, mha, tmp)
    lesson_lens(driver, mha, tmp)


def lesson_lens(driver, mha, tmp):
    """--logit-lens on a trained lesson stack: a row per block, the cells
    the CSV's, and the caption says the lens is the lm_head alone (the
    model has no final norm). The page's core makes no lens: the view
    says the lens is the written run's, and an edit of the sentence
    recomputes the run without it (the program's page for the command
    line shown), the view then saying the lens was the written
    sentence's."""
    model = os.path.join(tmp, "lesson_lens_model")
    lens_page(driver, mha, tmp, "lesson", ["--csv-dir", model])
    written = driver.find_elements(By.ID, "lens-written")
    ok(written and "the page's core makes no logit lens" in written[0].text,
       "lesson logit lens: the view says the lens is the written run's",
       written and written[0].text)
    shot(driver, "logit-lens-lesson")
    WebDriverWait(driver, 60).until(lambda d: d.execute_script(
        "var e = document.getElementById('editor');"
        "return e && e.getAttribute('data-ready') === 'true';"))
    driver.find_element(By.CSS_SELECTOR, "#editor summary").click()
    e = driver.find_element(By.ID, "edit-sentence")
    e.send_keys(Keys.CONTROL, "a")
    e.send_keys("the cat ran to the" + Keys.TAB)
    WebDriverWait(driver, 60).until(lambda d: d.execute_script(
        "return ['ok', 'error'].indexOf(document.getElementById('editor')"
        ".getAttribute('data-recomputed')) >= 0;"))
    state = driver.find_element(By.ID, "editor").get_attribute(
        "data-recomputed")
    command = driver.find_element(By.ID, "editor-command").text
    want = program_data(mha, command, tmp, "en")
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(state == "ok" and "--logit-lens" not in command and
       want is not None and want == got,
       "lesson logit lens, sentence edited: recomputed without the lens, the "
       "program's page for %s" % command,
       (state, driver.find_element(By.ID, "editor-error").text))
    gone = driver.find_elements(By.ID, "lens-gone")
    ok(gone and '"the dog ran to the"' in gone[0].text and
       "--logit-lens" in gone[0].text and
       not driver.find_elements(By.CSS_SELECTOR, "td.lens-cell") and
       driver.find_element(By.ID, "lens-view").get_attribute("hidden")
       is None,
       "lesson logit lens, sentence edited: the view stays, saying the lens "
       "was the written sentence's", gone and gone[0].text)
    shot(driver, "logit-lens-lesson-edited")


def lens_widths(driver, mha, tmp):
    """A vocabulary of 4285 tokens, the added ones 13 characters long:
    the lens's probabilities have five decimals and its tokens are wider
    than the position's; every cell shows all of its text."""
    words = os.path.join(tmp, "long_words")
    os.mkdir(words)
    with open(os.path.join(GPT2, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    n = len(vocab)
    for i in range(4000):
        vocab["\u0120aquarium%04d" % i] = n + i
    with open(os.path.join(words, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f)
    shutil.copy(os.path.join(GPT2, "merges.txt"), words)
    model = os.path.join(tmp, "long_words_model")
    write_checkpoint(model, words, shape=(2, 2, 16), positions=16)
    page = os.path.join(tmp, "lens-long.html")
    r = mha.run(["--model", model, TEXT, "--logit-lens", "--html", page])
    ok(r.returncode == 0, "logit lens, long tokens: the page is written",
       r.stderr)
    driver.get("file://" + page)
    time.sleep(0.4)
    driver.find_element(
        By.CSS_SELECTOR, '.controls button[data-value="lens"]').click()
    time.sleep(0.2)
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll('td.lens-cell'))"
        ".map(function (c) { return [c.textContent, c.scrollWidth,"
        " c.clientWidth]; })")
    cut = [c for c in cells if c[1] > c[2]]
    ok(len(cells) == 2 * 6 and not cut and
       all(c[0].startswith("\u2423aquarium") and "0.000" in c[0]
           for c in cells),
       "logit lens, long tokens and five decimals: no cell hides a "
       "character", cut or cells)
    shot(driver, "logit-lens-long-tokens")


def main():
    mha = Program(os.path.abspath(sys.argv[1]))
    tmp = tempfile.mkdtemp()
    driver = browser(tmp)
    # the browser's own start (its new tab page), before any page
    driver.get("about:blank")
    time.sleep(1)
    requests_made(driver)
    try:
        runs = [
            ("greedy", ["--model", GPT2, TEXT, "--generate", "5"], []),
            ("sampled", ["--model", GPT2, TEXT, "--generate", "6", "--sample",
                         "--seed", "7", "--temperature", "0.8", "--top-k",
                         "20"], ["--kv-steps"]),
        ]
        for name, args, extra in runs:
            page = os.path.join(tmp, name + ".html")
            plain = mha.run(args + extra)
            r = mha.run(args + extra + ["--html", page])
            ok(r.returncode == 0 and r.stdout == plain.stdout,
               "%s: --html writes the page, stdout as without it" % name,
               r.stderr)
            steps, _ = expected(mha, args, "gpt2")
            _, weights = expected(mha, args + ["--kv-steps"], "gpt2")
            open_view(driver, page)
            slider = driver.find_element(By.ID, "generation-step")
            ok(slider.get_attribute("max") == str(len(steps) - 1),
               "%s: the slider goes over the %d steps" % (name, len(steps)))
            for s in range(len(steps)):
                if s > 0:
                    slider.send_keys(Keys.ARROW_RIGHT)
                    time.sleep(0.05)
                check_step(driver, s, steps, weights, 6, True, name)
                if s == 2:
                    shot(driver, "generation-%s-1280x720" % name)
            captions = [e.text for e in driver.find_elements(
                By.CSS_SELECTOR, ".gen-heads .gen-caption")]
            ok(len(captions) == 1 and "the keys its cache holds" in
               captions[0], "%s: the heads' caption names the cache" % name,
               captions)
            count = driver.find_element(By.ID, "generation-count").text
            ok(count == "Step %d of %d" % (len(steps), len(steps)) and
               ("%d of %d" % (len(steps), len(steps)))
               in slider.get_attribute("aria-valuetext"),
               "%s: the count and the slider's text follow it" % name, count)
            slider.send_keys(Keys.HOME)
            time.sleep(0.05)
            ok(driver.find_element(By.ID, "generation-at")
               .get_attribute("data-step") == "0",
               "%s: Home goes back to the first step" % name)
            # the weights' grid: one Tab stop, the arrow keys move
            first = driver.find_element(
                By.CSS_SELECTOR, 'td.gen-weight[tabindex="0"]')
            first.send_keys(Keys.ARROW_DOWN)
            focused = driver.switch_to.active_element
            ok(focused.get_attribute("data-grid-row") == "1" and
               driver.find_element(By.ID, "readout").text != "",
               "%s: the arrow keys move over the heads' rows, the readout "
               "says the weight" % name, driver.find_element(
                   By.ID, "readout").text)
            if name == "greedy":
                open_view(driver, page, (1920, 1080))
                shot(driver, "generation-greedy-1920x1080")
        # a Llama-style checkpoint keeps its steps' rows with --kv-steps
        # only: without it, the prompt's; its caption says the model keeps
        # a cache
        page = os.path.join(tmp, "llama.html")
        r = mha.run(["--model", LLAMA, TEXT, "--generate", "3", "--html",
                     page])
        ok(r.returncode == 0, "llama: the page is written", r.stderr)
        open_view(driver, page)
        driver.find_element(By.ID, "generation-step").send_keys(
            Keys.ARROW_RIGHT)
        time.sleep(0.05)
        hint = driver.find_elements(By.CSS_SELECTOR, ".gen-heads .hint")
        hint = hint[0].text if hint else ""
        ok("keeps a cache" in hint and "--kv-steps" in hint and
           "no cache" not in hint and not driver.find_elements(
               By.CSS_SELECTOR, "td.gen-weight"),
           "llama without --kv-steps, step 2: no rows, and the caption says "
           "the model keeps a cache and --kv-steps keeps the steps'", hint)
        shot(driver, "generation-llama-step2")
        # --show-heads without head 0: a row per layer and head shown
        for name, variant, model, heads in (
                ("gpt2 --show-heads 1", "gpt2", GPT2, "1"),
                ("llama --show-heads 1,3", "llama", LLAMA, "1,3")):
            args = ["--model", model, TEXT, "--generate", "3", "--kv-steps",
                    "--show-heads", heads]
            page = os.path.join(tmp, "shown.html")
            r = mha.run(args + ["--html", page])
            ok(r.returncode == 0, "%s: the page is written" % name, r.stderr)
            steps, weights = expected(mha, args, variant)
            open_view(driver, page)
            slider = driver.find_element(By.ID, "generation-step")
            for s in range(len(steps)):
                if s > 0:
                    slider.send_keys(Keys.ARROW_RIGHT)
                    time.sleep(0.05)
                cells = check_step(driver, s, steps, weights, 6, True, name)
                rows = {(c[0], c[1]) for c in cells}
                want = {(layer, h) for layer in {c[0] for c in cells}
                        for h in heads.split(",")}
                ok(len({c[0] for c in cells}) == 2 and rows == want,
                   "%s step %d: the rows of both layers' heads %s"
                   % (name, s + 1, heads), sorted(rows))
                if s == 1:
                    shot(driver, "generation-%s" % name.split()[0] +
                         "-show-heads")
        # a lesson model after --train: every step's rows, as the
        # checkpoints'
        lessons = [
            ("lesson", CORPUS + ["--train", "30", "--generate", "3",
                                 "--variant", "wrapper", "--heads", "2",
                                 "the cat"], "wrapper", False),
            ("lesson stack", CORPUS + ["--train", "40", "--generate", "5",
                                       "--variant", "block", "--layers", "2",
                                       "--d-model", "4", "--heads", "2",
                                       "the dog ran"], "block", True)]
        for name, args, variant, layered in lessons:
            page = os.path.join(tmp, name.replace(" ", "_") + ".html")
            r = mha.run(args + ["--html", page])
            ok(r.returncode == 0, "%s: the page is written" % name, r.stderr)
            steps, _ = expected(mha, args, variant)
            _, weights = expected(mha, args + ["--kv-steps"], variant)
            open_view(driver, page)
            slider = driver.find_element(By.ID, "generation-step")
            ok(len(steps) == int(args[args.index("--generate") + 1]),
               "%s: the slider goes over the %d steps" % (name, len(steps)))
            for s in range(len(steps)):
                if s > 0:
                    slider.send_keys(Keys.ARROW_RIGHT)
                    time.sleep(0.05)
                cells = check_step(driver, s, steps, weights,
                                   len(args[-1].split()), layered, name)
                heads = {(c[0], c[1]) for c in cells}
                ok(len(heads) == (4 if layered else 2),
                   "%s step %d: a row for every layer and head" %
                   (name, s + 1), heads)
            captions = [e.text for e in driver.find_elements(
                By.CSS_SELECTOR, ".gen-heads .gen-caption")]
            ok(len(captions) == 1 and "keeps no cache" in captions[0] and
               "last row of that pass" in captions[0],
               "%s: the heads' caption says it keeps no cache" % name,
               captions)
            shot(driver, "generation-%s" % name.replace(" ", "-"))
        editor(driver, mha, tmp)
        open_model(driver, mha, tmp)
        stopped_at_limit(driver, mha, tmp)
        logit_lens(driver, mha, tmp)
        # Portuguese
        page = os.path.join(tmp, "pt.html")
        r = mha.run(["--lang", "pt_BR", "--model", GPT2, TEXT, "--generate",
                     "3", "--html", page])
        ok(r.returncode == 0, "pt_BR: the page is written", r.stderr)
        open_view(driver, page)
        button = driver.find_element(
            By.CSS_SELECTOR, '.controls button[data-value="generation"]').text
        count = driver.find_element(By.ID, "generation-count").text
        mark = driver.find_element(By.CSS_SELECTOR, ".gen-bar.chosen .gen-mark")
        ok(button == "Geração" and count == "Passo 1 de 3" and
           mark.text == "escolhido",
           "pt_BR: the view's words are Portuguese",
           "%s / %s / %s" % (button, count, mark.text))
        shot(driver, "generation-pt_BR")
        # no generation: no view, no script
        page = os.path.join(tmp, "plain.html")
        r = mha.run(["--model", GPT2, TEXT, "--html", page])
        with open(page, encoding="utf-8") as fh:
            text = fh.read()
        driver.get("file://" + page)
        time.sleep(0.3)
        ok(r.returncode == 0 and "function mhaGeneration" not in text and not
           driver.find_elements(By.CSS_SELECTOR,
                                'button[data-value="generation"]'),
           "without --generate: no Generation view and no script for it")
        errors = [e for e in driver.get_log("browser")
                  if e["level"] in ("SEVERE", "WARNING")]
        ok(not errors, "no console error or warning", errors[:3])
        # (a --model page's worker is made from the page's own text: blob:)
        asked = [u for u in requests_made(driver)
                 if not u.startswith("file://") and u != "about:blank" and
                 not u.startswith("blob:")]
        ok(not asked, "no request but the pages and the worker", asked[:3])
    finally:
        driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
