#!/usr/bin/env python3
"""html_model_ablated_test.py MHA_EXPLAIN REFERENCE_DIR [SHOTS]: the page
of a --model run with --ablate all-heads says, where its ablation_map
is, what the switched-off heads' z was set to (html_maps.c's
"ablated"): 0, the mean over the text's positions, or the mean over
--corpus FILE's column, in headless Chromium, in the five languages.

REFERENCE_DIR is tests/reference (gpt2/two_layers and
interventions/corpus.csv). With SHOTS, a screenshot of each page's
Interventions view goes there. Exits 77 (skipped) without a browser.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser  # noqa: E402  (skips: 77)
from html_open_model_test import ENV  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

SHOTS = sys.argv[3] if len(sys.argv) > 3 else None
TEXT = "the cat sat on the mat"

# (language, the ablation's options, what the page says under the map;
# CORPUS stands for the corpus file's path as given)
CASES = [
    ("en", ["--ablate-mode", "zero"],
     "Switched off: each head's output z set to 0 (--ablate-mode zero)."),
    ("pt_BR", ["--ablate-mode", "mean"],
     "Desligadas: a saída z de cada cabeça posta na sua média sobre as "
     "posições deste texto (--ablate-mode mean)."),
    ("en", ["--ablate-mode", "mean", "--corpus", "CORPUS", "--column",
            "text"],
     "Switched off: each head's output z set to its mean over every "
     "position of every text of --corpus CORPUS, column 'text' (38 texts; "
     "--ablate-mode mean)."),
    ("es", ["--ablate-mode", "mean", "--corpus", "CORPUS", "--column",
            "text"],
     "Apagadas: la salida z de cada cabeza puesta en su media sobre cada "
     "posición de cada texto de --corpus CORPUS, columna 'text' (38 "
     "textos; --ablate-mode mean)."),
    ("zh_CN", ["--ablate-mode", "mean", "--corpus", "CORPUS", "--column",
               "text"],
     "已关闭：每个头的输出 z 设为它在 --corpus CORPUS 的 'text' 列每个文本"
     "每个位置上的均值（38 个文本；--ablate-mode mean）。"),
    ("zh_TW", ["--ablate-mode", "mean", "--corpus", "CORPUS", "--column",
               "text"],
     "已關閉：每個頭的輸出 z 設為它在 --corpus CORPUS 的 'text' 欄每個文本"
     "每個位置上的平均（38 個文本；--ablate-mode mean）。"),
]


def ablated_note(driver):
    """(the Interventions view's ablation_map, the note in it), both None
    without the view."""
    b = driver.find_elements(By.CSS_SELECTOR,
                             "[aria-label=View] button[data-value=maps]")
    if not b:
        return None, None
    b[0].send_keys(Keys.ENTER)
    return driver.execute_script("""
      var map = document.querySelector(
        '#maps-view .map[data-map=ablation_map]');
      var note = map && map.querySelector('p.map-ablated');
      return [!!map, note ? note.textContent : null];""")


def main():
    mha = Program(sys.argv[1])
    ref = os.path.abspath(sys.argv[2])
    model = os.path.join(ref, "gpt2", "two_layers")
    corpus = os.path.join(ref, "interventions", "corpus.csv")
    with tempfile.TemporaryDirectory() as tmp:
        driver = browser(tmp)
        try:
            for i, (lang, options, want) in enumerate(CASES):
                options = [corpus if o == "CORPUS" else o for o in options]
                want = want.replace("CORPUS", corpus)
                page = os.path.join(tmp, "page%d.html" % i)
                r = mha.run(["--model", model, TEXT, "--ablate", "all-heads",
                             "--lang", lang, "--html", page,
                             "--tables", "ablation_map"] + options,
                            env=ENV)
                ok(r.returncode == 0, "%s %s: the page is written"
                   % (lang, " ".join(options[:2])), r.stderr.decode())
                driver.get("file://" + page)
                found, note = ablated_note(driver)
                ok(found and note == want,
                   "%s %s: under ablation_map, what the heads' z was set to"
                   % (lang, " ".join(options[:2]) +
                      (" --corpus" if "--corpus" in options else "")),
                   (note, want))
                if SHOTS:
                    driver.save_screenshot(os.path.join(
                        SHOTS, "ablated-%d-%s.png" % (i, lang)))
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
