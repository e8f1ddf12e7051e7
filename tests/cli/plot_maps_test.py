#!/usr/bin/env python3
"""plot_maps_test: --plot of the interventions (TAP).

--ablate all-heads and --patch draw their maps (ablation_map, patch_heads,
patch_resid) rather than the model view, with their axes' titles and a
colour bar whose caption says what a colour is, centred on 0 (its ends
are opposite numbers); --head-scores --repeat-random draws head_scores on
the fixed scale 0 to 1, each score's column labelled however many
heads; --head-scores on a sentence draws the model view
with each head's three scores under it (the values of --format csv) and
their legend; a Llama-style model whose heads share key/value heads gets
a bracket per key/value head ("kv 0", "kv 1"), and one that shares none
gets no bracket; a patch of 48 positions labels every position of
patch_resid. Read back from the SVG's text.

Usage: plot_maps_test.py MHA_EXPLAIN GPT2_DIR LLAMA_DIR
A build without plotting skips (TAP plan 1..0 # SKIP)."""
import csv
import io
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

mha = Program(sys.argv[1])
GPT2 = os.path.join(sys.argv[2], "two_layers")
LLAMA = sys.argv[3]
TEXT = "the cat sat on the mat"
PATCH = ["--patch", "--clean", TEXT, "--corrupt", "the mat sat on the cat",
         "--answer", " cat", "--wrong", " mat"]
# the indirect-object sentences: 48 tokens of the wide test checkpoint
WIDE = os.path.join(sys.argv[2], "wide")
IOI = ["--patch", "--clean",
       "When Mary and John went to the store, John gave a drink to",
       "--corrupt",
       "When Mary and John went to the store, Mary gave a drink to",
       "--answer", "M", "--wrong", "J"]


def svg_of(args, path):
    """The texts of the SVG args draw (one string each), or None."""
    return plotlib.svg_of(mha, args, path)


