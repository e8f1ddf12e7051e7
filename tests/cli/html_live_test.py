#!/usr/bin/env python3
"""html_live_test.py MHA_EXPLAIN: the live --html page (docs/html.md, "The
live page") in headless Chromium.

The page's editor is changed to random settings (a fixed seed: the same
ones at every run), at least 50 of them, some typed with the keyboard and
some set and sent a `change` event; after each, the page's data must be
the program's (the JSON of the page `mha-explain ... --html` writes for
the same command line), every `data-weight` of the head view, for every
variant, the value `--format csv` writes, and a command line the program
refuses must show the program's message and nothing else. Also: no
console error and no request, the URL fragment opening the same run, the
run in another language (its messages and words), the labels, focus order
and live regions of the editor, and the printed page. Exits 77 (skipped)
when no browser can be run.
"""
import csv
import io
import json
import os
import random
import shlex
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import browser, need_core, requests_made  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

WORDS = ["the", "cat", "sat", "on", "mat", "O", "gato", "sobe", "no",
         "tapete", "pingüino", "açúcar", "牛舌", "我", "喜欢", "don't",
         "🐈", "42", "x,y", "café", "<b>", "a&b"]
VARIANTS = ["single", "wrapper", "fused", "block"]

# The page's data with the page's own caches left out.
PAGE_DATA = """
return JSON.stringify(window.mhaPage.data(), function (k, v) {
  return k === 'decoded' || k === 'derivedWeights' ? undefined : v;
});"""

# Every line of the head view: [variant, head, query, key, weight].
LINES = """
return Array.from(document.querySelectorAll('line[data-head]'))
  .map(function (l) {
    return [l.getAttribute('data-variant'), l.getAttribute('data-head'),
            l.getAttribute('data-query'), l.getAttribute('data-key'),
            l.getAttribute('data-weight')];
  });"""

# Sets the editor's fields to s (a dict) and sends one change event, as a
# program filling the form would.
SET_FIELDS = """
var s = arguments[0], f = function (n) {
  return document.querySelector('[data-edit=' + n + ']');
};
f('sentence').value = s.sentence;
f('kv').value = s.kv;
f('seed').value = s.seed;
f('d-model').value = s.dModel;
f('d-out').value = s.dOut;
f('heads').value = s.heads;
document.querySelectorAll('[data-edit=variant]').forEach(function (b) {
  b.checked = s.variants.indexOf(b.value) >= 0;
});
f('causal').checked = s.causal;
f('scale').checked = s.scale;
f('qkv-bias').checked = s.qkvBias;
f('tokens').value = s.tokens;
if ('train' in s) {
  f('positions').checked = s.positions;
  f('layers').value = s.layers;
  f('train').value = s.train;
  f('optimizer').value = s.optimizer;
  f('lr').value = s.lr;
  f('grad').checked = s.grad;
}
f('heads').dispatchEvent(new Event('change', {bubbles: true}));
return [document.getElementById('editor').getAttribute('data-recomputed'),
        document.getElementById('editor-status').textContent];
"""


def args_of(s):
    """The command line the editor builds for settings s (editor.js,
    argsOf), without --."""
    a = ["--seed", s["seed"], "--d-model", s["dModel"], "--d-out",
         s["dOut"], "--heads", s["heads"], "--variant",
         ",".join(s["variants"]), "--tokens", s["tokens"]]
    if not s["causal"]:
        a.append("--no-causal")
    if not s["scale"]:
        a.append("--no-scale")
    if s["qkvBias"]:
        a.append("--qkv-bias")
    if s["kv"] != "":
        a += ["--kv", s["kv"]]
    if s.get("positions"):
        a.append("--positions")
    if s.get("layers", "") != "" and "block" in s["variants"]:
        a += ["--layers", s["layers"]]
    if s.get("train", "0") not in ("", "0"):
        a += ["--train", s["train"], "--optimizer", s["optimizer"]]
        if s["lr"] != "":
            a += ["--lr", s["lr"]]
        if s["grad"]:
            a.append("--grad")
    return a


