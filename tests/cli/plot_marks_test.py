#!/usr/bin/env python3
"""plot_marks_test: what --plot marks on the interventions' pictures (TAP).

- The heads --ablate switched off are marked in the model view: GPT-2's
  drawn with and without --ablate 1.1 (whose weights the ablation leaves
  as they are), the two PNGs differ in one square, lighter (dimmed) and
  framed in dashes; in the SVG of a GPT-2 checkpoint, a Llama-style one
  and a stack of the lesson's blocks, the thumbnails of the heads
  switched off (the first layer's last head, the last layer's first),
  and theirs alone, have a white veil and a dashed frame. The legend
  says how the heads were switched off (zero and mean), in the SVG's
  text, and a run without --ablate has none.
- The model view's title is as wide as the page (a Llama-style
  checkpoint of 4 heads: on one line, its grid narrower than it).
- A map's colour bar is as tall as the map (at least 120 points, at
  most 600): a 2 x 2 ablation map in every language, its caption whole
  beside the bar (wrapped on lines or, in Chinese, set in vertical
  columns, every character there), and head_scores of 32 heads (32 x 3),
  its caption centred along the bar.
  The bar's height is read from its ticks' places in the SVG, the map's
  from its row labels'.

Usage: plot_marks_test.py MHA_EXPLAIN GPT2_DIR LLAMA_DIR PO_DIR
A build without plotting skips (TAP plan 1..0 # SKIP)."""
import os
import re
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

