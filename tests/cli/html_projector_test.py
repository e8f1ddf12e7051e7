#!/usr/bin/env python3
"""The --html page on a projector, in headless Chromium: at 1280 x 720
and 1920 x 1080 (the viewport set exactly, and the browser's zoom
emulated as Chromium zooms: fewer CSS pixels, more device pixels per CSS
pixel).

- the head view's SVG takes the view's width and fills the window's
  height without passing it; its type grows with the window and the zoom;
- matrix numbers at least 14 px at 1280 x 720, every map on screen;
- the loss curve as wide as its view, its labels at least 14 px;
- the editor closed at the start, a link's settings too;
- the presentation mode: p, #present, Escape; one view, large type;
- the themes: the system's dark and high-contrast ones and the menu; the
  heat maps' colours in the order of their values' lightness in every
  theme, the heads' colours readable on every background;
- the page opens on the variant with the most heads;
- Space, Enter and PageDown step wherever the focus is, and the hint
  names them; the page used with the keyboard alone;
- the explorer pages in every language (docs/make_explorer.py), each
  under 400 kB, and the Language menu that opens another.

Usage: html_projector_test.py MHA_EXPLAIN [SCREENSHOT_DIR]
Exits 77 (skipped) when no browser can run. With SCREENSHOT_DIR, the
screenshots are kept there (light, dark, high contrast, presentation).
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser  # noqa: E402  (skips: 77)
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SIZES = [(1280, 720), (1920, 1080)]
SHOTS = sys.argv[2] if len(sys.argv) > 2 else None


def viewport(driver, w, h, zoom=1.0):
    """The page's window: w x h screen pixels at the browser's zoom."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": int(round(w / zoom)), "height": int(round(h / zoom)),
        "deviceScaleFactor": zoom, "mobile": False})


def media(driver, scheme="light", contrast="no-preference"):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": scheme},
        {"name": "prefers-contrast", "value": contrast}]})


