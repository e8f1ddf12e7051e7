#!/usr/bin/env python3
"""html_browser_test.py MHA_EXPLAIN FLOATTEXT_CASES: the --html page in a
real browser.

Chromium (headless, through chromium-driver and python3-selenium) opens
pages the program wrote and checks the DOM contract of docs/html.md: no
console errors, no network request, T(T+1)/2 lines per head under the
causal mask (Tq x Tk with --kv), every line's data-weight equal to the CSV
value, hovering or focusing a token leaving only its lines visible, the
head toggles, the matrix view's cells equal to the CSV's weights and
scores, the neuron view's softmax steps, stepping through the computation
with the buttons and the arrow keys, a long sentence's page (lines drawn
for a followed token only, heat maps on canvases read with the arrow
keys), a head colour of its own for each of 24 heads, the model view of
a checkpoint's run and of a stack of blocks (a thumbnail per layer and
head, opened from the mouse or the keyboard), and the page's
float formatter against the program's float_text (FLOATTEXT_CASES prints
both). Exits 77 (skipped) with the reason when no browser can be run;
tests/cli/html_test.py checks the page's data without one.
"""
import csv
import io
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, requests_made  # noqa: E402  (skips: 77)
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402

# Every line still drawn: displayed and not transparent.
VISIBLE_LINES = """
return Array.from(document.querySelectorAll('line[data-head]'))
  .filter(function (l) {
    var s = getComputedStyle(l);
    return s.display !== 'none' && s.opacity !== '0' &&
           l.getClientRects().length > 0;
  })
  .map(function (l) {
    return [l.getAttribute('data-variant'), l.getAttribute('data-head'),
            l.getAttribute('data-query'), l.getAttribute('data-key'),
            l.getAttribute('data-weight')];
  });
"""


def settled(driver, good, seconds=3.0):
    """The visible lines once good(lines) holds (mouse and focus events
    reach the page a moment after the driver sends them), or the last
    ones seen."""
    end = time.monotonic() + seconds
    while True:
        lines = driver.execute_script(VISIBLE_LINES)
        if good(lines) or time.monotonic() > end:
            return lines
        time.sleep(0.05)


def rest_mouse(driver):
    """The pointer on the page's title, away from every token."""
    ActionChains(driver).move_to_element(
        driver.find_element(By.TAG_NAME, "h1")).perform()


def csv_values(mha, args):
    """{(variant, head, table, row, col): value} from --format csv."""
    r = mha.run(args + ["--format", "csv"])
    assert r.returncode == 0, r.stderr
    out = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))):
        out[(row["variant"], row["head"], row["table"], row["row"],
             row["col"])] = row["value"]
    return out


def check_page(driver, mha, tmp, name, args, tq, tk, masked):
    page = os.path.join(tmp, name + ".html")
    r = mha.run(args + ["--html", page])
    ok(r.returncode == 0, "%s: --html writes the page" % name, r.stderr)
    values = csv_values(mha, args)
    url = "file://" + page
    driver.get(url)
    driver.get_log("performance")  # earlier pages' requests
    driver.get(url)

    variants = [b.get_attribute("data-value") for b in driver.find_elements(
        By.CSS_SELECTOR, "[aria-label=Variant] button")]
    names = sorted({k[0] for k in values if k[2] == "attn_weights"})
    ok(len(variants) == len(names),
       "%s: a variant button per variant with attention (%d)" %
       (name, len(names)), variants)
    per_head = tq * (tq + 1) // 2 if masked else tq * tk

    for vi, button in enumerate(driver.find_elements(
            By.CSS_SELECTOR, "[aria-label=Variant] button")):
        button.click()
        rest_mouse(driver)
        lines = settled(driver, lambda ls: bool(ls) and all(
            int(l[1]) >= 0 for l in ls) and len(ls) % per_head == 0 and
            len(ls) >= per_head and
            ls[0][0] == button.get_attribute("textContent"))
        variant = lines[0][0] if lines else "?"
        heads = sorted({l[1] for l in lines}, key=int)
        counts = [sum(1 for l in lines if l[1] == h) for h in heads]
        expected_heads = sorted({k[1] for k in values
                                 if k[0] == variant and
                                 k[2] == "attn_weights"}, key=int)
        ok(heads == expected_heads and all(c == per_head for c in counts),
           "%s/%s: %d lines for each of %d heads" %
           (name, variant, per_head, len(expected_heads)),
           "heads %s, counts %s" % (heads, counts))
        wrong = [l for l in lines
                 if values.get((l[0], l[1], "attn_weights", l[2], l[3]))
                 != l[4]]
        ok(lines and not wrong,
           "%s/%s: every line's data-weight is the CSV's value" %
           (name, variant), wrong[:5])
        if masked:
            ok(all(int(l[3]) <= int(l[2]) for l in lines),
               "%s/%s: no line to a masked (later) key" % (name, variant))

        # hover each query token: only its lines stay
        tokens = driver.find_elements(
            By.CSS_SELECTOR, "[data-side=query][data-token]")
        bad = []
        for tok in tokens:
            i = tok.get_attribute("data-token")
            ActionChains(driver).move_to_element(tok).perform()
            want = (int(i) + 1 if masked else tk) * len(heads)
            shown = settled(driver, lambda ls: len(ls) == want and all(
                l[2] == i for l in ls))
            if (len(shown) != want or
                    any(l[2] != i for l in shown)):
                bad.append((i, len(shown), want))
        ok(len(tokens) == tq and not bad,
           "%s/%s: hovering query token i leaves only lines with "
           "data-query=i" % (name, variant), bad)

        # focus (keyboard) a key token: only its lines, weights as text
        keys = driver.find_elements(By.CSS_SELECTOR,
                                    "[data-side=key][data-token]")
        last = keys[-1]
        j = last.get_attribute("data-token")
        rest_mouse(driver)
        settled(driver, lambda ls: len(ls) == len(lines))
        driver.execute_script("arguments[0].focus()", last)
        shown = settled(driver, lambda ls: bool(ls) and all(
            l[3] == j for l in ls))
        readout = driver.find_element(By.ID, "readout").text
        ok(shown and all(l[3] == j for l in shown) and
           all(l[4] in readout for l in shown),
           "%s/%s: focusing key token %s leaves its lines, their weights "
           "as text" % (name, variant, j), (shown, readout))
        driver.execute_script("arguments[0].blur()", last)
        ok(len(settled(driver, lambda ls: len(ls) == len(lines)))
           == len(lines),
           "%s/%s: leaving the token shows every line again" %
           (name, variant))
        if vi == 0:
            check_toggles(driver, name, heads, per_head)
            check_tab(driver, name)

    check_matrix(driver, name, values, tq, tk, masked)
    check_neuron(driver, name, values, tq, tk)
    check_steps(driver, name)
    check_print(driver, name)

    severe = [e for e in driver.get_log("browser")
              if e["level"] in ("SEVERE", "WARNING")]
    ok(not severe, "%s: no console errors or warnings" % name, severe)
    foreign = [u for u in requests_made(driver) if u != url]
    ok(not foreign, "%s: no request but the page itself" % name, foreign)