def native(mha, tmp, s, lang=None):
    """The program's run of settings s: (status, CSV values, page data,
    first stderr line)."""
    page = os.path.join(tmp, "native.html")
    extra = ["--lang", lang] if lang else []
    r = mha.run(["--format", "csv", "--html", page] + extra + args_of(s) +
                ["--", s["sentence"]],
                env={"LANGUAGE": "", "LC_ALL": "C.UTF-8"})
    message = r.stderr.decode("utf-8").split("\n")[0]
    if r.returncode != 0:
        return r.returncode, None, None, message[len("mha-explain: "):]
    values = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))):
        if row["table"] == "attn_weights" and row["head"] != "":
            # a stack's layers are the page's variants block.0, block.1
            variant = row["variant"] + (
                "." + row["layer"] if row.get("layer") else "")
            values[(variant, row["head"], row["row"],
                    row["col"])] = row["value"]
    with open(page, encoding="utf-8") as f:
        html = f.read()
    start = html.index('id="mha-data">\n') + len('id="mha-data">\n')
    data = html[start:html.index("\n</script>", start)]
    return 0, values, json.loads(data), ""


def random_settings(rnd):
    heads = rnd.randint(1, 4)
    d_out = heads * rnd.randint(1, 3) + (1 if rnd.random() < 0.08 else 0)
    variants = [v for v in VARIANTS
                if rnd.random() < (0.25 if v == "block" else 0.55)]
    d_model = d_out if "block" in variants and rnd.random() < 0.9 \
        else rnd.randint(1, 8)
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(1, 8))]
    return {
        "sentence": "" if rnd.random() < 0.04 else " ".join(words),
        "kv": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 4)))
        if rnd.random() < 0.2 else "",
        "seed": str(rnd.choice([42, 0, rnd.randint(0, 2**32),
                                rnd.randint(0, 2**64 - 1)])),
        "dModel": str(d_model), "dOut": str(d_out), "heads": str(heads),
        "variants": variants or ["fused"],
        "causal": rnd.random() < 0.7, "scale": rnd.random() < 0.8,
        "qkvBias": rnd.random() < 0.3,
        "tokens": "chars" if rnd.random() < 0.25 else "words",
    }