def shot(driver, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def view(driver, name):
    driver.find_element(By.CSS_SELECTOR,
                        "[aria-label=View] button[data-value=%s]" %
                        name).click()
    time.sleep(0.1)


def open_page(driver, page, fragment=""):
    driver.get("about:blank")  # a new fragment alone would not reload
    driver.get("file://" + page + fragment)
    time.sleep(0.2)


def px(driver, selector):
    """The computed font size, in CSS pixels, of the first selector."""
    return driver.execute_script(
        "var e = document.querySelector(arguments[0]);"
        "return e ? parseFloat(getComputedStyle(e).fontSize) : 0;", selector)


def check_head_view(driver, page):
    """The SVG fills the view's width and the window's height; its type
    grows with the window and with the zoom."""
    fonts = {}
    for w, h in SIZES:
        viewport(driver, w, h)
        open_page(driver, page)
        box = driver.execute_script("""
            var s = document.querySelector('svg.heads').getBoundingClientRect();
            var v = document.getElementById('head-view');
            return [s.width, s.top, s.bottom, v.clientWidth,
                    window.innerWidth, window.innerHeight,
                    document.documentElement.scrollWidth];""")
        fonts[(w, 1.0)] = px(driver, "svg .token")
        ok(box[0] >= box[3] - 2 and box[6] <= box[4] and
           box[2] <= box[5] and box[2] - box[1] >= 0.45 * box[5],
           "%dx%d: the head view's SVG is as wide as the view, fills the "
           "window's height and stays in it" % (w, h), box)
        shot(driver, "head-%dx%d-light" % (w, h))
    ok(fonts[(1280, 1.0)] >= 20 and
       fonts[(1920, 1.0)] > fonts[(1280, 1.0)],
       "the tokens' type: at least 20 px at 1280 x 720, larger at 1920 x "
       "1080", fonts)
    for zoom in [1.5, 2.0]:
        viewport(driver, 1280, 720, zoom)
        open_page(driver, page)
        fonts[(1280, zoom)] = px(driver, "svg .token") * zoom
        wide = driver.execute_script(
            "return [document.documentElement.scrollWidth, innerWidth];")
        ok(wide[0] <= wide[1] and
           fonts[(1280, zoom)] >= max(17 * zoom, fonts[(1280, 1.0)]),
           "zoom %d%%: the tokens are larger on the screen (%.1f screen px, "
           "%.1f at 100%%), the view still as wide as the window" %
           (zoom * 100, fonts[(1280, zoom)], fonts[(1280, 1.0)]), wide)
    viewport(driver, 1280, 720, 2.0)
    open_page(driver, page)
    view(driver, "matrix")
    cell = px(driver, "td.cell") * 2.0
    ok(cell >= 16, "zoom 200%: the matrix numbers are 16 screen px or more",
       cell)


def check_matrices(driver, page):
    sizes = {}
    for w, h in SIZES:
        viewport(driver, w, h)
        open_page(driver, page)
        view(driver, "matrix")
        got = driver.execute_script("""
            var cells = Array.from(document.querySelectorAll(
                'td.cell:not(.masked)'));
            var bottom = 0, right = 0;
            document.querySelectorAll('figure.matrix').forEach(function (f) {
              var b = f.getBoundingClientRect();
              bottom = Math.max(bottom, b.bottom);
              right = Math.max(right, b.right);
            });
            return [cells.length, Math.min.apply(null, cells.map(function (c) {
                      return parseFloat(getComputedStyle(c).fontSize); })),
                    bottom, right, innerHeight, innerWidth];""")
        sizes[w] = got[1]
        ok(got[0] == 30 and got[1] >= 14 and got[2] <= got[4] and
           got[3] <= got[5],
           "%dx%d: the 30 unmasked numbers of the two heads are %d px or "
           "more, every map on screen" % (w, h, got[1]), got)
        shot(driver, "matrix-%dx%d-light" % (w, h))
    ok(sizes[1920] > sizes[1280],
       "the matrix numbers are larger at 1920 x 1080", sizes)


def check_loss_curve(driver, page):
    for w, h in SIZES:
        viewport(driver, w, h)
        open_page(driver, page)
        view(driver, "training")
        got = driver.execute_script("""
            var s = document.querySelector('svg.loss-curve');
            var t = s.querySelector('text');
            var cell = document.querySelector(
              '.training-head td.cell:not(.masked)');
            return [s.getBoundingClientRect().width,
                    document.getElementById('training-view').clientWidth,
                    parseFloat(getComputedStyle(t).fontSize),
                    cell ? parseFloat(getComputedStyle(cell).fontSize) : 0];
            """)
        ok(got[0] >= got[1] - 8 and got[0] >= 0.9 * (w - 60) and
           got[2] >= 14,
           "%dx%d: the loss curve is as wide as its view, its labels %d px"
           % (w, h, got[2]), got)
        ok(got[3] >= 14,
           "%dx%d: the training view's maps write their numbers in %d px"
           % (w, h, got[3]), got)
        check_training_band(driver, w, h)
        shot(driver, "training-%dx%d-light" % (w, h))


def check_training_band(driver, w, h):
    """The training view starts under the controls, no empty readout band
    above its hint; a value pointed at in its maps is read at the window's
    foot, the view not moved."""
    gap = driver.execute_script("""
        var c = document.querySelector('#app > .controls');
        var hint = document.querySelector('#training-view .hint');
        return hint.getBoundingClientRect().top -
               c.getBoundingClientRect().bottom;""")
    ok(gap <= 40,
       "%dx%d: the training view's hint %d px under the controls, no empty "
       "band above it" % (w, h, gap), gap)
    cell = driver.find_elements(
        By.CSS_SELECTOR, "#training-view td.cell:not(.masked)")[1]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})",
                          cell)
    top = driver.execute_script("return document.getElementById("
                                "'training-view').getBoundingClientRect().top")
    ActionChains(driver).move_to_element(cell).perform()
    got = driver.execute_script("""
        var r = document.getElementById('readout');
        var b = r.getBoundingClientRect();
        return [r.textContent, b.bottom, innerHeight,
                document.getElementById('training-view')
                  .getBoundingClientRect().top];""")
    ok("attn_weights" in got[0] and abs(got[1] - got[2]) <= 1 and
       got[3] == top,
       "%dx%d: a training map's value is read at the window's foot, the "
       "view unmoved" % (w, h), got + [top])