mha = Program(sys.argv[1])
GPT2 = os.path.abspath(os.path.join(sys.argv[2], "two_layers"))
LLAMA = os.path.abspath(os.path.join(sys.argv[3], "llama_gqa4_bf16"))
PO = sys.argv[4]
TEXT = "the cat sat on the mat"
LANGS = ["en", "pt_BR", "es", "zh_CN", "zh_TW"]
# the vertical forms of Chinese punctuation, back to the text's
VERTICAL = {"\ufe10": "\uff0c", "\ufe11": "\u3001", "\ufe12": "\u3002",
            "\ufe13": "\uff1a", "\ufe14": "\uff1b", "\ufe35": "\uff08",
            "\ufe36": "\uff09"}


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA
    PNG."""
    with open(path, "rb") as f:
        data = f.read()
    at, idat = 8, b""
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB",
                                                data[at + 8:at + 18])
        elif kind == b"IDAT":
            idat += data[at + 8:at + 8 + n]
        at += 12 + n
    assert depth == 8 and colour in (2, 6)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def draw(args, path):
    return plotlib.draw(mha, args, path)


def changed_box(clean, ablated):
    """The box (x0, y0, x1, y1) of the pixels that differ in the leftmost
    group of columns (the grid's, left of the legends), or None."""
    w, h = min(clean[0], ablated[0]), min(clean[1], ablated[1])
    cols = [x for x in range(w)
            if any(clean[2][y][x] != ablated[2][y][x] for y in range(h))]
    if not cols:
        return None
    x1 = cols[0]
    for x in cols[1:]:
        if x > x1 + 4:
            break
        x1 = x
    ys = [y for y in range(h)
          if any(clean[2][y][x] != ablated[2][y][x]
                 for x in range(cols[0], x1 + 1))]
    return cols[0], ys[0], x1, ys[-1]


def lightness(img, box):
    x0, y0, x1, y1 = box
    px = [img[2][y][x] for y in range(y0 + 4, y1 - 3)
          for x in range(x0 + 4, x1 - 3)]
    return sum(sum(p) for p in px) / (3.0 * max(1, len(px)))


def dashes(img, box):
    """How often the frame's top edge turns from dark to light."""
    x0, y0, x1, _ = box
    dark = [sum(img[2][y0 + 1][x]) < 200 for x in range(x0, x1 + 1)]
    return sum(1 for a, b in zip(dark, dark[1:]) if a and not b)


def check_pixels(d):
    """GPT-2's model view drawn with and without --ablate 1.1 (whose
    weights stay as they are): the PNGs differ in one square, lighter,
    framed in dashes."""
    args = ["--model", GPT2, TEXT]
    clean, off = os.path.join(d, "clean.png"), os.path.join(d, "off.png")
    if not (draw(args, clean) and draw(args + ["--ablate", "1.1"], off)):
        ok(False, "GPT-2's model view drawn")
        return
    base, img = png_pixels(clean), png_pixels(off)
    box = changed_box(base, img)
    square = box is not None and \
        abs((box[2] - box[0]) - (box[3] - box[1])) <= 4 and box[2] > box[0]
    ok(square and lightness(img, box) > lightness(base, box) + 25 and
       dashes(img, box) >= 4,
       "GPT-2, --ablate 1.1: one square of the PNG changes, lighter "
       "(dimmed) and framed in dashes",
       box and (box, lightness(base, box), lightness(img, box),
                dashes(img, box)))


def svg_boxes(path):
    """The model view's thumbnails' frames (grey, sorted by row then
    column), the dashed frames and the white veils, as (x0, y0, x1, y1)
    boxes from the SVG's paths."""
    with open(path, encoding="utf-8") as f:
        body = f.read()
    frames, dashed, veils = [], [], []
    for style, path_d in re.findall(r'<path style="([^"]*)" d="([^"]*)"',
                                    body):
        nums = [float(v) for v in re.findall(r"-?[\d.]+", path_d)]
        if len(nums) < 8:
            continue
        xs, ys = nums[0:8:2], nums[1:8:2]
        box = (min(xs), min(ys), max(xs), max(ys))
        if "stroke:rgb(50%,50%,50%)" in style and "stroke-width:0.5" in style:
            frames.append(box)
        elif "stroke-dasharray" in style:
            dashed.append(box)
        elif re.search(r"fill:rgb\(100%,100%,100%\);fill-opacity:0\.[1-9]",
                       style):
            veils.append(box)
    frames.sort(key=lambda b: (b[1], b[0]))
    return frames, dashed, veils


def near(a, b, inset):
    return all(abs(a[k] - b[k] - (inset if k < 2 else -inset)) < 0.01
               for k in range(4))


def check_marks(d, name, args, layers, heads):
    """Heads (0, heads-1) and (layers-1, 0) switched off: their frames,
    and theirs alone, dashed and veiled."""
    svg = os.path.join(d, "marks.svg")
    off = "0.%d,%d.0" % (heads - 1, layers - 1)
    want = [heads - 1, (layers - 1) * heads]
    if not draw(args + ["--ablate", off], svg):
        ok(False, name + ": drawn with --ablate " + off)
        return
    frames, dashed, veils = svg_boxes(svg)
    got = [i for i, f in enumerate(frames)
           if any(near(b, f, 0.75) for b in dashed)]
    veiled = [i for i, f in enumerate(frames)
              if any(near(b, f, 0) for b in veils)]
    ok(len(frames) == layers * heads and got == want and veiled == want and
       len(dashed) == len(want) + 1,
       "%s, --ablate %s: those heads' thumbnails, and theirs alone, "
       "veiled and framed in dashes (and the legend's square)"
       % (name, off), (len(frames), got, veiled, len(dashed)))


def po_text(lang, msgid):
    if lang == "en":
        return msgid
    with open(os.path.join(PO, lang + ".po"), encoding="utf-8") as f:
        body = f.read()
    m = re.search(r'\nmsgid "%s"\nmsgstr "((?:[^"\\]|\\.)*)"'
                  % re.escape(msgid), body)
    return m.group(1) if m else None


def bar_and_caption(items):
    """The bar's height (from its five ticks, the last numbers drawn)
    and the caption drawn after them, joined."""
    at = [k for k, (t, _, _) in enumerate(items)
          if re.fullmatch(r"-?\d+\.\d+", t)][-5:]
    if len(at) < 5:
        return None, None
    height = items[at[0]][2] - items[at[-1]][2]
    caption = "".join(VERTICAL.get(t, t) for t, _, _ in items[at[-1] + 1:])
    return height, caption


def row_pitch(items, first, last, rows):
    y = {t: yy for t, _, yy in items}
    if first not in y or last not in y:
        return None
    return (y[last] - y[first]) / (rows - 1)


def check_bars(d):
    svg = os.path.join(d, "map.svg")
    msgid = "change of the mean loss (--metric loss)"
    for lang in LANGS:
        if not draw(["--lang", lang, "--model", GPT2, TEXT, "--ablate",
                     "all-heads"], svg):
            ok(False, lang + ": the ablation map drawn")
            continue
        items = plotlib.svg_items(svg)
        height, caption = bar_and_caption(items)
        pitch = row_pitch(items, "h.0", "h.1", 2)
        want = po_text(lang, msgid)
        whole = (caption is not None and want is not None and
                 caption.replace(" ", "") == want.replace(" ", ""))
        ok(height is not None and pitch is not None and
           abs(height - max(2 * pitch, 120)) < 0.5 and whole,
           "--lang %s: the 2 x 2 map's bar as tall as the map, its caption "
           "whole beside it" % lang, (height, pitch, caption, want))
    many = plotlib.sixteen_heads(GPT2, d)
    if draw(["--model", many, "--head-scores", "--repeat-random", "4"], svg):
        items = plotlib.svg_items(svg)
        height, caption = bar_and_caption(items)
        pitch = row_pitch(items, "h.0.0", "h.1.15", 32)
        ticks = [yy for t, _, yy in items if re.fullmatch(r"\d\.\d\d", t)]
        middle = (ticks[-5] + ticks[-1]) / 2 if len(ticks) >= 5 else None
        ok(height is not None and pitch is not None and
           abs(height - min(32 * pitch, 600)) < 0.5 and height > 220,
           "head_scores of 32 heads (32 x 3): the bar as tall as the map",
           (height, pitch))
        ok(middle is not None and caption == items[-1][0] and
           abs(items[-1][2] - middle) < 8,
           "its caption on one line, centred along the bar",
           (middle, items[-1]))
    else:
        ok(False, "head_scores of 32 heads drawn")


def check_legends(d):
    svg = os.path.join(d, "view.svg")
    for mode, legend in (("zero", "switched off: its output z set to 0 "
                          "(--ablate)"),
                         ("mean", "switched off: its output z set to its "
                          "mean (--ablate-mode mean)")):
        texts = []
        if draw(["--model", GPT2, TEXT, "--ablate", "1.1", "--ablate-mode",
                 mode], svg):
            texts = plotlib.svg_texts(svg)
        joined = "".join(texts)
        ok(legend in joined,
           "--ablate-mode %s: the legend of the heads switched off" % mode,
           texts[-8:])
    texts = []
    if draw(["--model", GPT2, TEXT], svg):
        texts = plotlib.svg_texts(svg)
    ok(texts and not any("switched off" in t for t in texts),
       "without --ablate: no such legend", texts[-8:])


def check_title(d):
    """The model view's title spans the page, bar and legend included: a
    Llama-style checkpoint of 4 heads, whose grid is narrower than the
    title but whose page is wide enough, has it on one line."""
    svg = os.path.join(d, "title.svg")
    texts = []
    if draw(["--model", LLAMA, TEXT], svg):
        texts = plotlib.svg_texts(svg)
    title = ("Model view: attn_weights of every layer (rows) and head "
             "(columns), from 0 to 1")
    ok(texts[:1] == [title],
       "the model view's title on one line where the page has room",
       texts[:2])


def main():
    with tempfile.TemporaryDirectory() as d:
        if plotlib.cannot_plot(mha, d):
            print("1..0 # SKIP this build draws no pictures")
            return 0
        check_pixels(d)
        check_marks(d, "GPT-2", ["--model", GPT2, TEXT], 2, 2)
        check_marks(d, "Llama-style (4 heads, one key/value head)",
                    ["--model", LLAMA, TEXT], 2, 4)
        check_marks(d, "a stack of 3 lesson blocks",
                    ["O gato sobe no tapete", "--d-model", "4", "--heads",
                     "2", "--variant", "block", "--layers", "3"], 3, 2)
        check_legends(d)
        check_title(d)
        check_bars(d)
    return done()


sys.exit(main())