def wait_ready(driver, seconds=20):
    """Waits until the editor says its core is ready."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if driver.execute_script(
                "var e = document.getElementById('editor');"
                "return e && e.getAttribute('data-ready');"):
            return True
        time.sleep(0.05)
    return False


def wait_recomputed(driver):
    """Waits for a run that trains (the editor is busy until it is
    recomputed)."""
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if driver.execute_script(
                "return document.getElementById('editor')"
                ".getAttribute('data-recomputed');") != "busy":
            return True
        time.sleep(0.05)
    return False


def set_and_wait(driver, s, name):
    """Sets the fields to s; a run that trains first says so."""
    state = driver.execute_script(SET_FIELDS, s)
    if s.get("train", "0") not in ("", "0"):
        ok(state == ["busy", "Training %s steps\u2026" % s["train"]],
           "%s: the page says it trains before it stops for it" % name,
           state)
    ok(wait_recomputed(driver), "%s: recomputed" % name)


def check_training(driver, mha, tmp):
    """Training, positions and stacked blocks turned on and off on a
    page written without them."""
    s = {"sentence": "O gato sobe no tapete", "kv": "", "seed": "42",
         "dModel": "3", "dOut": "4", "heads": "2",
         "variants": ["single", "wrapper", "fused"], "causal": True,
         "scale": True, "qkvBias": False, "tokens": "words",
         "positions": False, "layers": "", "train": "0",
         "optimizer": "adam", "lr": "", "grad": False}
    views = "return Array.from(document.querySelectorAll(" \
        "'[aria-label=View] button')).map(function (b) {" \
        "return b.getAttribute('data-value'); });"
    ok("training" not in driver.execute_script(views),
       "untrained: no training view")
    steps = [("training on", dict(train="20")),
             ("sgd", dict(optimizer="sgd")),
             ("sgd, --lr 0.5 and --grad", dict(lr="0.5", grad=True)),
             ("adam, 300 steps", dict(optimizer="adam", lr="",
                                      train="300", grad=False)),
             ("positions", dict(positions=True, train="30")),
             ("one word (refused)", dict(sentence="gato")),
             ("training off", dict(sentence="O gato sobe no tapete",
                                   train="0")),
             ("two blocks stacked", dict(variants=["block"], dModel="4",
                                         layers="2")),
             ("stacked and trained", dict(train="5")),
             ("block unticked: --layers left out",
              dict(train="0", variants=["fused"], layers="2")),
             ("back to the written run",
              dict(variants=["single", "wrapper", "fused"], dModel="3",
                   layers="", positions=False, optimizer="adam"))]
    for name, change in steps:
        s.update(change)
        set_and_wait(driver, s, name)
        if not compare(driver, mha, tmp, s, name):
            continue
        shown = driver.execute_script(views)
        trained = s["train"] != "0"
        ok(("training" in shown) == trained,
           "%s: the training view is offered %s" %
           (name, "" if trained else "no longer"), shown)
        if trained:
            driver.find_element(
                By.CSS_SELECTOR,
                "[aria-label=View] button[data-value=training]").click()
            drawn = driver.execute_script(
                "var v = document.getElementById('training-view');"
                "return [v.hidden, v.querySelectorAll("
                "'svg.loss-curve polyline').length, "
                "v.querySelectorAll('#training-step').length];")
            ok(drawn == [False, 1, 1],
               "%s: the training view draws its loss curve and slider" %
               name, drawn)
        check_command(driver, mha, tmp)


def check_written_training(driver, mha, tmp):
    """A page written trained (or stacked) shows its settings in the
    editor, and a change keeps them."""
    base = {"sentence": "the cat sat on the mat", "kv": "", "seed": "42",
            "dModel": "4", "dOut": "4", "heads": "2", "causal": True,
            "scale": True, "qkvBias": False, "tokens": "words", "lr": "",
            "grad": False, "positions": False, "layers": "", "train": "0",
            "optimizer": "adam"}
    for name, s in [
            ("written trained", dict(base, variants=["fused"], train="7",
                                     optimizer="sgd", lr="0.3", grad=True,
                                     positions=True)),
            ("written stacked", dict(base, variants=["block"],
                                     layers="2"))]:
        page = os.path.join(tmp, "written.html")
        r = mha.run(["--html", page] + args_of(s) + ["--", s["sentence"]],
                    env={"LANGUAGE": "", "LC_ALL": "C.UTF-8"})
        ok(r.returncode == 0, "%s: the page is written" % name, r.stderr)
        driver.get("file://" + page)
        ok(wait_ready(driver), "%s: the page's core is ready" % name)
        shown = driver.execute_script("""
            var f = function (n) {
              return document.querySelector('[data-edit=' + n + ']');
            };
            return {train: f('train').value, optimizer: f('optimizer').value,
                    lr: f('lr').value, grad: f('grad').checked,
                    positions: f('positions').checked,
                    layers: f('layers').value};""")
        want = {k: s[k] for k in shown}
        ok(shown == want, "%s: the editor shows the run's settings" % name,
           [shown, want])
        s["seed"] = "7"
        set_and_wait(driver, s, name + ", seed 7")
        compare(driver, mha, tmp, s, name + ", seed 7")
        check_command(driver, mha, tmp)


def page_lines(driver):
    """The head view's lines of every variant (each variant's button
    pressed in turn)."""
    lines = []
    driver.find_element(
        By.CSS_SELECTOR, "[aria-label=View] button[data-value=head]").click()
    # the group is named Layer for a stack's blocks
    group = "[aria-label=Variant] button, [aria-label=Layer] button"
    buttons = driver.find_elements(By.CSS_SELECTOR, group)
    for i in range(len(buttons)):
        driver.find_elements(By.CSS_SELECTOR, group)[i].click()
        lines += driver.execute_script(LINES)
    return lines


def compare(driver, mha, tmp, s, name):
    """The page after the editor ran settings s against the program."""
    status, values, data, message = native(mha, tmp, s)
    error = driver.find_element(By.ID, "editor-error")
    if status != 0:
        ok(error.is_displayed() and error.text == message,
           "%s: refused with the program's message" % name,
           [error.text, message])
        return False
    ok(not error.is_displayed(), "%s: no error shown" % name, error.text)
    got = json.loads(driver.execute_script(PAGE_DATA))
    ok(got == data, "%s: the page's data is the program's" % name)
    lines = page_lines(driver)
    wrong = [l for l in lines
             if values.get((l[0], l[1], l[2], l[3])) != l[4]]
    ok(lines and not wrong,
       "%s: %d data-weight values equal --format csv" % (name, len(lines)),
       wrong[:3])
    return True


def check_editor(driver):
    """Labels, focus order, live regions."""
    unlabelled = driver.execute_script("""
        return Array.from(document.querySelectorAll('[data-edit]'))
          .filter(function (e) { return e.labels.length === 0; })
          .map(function (e) { return e.id; });""")
    ok(not unlabelled, "every field of the editor has a label", unlabelled)
    live = driver.execute_script("""
        return [document.getElementById('editor-status')
                  .getAttribute('aria-live'),
                document.getElementById('editor-error')
                  .getAttribute('role')];""")
    ok(live == ["polite", "alert"],
       "the recompute status and the errors are live regions", live)
    # from the top of a freshly opened page
    ActionChains(driver).send_keys(Keys.TAB).perform()
    first = driver.execute_script(
        "return document.activeElement.tagName.toLowerCase();")
    ok(first == "summary", "Tab reaches the editor first", first)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    ActionChains(driver).send_keys(Keys.TAB).perform()
    field = driver.execute_script(
        "return document.activeElement.getAttribute('data-edit');")
    opened = driver.execute_script(
        "return document.getElementById('editor').open;")
    ok(opened and field == "sentence",
       "Enter opens the editor, then Tab reaches the sentence",
       [opened, field])


def check_command(driver, mha, tmp):
    """The command line the editor shows makes the page on screen."""
    command = driver.execute_script(
        "return document.getElementById('editor-command').textContent;")
    shown = os.path.join(tmp, "shown.html")
    r = mha.run(["--html", shown] + shlex.split(command)[1:],
                env={"LANGUAGE": "", "LC_ALL": "C.UTF-8"})
    data = None
    if r.returncode == 0:
        with open(shown, encoding="utf-8") as f:
            html = f.read()
        start = html.index('id="mha-data">\n') + len('id="mha-data">\n')
        data = json.loads(html[start:html.index("\n</script>", start)])
    ok(data is not None and
       data == json.loads(driver.execute_script(PAGE_DATA)),
       "the command line the editor shows makes the page on screen: %s" %
       command, r.stderr)


def type_into(driver, name, text):
    """Types text into a field with the keyboard, then Tab: the browser
    sends the change event."""
    e = driver.find_element(By.CSS_SELECTOR, "[data-edit=%s]" % name)
    e.send_keys(Keys.CONTROL, "a")
    e.send_keys(text)
    e.send_keys(Keys.TAB)


def main():
    mha = Program(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        driver = browser(tmp)
        try:
            page = os.path.join(tmp, "live.html")
            r = mha.run(["O gato sobe no tapete", "--heads", "2", "--html",
                         page], env={"LANGUAGE": "", "LC_ALL": "C.UTF-8"})
            need_core(page)
            ok(r.returncode == 0, "the classroom page is written")
            driver.get("file://" + page)
            driver.get_log("performance")
            driver.get_log("browser")
            driver.get("file://" + page)
            ok(wait_ready(driver), "the page's core is ready")
            check_editor(driver)

            # typed with the keyboard
            typed = {"sentence": "O gato sobe no tapete azul", "kv": "",
                     "seed": "42", "dModel": "3", "dOut": "4",
                     "heads": "2", "variants": ["single", "wrapper",
                                                "fused"],
                     "causal": True, "scale": True, "qkvBias": False,
                     "tokens": "words"}
            type_into(driver, "sentence", typed["sentence"])
            compare(driver, mha, tmp, typed, "typed sentence")
            typed["heads"] = "3"
            type_into(driver, "heads", "3")
            compare(driver, mha, tmp, typed, "typed heads 3 (refused)")
            typed["dOut"] = "6"
            type_into(driver, "d-out", "6")
            compare(driver, mha, tmp, typed, "typed d-out 6")
            driver.find_element(By.CSS_SELECTOR,
                                "[data-edit=causal]").send_keys(Keys.SPACE)
            typed["causal"] = False
            compare(driver, mha, tmp, typed, "causal off with the keyboard")

            check_command(driver, mha, tmp)
            typed["sentence"] = "-x marks the spot"
            type_into(driver, "sentence", typed["sentence"])
            compare(driver, mha, tmp, typed, "a sentence like an option")
            check_command(driver, mha, tmp)

            check_training(driver, mha, tmp)

            # set, then one change event
            rnd = random.Random(25)
            runs = refused = 0
            for i in range(56):
                s = random_settings(rnd)
                driver.execute_script(SET_FIELDS, s)
                if compare(driver, mha, tmp, s, "random %d %s" % (i, s)):
                    runs += 1
                else:
                    refused += 1
            ok(runs >= 50 and refused >= 2,
               "random settings: %d recomputed, %d refused" % (runs, refused))

            # the URL fragment opens the same run
            s = random_settings(random.Random(7))
            s.update(variants=["wrapper", "fused"], heads="2", dOut="4",
                     sentence="the cat sat on the mat")
            driver.execute_script(SET_FIELDS, s)
            url = driver.current_url
            ok("#" in url and "heads=2" in url,
               "the URL fragment holds the settings", url)
            driver.get("about:blank")
            driver.get(url)
            ok(wait_ready(driver), "the linked page's core is ready")
            time.sleep(0.2)
            compare(driver, mha, tmp, s, "opened from the link")
            s.update(train="6", optimizer="sgd", lr="0.2", grad=True,
                     positions=True, layers="")
            set_and_wait(driver, s, "trained, for the link")
            url = driver.current_url
            ok("train=6" in url and "optimizer=sgd" in url and
               "lr=0.2" in url and "grad=on" in url,
               "the URL fragment holds the training", url)
            driver.get("about:blank")
            driver.get(url)
            ok(wait_ready(driver) and wait_recomputed(driver),
               "the trained link's page is recomputed")
            compare(driver, mha, tmp, s, "trained, opened from the link")

            # printing: the command line, not the form
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"media": "print"})
            driver.execute_script(
                "window.dispatchEvent(new Event('beforeprint'));")
            shown = driver.execute_script("""
                var v = function (id) {
                  var e = document.getElementById(id);
                  return e.getClientRects().length > 0;
                };
                return [v('editor-command'), v('editor-form'),
                        document.getElementById('editor-command')
                          .textContent];""")
            ok(shown[0] and not shown[1] and "--heads 2" in shown[2],
               "printed: the run's command line, not the form", shown)
            driver.execute_script(
                "window.dispatchEvent(new Event('afterprint'));")
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"media": ""})

            check_written_training(driver, mha, tmp)

            # another language: its messages and words
            zh = os.path.join(tmp, "zh.html")
            mha.run(["O gato sobe no tapete", "--heads", "2", "--lang",
                     "zh_TW", "--html", zh])
            driver.get("file://" + zh)
            ok(wait_ready(driver), "zh_TW: the page's core is ready")
            s = dict(typed, heads="3", dOut="4", causal=True)
            driver.execute_script(SET_FIELDS, s)
            status, _, _, message = native(mha, tmp, s, "zh_TW")
            error = driver.execute_script(
                "return document.getElementById('editor-error')"
                ".textContent;")
            ok(status == 2 and error == message and "--heads" in error,
               "zh_TW: the program's message in Chinese", [error, message])
            s["dOut"] = "6"
            driver.execute_script(SET_FIELDS, s)
            summary = driver.find_element(By.CSS_SELECTOR,
                                          "p.summary").text
            label = driver.execute_script(
                "return document.querySelector('label[for=edit-heads]')"
                ".textContent;")
            ok("頭" in summary and "頭數" in label,
               "zh_TW: the redrawn page and the editor speak Chinese",
               [summary, label])

            errors = [e for e in driver.get_log("browser")
                      if e["level"] in ("SEVERE", "WARNING")]
            ok(not errors, "no console error or warning", errors[:3])
            others = [u for u in requests_made(driver)
                      if not u.startswith("file://") and u != "about:blank"]
            ok(not others, "no request but the pages", others)
        finally:
            driver.quit()
    return done()


if __name__ == "__main__":
    sys.exit(main())