def check_editor(driver, page):
    viewport(driver, 1280, 720)
    for fragment in ["", "#sentence=o+gato+dorme&heads=2"]:
        open_page(driver, page, fragment)
        for _ in range(100):
            if driver.execute_script("return document.getElementById("
                                     "'editor').getAttribute('data-ready')"):
                break
            time.sleep(0.1)
        for _ in range(50):  # the link's run recomputed
            got = driver.execute_script("""
                var e = document.getElementById('editor');
                return [e.open, e.getBoundingClientRect().height,
                        document.querySelector('#app h1').textContent];""")
            if not fragment or "dorme" in got[2]:
                break
            time.sleep(0.1)
        ok(got[0] is False and got[1] <= 50 and
           (not fragment or "dorme" in got[2]),
           "the editor opens closed%s, one line high" %
           (" with a link's settings (which are run)" if fragment else ""),
           got)


def shown(driver, selector):
    return driver.execute_script(
        "var e = document.querySelector(arguments[0]);"
        "return !!e && e.getClientRects().length > 0;", selector)


def check_presentation(driver, page):
    for w, h in SIZES:
        viewport(driver, w, h)
        open_page(driver, page)
        normal = px(driver, "svg .token")
        driver.execute_script("document.activeElement.blur()")
        ActionChains(driver).send_keys("p").perform()
        time.sleep(0.2)
        got = driver.execute_script("""
            return [document.documentElement.classList.contains('present'),
                    document.querySelector('svg.heads')
                      .getBoundingClientRect().top];""")
        big = px(driver, "svg .token")
        ok(got[0] and not shown(driver, "#editor") and
           not shown(driver, "#app > h1") and
           not shown(driver, "#app > .controls") and got[1] < 80 and
           big > normal,
           "%dx%d: p opens the presentation: no editor, title or controls, "
           "the view at the top, its tokens %d px (%d px before)" %
           (w, h, big, normal), got)
        shot(driver, "head-%dx%d-present" % (w, h))
        inside = driver.execute_script("return location.hash;")
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        time.sleep(0.2)
        ok(not driver.execute_script("return document.documentElement"
                                     ".classList.contains('present')") and
           shown(driver, "#app > .controls") and
           inside.startswith("#present") and
           driver.execute_script("return location.hash;") == "",
           "%dx%d: Escape leaves the presentation; the URL says present "
           "while it lasts" % (w, h), inside)
    viewport(driver, 1280, 720)
    open_page(driver, page, "#present")
    ok(driver.execute_script("return document.documentElement.classList"
                             ".contains('present')"),
       "#present in the URL opens the presentation")
    driver.find_element(By.ID, "present-hint")
    view_in_presentation = driver.execute_script("""
        document.querySelector('[aria-label=View] button[data-value=steps]')
          .click();
        return document.getElementById('step-view').hidden;""")
    note = px(driver, "#step-note p")
    ok(view_in_presentation is False and note >= 24,
       "the step-through in the presentation: its notes in %d px type" %
       note)
    shot(driver, "steps-1280x720-present")
    ActionChains(driver).send_keys("n").perform()  # --step's next at once
    second = step_number(driver)
    ActionChains(driver).send_keys("p").perform()
    back = [step_number(driver), driver.execute_script(
        "return document.documentElement.classList.contains('present');")]
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    left = driver.execute_script(
        "return document.documentElement.classList.contains('present');")
    ok(second == 2 and back == [1, True] and left is False,
       "in the step-through, p is --step's key for the step before (the "
       "presentation stays); Escape leaves it", [second, back, left])
    media(driver, "dark")
    open_page(driver, page, "#present")
    shot(driver, "head-1280x720-present-dark")
    media(driver)


def luminance(rgb):
    def lin(c):
        c = c / 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = rgb
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def lightness(rgb):
    """CIE L* of an sRGB colour."""
    y = luminance(rgb)
    return 116 * y ** (1 / 3.0) - 16 if y > 0.008856 else 903.3 * y


