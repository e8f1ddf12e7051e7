#!/usr/bin/env python3
"""training_views_test: what a trained run (--train) shows besides its
tables (TAP).

  - attn_weights_steps: every head's weights on the sentence at up to 11
    steps from 0 to N, recorded without changing the training (every
    table bit for bit as without it); step 0 holds the weights of
    --train 0, step N the trained ones; text and CSV show it only when
    --tables names it;
  - --plot: the loss curve (an SVG path through the N + 1 losses, its
    title and axes as text) and each head before and after training;
    --tables loss draws the curve alone;
  - --html: the checkpoints in the page's data, and a slider over them
    (checked in Chromium by html_browser_test.py);
  - head_scores_steps of a trained stack of attention-only blocks: the
    same values in the page's data as in the CSV, every block's
    attn_weights_steps, and --plot's chart of the scores beside the
    loss curve;
  - --corpus: the loss table's last row named shown (the shown
    sentence's, no step's), off the line in --plot and on the page
    (lossShown), said by --explain; the scores' chart of a sentence that
    repeats no word saying why it is flat.

Usage: training_views_test.py MHA_EXPLAIN"""
import base64
import csv
import io
import json
import os
import re
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import Program, done, ok  # noqa: E402

mha = Program(sys.argv[1])

SENTENCE = ["the cat sat on the mat and the dog sat", "--d-model", "8",
            "--d-out", "8", "--heads", "2"]
STEPS = 30


def rows(args):
    r = mha.run(SENTENCE + args + ["--format", "csv"])
    return r, list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))


def key(row):
    return (row["variant"], row["head"], row["table"], row["row"], row["col"])


def checkpoints():
    variants = ["--variant", "single,wrapper,fused"]
    chosen = "attn_weights,loss,W_query.weight,embedding.weight"
    r, with_ck = rows(variants + ["--train", str(STEPS), "--tables",
                                  "attn_weights_steps," + chosen])
    _, plain = rows(variants + ["--train", str(STEPS), "--tables", chosen])
    _, init = rows(variants + ["--train", "0", "--tables", "attn_weights"])
    ok(r.returncode == 0, "--tables attn_weights_steps runs", r.stderr)
    want = {key(x): x["value"] for x in plain}
    got = {key(x): x["value"] for x in with_ck
           if x["table"] != "attn_weights_steps"}
    ok(want and got == want,
       "recording the checkpoints leaves the training bit for bit as it is")
    steps = [x for x in with_ck if x["table"] == "attn_weights_steps"]
    names = []
    for x in steps:
        step = x["row_label"].split("/")[0]
        if step not in names:
            names.append(step)
    ok(names == ["step%d" % (3 * k) for k in range(11)],
       "11 checkpoints, evenly spaced from 0 to N", names)
    T = 10
    for label, ref in (("step0", init), ("step%d" % STEPS, plain)):
        table = {key(x): x["value"] for x in ref
                 if x["table"] == "attn_weights"}
        wrong, n = [], 0
        for x in steps:
            step, head, query = x["row_label"].split("/", 2)
            if step != label:
                continue
            n += 1
            k = (x["variant"], head[len("head"):], "attn_weights",
                 str(int(x["row"]) % T), x["col"])
            if table.get(k) != x["value"] or not query.startswith("Q:"):
                wrong.append((x["row_label"], x["col"], x["value"],
                              table.get(k)))
        ok(n == 5 * T * T and not wrong,
           "%s: every head's weights, bit for bit those of the %s run" %
           (label, "untrained" if label == "step0" else "trained"),
           wrong[:3])
    r = mha.run(SENTENCE + ["--train", "3", "--format", "csv"])
    ok(r.returncode == 0 and b"attn_weights_steps" not in r.stdout,
       "without --tables, CSV leaves attn_weights_steps out")
    r = mha.run(SENTENCE + ["--tables", "attn_weights_steps"])
    ok(r.returncode == 2 and b"attn_weights_steps" in r.stderr,
       "without --train, no run makes attn_weights_steps", r.stderr)


def svg_texts(svg):
    return [t for t in re.findall(r"<text [^>]*>([^<]*)</text>", svg)]


