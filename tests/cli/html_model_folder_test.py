#!/usr/bin/env python3
"""html_model_folder_test.py MHA_EXPLAIN GPT2_DIR BERT_DIR [SHOTS]: the
page of a --model run, as written and once its folder is opened in "Open
a model", in headless Chromium at 1280 x 720 (docs/html.md, "A model on
the page").

- The legend of a --patch map: what a colour says on a line of its own
  (`.map-measure`, the map's `measure`), then the bar between its two
  ends, no number glued to the words ("1.91: restored: ..."), in
  English, Portuguese and Chinese.
- The model view of 12 heads (GPT-2 small's count; `wide`'s weights cut
  in 12 heads): every column as wide as the others, the thumbnails
  evenly spaced (the names "head 10" and "cabeça 11" wider than a
  thumbnail once pushed the columns after them), in English and
  Portuguese.
- --generate with --ablate: the Generation view shows the clean model's
  text (`#generation-clean`) and how the two new texts compare
  (`#generation-part`), as the text output says them; opened, the page's
  data is the program's page's.
- --logit-lens with --layers, --show-heads, --precision and --cmap:
  opened, the run keeps them (the box's command line), its data is the
  program's page's and the Logit lens view is still there; the summary
  counts the heads shown ("1 head", not the largest head number's
  plural). A BERT page's --pair is kept the same way.
- The note in the editor's place says what "Open a model" changes: the
  text alone with --patch and --head-scores (no switch), the text or the
  heads elsewhere, the generation too in a generation run.

With SHOTS, screenshots go there. Exits 77 (skipped) without a browser
or the WebAssembly core.
"""
import json
import os
import re
import shlex
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core  # noqa: E402  (skips: 77)
from html_open_families_test import WATCH  # noqa: E402
from html_open_model_test import ENV, PAGE_DATA, runs, wait_state  # noqa
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

SHOTS = sys.argv[4] if len(sys.argv) > 4 else None
G = "two_layers"
TEXT = "the cat sat on the mat"
PATCH = ["--patch", "--corrupt", "the mat sat on the cat", "--answer",
         " cat", "--wrong", " mat", "--clean", TEXT]


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def data_of(path):
    with open(path, encoding="utf-8") as f:
        html = f.read()
    return json.loads(re.search(r'id="mha-data">(.*?)</script>', html,
                                re.S).group(1))


def write(mha, tmp, args, name="page.html"):
    """The program's page of args (in tmp): its path, or None."""
    page = os.path.join(tmp, name)
    if os.path.exists(page):
        os.remove(page)
    r = mha.run(["--html", page] + args, env=ENV, cwd=tmp)
    ok(r.returncode == 0, "the page of %s is written" % " ".join(args),
       r.stderr.decode("utf-8"))
    return page if r.returncode == 0 else None


def view(driver, name):
    b = driver.find_elements(By.CSS_SELECTOR,
                             "[aria-label=View] button[data-value=%s]" % name)
    if b:
        b[0].click()
    return len(b) == 1


def open_folder(driver, folder):
    """The folder given to the picker; the box's state after its run."""
    driver.execute_script(WATCH)
    before = runs(driver)
    driver.find_element(By.ID, "model-open-folder").send_keys(folder)
    return wait_state(driver, before, 60)


def command(driver):
    c = driver.execute_script(
        "var c = document.getElementById('model-open-command');"
        "return c && !c.parentNode.hidden ? c.textContent : null;")
    return shlex.split(c)[1:] if c else []


def note(driver):
    n = driver.find_elements(By.ID, "editor-note")
    return n[0].text if n else None


def check_legend(driver, mha, tmp):
    """A --patch map's legend: its measure above the bar, the bar's ends
    the two numbers alone."""
    for lang in ("en", "pt_BR", "zh_CN"):
        page = write(mha, tmp, ["--model", G, "--lang", lang] + PATCH)
        driver.get("file://" + page)
        view(driver, "maps")
        got = driver.execute_script("""
          return Array.from(document.querySelectorAll(
              '#maps-view .map .map-legend')).map(function (p) {
            var m = p.querySelector('.map-measure');
            var after = p.querySelector('canvas.map-bar').nextSibling;
            return [m ? m.textContent : null,
                    m ? getComputedStyle(m).display : null,
                    after ? after.textContent : null];
          });""")
        maps = data_of(page)["maps"]
        want = [m["measure"] for m in maps]
        ok(len(got) == len(maps) == 2 and
           [g[0] for g in got] == want and
           all(g[1] == "block" for g in got),
           "%s: each map's legend says its measure on a line of its own"
           % lang, got)
        ok(all(g[2] is not None and
               re.fullmatch(r" \d+\.\d\d", g[2]) for g in got),
           "%s: after the bar, its highest value alone (no words glued "
           "to it)" % lang, [g[2] for g in got])
        driver.execute_script("document.querySelector('.map-legend')"
                              ".scrollIntoView()")
        shot(driver, "legend-" + lang)