def rgb_of(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def contrast(a, b):
    la, lb = sorted([luminance(a), luminance(b)])
    return (lb + 0.05) / (la + 0.05)


def monotone(values):
    steps = [b - a for a, b in zip(values, values[1:])]
    return all(s >= -0.5 for s in steps) or all(s <= 0.5 for s in steps)


def look(driver):
    """The page's background and ink, the legend's and the cells' colours
    (cells in the order of their values), the heads' swatches."""
    got = driver.execute_script("""
        var body = getComputedStyle(document.body);
        var bar = document.querySelector('.legend .bar');
        var cells = Array.from(document.querySelectorAll(
            'figure.matrix[data-head="0"] td.cell:not(.masked)'))
          .map(function (c) {
            return [parseFloat(c.getAttribute('data-value')),
                    getComputedStyle(c).backgroundColor]; })
          .sort(function (a, b) { return a[0] - b[0]; });
        return [body.backgroundColor, body.color,
                bar ? bar.style.background : '',
                cells.map(function (c) { return c[1]; }),
                Array.from(document.querySelectorAll('#head-toggles .swatch'))
                  .map(function (s) {
                    return getComputedStyle(s).backgroundColor; })];""")
    stops = [rgb_of(m) for m in re.findall(r"rgb\([^)]*\)", got[2])]
    return {"paper": rgb_of(got[0]), "ink": rgb_of(got[1]), "stops": stops,
            "cells": [rgb_of(c) for c in got[3]],
            "heads": [rgb_of(c) for c in got[4]]}


def check_themes(driver, page, eight):
    viewport(driver, 1280, 720)
    cases = [("light", ("light", "no-preference"), None),
             ("dark", ("dark", "no-preference"), None),
             ("contrast", ("light", "more"), None),
             ("dark-menu", ("light", "no-preference"), 2),
             ("light-menu", ("dark", "no-preference"), 1)]
    for name, (scheme, more), pick in cases:
        media(driver, scheme, more)
        for which, path in [("classroom", page), ("eight", eight)]:
            open_page(driver, path)
            if pick is not None:
                driver.execute_script("""
                    var s = document.querySelector('[data-pick=Theme]');
                    s.value = arguments[0];
                    s.dispatchEvent(new Event('change'));""", pick)
            view(driver, "matrix")
            seen = look(driver)
            fits = driver.execute_script("""
                var figs = document.querySelectorAll('figure.matrix');
                var last = figs[figs.length - 1].getBoundingClientRect();
                return [last.bottom, last.right, innerHeight,
                        document.documentElement.clientWidth];""")
            ok(fits[0] <= fits[2] and fits[1] <= fits[3],
               "%s, %s: every map on screen" % (which, name), fits)
            dark = name.startswith("dark") or name == "contrast"
            ok(lightness(seen["paper"]) < 15 if dark
               else lightness(seen["paper"]) > 95,
               "%s, %s: the page is %s" % (which, name,
                                           "dark" if dark else "light"),
               seen["paper"])
            ok(contrast(seen["ink"], seen["paper"]) >=
               (15 if name == "contrast" else 7),
               "%s, %s: text on the page reads (contrast %.1f)" %
               (which, name, contrast(seen["ink"], seen["paper"])))
            stops = [lightness(c) for c in seen["stops"]]
            cells = [lightness(c) for c in seen["cells"]]
            ok(len(stops) == 11 and monotone(stops) and
               abs(stops[-1] - stops[0]) > 40 and len(cells) >= 15 and
               monotone(cells),
               "%s, %s: the legend's and the cells' colours keep the "
               "values' order in lightness" % (which, name),
               (stops, cells))
            worst = min(contrast(c, seen["paper"]) for c in seen["heads"])
            ok(len(seen["heads"]) == (2 if which == "classroom" else 8) and
               worst >= 2.2,
               "%s, %s: every head's colour stands out from the page "
               "(contrast %.1f or more)" % (which, name, worst),
               seen["heads"])
            if which == "classroom":
                shot(driver, "matrix-1280x720-" + name)
                view(driver, "head")
                shot(driver, "head-1280x720-" + name)
    media(driver)


def check_masked_canvas(driver, big):
    """A head drawn on a canvas (more than 40 x 40 values): its masked
    values take the theme's masked colour (--masked-b), light grey on a
    light page and dark grey on a dark one, as the hatched cells do."""
    viewport(driver, 1280, 720)
    for name, (scheme, more) in [("light", ("light", "no-preference")),
                                 ("dark", ("dark", "no-preference")),
                                 ("contrast", ("light", "more"))]:
        media(driver, scheme, more)
        open_page(driver, big)
        view(driver, "matrix")
        got = driver.execute_script("""
            var c = document.querySelector('canvas[data-head="0"]');
            if (!c) return null;
            var p = c.getContext('2d').getImageData(c.width - 1, 0, 1, 1)
              .data;
            return ['rgb(' + p[0] + ', ' + p[1] + ', ' + p[2] + ')',
                    getComputedStyle(document.documentElement)
                      .getPropertyValue('--masked-b').trim(),
                    getComputedStyle(document.body).backgroundColor];""")
        if got is None:
            ok(False, "%s: the 45-word head is drawn on a canvas" % name)
            continue
        masked = rgb_of(got[0])
        digits = got[1][1:]
        if len(digits) == 3:
            digits = "".join(c + c for c in digits)
        want = tuple(int(digits[k:k + 2], 16) for k in (0, 2, 4)) \
            if re.match(r"^[0-9a-fA-F]{6}$", digits) else None
        dark = name != "light"
        ok(tuple(masked) == want and
           (lightness(masked) < 30 if dark else lightness(masked) > 80),
           "%s: a canvas head's masked values are the theme's masked "
           "colour %s (lightness %.0f on a page of %.0f)" %
           (name, got[1], lightness(masked), lightness(rgb_of(got[2]))),
           got)
        shot(driver, "canvas-1280x720-" + name)
    media(driver)


def check_variant(driver, mha, tmp):
    page = os.path.join(tmp, "order.html")
    r = mha.run(["the cat sat", "--heads", "3", "--d-out", "6",
                 "--variant", "single,fused", "--html", page])
    viewport(driver, 1280, 720)
    open_page(driver, page)
    got = driver.execute_script("""
        var b = document.querySelector('.controls > .group[aria-label=Variant]'
                                       + ' button[aria-pressed=true]');
        var heads = {};
        document.querySelectorAll('line[data-head]').forEach(function (l) {
          heads[l.getAttribute('data-variant') + l.getAttribute('data-head')]
            = 1; });
        return [b && b.textContent, Object.keys(heads).sort()];""")
    ok(r.returncode == 0 and got == ["fused", ["fused0", "fused1", "fused2"]],
       "the page opens on the variant with the most heads (fused, 3), not "
       "the first (single, 1)", got)


def step_number(driver):
    m = re.search(r"\d+", driver.find_element(By.ID, "step-count").text)
    return int(m.group(0))


def check_step_keys(driver, page):
    for w, h in SIZES:
        viewport(driver, w, h)
        open_page(driver, page)
        view(driver, "steps")
        hint = driver.find_element(By.ID, "step-count").text
        ok(all(k in hint for k in ["Space", "Enter", "PageDown"]),
           "the step-through's hint names Space, Enter and PageDown", hint)
        focus = driver.execute_script(
            "return document.activeElement.getAttribute('data-value');")
        for key, name in [(" ", "Space"), (Keys.ENTER, "Enter"),
                          (Keys.PAGE_DOWN, "PageDown")]:
            before = step_number(driver)
            for _ in range(40):  # a step taller than the window scrolls first
                ActionChains(driver).send_keys(key).perform()
                if step_number(driver) != before:
                    break
            ok(step_number(driver) == before + 1,
               "%dx%d: %s on the Step through button goes to the next step"
               % (w, h, name), (focus, before, step_number(driver)))
        driver.find_element(By.CSS_SELECTOR, "[data-step=next]").click()
        before = step_number(driver)
        for _ in range(40):
            ActionChains(driver).send_keys(Keys.ENTER).perform()
            if step_number(driver) != before:
                break
        now = step_number(driver)
        ok(now == before + 1,
           "%dx%d: Enter on the Next button goes one step on" % (w, h),
           (before, now))


def check_keyboard(driver, page):
    """From the top of the page, Tab alone reaches the Theme menu and the
    Present button; Enter presents, Escape comes back to the button."""
    viewport(driver, 1280, 720)
    open_page(driver, page)
    seen = []
    for _ in range(40):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        here = driver.execute_script(
            "var a = document.activeElement;"
            "return a.id || a.getAttribute('data-pick') || a.tagName;")
        seen.append(here)
        if here == "present-button":
            break
    ok("Theme" in seen and seen[-1] == "present-button",
       "Tab reaches the Theme menu and the Present button", seen)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    time.sleep(0.2)
    on = driver.execute_script("return document.documentElement.classList"
                               ".contains('present')")
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    time.sleep(0.2)
    back = driver.execute_script(
        "return [document.documentElement.classList.contains('present'),"
        " document.activeElement.id];")
    ok(on and back == [False, "present-button"],
       "Enter on Present presents; Escape leaves, the focus back on the "
       "button", [on, back])


def check_languages(driver, mha, tmp):
    out = os.path.join(tmp, "set", "explorer.html")
    os.mkdir(os.path.dirname(out))
    with open(os.path.join(ROOT, "po", "LINGUAS"), encoding="utf-8") as f:
        langs = [l.strip() for l in f if l.strip()]
    subprocess.run([sys.executable, os.path.join(ROOT, "docs",
                                                 "make_explorer.py"),
                    mha.path, out] + langs, check=True)
    files = sorted(os.listdir(os.path.dirname(out)))
    sizes = {n: os.path.getsize(os.path.join(tmp, "set", n)) for n in files}
    ok(len(files) == 1 + len(langs) and
       all(s < 400 * 1000 for s in sizes.values()),
       "the explorer in %d languages, each page under 400 kB" % len(files),
       sizes)
    viewport(driver, 1280, 720)
    open_page(driver, out)
    names = driver.execute_script("""
        return Array.from(document.querySelectorAll(
            '[data-pick=Language] option')).map(function (o) {
              return o.textContent; });""")
    ok(len(names) == 1 + len(langs) and "Português (Brasil)" in names,
       "the Language menu lists every page of the set", names)
    open_page(driver, out, "#sentence=o+gato+dorme&heads=2")
    select = driver.find_element(By.CSS_SELECTOR, "[data-pick=Language]")
    driver.execute_script("arguments[0].focus()", select)
    # the keyboard alone: the menu's choice, the arrow key
    target = names.index("Português (Brasil)")
    for _ in range(target):
        ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
    for _ in range(50):
        if driver.execute_script("return document.documentElement.lang") \
                == "pt-BR":
            break
        time.sleep(0.1)
    time.sleep(0.3)
    got = driver.execute_script("""
        return [document.documentElement.lang, location.pathname,
                document.querySelector('[aria-label=View] button'
                                       + '[data-value=head]').textContent,
                document.querySelector('[data-pick=Language]').selectedIndex,
                location.hash];
    """)
    ok(got[0] == "pt-BR" and got[1].endswith("explorer.pt_BR.html") and
       got[2] != "Head view" and got[3] == target and "dorme" in got[4],
       "the Language menu opens the Portuguese page, in Portuguese, the "
       "editor's settings kept", got)
    shot(driver, "head-1280x720-pt_BR")


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        driver = browser(tmp)
        page = os.path.join(tmp, "classroom.html")
        trained = os.path.join(tmp, "trained.html")
        eight = os.path.join(tmp, "eight.html")
        big = os.path.join(tmp, "big.html")
        words = " ".join("w%d" % i for i in range(45))
        for args, path in [([words, "--variant", "fused"], big),
                           (["O gato sobe no tapete", "--heads", "2"], page),
                           (["O gato sobe no tapete", "--heads", "2",
                             "--train", "30"], trained),
                           (["the cat sat on the mat", "--heads", "8",
                             "--d-out", "16", "--variant", "fused"], eight)]:
            r = mha.run(args + ["--html", path])
            assert r.returncode == 0, r.stderr
        try:
            check_head_view(driver, page)
            check_matrices(driver, page)
            check_loss_curve(driver, trained)
            check_editor(driver, page)
            check_presentation(driver, page)
            check_themes(driver, page, eight)
            check_masked_canvas(driver, big)
            check_variant(driver, mha, tmp)
            check_step_keys(driver, page)
            check_keyboard(driver, page)
            check_languages(driver, mha, tmp)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
