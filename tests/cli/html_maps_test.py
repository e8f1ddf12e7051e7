#!/usr/bin/env python3
"""html_maps_test: the interventions on the --html page, in headless
Chromium at 1280 x 720.

- --ablate all-heads and --patch: the Interventions view shows each map
  (ablation_map; patch_heads and patch_resid) as a heat map whose cells
  hold the values --format csv writes, on the diverging map centred on 0
  (the largest value red, a negative one blue); a click on a head's cell,
  or Enter on it, opens that layer and head alone in the head view, and a
  cell of patch_resid its layer with every head; patch_resid over 48
  positions labels each one, its labels turned, within the view;
- --head-scores: the model view shows each head's three scores under its
  thumbnail (the CSV's values) and their legend, and the Interventions
  view the head_scores map, whose cell opens its head;
- a Llama-style model whose query heads share key/value heads: the model
  view's bracket per key/value head over its heads, and the legend (with
  --show-heads 1,2 too, each head named by its number); one that shares
  none: no bracket.

Usage: html_maps_test.py MHA_EXPLAIN GPT2_DIR LLAMA_DIR [SCREENSHOT_DIR]
Exits 77 (skipped) when no browser can run.
"""
import csv
import io
import json
import os
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser  # noqa: E402  (skips: 77)
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

GPT2 = os.path.join(sys.argv[2], "two_layers")
LLAMA = sys.argv[3]
SHOTS = sys.argv[4] if len(sys.argv) > 4 else None
TEXT = "the cat sat on the mat"
PATCH = ["--patch", "--clean", TEXT, "--corrupt", "the mat sat on the cat",
         "--answer", " cat", "--wrong", " mat"]
# the indirect-object sentences: 48 tokens of the wide test checkpoint
IOI = ["--patch", "--clean",
       "When Mary and John went to the store, John gave a drink to",
       "--corrupt",
       "When Mary and John went to the store, Mary gave a drink to",
       "--answer", "M", "--wrong", "J"]