def check_tab(driver, name):
    """The Tab key reaches the first query token, which then shows only
    its lines."""
    from selenium.webdriver.common.keys import Keys
    driver.execute_script("document.activeElement.blur()")
    reached = False
    for _ in range(40):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        side = driver.execute_script(
            "return document.activeElement.getAttribute('data-side')")
        if side == "query":
            reached = True
            break
    shown = settled(driver, lambda ls: bool(ls) and all(
        l[2] == "0" for l in ls)) if reached else []
    ok(reached and shown and all(l[2] == "0" for l in shown),
       "%s: Tab reaches query token 0, which shows only its lines" % name)
    driver.execute_script("document.activeElement.blur()")


def check_toggles(driver, name, heads, per_head):
    last = heads[-1]
    box = driver.find_element(
        By.CSS_SELECTOR, "#head-toggles input[data-head='%s']" % last)
    box.click()
    shown = settled(driver, lambda ls: all(l[1] != last for l in ls))
    ok(all(l[1] != last for l in shown) and
       len(shown) == per_head * (len(heads) - 1),
       "%s: unticking head %s hides its lines" % (name, last))
    box.click()
    ok(len(settled(driver, lambda ls: len(ls) == per_head * len(heads)))
       == per_head * len(heads),
       "%s: ticking it again shows them" % name)


def float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def check_neuron(driver, name, values, tq, tk):
    """The neuron view of the last variant, head 0, last query and key."""
    from selenium.webdriver.support.ui import Select
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=neuron]").click()
    variant = driver.find_elements(
        By.CSS_SELECTOR, "[aria-label=Variant] button")[-1]
    variant.click()
    v = variant.get_attribute("textContent")
    Select(driver.find_element(By.CSS_SELECTOR, "select[data-pick=Query]")
           ).select_by_index(tq - 1)
    Select(driver.find_element(By.CSS_SELECTOR, "select[data-pick=Key]")
           ).select_by_index(tk - 1)
    i, j = str(tq - 1), str(tk - 1)
    score = driver.find_element(By.ID, "neuron-score").text
    weight = driver.find_element(By.ID, "neuron-weight").text
    ok(score == values[(v, "0", "attn_scores", i, j)] and
       weight == values[(v, "0", "attn_weights", i, j)],
       "%s: the neuron view's score and weight are the CSV's" % name,
       (score, weight))
    cells = driver.execute_script("""
        return Array.from(document.querySelectorAll('#neuron-view td.num'))
          .map(function (c) {
            return [c.getAttribute('data-col'), c.getAttribute('data-dim'),
                    c.textContent];
          });""")
    qs = {c[1]: c[2] for c in cells if c[0] == "q"}
    ks = {c[1]: c[2] for c in cells if c[0] == "k"}
    wrong = []
    for c in cells:
        d = c[1]
        if c[0] == "q" and c[2] != values[(v, "0", "queries", i, d)]:
            wrong.append(c)
        if c[0] == "k" and c[2] != values[(v, "0", "keys", j, d)]:
            wrong.append(c)
        if c[0] == "product" and float32(float(c[2])) != float32(
                float32(float(qs[d])) * float32(float(ks[d]))):
            wrong.append(c)
    ok(cells and not wrong, "%s: the neuron view's q, k and float32 "
       "products (%d values)" % (name, len(cells)), wrong[:5])
    total = 0.0
    for d in sorted(qs, key=int):
        product = float32(float32(float(qs[d])) * float32(float(ks[d])))
        total = float32(total + product)
    ok(abs(total - float(score)) <= 1e-5 * max(1.0, abs(total)),
       "%s: the products add up to the score (%s, summed here %r)" %
       (name, score, total))
    text = {k: driver.find_element(By.ID, "neuron-" + k).text
            for k in ("scaled", "max", "exp", "sum", "inverse", "product")}
    dk = len(qs)
    divisor = float32(dk ** 0.5) if "scaled: score" in driver.find_element(
        By.ID, "neuron-view").text else 1.0
    scaled = float32(float(score) / divisor)
    import math
    exp = math.exp(scaled - float(text["max"])) if scaled > -math.inf else 0
    ok(float32(float(text["scaled"])) == scaled and
       abs(float(text["exp"]) - exp) <= 2e-7 * max(exp, 1e-30) and
       float32(1 / float32(float(text["sum"]))) == float32(
           float(text["inverse"])) and
       text["product"] == weight,
       "%s: the softmax steps: scaled score, exp(scaled - max), 1 / sum, "
       "and exp x (1 / sum) = the weight" % name, (text, weight))
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=head]").click()