def centred(texts, first, count):
    """Whether the colour bar's ticks from texts[first] are centred on 0:
    count ticks, the ends opposite numbers, 0.00 in the middle."""
    ticks = texts[first:first + count]
    try:
        values = [float(t) for t in ticks]
    except ValueError:
        return False
    return (values[0] == -values[-1] and values[0] != 0 and
            ticks[count // 2] == "0.00")


def caption_at(texts, caption):
    """Where caption starts in texts, written on one line or wrapped on
    several beside its bar (consecutive texts that join into it), or
    -1."""
    for k in range(len(texts)):
        joined = ""
        for line in texts[k:k + 8]:
            joined += line
            if joined == caption:
                return k
            if not caption.startswith(joined):
                break
    return -1


def tick_index(texts, caption):
    """Where the ticks of the bar with this caption start (they precede
    it)."""
    return caption_at(texts, caption) - 5


def captions(texts, caption):
    """How many times caption is written, on one line or wrapped."""
    return sum(1 for k in range(len(texts))
               if caption_at(texts[k:], caption) == 0)


def main():
    with tempfile.TemporaryDirectory() as d:
        if plotlib.cannot_plot(mha, d):
            print("1..0 # SKIP this build draws no pictures")
            return 0
        svg = os.path.join(d, "maps.svg")
        t = svg_of(["--model", GPT2, TEXT, "--ablate", "all-heads"], svg)
        ok(t is not None and "[gpt2] ablation_map" in t and
           "layer" in t and "head ablated" in t and
           caption_at(t, "change of the mean loss (--metric loss)") > 0 and
           "attention weight" not in t,
           "--ablate all-heads: the ablation map with its axes and caption, "
           "not the model view", t)
        ok(t is not None and
           centred(t, tick_index(t, "change of the mean loss (--metric loss)"), 5),
           "the ablation map's bar is centred on 0", t)
        with open(svg, encoding="utf-8") as f:
            fills = {tuple(round(float(c) * 255 / 100) for c in m.groups())
                     for m in re.finditer(
                         r"fill:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)",
                         f.read())}
        # RdBu_r's ends: the largest change (the scale's top) is its
        # darkest red; no cell is its darkest blue (nothing is as low)
        ok((103, 0, 31) in fills and (5, 48, 97) not in fills,
           "the largest change is RdBu_r's top, the smallest (-0.07 "
           "against 0.31) not its bottom", sorted(fills)[:20])
        t = svg_of(["--model", GPT2] + PATCH, svg)
        ok(t is not None and "[gpt2] patch_heads" in t and
           "[gpt2] patch_resid" in t and "head patched" in t and
           "position patched (residual stream before the layer)" in t and
           captions(t, "restored: 0 corrupted, 1 clean") == 2 and
           "\u2423mat" in t,
           "--patch: both maps, their axes, captions and the clean tokens", t)
        # a prompt of 48 tokens: patch_resid labels every position
        r = mha.run(["--model", WIDE] + IOI + ["--format", "csv", "--tables",
                                                "patch_resid"])
        rows = list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))
        want = [row["col_label"] for row in rows if row["row"] == "0"]
        t = svg_of(["--model", WIDE] + IOI + ["--tables", "patch_resid"], svg)
        at = t.index("h.1") + 1 if t and "h.1" in t else -1
        ok(len(want) == 48 and at > 0 and t[at:at + 48] == want,
           "--patch over 48 positions: patch_resid labels every one",
           (want, t and t[at:at + 48]))
        t = svg_of(["--model", GPT2, "--head-scores", "--repeat-random", "4"],
                   svg)
        caption = "share of attention on the pattern"
        ok(t is not None and "[gpt2] head_scores" in t and "pattern" in t and
           "head (layer.head)" in t and caption_at(t, caption) > 0 and
           t[tick_index(t, caption):tick_index(t, caption) + 5] ==
           ["0.00", "0.25", "0.50", "0.75", "1.00"],
           "--head-scores --repeat-random: head_scores from 0 to 1", t)
        # 2 layers of 16 heads (two_layers' weights cut in heads of one
        # dimension): head_scores is 32 x 3, a map far taller than wide,
        # whose three columns are each wide enough for their label
        many = plotlib.sixteen_heads(GPT2, d)
        t = svg_of(["--model", many, "--head-scores", "--repeat-random", "4"],
                   svg)
        ok(t is not None and "[gpt2] head_scores" in t and
           all(s in t for s in ("previous_token", "duplicate_token",
                                "induction")),
           "head_scores of 32 heads: every score's column labelled", t)
        text = "the cat sat on the cat sat on the"
        r = mha.run(["--model", GPT2, text, "--head-scores", "--format",
                     "csv", "--tables", "head_scores"])
        rows = list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))
        want = ["%.2f" % float(row["value"]) for row in rows]
        t = svg_of(["--model", GPT2, text, "--head-scores"], svg)
        got = [x for x in (t or []) if re.fullmatch(r"\d\.\d\d", x)]
        ok(t is not None and len(want) == 12 and
           "attention weight" in t and "head score" in t and
           any("duplicate-token" in x for x in t) and got[:12] == want,
           "--head-scores on a sentence: the model view, each head's "
           "scores under it in head_scores' order, and their legend",
           (got[:12], want))
        t = svg_of(["--model", os.path.join(LLAMA, "llama_tied_f32"), TEXT],
                   svg)
        ok(t is not None and "kv 0" in t and "kv 1" in t and
           any("share a key/value head" in x for x in t),
           "two heads per key/value head: a bracket each, and the legend", t)
        t = svg_of(["--model", os.path.join(LLAMA, "qwen2_bias_f16"), TEXT],
                   svg)
        ok(t is not None and "kv 0" not in t and
           not any("key/value" in x for x in t),
           "a key/value head per head: no bracket, no legend", t)
        png = os.path.join(d, "maps.png")
        r = mha.run(["--model", GPT2] + PATCH + ["--plot", png])
        ok(r.returncode == 0 and os.path.getsize(png) > 0,
           "--patch --plot maps.png: a PNG", r.stderr)
    return done()


sys.exit(main())