def curve(svg, rgb):
    """The points of the longest path stroked in colour rgb."""
    best = []
    for style, d in re.findall(r'<path style="([^"]*)" d="([^"]*)"', svg):
        if "stroke:%s" % rgb not in style:
            continue
        points = [tuple(map(float, p)) for p in
                  re.findall(r"[ML] ([-\d.]+) ([-\d.]+)", d)]
        best = points if len(points) > len(best) else best
    return best


def plots(d):
    probe = mha.run(SENTENCE + ["--plot", os.path.join(d, "p.svg")])
    if probe.returncode != 0 and b"no plotting" in probe.stderr:
        ok(True, "# SKIP this build has no plotting")
        return
    svg_path = os.path.join(d, "trained.svg")
    r = mha.run(SENTENCE + ["--train", str(STEPS), "--variant",
                            "single,fused", "--plot", svg_path])
    ok(r.returncode == 0 and os.path.exists(svg_path), "--plot: written",
       r.stderr)
    with open(svg_path, encoding="utf-8") as f:
        svg = f.read()
    texts = svg_texts(svg)
    joined = " ".join(texts)
    ok("loss at each training step" in joined and "training step" in texts
       and "loss" in texts and "single" in texts and "fused" in texts,
       "the loss curve's title, axes and legend", texts[:12])
    _, table = rows(["--train", str(STEPS), "--variant", "single,fused",
                     "--tables", "loss"])
    for colour, variant in (("rgb(12.2%,46.7%,70.6%)", "single"),
                            ("rgb(100%,49.8%,5.5%)", "fused")):
        points = curve(svg, colour)
        losses = [float(x["value"]) for x in table if x["variant"] == variant]
        # the drawn heights are the losses, scaled: their order agrees
        ys = [y for _, y in points]
        xs = [x for x, _ in points]
        same_order = all((ys[i] > ys[j]) == (losses[i] < losses[j])
                         for i in range(len(ys)) for j in range(len(ys))
                         if losses[i] != losses[j]) if points else False
        ok(len(points) == STEPS + 1 == len(losses) and
           xs == sorted(xs) and same_order and losses[-1] < losses[0],
           "%s: a line through the %d losses, left to right, lower where "
           "the loss is lower" % (variant, STEPS + 1), (len(points),
                                                         len(losses)))
    titles = [t for t in texts if "head" in t]
    ok(titles.count("[fused] head 0, before training") == 1 and
       titles.count("[fused] head 1, after %d steps" % STEPS) == 1 and
       titles.count("[single] head 0, before training") == 1 and
       len([t for t in titles if "before training" in t]) == 3 and
       len([t for t in titles if "after %d steps" % STEPS in t]) == 3,
       "each head before and after training", titles)
    alone = os.path.join(d, "loss.svg")
    r = mha.run(SENTENCE + ["--train", "5", "--tables", "loss", "--plot",
                            alone])
    with open(alone, encoding="utf-8") as f:
        texts = svg_texts(f.read())
    ok(r.returncode == 0 and "loss at each training step" in " ".join(texts)
       and not any("head" in t for t in texts),
       "--tables loss: the curve alone", texts[:8])
    zero = os.path.join(d, "zero.svg")
    r = mha.run(SENTENCE + ["--train", "0", "--variant", "single", "--plot",
                            zero])
    with open(zero, encoding="utf-8") as f:
        texts = svg_texts(f.read())
    ok(r.returncode == 0 and "[single] head 0" in texts and
       not any("before training" in t for t in texts),
       "--train 0: the heads as they are, no before and after", texts[:8])


def f32s(m):
    """A page matrix's float32 values."""
    raw = base64.b64decode(m["f32"])
    return [struct.unpack("<f", raw[i:i + 4])[0]
            for i in range(0, len(raw), 4)]