def check_steps(driver, name):
    """The step-through: Next and Previous, the arrow keys, the first and
    last steps, each with a note and its tables."""
    from selenium.webdriver.common.keys import Keys
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=steps]").click()

    def where():
        return driver.execute_script("""
            var t = document.getElementById('step-title');
            return [t.getAttribute('data-step-id'), t.textContent,
                    document.getElementById('step-note').textContent,
                    document.getElementById('step-text').textContent,
                    document.querySelector('[data-step=prev]').disabled,
                    document.querySelector('[data-step=next]').disabled];""")
    first = where()
    ok(first[0] == "tokens" and first[4] and "Tokenize" in first[2] and
       "vocab" in first[3],
       "%s: the first step: the tokens, their note and table" % name,
       first[:3])
    driver.find_element(By.CSS_SELECTOR, "[data-step=next]").click()
    second = where()

    def press(key, times=1):
        for _ in range(times):
            ActionChains(driver).send_keys(key).perform()

    def until_new(key):
        """Presses key until another step is on view (a step taller than
        the window scrolls first); the step."""
        was = where()[1]
        for _ in range(30):
            press(key)
            now = where()
            if now[1] != was:
                return now
        return where()
    third = until_new(Keys.ARROW_RIGHT)
    back = until_new(Keys.ARROW_LEFT)
    ok(second[0] == "embeddings" and third[1] != second[1] and
       back[1] == second[1],
       "%s: Next, then the right and left arrow keys step" % name,
       (second[1], third[1], back[1]))
    check_step_keys(driver, name, where, press)
    seen, last = [], None
    for _ in range(80):
        last = where()
        if not seen or seen[-1] != last[0]:
            seen.append(last[0])
        if last[5]:
            break
        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    ok(last[5] and {"qkv", "scores", "weights", "context"} <= set(seen) and
       "attn_weights" in "".join(seen + [last[3]]) or "weights" in seen,
       "%s: stepping to the end passes Q/K/V, scores, weights and context "
       "(%d steps)" % (name, len(seen)), seen)
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=head]").click()


def check_step_keys(driver, name, where, press):
    """The keys of --step in a window shorter than a step: Down, j,
    PageDown and Space scroll the step, then go on to the next, which
    opens at its top; Up, k, PageUp and b scroll back, then go back; the
    Down arrow never goes back."""
    from selenium.webdriver.common.keys import Keys
    driver.set_window_size(1280, 360)
    try:
        press("p", 40)

        def view():
            return driver.execute_script("""
                var r = document.getElementById('step-view')
                    .getBoundingClientRect();
                return [document.getElementById('step-title').textContent,
                        Math.round(window.scrollY), Math.round(r.top),
                        Math.round(r.bottom), window.innerHeight];""")
        start = view()
        driver.execute_script("window.scrollTo(0, arguments[0])",
                              start[1] + start[2])
        top = view()
        tall = top[3] > top[4] + 1
        press(Keys.ARROW_DOWN)
        down = view()
        press("j")
        j = view()
        press(Keys.ARROW_UP)
        up = view()
        ok(tall and down[0] == top[0] and down[1] > top[1] and
           j[0] == top[0] and j[1] > down[1] and up[0] == top[0] and
           up[1] < j[1],
           "%s: a step taller than the window: Down and j scroll it, Up "
           "scrolls back" % name, (top, down, j, up))
        # Space on a focused button presses it, as browsers do
        driver.execute_script("document.activeElement.blur()")
        steps = [view()]
        for key in [Keys.PAGE_DOWN, " "] * 15:
            press(key)
            steps.append(view())
            if steps[-1][0] != top[0]:
                break
        moved = steps[-1]
        before = steps[-2]
        ok(moved[0] != top[0] and before[3] <= before[4] + 1 and
           moved[2] >= 0 and
           all(s[1] >= p[1] for p, s in zip(steps, steps[1:-1])),
           "%s: PageDown and Space scroll to the step's end, then the next "
           "step opens at its top" % name, steps)
        press(Keys.PAGE_DOWN)
        inside = view()
        press(Keys.PAGE_UP)
        again = view()
        press("k")
        prev = view()
        ok(inside[0] == moved[0] and inside[2] < 0 and
           again[0] == moved[0] and again[2] == 0 and
           prev[0] == top[0] and prev[2] >= 0,
           "%s: PageUp scrolls back to the step's top, then k goes back, "
           "the step before opened at its top" % name,
           (moved, inside, again, prev))
        press("b")
        ok(view()[0] == prev[0], "%s: b on the first step stays" % name)
    finally:
        driver.set_window_size(1280, 720)