def csv_table(mha, args, name):
    """{(row, col): value} of table name, as --format csv writes it."""
    r = mha.run(args + ["--format", "csv", "--tables", name])
    assert r.returncode == 0, r.stderr
    return {(row["row_label"], row["col_label"]): row["value"]
            for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8")))}


def open_page(driver, path, view=None):
    driver.get("file://" + path)
    time.sleep(0.3)
    if view:
        driver.find_element(
            By.CSS_SELECTOR,
            '.controls button[data-value="%s"]' % view).click()
        time.sleep(0.1)


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def rgb(cell):
    """The background of a cell as (r, g, b)."""
    text = cell.value_of_css_property("background-color")
    parts = text[text.index("(") + 1:text.index(")")].split(",")
    return tuple(int(float(p)) for p in parts[:3])


def head_view_of(driver):
    """(the layer pressed, the heads ticked) when the head view is on."""
    if driver.find_element(By.ID, "head-view").get_attribute("hidden"):
        return None
    layer = [b.text for b in driver.find_elements(
        By.CSS_SELECTOR, '.controls .group[aria-label="Layer"] '
        'button[aria-pressed="true"]')]
    heads = [int(b.get_attribute("data-head")) for b in
             driver.find_elements(By.CSS_SELECTOR, "#head-toggles input")
             if b.is_selected()]
    return layer, heads


def map_cells(driver, name):
    return driver.find_elements(
        By.CSS_SELECTOR, 'td.map-cell[data-map="%s"]' % name)


def check_maps(driver, mha, tmp):
    page = os.path.join(tmp, "ablate.html")
    args = ["--model", GPT2, TEXT, "--ablate", "all-heads"]
    assert mha.run(args + ["--html", page]).returncode == 0
    want = csv_table(mha, args, "ablation_map")
    open_page(driver, page, "maps")
    shot(driver, "ablation_map")
    cells = map_cells(driver, "ablation_map")
    got = {(c.get_attribute("data-row"), c.get_attribute("data-col")):
           c.get_attribute("data-value") for c in cells}
    ok(len(cells) == 4 and got == want,
       "ablation_map: a cell per head, the CSV's values", (got, want))
    values = [float(c.get_attribute("data-value")) for c in cells]
    top = cells[values.index(max(values))]
    low = cells[values.index(min(values))]
    r, g, b = rgb(top)
    r2, g2, b2 = rgb(low)
    ok(r > b and (min(values) >= 0 or b2 > r2),
       "centred on 0: the largest value red, a negative one blue",
       (rgb(top), rgb(low), values))
    cell = [c for c in cells if c.get_attribute("data-row") == "h.1" and
            c.get_attribute("data-col") == "1"][0]
    cell.click()
    time.sleep(0.1)
    ok(head_view_of(driver) == (["h.1"], [1]),
       "a click on ablation_map's cell h.1, 1 opens head 1 of h.1 alone",
       head_view_of(driver))
    open_page(driver, page, "maps")
    driver.execute_script("window.dispatchEvent(new Event('beforeprint'))")
    what = driver.find_elements(By.CSS_SELECTOR, ".print-what")
    ok(what and "interventions" in what[0].get_attribute("textContent"),
       "printed from the Interventions view, the page says so",
       [w.get_attribute("textContent") for w in what])
    cell = [c for c in map_cells(driver, "ablation_map")
            if c.get_attribute("data-row") == "h.0" and
            c.get_attribute("data-col") == "1"][0]
    cell.send_keys(Keys.ENTER)
    time.sleep(0.1)
    ok(head_view_of(driver) == (["h.0"], [1]),
       "Enter on the cell h.0, 1 opens head 1 of h.0", head_view_of(driver))

    page = os.path.join(tmp, "patch.html")
    args = ["--model", GPT2] + PATCH
    assert mha.run(args + ["--html", page]).returncode == 0
    heads = csv_table(mha, args, "patch_heads")
    resid = csv_table(mha, args, "patch_resid")
    open_page(driver, page, "maps")
    shot(driver, "patch")
    got_heads = {(c.get_attribute("data-row"), c.get_attribute("data-col")):
                 c.get_attribute("data-value")
                 for c in map_cells(driver, "patch_heads")}
    got_resid = {(c.get_attribute("data-row"), c.get_attribute("data-col")):
                 c.get_attribute("data-value")
                 for c in map_cells(driver, "patch_resid")}
    text = driver.find_element(By.ID, "maps-view").text
    ok(got_heads == heads and got_resid == resid and
       "restored: 0 corrupted, 1 clean" in text and "head patched" in text,
       "--patch: patch_heads and patch_resid, the CSV's values, axes and "
       "scale", (got_heads, heads, text[:200]))
    cell = [c for c in map_cells(driver, "patch_resid")
            if c.get_attribute("data-row") == "h.1"][2]
    cell.click()
    time.sleep(0.1)
    ok(head_view_of(driver) == (["h.1"], [0, 1]),
       "a cell of patch_resid opens its layer with every head",
       head_view_of(driver))


def check_many_positions(driver, mha, tmp):
    """patch_resid over 48 positions (the wide test checkpoint): every
    position labelled, the labels turned, the map as wide as the view
    (the page does not scroll sideways), a cell's value in its
    aria-label."""
    wide = os.path.join(sys.argv[2], "wide")
    page = os.path.join(tmp, "ioi.html")
    args = ["--model", wide] + IOI
    assert mha.run(args + ["--html", page]).returncode == 0
    r = mha.run(args + ["--format", "csv", "--tables", "patch_resid"])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))
    cols = [row["col_label"] for row in rows if row["row"] == "0"]
    want = [row["value"] for row in rows]
    open_page(driver, page, "maps")
    part = driver.find_element(By.CSS_SELECTOR,
                               '.map[data-map="patch_resid"]')
    driver.execute_script("arguments[0].scrollIntoView()", part)
    shot(driver, "patch_resid_48")
    heads = [th.get_attribute("textContent") for th in
             part.find_elements(By.CSS_SELECTOR, "tr:first-of-type th")]
    turned = {th.value_of_css_property("writing-mode") for th in
              part.find_elements(By.CSS_SELECTOR, "tr:first-of-type th")}
    ok(len(cols) == 48 and heads[1:] == cols and turned == {"vertical-rl"},
       "patch_resid of 48 positions: every position labelled, turned",
       (heads, turned))
    sizes = driver.execute_script(
        "var t = arguments[0].querySelector('table');"
        "return [t.getBoundingClientRect().right, "
        "document.documentElement.clientWidth, "
        "document.documentElement.scrollWidth];", part)
    ok(sizes[0] <= sizes[1] and sizes[2] <= sizes[1],
       "... the map within the view, the page not scrolled sideways", sizes)
    cells = map_cells(driver, "patch_resid")
    got = [c.get_attribute("data-value") for c in cells]
    said = [(c.get_attribute("aria-label"), c.get_attribute("data-value"))
            for c in cells[:3]]
    ok(len(cells) == 96 and got == want and
       all(label.endswith(": " + v + "; open it in the head view")
           for label, v in said),
       "... its cells the CSV's values, each said in its label", said)