def page(d):
    path = os.path.join(d, "trained.html")
    args = ["--train", str(STEPS), "--variant", "wrapper,fused"]
    r = mha.run(SENTENCE + args + ["--html", path])
    ok(r.returncode == 0, "--html: written", r.stderr)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="mha-data">\n(.*?)\n'
                  r'</script>', text, re.S)
    data = json.loads(m.group(1))
    _, table = rows(args + ["--tables", "attn_weights_steps,loss"])
    for v in data["variants"]:
        t = v.get("training")
        ok(t is not None and t["steps"] == [3 * k for k in range(11)] and
           t["heads"] == 2, "%s: the page keeps 11 steps and 2 heads" %
           v["name"], t and t["steps"])
        if t is None:
            continue
        want_w = [float(x["value"]) for x in table
                  if x["variant"] == v["name"] and
                  x["table"] == "attn_weights_steps"]
        want_l = [float(x["value"]) for x in table
                  if x["variant"] == v["name"] and x["table"] == "loss"]
        got_w, got_l = f32s(t["weights"]), f32s(t["loss"])
        # the CSV's text read back as a float32 is the page's value
        f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
        close = lambda a, b: len(a) == len(b) and all(
            x == f32(y) for x, y in zip(a, b))
        ok(t["weights"]["rows"] == 11 * 2 * 10 and close(got_w, want_w) and
           close(got_l, want_l) and len(got_l) == STEPS + 1,
           "%s: the page's checkpoints and losses are the CSV's" % v["name"])
    long_path = os.path.join(d, "long.html")
    r = mha.run(SENTENCE + ["--train", "300", "--variant", "fused",
                            "--html", long_path])
    short_path = os.path.join(d, "short.html")
    mha.run(SENTENCE + ["--train", "20", "--variant", "fused", "--html",
                        short_path])
    grows = os.path.getsize(long_path) - os.path.getsize(short_path)
    ok(r.returncode == 0 and grows < 20000,
       "300 steps instead of 20: the page grows by the losses only "
       "(%d bytes)" % grows)
    r = mha.run(SENTENCE + ["--html", os.path.join(d, "plain.html")])
    with open(os.path.join(d, "plain.html"), encoding="utf-8") as f:
        ok('"training"' not in f.read(), "without --train, no training data")


def page_data(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="mha-data">\n(.*?)\n'
                  r'</script>', text, re.S)
    return json.loads(m.group(1))


def scores_views(d):
    stack = ["a b c d a b c d", "--d-model", "8", "--heads", "2",
             "--variant", "block", "--layers", "2", "--attn-only",
             "--positions", "--train", "40"]
    r = mha.run(stack + ["--tables", "head_scores_steps,attn_weights_steps",
                         "--format", "csv"])
    table = list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))
    scores = [x for x in table if x["table"] == "head_scores_steps"]
    steps = [x for x in table if x["table"] == "attn_weights_steps"]
    ok(r.returncode == 0 and len(scores) == 41 * 4 and
       [x["col_label"] for x in scores[:4]] ==
       ["block.0.0", "block.0.1", "block.1.0", "block.1.1"] and
       {x["layer"] for x in steps} == {"0", "1"} and
       len(steps) == 2 * 11 * 2 * 8 * 8,
       "a stack: head_scores_steps, 41 steps x 4 heads, and each block's "
       "attn_weights_steps", r.stderr)
    path = os.path.join(d, "stack.html")
    r = mha.run(stack + ["--html", path])
    data = page_data(path)
    f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
    for v in data["variants"]:
        s = (v.get("training") or {}).get("scores")
        ok(s is not None and s["steps"] == list(range(41)) and
           s["heads"] == ["block.0.0", "block.0.1", "block.1.0",
                          "block.1.1"] and
           f32s(s["values"]) == [f32(float(x["value"])) for x in scores],
           "%s: the page's scores are head_scores_steps'" % v["name"])
    svg_path = os.path.join(d, "stack.svg")
    r = mha.run(stack + ["--tables", "loss,head_scores_steps", "--plot",
                         svg_path])
    if r.returncode != 0 and b"no plotting" in r.stderr:
        return
    with open(svg_path, encoding="utf-8") as f:
        svg = f.read()
    texts = svg_texts(svg)
    lines = [curve(svg, c) for c in ("rgb(12.2%,46.7%,70.6%)",
                                      "rgb(100%,49.8%,5.5%)",
                                      "rgb(17.3%,62.7%,17.3%)",
                                      "rgb(83.9%,15.3%,15.7%)")]
    ok(r.returncode == 0 and "each head&apos;s induction score" in texts and
       "induction score" in texts and "block.1.1" in texts and
       all(len(p) > 20 and p[0][0] < p[-1][0] for p in lines[1:]),
       "--plot: the scores' chart beside the loss curve, a line per head "
       "from step 0 to step 40 (cairo leaves out points in line)",
       [len(p) for p in lines])