def check_print(driver, name):
    """On paper (print media, the beforeprint event): no controls, the
    view, then every step of the variant; gone again after printing."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    got = driver.execute_script("""
        window.dispatchEvent(new Event('beforeprint'));
        var shown = function (sel) {
          var e = document.querySelector(sel);
          return !!e && getComputedStyle(e).display !== 'none';
        };
        return [shown('.controls'), shown('#readout'), shown('#print-view'),
                document.querySelectorAll('#print-view .print-step').length,
                document.querySelectorAll('#print-view pre').length];""")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    after = driver.execute_script("""
        window.dispatchEvent(new Event('afterprint'));
        return document.querySelectorAll('#print-view *').length;""")
    ok(got[:3] == [False, False, True] and got[3] >= 8 and got[3] == got[4]
       and after == 0,
       "%s: printing hides the controls and adds every step (%d)" %
       (name, got[3]), (got, after))


def check_floattext(driver, cases):
    """mhaFloatText, the page's formatter, against float_text."""
    out = subprocess.run([cases, "20000"], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    pairs = [line.split(" ", 1) for line in out if line]
    got = driver.execute_script("""
        var u = new Uint32Array(1), f = new Float32Array(u.buffer);
        return arguments[0].map(function (b) {
          u[0] = b; return mhaFloatText(f[0], u[0]);
        });""", [int(p[0]) for p in pairs])
    wrong = [(p[0], p[1], g) for p, g in zip(pairs, got) if p[1] != g]
    ok(len(got) == len(pairs) > 20000 and not wrong,
       "the page writes %d floats as the program's CSV does" % len(pairs),
       wrong[:5])


def check_long(driver, mha, tmp):
    """64 tokens and 4 heads: 8,320 lines, drawn for a followed token
    only; 64 x 64 heat maps on canvases, read with the arrow keys."""
    words = " ".join("w%d" % (i % 9) for i in range(64))
    args = [words, "--heads", "4", "--d-out", "8", "--variant", "fused"]
    page = os.path.join(tmp, "long.html")
    mha.run(args + ["--html", page])
    values = csv_values(mha, args)
    driver.get("file://" + page)
    rest_mouse(driver)
    ok(not driver.execute_script(VISIBLE_LINES) and
       driver.find_elements(By.ID, "head-notice"),
       "long: no lines before a token is followed, and a notice says why")
    tok = driver.find_element(By.CSS_SELECTOR,
                              "[data-side=query][data-token='63']")
    ActionChains(driver).move_to_element(tok).perform()
    lines = settled(driver, lambda ls: len(ls) == 4 * 64)
    wrong = [l for l in lines
             if values.get((l[0], l[1], "attn_weights", l[2], l[3]))
             != l[4] or l[2] != "63"]
    ok(len(lines) == 4 * 64 and not wrong,
       "long: hovering query 63 draws its 256 lines, weights as the CSV's",
       (len(lines), wrong[:3]))
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=matrix]").click()
    canvases = driver.find_elements(By.CSS_SELECTOR, "canvas.heat")
    ok(len(canvases) == 4 and not driver.find_elements(By.CSS_SELECTOR,
                                                       "td.cell"),
       "long: four heat maps on canvases")
    from selenium.webdriver.common.keys import Keys
    c = canvases[2]
    driver.execute_script("arguments[0].focus()", c)
    ActionChains(driver).send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN,
                                   Keys.ARROW_RIGHT).perform()
    at = (c.get_attribute("data-query"), c.get_attribute("data-key"),
          c.get_attribute("data-value"))
    readout = driver.find_element(By.ID, "readout").text
    ok(at[:2] == ("2", "1") and
       at[2] == values[("fused", "2", "attn_weights", "2", "1")] and
       readout.endswith("= " + at[2]),
       "long: the arrow keys move over a heat map; the readout has the "
       "CSV's value", (at, readout))
    severe = [e for e in driver.get_log("browser")
              if e["level"] in ("SEVERE", "WARNING")]
    ok(not severe, "long: no console errors or warnings", severe)


def cielab(rgb):
    """CIELAB (D65) of an sRGB colour given as 0-255 integers."""
    def linear(c):
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
           0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))