def twelve_heads(tmp, gpt2):
    """`wide` (48 wide) read as 12 heads of 4: GPT-2 small's count."""
    folder = os.path.join(tmp, "twelve")
    os.mkdir(folder)
    wide = os.path.join(gpt2, "wide")
    for name in os.listdir(wide):
        if name != "config.json":
            os.symlink(os.path.join(wide, name), os.path.join(folder, name))
    with open(os.path.join(wide, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["n_head"] = 12
    with open(os.path.join(folder, "config.json"), "w",
              encoding="utf-8") as f:
        json.dump(config, f)
    return folder


def check_model_view(driver, mha, tmp, gpt2):
    """12 heads in the model view: the thumbnails evenly spaced, each
    under its column's name."""
    folder = twelve_heads(tmp, gpt2)
    for lang in ("en", "pt_BR"):
        page = write(mha, tmp, ["--model", folder, "--lang", lang, TEXT])
        driver.get("file://" + page)
        view(driver, "model")
        got = driver.execute_script("""
          var g = document.querySelector('#model-view .model-grid');
          var names = g.querySelectorAll('th[scope=col]');
          return Array.from(g.querySelectorAll('tr')).slice(1).map(
            function (row) {
              return Array.from(row.querySelectorAll('button.thumb')).map(
                function (b, h) {
                  var r = b.getBoundingClientRect();
                  var n = names[h].getBoundingClientRect();
                  return [r.left, n.left + n.width / 2 - (r.left +
                          r.width / 2)];
                });
            });""")
        steps = [round(row[h + 1][0] - row[h][0], 1)
                 for row in got for h in range(len(row) - 1)]
        ok(len(got) == 2 and all(len(row) == 12 for row in got) and
           len(set(steps)) == 1,
           "%s: the 12 thumbnails of each layer are evenly spaced" % lang,
           steps)
        ok(all(abs(c[1]) <= 1 for row in got for c in row),
           "%s: each thumbnail is under its head's name" % lang,
           [round(c[1], 1) for c in got[0]] if got else got)
        driver.execute_script("document.getElementById('model-view')"
                              ".scrollIntoView()")
        shot(driver, "model-view-" + lang)


# (--ablate, --ablate-mode, text): the two new texts of two_layers part at
# their first token, share one, share two, and are the same
GENERATIONS = [("0.1", "zero", TEXT), ("0.0", "zero", "the cat"),
               ("1.0", "zero", "the cat"), ("1.1", "mean", TEXT)]


def clean_said(mha, tmp, args):
    """What the text output says of the clean model's generation: its
    text, and how the two new texts compare as a sentence of the page
    ("(the two ... first 1 token, then part)" is the page's "The two ...
    first token, then part.")."""
    r = mha.run(args, env=ENV, cwd=tmp)
    out = r.stdout.decode("utf-8").split("\n")
    at = [i for i, l in enumerate(out)
          if l == "[gpt2] the clean model (no head switched off) continued:"]
    ok(r.returncode == 0 and len(at) == 1,
       "the text output says what the clean model wrote", out[-6:])
    if not at:
        return None
    compare = out[at[0] + 2].strip("()").replace("first 1 token,",
                                                 "first token,")
    return [out[at[0] + 1], compare[0].upper() + compare[1:] + "."]


def check_generation(driver, mha, tmp, gpt2):
    """--generate with --ablate: the clean model's text and how the two
    new texts compare, as the text output says them."""
    def shown():
        view(driver, "generation")
        return driver.execute_script("""
          var c = document.getElementById('generation-clean');
          var p = document.getElementById('generation-part');
          return c && p ? [c.textContent, p.textContent] : null;""")

    seen = set()
    for head, mode, text in GENERATIONS:
        args = ["--model", G, "--generate", "8", "--ablate", head,
                "--ablate-mode", mode, text]
        want = clean_said(mha, tmp, args)
        page = write(mha, tmp, args)
        driver.get("file://" + page)
        got = shown()
        ok(want is not None and got == want,
           "--ablate %s (%s): the Generation view shows the clean model's "
           "text and how the two texts compare" % (head, mode), [got, want])
        seen.add(want[1] if want else None)
    ok(len(seen) == 4, "the four ways two new texts compare are shown", seen)
    driver.execute_script("document.getElementById('generation-view')"
                          ".scrollIntoView()")
    shot(driver, "generation-clean")
    state = open_folder(driver, os.path.join(tmp, G))
    mine = command(driver)
    ok(state == "ok" and "--ablate" in mine and "--generate" in mine,
       "opened, the ablated generation runs again", [state, mine])
    program = write(mha, tmp, mine[:1] + [G] + mine[2:], "program.html")
    ok(program is not None and
       json.loads(driver.execute_script(PAGE_DATA)) == data_of(program),
       "opened: the page's data (with the clean text) is the program's")
    ok(shown() == want, "opened: the clean model's text is still shown")
    ok(note(driver) is not None and "generate" in note(driver),
       "a generation page's note names the generation", note(driver))


def check_kept(driver, mha, tmp):
    """--logit-lens, --show-heads, --precision and --cmap kept once the
    folder is opened; the summary counts the heads shown."""
    kept = ["--logit-lens", "--layers", "1", "--show-heads", "1",
            "--precision", "2", "--cmap", "magma"]
    page = write(mha, tmp, ["--model", G] + kept + [TEXT])
    driver.get("file://" + page)
    summary = driver.find_element(By.CSS_SELECTOR, "#app > p.summary").text
    ok(summary.startswith("6 tokens, 1 head,"),
       "the summary counts the one head shown", summary)
    ok(view(driver, "lens"), "the page has the Logit lens view")
    state = open_folder(driver, os.path.join(tmp, G))
    mine = command(driver)
    ok(state == "ok", "the folder is opened and run",
       driver.find_element(By.ID, "model-open-error").text)
    ok(all(any(w == o or w.startswith(o + "=") for w in mine)
           for o in ("--logit-lens", "--layers", "--show-heads",
                     "--precision", "--cmap")),
       "the run keeps --logit-lens, --layers, --show-heads, --precision "
       "and --cmap", mine)
    program = write(mha, tmp, mine[:1] + [G] + mine[2:], "program.html")
    data = json.loads(driver.execute_script(PAGE_DATA))
    ok(program is not None and data == data_of(program),
       "opened: the page's data is the program's page's for that command "
       "line")
    ok("logitLens" in data and view(driver, "lens") and
       driver.find_elements(By.CSS_SELECTOR, "#lens-view td.lens-cell"),
       "opened: the Logit lens view is still there")
    ok([v["name"] for v in data["variants"]] == ["h.1"] and
       [h["head"] for h in data["variants"][0]["heads"]] == [1] and
       driver.find_element(By.CSS_SELECTOR, "#app > p.summary").text
       .startswith("6 tokens, 1 head,"),
       "opened: layer 1's head 1 alone, and the summary says 1 head")
    shot(driver, "lens-opened")


def check_pair(driver, mha, tmp, bert):
    """A BERT --pair page opened: the pair kept, the data the program's
    page's."""
    shutil.copytree(os.path.join(bert, "mlm_pair"),
                    os.path.join(tmp, "mlm_pair"))
    page = write(mha, tmp, ["--model", "mlm_pair", "--pair", "on the mat",
                            "the cat sat"])
    driver.get("file://" + page)
    state = open_folder(driver, os.path.join(tmp, "mlm_pair"))
    mine = command(driver)
    program = write(mha, tmp, mine, "program.html")
    ok(state == "ok" and "--pair=on the mat" in mine and
       program is not None and
       json.loads(driver.execute_script(PAGE_DATA)) == data_of(program),
       "a BERT --pair page opened keeps --pair: the program's page", mine)


def check_notes(driver, mha, tmp):
    """What the note in the editor's place says Open a model changes."""
    for what, args, switches in [
            ("--patch", PATCH, False),
            ("--head-scores", ["--head-scores", TEXT], False),
            ("a plain run", [TEXT], True)]:
        page = write(mha, tmp, ["--model", G] + args)
        driver.get("file://" + page)
        said = note(driver)
        ok(said is not None and "Open a model" in said and
           ("switch heads off" in said) == switches and
           "generate" not in said,
           "%s: the note says what the page can change" % what, said)
        if what == "--patch":
            shot(driver, "note-patch")


def main():
    mha = Program(sys.argv[1])
    gpt2 = os.path.abspath(sys.argv[2])
    bert = os.path.abspath(sys.argv[3])
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(gpt2, G), os.path.join(tmp, G))
        page = write(mha, tmp, ["--model", G, TEXT])
        need_core(page)
        driver = browser(tmp)
        try:
            check_legend(driver, mha, tmp)
            check_model_view(driver, mha, tmp, gpt2)
            check_generation(driver, mha, tmp, gpt2)
            check_kept(driver, mha, tmp)
            check_pair(driver, mha, tmp, bert)
            check_notes(driver, mha, tmp)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