def check_scores(driver, mha, tmp):
    page = os.path.join(tmp, "scores.html")
    text = "the cat sat on the cat sat on the"
    args = ["--model", GPT2, text, "--head-scores"]
    assert mha.run(args + ["--html", page]).returncode == 0
    want = csv_table(mha, args, "head_scores")
    open_page(driver, page, "model")
    shot(driver, "head_scores_model_view")
    strips = driver.find_elements(By.CSS_SELECTOR, ".score-strip")
    got = {}
    for s in strips:
        name = "%s.%s" % (s.get_attribute("data-variant"),
                          s.get_attribute("data-head"))
        for k, span in enumerate(s.find_elements(By.TAG_NAME, "span")):
            got[(name, k)] = span.text
    kinds = ["previous_token", "duplicate_token", "induction"]
    expected = {(row, kinds.index(col)): "%.2f" % float(v)
                for (row, col), v in want.items()}
    legend = driver.find_element(By.CSS_SELECTOR, ".head-marks-legend").text
    ok(len(strips) == 4 and got == expected and "induction" in legend,
       "the model view: each head's three scores (the CSV's) and the "
       "legend", (got, expected, legend))
    # the legend beside the grid, at its top, not below it
    box = driver.execute_script("""
      var g = document.querySelector('#model-view .model-grid')
                .getBoundingClientRect();
      var l = document.querySelector('.head-marks-legend')
                .getBoundingClientRect();
      return [l.left >= g.right, l.top >= g.top && l.top < g.bottom];""")
    ok(box == [True, True],
       "the model view: the legend beside the grid, at its top", box)
    open_page(driver, page, "maps")
    cell = [c for c in map_cells(driver, "head_scores")
            if c.get_attribute("data-row") == "h.1.0"][2]
    cell.click()
    time.sleep(0.1)
    ok(head_view_of(driver) == (["h.1"], [0]),
       "a cell of head_scores opens its head", head_view_of(driver))


def check_kv(driver, mha, tmp):
    page = os.path.join(tmp, "gqa.html")
    args = ["--model", os.path.join(LLAMA, "llama_tied_f32"), TEXT]
    assert mha.run(args + ["--html", page]).returncode == 0
    open_page(driver, page, "model")
    shot(driver, "kv_heads_model_view")
    groups = driver.find_elements(By.CSS_SELECTOR,
                                  "tr.kv-groups th[data-kv-head]")
    spans = [(g.get_attribute("data-kv-head"), g.get_attribute("colspan"),
              g.text) for g in groups]
    legend = driver.find_element(By.CSS_SELECTOR, ".head-marks-legend").text
    ok(spans == [("0", "2", "kv 0"), ("1", "2", "kv 1")] and
       "key/value head" in legend,
       "two heads per key/value head: a bracket over each pair, the legend",
       (spans, legend))
    # --show-heads 1,2: heads 1 and 2 read key/value heads 0 and 1
    args = ["--model", os.path.join(LLAMA, "llama_tied_f32"), TEXT,
            "--show-heads", "1,2"]
    assert mha.run(args + ["--html", page]).returncode == 0
    open_page(driver, page, "model")
    spans = [(g.get_attribute("data-kv-head"), g.get_attribute("colspan"))
             for g in driver.find_elements(
                 By.CSS_SELECTOR, "tr.kv-groups th[data-kv-head]")]
    names = [th.text for th in driver.find_elements(
        By.CSS_SELECTOR, ".model-grid th[scope=col]")]
    ok(spans == [("0", "1"), ("1", "1")] and names == ["head 1", "head 2"],
       "--show-heads 1,2: each head named by its number, under its "
       "key/value head", (spans, names))
    page = os.path.join(tmp, "mha.html")
    args = ["--model", os.path.join(LLAMA, "qwen2_bias_f16"), TEXT]
    assert mha.run(args + ["--html", page]).returncode == 0
    open_page(driver, page, "model")
    ok(not driver.find_elements(By.CSS_SELECTOR, "tr.kv-groups") and
       not driver.find_elements(By.CSS_SELECTOR, ".score-strip"),
       "a key/value head per head, no scores: no marks")


