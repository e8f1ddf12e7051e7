#!/usr/bin/env python3
"""The classroom's views of the --html page in headless Chromium: the
training view of a corpus training, a phone's width, the presentation
mode and the model view (docs/html.md, "Training", "On a projector",
"Model view").

- --corpus: the loss curve stops at step N - 1 and the last loss, the
  shown sentence's (row `shown`), is a ring off the line, named; without
  --corpus the line goes through all N + 1 losses and there is no ring;
- a sentence that repeats no word: the induction scores' chart greyed
  under a note that says why; a sentence that repeats words: no note;
- 390 px wide (a phone): the loss curve and the scores' chart shrink to
  the window, the dot of the last step on screen, nothing wider than it;
- the presentation mode hides "Open a model"; the matrix view of 8
  heads of an 11-word sentence fits 1280 x 720, its tokens no larger
  than the maps allow and its numbers either 12 px or more or left out;
- the model view's thumbnails grow with the window (a 2-layer, 2-head
  stack), the grid on screen.

Usage: html_classroom_test.py MHA_EXPLAIN [SCREENSHOT_DIR]
Exits 77 (skipped) when no browser can run. With SCREENSHOT_DIR, the
screenshots are kept there.
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser  # noqa: E402  (skips: 77)
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

SHOTS = sys.argv[2] if len(sys.argv) > 2 else None
STEPS = 40
CORPUS = ["the cat sleeps on the mat", "the dog sleeps on the rug",
          "a cat sits on the mat", "the dog sits on a rug"]
STACK = ["--variant", "block", "--layers", "2", "--d-model", "8",
         "--heads", "2", "--train", str(STEPS)]


def viewport(driver, w, h):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})


def open_page(driver, page, fragment=""):
    driver.get("about:blank")  # a new fragment alone would not reload
    driver.get("file://" + page + fragment)
    time.sleep(0.3)


def view(driver, name):
    driver.execute_script(
        "document.querySelector('[aria-label=View] button[data-value=' + "
        "arguments[0] + ']').click();", name)
    time.sleep(0.3)


def shot(driver, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def curve_facts(driver):
    return driver.execute_script("""
        var svg = document.querySelector('svg.loss-curve');
        var line = svg.querySelector('polyline');
        var ring = svg.querySelector('circle.loss-shown');
        var rect = svg.querySelector('rect');
        var right = Number(rect.getAttribute('x')) +
                    Number(rect.getAttribute('width'));
        var label = svg.querySelector('text.loss-shown-label');
        var note = document.querySelector('#training-view p.score-note');
        var scores = document.querySelector('svg.score-curve');
        return {points: line.getAttribute('points').trim().split(/ +/).length,
                ring: ring ? [Number(ring.getAttribute('cx')), right,
                              ring.getAttribute('data-loss')] : null,
                label: label ? label.textContent : null,
                note: note ? note.textContent : null,
                greyed: scores.classList.contains('score-empty')};""")


def check_training(driver, corpus_page, plain_page):
    viewport(driver, 1280, 720)
    open_page(driver, corpus_page)
    view(driver, "training")
    f = curve_facts(driver)
    ok(f["points"] == STEPS and f["ring"] is not None and
       abs(f["ring"][0] - f["ring"][1]) < 0.5 and
       f["label"] == "loss on the shown sentence",
       "--corpus: the line through the %d steps' losses, the shown "
       "sentence's loss a ring at step N off it, named" % STEPS, f)
    ok(f["note"] is not None and "repeats no word" in f["note"] and
       f["greyed"],
       "a sentence that repeats no word: the scores' chart greyed under "
       "a note that says why", f)
    shot(driver, "corpus-training-1280x720")
    open_page(driver, plain_page)
    view(driver, "training")
    f = curve_facts(driver)
    ok(f["points"] == STEPS + 1 and f["ring"] is None and f["label"] is None
       and f["note"] is None and not f["greyed"],
       "no --corpus, a sentence that repeats words: the line through all "
       "%d losses, no ring, no note" % (STEPS + 1), f)
    shot(driver, "plain-training-1280x720")


def check_phone(driver, page):
    viewport(driver, 390, 844)
    open_page(driver, page)
    view(driver, "training")
    got = driver.execute_script("""
        function right(s) {
          var e = document.querySelector(s);
          return e ? e.getBoundingClientRect().right : null;
        }
        return {scroll: document.documentElement.scrollWidth,
                width: innerWidth, curve: right('svg.loss-curve'),
                scores: right('svg.score-curve'),
                dot: right('circle.loss-dot'),
                text: parseFloat(getComputedStyle(document.querySelector(
                  'svg.loss-curve text')).fontSize) *
                  document.querySelector('svg.loss-curve')
                    .getBoundingClientRect().width / Number(document
                    .querySelector('svg.loss-curve').getAttribute('width'))};
        """)
    ok(got["scroll"] <= got["width"] and got["curve"] <= got["width"] and
       got["scores"] <= got["width"] and got["dot"] <= got["width"] and
       got["text"] >= 10,
       "390 px wide: the loss curve and the scores' chart shrink to the "
       "window, the last step's dot on screen, their type %.1f px" %
       got["text"], got)
    shot(driver, "corpus-training-390x844")


def check_presentation(driver, page, eight):
    viewport(driver, 1280, 720)
    open_page(driver, page, "#present")
    got = driver.execute_script("""
        var m = document.getElementById('model-open');
        return [document.documentElement.classList.contains('present'),
                m !== null, m !== null && m.getClientRects().length > 0];""")
    ok(got == [True, True, False],
       "the presentation mode hides Open a model (the view alone)", got)
    shot(driver, "present-head-1280x720")
    open_page(driver, eight, "#present")
    view(driver, "matrix")
    got = driver.execute_script("""
        var box = document.querySelector('#matrix-view .matrices');
        var th = box.querySelector('table.grid th');
        var cell = box.querySelector('td.cell');
        var bottom = 0;
        box.querySelectorAll('figure.matrix').forEach(function (f) {
          bottom = Math.max(bottom, f.getBoundingClientRect().bottom);
        });
        return {maps: box.querySelectorAll('figure.matrix').length,
                bottom: bottom, height: innerHeight,
                scroll: document.documentElement.scrollWidth,
                width: innerWidth,
                label: parseFloat(getComputedStyle(th).fontSize),
                wanted: parseFloat(getComputedStyle(box)
                                   .getPropertyValue('--label-font')),
                number: parseFloat(getComputedStyle(cell).fontSize),
                hidden: getComputedStyle(cell).color ===
                        'rgba(0, 0, 0, 0)'};""")
    ok(got["maps"] == 8 and got["bottom"] <= got["height"] and
       got["scroll"] <= got["width"] and got["label"] == got["wanted"],
       "presentation, 8 heads of 11 words at 1280 x 720: every map on "
       "screen, the tokens in the maps' size (%g px)" % got["label"], got)
    ok(got["number"] >= 12 or got["hidden"],
       "its numbers 12 px or more, or left out with the colours kept "
       "(%g px, left out: %s)" % (got["number"], got["hidden"]), got)
    shot(driver, "present-matrix-8heads-1280x720")


def thumbs(driver):
    return driver.execute_script("""
        var c = document.querySelectorAll('#model-view canvas.thumb');
        var grid = document.querySelector('#model-view .model-grid')
          .getBoundingClientRect();
        return [c.length, c[0].getBoundingClientRect().width, grid.bottom,
                innerHeight, document.documentElement.scrollWidth,
                innerWidth];""")


def check_model_view(driver, page):
    sizes = {}
    for w, h in [(1024, 768), (1280, 720), (1920, 1080)]:
        viewport(driver, w, h)
        open_page(driver, page)
        view(driver, "model")
        got = thumbs(driver)
        sizes[(w, h)] = got[1]
        ok(got[0] == 4 and got[2] <= got[3] and got[4] <= got[5],
           "%dx%d: the model view's 4 thumbnails %g px, the grid on "
           "screen" % (w, h, got[1]), got)
        shot(driver, "model-%dx%d" % (w, h))
    ok(sizes[(1280, 720)] >= 160 and
       sizes[(1920, 1080)] > sizes[(1280, 720)],
       "the thumbnails grow with the window (64 px before)", sizes)
    viewport(driver, 1280, 720)
    open_page(driver, page)
    view(driver, "model")
    viewport(driver, 1920, 1080)
    time.sleep(0.6)  # the page draws again 150 ms after a resize
    ok(thumbs(driver)[1] == sizes[(1920, 1080)],
       "a window made larger draws them again, larger")


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.csv")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("text\n" + "\n".join(CORPUS) + "\n")
        pages = {name: os.path.join(tmp, name + ".html")
                 for name in ("corpus", "plain", "lesson", "eight")}
        for name, args in [
                ("corpus", ["a cat sleeps on the sofa", "--corpus", corpus,
                            "--column", "text"] + STACK),
                ("plain", ["a b c d a b c d"] + STACK),
                ("lesson", ["O gato sobe no tapete", "--heads", "2"]),
                ("eight", ["呢間 餐廳 嘅 牛舌 好 出名 ， 慢煮 牛舌 好 好食",
                           "--variant", "fused", "--d-model", "16",
                           "--d-out", "16", "--heads", "8"])]:
            r = mha.run(args + ["--html", pages[name]])
            assert r.returncode == 0, r.stderr
        driver = browser(tmp)
        try:
            check_training(driver, pages["corpus"], pages["plain"])
            check_phone(driver, pages["corpus"])
            check_presentation(driver, pages["lesson"], pages["eight"])
            check_model_view(driver, pages["plain"])
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