def check_head_colours(driver, mha, tmp):
    """24 heads: the first eight in Okabe and Ito's colours as before,
    every head a colour of its own, clearly apart, its lines in it."""
    page = os.path.join(tmp, "heads24.html")
    r = mha.run(["O gato sobe no tapete", "--heads", "24", "--d-out", "48",
                 "--variant", "fused", "--html", page])
    driver.get("file://" + page)
    swatches = driver.execute_script("""
        return Array.from(document.querySelectorAll('label.head-toggle'))
          .map(function (l) {
            return [l.querySelector('input').getAttribute('data-head'),
                    getComputedStyle(l.querySelector('.swatch'))
                      .backgroundColor];
          });""")
    rgb = {}
    for head, colour in swatches:
        parts = colour[colour.find("(") + 1:colour.find(")")].split(",")
        rgb[int(head)] = tuple(int(p) for p in parts[:3])
    okabe_ito = ["0072B2", "D55E00", "009E73", "CC79A7", "E69F00", "56B4E9",
                 "000000", "B8A000"]
    ok(r.returncode == 0 and sorted(rgb) == list(range(24)) and
       ["%02X%02X%02X" % rgb[h] for h in range(8)] == okabe_ito,
       "24 heads: a swatch each, heads 0 to 7 in the Okabe-Ito colours",
       swatches[:8])
    lab = {h: cielab(c) for h, c in rgb.items()}
    closest = min((sum((a - b) ** 2 for a, b in zip(lab[i], lab[j])) ** 0.5,
                   i, j) for i in lab for j in lab if i < j) if lab else None
    ok(len(set(rgb.values())) == 24 and closest[0] >= 12,
       "24 heads: 24 different colours, any two at least 12 CIELAB units "
       "apart (closest: heads %d and %d, %.1f)" % (closest[1], closest[2],
                                                   closest[0]),
       swatches)
    strokes = driver.execute_script("""
        var out = {};
        document.querySelectorAll('line[data-head]').forEach(function (l) {
          var h = l.getAttribute('data-head');
          out[h] = out[h] || {};
          out[h][l.getAttribute('stroke').toUpperCase()] = true;
        });
        return out;""")
    wrong = [(h, sorted(s)) for h, s in strokes.items()
             if sorted(s) != ["#%02X%02X%02X" % rgb[int(h)]]]
    ok(len(strokes) == 24 and not wrong,
       "24 heads: every head's lines drawn in its swatch's colour",
       wrong[:4])


def check_matrix(driver, name, values, tq, tk, masked):
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=matrix]").click()
    for kind, table in (("weights", "attn_weights"),
                        ("scores", "attn_scores")):
        driver.find_element(
            By.CSS_SELECTOR,
            "[aria-label=Show] button[data-value=%s]" % kind).click()
        cells = driver.execute_script("""
            return Array.from(document.querySelectorAll('td.cell')).map(
              function (c) {
                return [c.getAttribute('data-variant'),
                        c.getAttribute('data-head'),
                        c.getAttribute('data-query'),
                        c.getAttribute('data-key'),
                        c.getAttribute('data-value')];
              });""")
        heads = {c[1] for c in cells}
        wrong = [c for c in cells
                 if values.get((c[0], c[1], table, c[2], c[3])) != c[4]]
        ok(len(cells) == len(heads) * tq * tk and not wrong,
           "%s: matrix view, %d %s cells per head equal the CSV" %
           (name, tq * tk, table), wrong[:5])
    cell = driver.find_elements(By.CSS_SELECTOR, "td.cell")[-1]
    ActionChains(driver).move_to_element(cell).perform()
    readout = driver.find_element(By.ID, "readout").text
    ok(readout.endswith("= " + cell.get_attribute("data-value")),
       "%s: hovering a cell shows its exact value" % name, readout)
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=head]").click()


def check_model_view(driver, mha, tmp):
    """The model view: a checkpoint's run (--model) and a stack of
    blocks, a row of thumbnails per layer and a column per head; the
    arrow keys move over the grid (one Tab stop), Enter or a click opens
    the layer and head alone in the head view, and the matrix view then
    shows that head."""
    from selenium.webdriver.common.keys import Keys
    two = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "reference", "gpt2", "two_layers")
    for name, args, rows, heads, group in (
            ("checkpoint", ["--model", two, "Hello world, hello"],
             ["h.0", "h.1"], 2, "Layer"),
            ("stack", ["O gato sobe no tapete", "--variant", "fused,block",
                       "--layers", "2", "--d-model", "4", "--d-out", "4"],
             ["fused", "block.0", "block.1"], 2, "Variant"),
            ("blocks", ["O gato sobe no tapete", "--variant", "block",
                        "--layers", "3", "--d-model", "4", "--d-out", "4",
                        "--lang", "pt_BR"],
             ["block.0", "block.1", "block.2"], 2, "Layer")):
        page = os.path.join(tmp, "model-%s.html" % name)
        r = mha.run(args + ["--html", page])
        driver.get("file://" + page)
        driver.find_element(By.CSS_SELECTOR,
                            "[aria-label=View] button[data-value=model]"
                            ).click()
        thumbs = driver.find_elements(By.CSS_SELECTOR,
                                      "#model-view button.thumb")
        seen = [(t.get_attribute("data-variant"), t.get_attribute("data-head"))
                for t in thumbs]
        want = [(v, str(h)) for v in rows for h in range(heads)]
        stops = [t for t in thumbs if t.get_attribute("tabindex") == "0"]
        ok(r.returncode == 0 and seen == want and len(stops) == 1,
           "%s: the model view, a thumbnail per layer and head, one Tab stop"
           % name, seen)
        thumbs[0].send_keys(Keys.ARROW_DOWN)
        at = driver.switch_to.active_element
        at.send_keys(Keys.ARROW_RIGHT)
        at = driver.switch_to.active_element
        where = (at.get_attribute("data-variant"), at.get_attribute("data-head"))
        at.send_keys(Keys.ENTER)
        shown = [b.get_attribute("data-head") for b in driver.find_elements(
            By.CSS_SELECTOR, "#head-toggles input") if b.is_selected()]
        # a checkpoint's layers and a stack's blocks are "Layer" buttons
        # (in the page's language), a mix with the lesson's variants is not
        variant = driver.find_element(
            By.CSS_SELECTOR,
            "[aria-label=%s] button[aria-pressed=true]" % group).text
        label = driver.find_element(
            By.CSS_SELECTOR, "[aria-label=%s] .group-name" % group).text
        if "pt_BR" in args:
            ok(label == "Camada", "%s: the layer buttons are named in the "
               "page's language" % name, label)
        ok(where == (rows[1], "1") and shown == ["1"] and
           variant == rows[1] and
           driver.find_element(By.ID, "model-view").get_attribute("hidden")
           and not driver.find_element(By.ID, "head-view").get_attribute(
               "hidden"),
           "%s: the arrow keys and Enter open a layer's head in the head view"
           % name, (where, shown, variant))
        driver.find_element(By.CSS_SELECTOR,
                            "[aria-label=View] button[data-value=matrix]"
                            ).click()
        maps = [f.get_attribute("data-head") for f in driver.find_elements(
            By.CSS_SELECTOR, "#matrix-view figure.matrix")]
        driver.find_element(By.CSS_SELECTOR,
                            "[aria-label=View] button[data-value=model]"
                            ).click()
        driver.find_elements(By.CSS_SELECTOR,
                             "#model-view button.thumb")[0].click()
        shown = [b.get_attribute("data-head") for b in driver.find_elements(
            By.CSS_SELECTOR, "#head-toggles input") if b.is_selected()]
        errors = [e for e in driver.get_log("browser")
                  if e["level"] == "SEVERE"]
        ok(maps == ["1"] and shown == ["0"] and not errors,
           "%s: the matrix view shows the head opened; a click opens "
           "another" % name, (maps, shown, errors))