def check_words(mha, tmp):
    """The Interventions view's and the marks' words (every text their
    scripts show through tr()) are in the labels of a page with maps,
    translated, and in no page without maps or key/value heads."""
    from html_test import MAPS_JS, page_data, page_phrases
    want = page_phrases(MAPS_JS) | {"Interventions"}
    page = os.path.join(tmp, "words.html")
    for lang in ["en", "pt_BR", "es", "zh_CN", "zh_TW"]:
        r = mha.run(["--model", GPT2, TEXT, "--ablate", "all-heads",
                     "--html", page, "--lang", lang])
        with open(page, encoding="utf-8") as f:
            labels = page_data(f.read()).get("labels", {})
        missing = sorted(want - set(labels))
        same = [k for k in want if k in labels and
                (labels[k] == k) != (lang == "en")]
        ok(r.returncode == 0 and len(want) > 5 and not missing and not same,
           "--lang %s: the Interventions view's words, translated" % lang,
           (missing, same))
    r = mha.run(["--model", GPT2, TEXT, "--html", page])
    with open(page, encoding="utf-8") as f:
        labels = page_data(f.read()).get("labels", {})
    ok(r.returncode == 0 and not (want & set(labels)),
       "a page without maps or key/value heads holds none of them")


def nan_checkpoint(folder):
    """A copy of GPT2 whose ln_f bias starts with NaN: every logit NaN."""
    for name in os.listdir(GPT2):
        shutil.copy(os.path.join(GPT2, name), folder)
    with open(os.path.join(folder, "model.safetensors"), "r+b") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        f.seek(8 + n + header["transformer.ln_f.bias"]["data_offsets"][0])
        f.write(struct.pack("<f", float("nan")))


def check_nan(driver, mha, tmp):
    """A map's NaN cells are hatched, as --plot draws them, not coloured
    as the bottom of the scale."""
    folder = os.path.join(tmp, "nan_model")
    os.mkdir(folder)
    nan_checkpoint(folder)
    page = os.path.join(tmp, "nan.html")
    args = ["--model", folder, TEXT, "--ablate", "all-heads"]
    r = mha.run(args + ["--html", page])
    ok(r.returncode == 0, "a checkpoint with NaN weights: its page",
       r.stderr)
    open_page(driver, page, "maps")
    shot(driver, "ablation_map_nan")
    cells = map_cells(driver, "ablation_map")
    classes = [c.get_attribute("class").split() for c in cells]
    inline = [c.get_attribute("style") for c in cells]
    ok(len(cells) == 4 and
       all(c.get_attribute("data-value") == "nan" for c in cells) and
       all("masked" in k for k in classes) and
       not any("background" in (s or "") for s in inline),
       "NaN cells of ablation_map: hatched, no colour of the scale",
       (classes, inline, [rgb(c) for c in cells]))


def shows_digit(text):
    return any(d in text for d in "123456789")


def check_small(driver, mha, tmp):
    """--metric prob: changes near 0.001, whose cells and legend show
    digits enough for the map's scale (no coloured cell reads 0.00)."""
    page = os.path.join(tmp, "small.html")
    args = ["--model", GPT2, TEXT, "--ablate", "all-heads", "--metric",
            "prob", "--answer", " cat"]
    assert mha.run(args + ["--html", page]).returncode == 0
    open_page(driver, page, "maps")
    shot(driver, "ablation_map-prob")
    cells = map_cells(driver, "ablation_map")
    blank = [(c.get_attribute("data-value"), c.text) for c in cells
             if float(c.get_attribute("data-value")) != 0 and
             not shows_digit(c.text)]
    values = [abs(float(c.get_attribute("data-value"))) for c in cells]
    legend = driver.find_element(
        By.CSS_SELECTOR, '.map[data-map="ablation_map"] .map-legend')
    measure = legend.find_element(By.CLASS_NAME, "map-measure").text
    ends = legend.text.replace(measure, "").split()
    ok(cells and max(values) < 0.005 and not blank,
       "--metric prob: every cell not 0 shows a digit not 0",
       (blank, values))
    ok(len(ends) == 2 and all(shows_digit(e) for e in ends),
       "and so do the ends of its legend", legend.text)


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        check_words(mha, tmp)
        driver = browser(tmp)
        driver.set_window_size(1280, 720)
        try:
            check_maps(driver, mha, tmp)
            check_many_positions(driver, mha, tmp)
            check_scores(driver, mha, tmp)
            check_kv(driver, mha, tmp)
            check_nan(driver, mha, tmp)
            check_small(driver, mha, tmp)
            errors = [e for e in driver.get_log("browser")
                      if e["level"] == "SEVERE"]
            ok(not errors, "no errors in the browser's console", errors)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