def corpus_views(d):
    """--corpus: the loss table's last row is the shown sentence's,
    named shown, and --plot, the page and --explain say so; the scores'
    chart of a sentence that repeats no word says why it is flat."""
    corpus = os.path.join(d, "corpus.csv")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write("text\nthe cat sat on the mat\nthe dog sat on the rug\n")
    one = os.path.join(d, "one.csv")
    with open(one, "w", encoding="utf-8") as f:
        f.write("text\nthe cat sat on the sofa\n")
    base = ["the cat sat on the sofa", "--d-model", "8", "--heads", "2",
            "--variant", "single", "--train", "12"]
    labels = {}
    for name, extra in (("corpus", ["--corpus", corpus]),
                        ("one", ["--corpus", one]), ("none", [])):
        if extra:
            extra = extra + ["--column", "text"]
        r = mha.run(base + extra + ["--tables", "loss", "--format", "csv"])
        table = list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))
        labels[name] = [x["row_label"] for x in table]
    steps = ["step%d" % i for i in range(12)]
    ok(labels["corpus"] == steps + ["shown"] and
       labels["one"] == steps + ["step12"] and
       labels["none"] == steps + ["step12"],
       "loss: the last row is 'shown' when the steps trained on other "
       "sentences (--corpus), step12 when on the shown one alone",
       {k: v[-2:] for k, v in labels.items()})
    args = base + ["--corpus", corpus, "--column", "text"]
    r = mha.run(args + ["--tables", "loss", "--explain"])
    said = " ".join(line[2:] for line in r.stdout.decode("utf-8").split("\n")
                    if line.startswith("# "))
    ok("the last row, shown, is this sentence's loss at the final "
       "parameters, no step's" in said,
       "--explain says the last row is no step's", said[-600:])
    path = os.path.join(d, "corpus.html")
    r = mha.run(args + ["--html", path])
    t = page_data(path)["variants"][0]["training"]
    plain = os.path.join(d, "plain.html")
    mha.run(base + ["--html", plain])
    ok(r.returncode == 0 and t.get("lossShown") is True and
       "lossShown" not in page_data(plain)["variants"][0]["training"],
       "the page's data: lossShown with --corpus only")
    svg_path = os.path.join(d, "corpus.svg")
    r = mha.run(args + ["--tables", "loss", "--plot", svg_path])
    if r.returncode != 0 and b"no plotting" in r.stderr:
        return
    with open(svg_path, encoding="utf-8") as f:
        svg = f.read()
    points = curve(svg, "rgb(12.2%,46.7%,70.6%)")
    ok(r.returncode == 0 and len(points) == 12 and
       "loss on the shown sentence" in svg_texts(svg),
       "--plot: the line through the 12 steps' losses, the shown "
       "sentence's a ring off it, named in the legend", len(points))
    flat = os.path.join(d, "flat.svg")
    stack = ["--d-model", "8", "--heads", "2", "--variant", "block",
             "--layers", "2", "--attn-only", "--train", "10", "--tables",
             "loss,head_scores_steps", "--plot", flat]
    notes = []
    for sentence in ("a b c d", "a b c d a b c d"):
        r = mha.run([sentence] + stack)
        with open(flat, encoding="utf-8") as f:
            notes.append("Every score is 0:" in " ".join(svg_texts(f.read())))
    ok(notes == [True, False],
       "--plot: the scores' chart says why every score is 0 when the "
       "sentence repeats no word, and only then", notes)


def main():
    checkpoints()
    with tempfile.TemporaryDirectory() as d:
        plots(d)
        page(d)
        scores_views(d)
        corpus_views(d)
    return done()


if __name__ == "__main__":
    sys.exit(main())