# Every step's id and title, walked with the "next" button, or null when
# the walk does not reach the last step (its "next" disabled). The view
# draws its buttons again at each step, so the button is looked up again
# each time: the first one, no longer on the page, is never disabled, and
# its clicks would go on at the last step until the loop's end.
STEP_TITLES = """
var out = [];
for (var k = 0; k < 400; k++) {
  var t = document.getElementById('step-title');
  out.push([t.getAttribute('data-step-id'), t.textContent]);
  var next = document.querySelector('[data-step=next]');
  if (next.disabled) return out;
  next.click();
}
return null;"""


def check_prenorm_titles(driver, mha, tmp):
    """GPT-2 normalises before it adds: its ln_1 and ln_2 steps are titled
    as normalisations before the sublayer, in the page's language, and
    a post-norm block's steps as add and norm."""
    two = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "reference", "gpt2", "two_layers")
    for name, args, want in (
            ("gpt2", ["--model", two, "Hello world, hello"],
             {"norm1": "Normalização antes da atenção",
              "norm2": "Normalização antes do feed-forward"}),
            ("block", ["O gato sobe no tapete", "--variant", "block",
                       "--d-model", "4", "--d-out", "4"],
             {"norm1": "Soma e normalização",
              "norm2": "Soma e normalização, de novo"})):
        page = os.path.join(tmp, "titles-%s.html" % name)
        r = mha.run(args + ["--html", page, "--lang", "pt_BR"])
        driver.get("file://" + page)
        driver.find_element(By.CSS_SELECTOR,
                            "[aria-label=View] button[data-value=steps]"
                            ).click()
        titles = driver.execute_script(STEP_TITLES)
        ok(titles is not None and
           len(set(t for _, t in titles)) == len(titles),
           "%s: the steps walked to the last, each once" % name,
           len(titles) if titles else titles)
        # "3. Normalização antes da atenção (h.0)": its number, its
        # layer; each layer's steps the same
        got = {}
        for step, title in titles or []:
            if step in want:
                bare = re.sub(r"^\d+\. | \([^)]*\)$", "", title)
                got.setdefault(step, set()).add(bare)
        want = {k: {v} for k, v in want.items()}
        ok(r.returncode == 0 and got == want,
           "%s: the normalisation steps are titled %s" % (name, want), got)


def check_classroom_page(driver, mha, tmp):
    """Issue 26: the step counter in the page's language; Chinese step
    tables as HTML tables whose columns line up, weights and scores
    coloured; 8 heads' matrices on one 1280 x 720 screen; the neuron
    view's q, k and q x k coloured and opening on an informative pair;
    one Tab stop per grid and the arrow keys within it; a click keeps a
    token's lines; a double-click shows only one head; --color-scale
    and --cmap followed by the matrix view."""
    from selenium.webdriver.common.keys import Keys
    page = os.path.join(tmp, "zh.html")
    mha.run(["我 爱 吃 苹果", "--heads", "2", "--variant", "fused",
             "--lang", "zh_TW", "--html", page])
    driver.get("file://" + page)
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=steps]").click()
    count = driver.find_element(By.ID, "step-count").text
    ok(count.startswith("第 1 步") and "step" not in count,
       "zh_TW: the step counter is translated", count)
    for _ in range(4):
        driver.find_element(By.CSS_SELECTOR, "[data-step=next]").click()
    lined = driver.execute_script("""
        var t = document.querySelector('#step-text table.step-table');
        if (!t) return null;
        var lefts = Array.from(t.rows).map(function (r) {
          return Array.from(r.cells).map(function (c) {
            return Math.round(c.getBoundingClientRect().right); });
        });
        var coloured = Array.from(t.querySelectorAll('td')).filter(
          function (c) { return c.style.background !== ''; }).length;
        return [lefts, coloured,
                document.getElementById('step-title')
                  .getAttribute('data-step-id')];""")
    ok(lined is not None and lined[2] == "scores" and
       all(r == lined[0][0] for r in lined[0]) and lined[1] == 10,
       "zh_TW: a step's Chinese table is an HTML table, its columns line "
       "up, its 10 unmasked scores coloured", lined)
    driver.save_screenshot(os.path.join(tmp, "zh-steps.png"))

    page = os.path.join(tmp, "eight.html")
    mha.run(["the cat sat on the mat", "--heads", "8", "--d-out", "16",
             "--variant", "fused", "--html", page])
    driver.set_window_size(1280, 720)
    driver.get("file://" + page)
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=matrix]").click()
    fit = driver.execute_script("""
        var figs = document.querySelectorAll('figure.matrix');
        var bottom = 0, right = 0;
        figs.forEach(function (f) {
          var b = f.getBoundingClientRect();
          bottom = Math.max(bottom, b.bottom); right = Math.max(right, b.right);
        });
        return [figs.length, bottom, right, window.innerHeight,
                window.innerWidth];""")
    ok(fit[0] == 8 and fit[1] <= fit[3] and fit[2] <= fit[4],
       "8 heads: the matrix view fits a 1280 x 720 window", fit)
    stops = driver.execute_script("""
        return [document.querySelectorAll('td.cell').length,
                document.querySelectorAll('td.cell[tabindex="0"]').length];""")
    ok(stops == [8 * 36, 8], "the matrix view: one Tab stop per map, not "
       "one per cell", stops)
    first = driver.find_element(By.CSS_SELECTOR,
                                "figure.matrix td.cell[tabindex='0']")
    driver.execute_script("arguments[0].focus()", first)
    ActionChains(driver).send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN,
                                   Keys.ARROW_RIGHT).perform()
    at = driver.execute_script(
        "var a = document.activeElement; return [a.getAttribute('data-head'),"
        " a.getAttribute('data-query'), a.getAttribute('data-key'),"
        " document.getElementById('readout').textContent];")
    ok(at[:3] == ["0", "2", "1"] and "query 2" in at[3],
       "the arrow keys move within a map, the readout follows", at)
    ActionChains(driver).double_click(driver.find_element(
        By.CSS_SELECTOR, "figure.matrix[data-head='3'] figcaption")).perform()
    only = driver.execute_script(
        "return Array.from(document.querySelectorAll('figure.matrix'))"
        ".map(function (f) { return f.getAttribute('data-head'); });")
    ok(only == ["3"], "a double-click on a map shows only its head", only)
    ActionChains(driver).double_click(driver.find_element(
        By.CSS_SELECTOR, "figure.matrix[data-head='3'] figcaption")).perform()
    ok(len(driver.find_elements(By.CSS_SELECTOR, "figure.matrix")) == 8,
       "a second double-click shows every head again")
    driver.save_screenshot(os.path.join(tmp, "eight-matrix.png"))

    # the neuron view: an informative pair, its numbers coloured
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=neuron]").click()
    picked = driver.execute_script("""
        return ['Head', 'Query', 'Key'].map(function (n) {
          return document.querySelector('select[data-pick=' + n + ']').value;
        }).concat([document.getElementById('neuron-weight').textContent]);""")
    ok(picked[1] == "5" and picked[3] != "1",
       "the neuron view opens on the last query and the key it attends to "
       "most, not query 0 and key 0 (weight 1)", picked)
    colours = driver.execute_script("""
        return Array.from(
            document.querySelectorAll('#neuron-view td.num[data-col]'))
          .map(function (c) { return [c.getAttribute('data-col'),
                                      c.style.backgroundColor]; });""")
    ok(colours and all(c[1] for c in colours) and
       {c[0] for c in colours} == {"q", "k", "product"},
       "the neuron view colours q, k and q x k", colours[:3])

    # the head view: one Tab stop for the tokens, arrows, click, dblclick
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=head]").click()
    stops = driver.execute_script(
        "return document.querySelectorAll('.token[tabindex=\"0\"]').length")
    ok(stops == 1, "the head view: one Tab stop for its tokens", stops)
    q0 = driver.find_element(By.CSS_SELECTOR,
                             "[data-side=query][data-token='0']")
    driver.execute_script("arguments[0].focus()", q0)
    ActionChains(driver).send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN,
                                   Keys.ARROW_RIGHT).perform()
    focused = driver.execute_script(
        "var a = document.activeElement; return [a.getAttribute('data-side'),"
        " a.getAttribute('data-token')];")
    shown = settled(driver, lambda ls: bool(ls) and all(
        l[3] == "2" for l in ls))
    ok(focused == ["key", "2"] and shown and all(l[3] == "2" for l in shown),
       "the arrow keys move from token to token; the focused one's lines "
       "are shown", (focused, len(shown)))
    driver.execute_script("document.activeElement.blur()")
    tok = driver.find_element(By.CSS_SELECTOR,
                              "[data-side=query][data-token='4']")
    ActionChains(driver).click(tok).perform()
    rest_mouse(driver)
    driver.execute_script("document.activeElement.blur()")
    kept = settled(driver, lambda ls: bool(ls) and all(
        l[2] == "4" for l in ls))
    ok(kept and all(l[2] == "4" for l in kept) and len(kept) == 5 * 8 and
       tok.get_attribute("data-pinned") == "true",
       "a click keeps a token's lines shown after the pointer leaves",
       len(kept))
    ActionChains(driver).click(tok).perform()
    rest_mouse(driver)
    driver.execute_script("document.activeElement.blur()")
    ok(len(settled(driver, lambda ls: len(ls) == 21 * 8)) == 21 * 8,
       "a second click lets them go: every line again")
    line = driver.find_element(
        By.CSS_SELECTOR, "line[data-head='5'][data-query='5'][data-key='0']")
    driver.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('dblclick', "
        "{bubbles: true}))", line)
    heads = {l[1] for l in settled(driver, lambda ls: bool(ls) and all(
        l[1] == "5" for l in ls))}
    ok(heads == {"5"}, "a double-click on a line shows only its head",
       heads)
    driver.execute_script("document.querySelectorAll('#head-toggles input')"
                          ".forEach(function (b) { if (!b.checked) "
                          "b.click(); })")
    label = driver.find_element(By.XPATH, "//label[contains(@class, "
                                "'head-toggle')][input[@data-head='2']]")
    ActionChains(driver).double_click(label).perform()
    heads = {l[1] for l in settled(driver, lambda ls: bool(ls) and all(
        l[1] == "2" for l in ls))}
    ok(heads == {"2"}, "a double-click on head 2's toggle shows only head 2",
       heads)
    ActionChains(driver).double_click(label).perform()
    ok(len(settled(driver, lambda ls: len(ls) == 21 * 8)) == 21 * 8,
       "a second double-click shows every head's lines again")

    # --color-scale and --cmap reach the matrix view
    page = os.path.join(tmp, "blues.html")
    mha.run(["the cat sat on the mat", "--heads", "2", "--variant", "fused",
             "--color-scale", "fixed", "--cmap", "Blues", "--html", page])
    driver.get("file://" + page)
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=matrix]").click()
    top = driver.execute_script("""
        var c = document.querySelector('td.cell[data-query="0"]' +
                                       '[data-key="0"]');
        return getComputedStyle(c).backgroundColor;""")
    ok(top == "rgb(8, 48, 107)",
       "--color-scale fixed --cmap Blues: weight 1 is Blues' darkest, as "
       "--plot draws it", top)


def check_training(driver, mha, tmp):
    """A trained run's page: the Training view's slider walks the kept
    steps, each head's cells are attn_weights_steps' values at that step
    (as the CSV writes them), the label says the step, and the loss
    curve's dot moves to it."""
    args = ["the cat sat on the mat", "--heads", "2", "--variant", "fused",
            "--train", "40"]
    page = os.path.join(tmp, "trained.html")
    r = mha.run(args + ["--html", page])
    ok(r.returncode == 0, "trained: --html writes the page", r.stderr)
    values = csv_values(mha, args + ["--tables", "attn_weights_steps,loss"])
    driver.get("file://" + page)
    driver.find_element(
        By.CSS_SELECTOR, "[aria-label=View] button[data-value=training]").click()
    slider = driver.find_element(By.ID, "training-step")
    ok(slider.get_attribute("max") == "10" and
       slider.get_attribute("value") == "10",
       "trained: a slider over 11 kept steps, on the last",
       (slider.get_attribute("max"), slider.get_attribute("value")))
    T = 6
    for k, step, words in ((10, 40, "after 40 of 40 training steps"),
                           (4, 16, "after 16 of 40 training steps"),
                           (0, 0, "before training")):
        driver.execute_script(
            "arguments[0].value = arguments[1];"
            "arguments[0].dispatchEvent(new Event('input'));", slider, k)
        cells = driver.execute_script("""
          return Array.from(document.querySelectorAll(
              '#training-view td.cell')).map(function (c) {
            return [c.getAttribute('data-head'), c.getAttribute('data-query'),
                    c.getAttribute('data-key'), c.getAttribute('data-value')];
          });""")
        wrong = []
        for h, q, key, value in cells:
            row = str((k * 2 + int(h)) * T + int(q))
            want = values.get(("fused", "", "attn_weights_steps", row, key))
            if want != value:
                wrong.append((h, q, key, value, want))
        label = driver.find_element(By.CLASS_NAME, "training-label").text
        grid = driver.find_element(By.CLASS_NAME, "training-heads")
        dot = driver.find_element(By.CSS_SELECTOR, "circle.loss-dot")
        ok(len(cells) == 2 * T * T and not wrong and label == words and
           grid.get_attribute("data-step") == str(step) and
           dot.get_attribute("data-step") == str(step) and
           dot.get_attribute("data-loss") ==
           values.get(("fused", "", "loss", str(step), "0")) and
           slider.get_attribute("aria-valuetext") == words,
           "trained: kept step %d (training step %d): the heads' cells, the "
           "label and the loss curve's dot" % (k, step),
           (len(cells), wrong[:3], label, dot.get_attribute("data-step")))
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    ok(not errors, "trained: no console errors", errors[:3])


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        driver = browser(tmp)
        try:
            check_page(driver, mha, tmp, "classroom",
                       ["the cat sat on the mat", "--heads", "2"],
                       6, 6, True)
            check_page(driver, mha, tmp, "three-heads-no-mask",
                       ["O gato sobe no tapete", "--heads", "3", "--d-out",
                        "6", "--no-causal", "--variant", "wrapper,fused"],
                       5, 5, False)
            check_page(driver, mha, tmp, "cross",
                       ["the cat", "--kv", "a dog runs fast"], 2, 4, False)
            check_floattext(driver, sys.argv[2])
            check_long(driver, mha, tmp)
            check_head_colours(driver, mha, tmp)
            check_classroom_page(driver, mha, tmp)
            check_model_view(driver, mha, tmp)
            check_prenorm_titles(driver, mha, tmp)
            check_training(driver, mha, tmp)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
