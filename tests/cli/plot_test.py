#!/usr/bin/env python3
"""plot_test: --plot FILE from the command line (TAP).

The SVG is well-formed (xmllint) and renders (rsvg-convert); the PDF's
text (pdftotext) holds every token label, CJK included; --input gives a
PDF page per sentence (pdfinfo) and a PNG or SVG per sentence; the same
command writes the same SVG and PDF bytes; a wrong extension is a usage
error naming the three formats; an unwritable path is status 1 with one
line and leaves nothing behind. --plot-size gives exactly that many
pixels (PNG) or points (SVG, PDF), and bad sizes are usage errors;
--tables puts other tables in the picture (titles, colour bars and the
masked legend in the PDF's text); a very long sentence or many heads
give a picture of bounded size that says it is summarised; titles and
legends follow --lang.

Usage: plot_test.py MHA_EXPLAIN
A build without plotting skips (TAP plan 1..0 # SKIP)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import Program, done, ok  # noqa: E402

mha = Program(sys.argv[1])

CLASSROOM = ["O gato sobe no tapete", "--heads", "2"]
CHINESE = ["我 爱 吃 苹果", "--heads", "2"]


def tool(name):
    path = shutil.which(name)
    if path is None:
        print("Bail out! %s is missing (install it as .ci/run does)" % name)
        sys.exit(1)
    return path


def plot(args, path, env=None, made=None):
    """Runs with --plot path; made: the files it should write (path)."""
    r = mha.run(args + ["--plot", path], env=env)
    made = made or [path]
    ok(r.returncode == 0 and all(os.path.exists(m) and os.path.getsize(m)
                                 for m in made),
       "%s: %s written" % (" ".join(args[:3]), os.path.basename(path)),
       r.stderr.decode("utf-8", "replace"))
    return r


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24],
                                                                "big")


def pdf_text(path):
    return subprocess.run([tool("pdftotext"), path, "-"],
                          capture_output=True).stdout.decode("utf-8")


def pdf_page_size(path):
    info = subprocess.run([tool("pdfinfo"), path],
                          capture_output=True).stdout.decode()
    m = re.search(r"^Page size: +([\d.]+) x ([\d.]+) pts", info, re.M)
    return (float(m.group(1)), float(m.group(2))) if m else None


def svg_fills(path):
    """The fill colours of an SVG's shapes, as 8-bit (r, g, b)."""
    with open(path, encoding="utf-8") as f:
        svg = f.read()
    return [tuple(round(float(c) * 255 / 100) for c in m.groups())
            for m in re.finditer(r"fill:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)",
                                 svg)]


def svg_texts(path):
    """The <text> elements of an SVG: [(attributes, text)]."""
    with open(path, encoding="utf-8") as f:
        svg = f.read()
    return re.findall(r"<text ([^>]*)>([^<]*)</text>", svg)


def check_model_view(d):
    """The model view of a stack of blocks with 25 heads: "head 12" is
    wider than a thumbnail, so the columns give the bare numbers under a
    "head" heading; the masked legend is plain grey, as the thumbnails'
    masked cells (no hatching)."""
    svg = os.path.join(d, "model25.svg")
    plot(["O gato sobe no tapete", "--variant", "block", "--layers", "2",
          "--heads", "25", "--d-model", "25", "--d-out", "25", "--tables",
          "attn_weights"], svg)
    texts = [t for a, t in svg_texts(svg)]
    with open(svg, encoding="utf-8") as f:
        body = f.read()
    numbers = [str(h) for h in range(25)]
    ok("head" in texts and all(n in texts for n in numbers) and
       not any("\u2026" in t or t.startswith("head ") for t in texts),
       "25 heads: the model view's columns are the bare numbers 0 to 24",
       texts[:30])
    ok("85.882353%" in body and "61.960784%" not in body,
       "the model view's masked legend is plain grey, as its thumbnails'")
    plot(["O gato sobe no tapete", "--variant", "block", "--layers", "2",
          "--d-model", "4", "--tables", "attn_weights"], svg)
    texts = [t for a, t in svg_texts(svg)]
    ok("head 0" in texts and "head 1" in texts and "head" not in texts,
       "2 heads: the model view's columns say head 0, head 1", texts[:8])


def check_model_view_nan(d):
    """A GPT-2 checkpoint with a NaN weight (two_layers, one ln_1.weight
    value NaN): every attention weight is NaN, and the model view draws
    them grey and hatched under a "not a number" legend, as a heat map
    does, rather than as masked cells."""
    import json
    import struct
    ref = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "reference", "gpt2", "two_layers")
    folder = os.path.join(d, "nan_model")
    shutil.copytree(ref, folder)
    with open(os.path.join(folder, "model.safetensors"), "r+b") as fh:
        (n,) = struct.unpack("<Q", fh.read(8))
        entry = json.loads(fh.read(n))["transformer.h.0.ln_1.weight"]
        fh.seek(8 + n + entry["data_offsets"][0])
        fh.write(struct.pack("<f", float("nan")))
    svg = os.path.join(d, "nan_view.svg")
    plot(["--model", folder, "the cat sat on the mat", "--tables",
          "attn_weights"], svg)
    texts = [t for a, t in svg_texts(svg)]
    with open(svg, encoding="utf-8") as f:
        body = f.read()
    ok("not a" in texts and "number" in texts and "masked" not in texts
       and "stroke:rgb(62%,62%,62%)" in body,
       "NaN weights: the model view hatches them under 'not a number', "
       "no masked legend", texts)


def check_wide(d):
    """A wide table of few rows (5 x 2400) is summarised in blocks of one
    row: each token keeps its row and its label."""
    svg = os.path.join(d, "wide.svg")
    plot(["O gato sobe no tapete", "--variant", "block", "--d-model", "4",
          "--ff", "2400", "--tables", "ffn_hidden"], svg)
    texts = [t for a, t in svg_texts(svg)]
    note = [t for t in texts if t.startswith("Summarised")]
    ok(note and "of 1 x 4 values" in note[0] and
       all(w in texts for w in ("O", "gato", "sobe", "no", "tapete")),
       "5 x 2400: blocks of 1 x 4, every row labelled", texts[:12])


def check_style(d):
    """--color-scale, --cmap, --numbers, --precision and --colorbar
    (issue 26): read back from the SVG's shapes and text."""
    svgs = {}
    for name, extra in (("table", []), ("row", ["--color-scale", "row"]),
                        ("fixed", ["--color-scale", "fixed"]),
                        ("blues", ["--color-scale", "fixed", "--cmap",
                                   "Blues"]),
                        ("off", ["--numbers", "off"]),
                        ("three", ["--precision", "3"]),
                        ("shared", ["--colorbar", "shared"]),
                        ("panel", ["--colorbar", "panel"]),
                        ("none", ["--colorbar", "none"])):
        svgs[name] = os.path.join(d, "style-%s.svg" % name)
        plot(CLASSROOM + extra, svgs[name])
    fills = {k: svg_fills(v) for k, v in svgs.items()}
    viridis_bottom, viridis_top = (68, 1, 84), (253, 231, 37)
    ok(viridis_bottom in fills["table"] and viridis_top in fills["table"],
       "default scale (table): each panel's smallest weight is viridis' "
       "bottom, its largest the top")
    ok(fills["row"] != fills["table"] and fills["fixed"] != fills["table"]
       and fills["row"] != fills["fixed"],
       "--color-scale table, row and fixed draw different colours")
    ok(viridis_bottom not in fills["fixed"] and viridis_top in fills["fixed"],
       "--color-scale fixed: weights on 0 to 1 (no weight is 0, 1 is the "
       "top)")
    blues_top = (8, 48, 107)
    ok(blues_top in fills["blues"] and viridis_top not in fills["blues"],
       "--cmap Blues: matplotlib's Blues, its darkest blue at weight 1")
    def cell_numbers(name, decimals):
        """The numbers written in the cells (the bars' ticks are in the
        labels' size)."""
        texts = svg_texts(svgs[name])
        label = [re.search(r'font-size="[\d.]+"', a).group(0)
                 for a, t in texts if t.startswith("Q:")][0]
        return [t for a, t in texts
                if re.fullmatch(r"-?\d+\.\d{%d}" % decimals, t)
                and label not in a]
    cells = cell_numbers("table", 2)
    ok("1.00" in cells and len(cells) == 5 * 15,
       "the weights are written in the cells with 2 decimals "
       "(15 unmasked cells in each of 5 panels)", cells[:8])
    three = cell_numbers("three", 3)
    ok(len(three) == 5 * 15 and "1.000" in three,
       "--precision 3: the cells' numbers have 3 decimals", three[:8])
    ok(cell_numbers("off", 2) == [] and cell_numbers("off", 3) == [],
       "--numbers off: no numbers in the cells")
    images = {k: open(v, encoding="utf-8").read().count("<image")
              for k, v in svgs.items()}
    ok(images["table"] == 1 and images["shared"] == 1 and
       images["panel"] == 5 and images["none"] == 0,
       "--colorbar: one bar for the 5 panels by default and with shared, a "
       "bar beside each with panel, or none", images)
    # the default bar's range is every head's: its five ticks run from the
    # smallest weight of all 5 panels to the largest, and only that one
    # smallest cell is viridis' bottom (a range per panel, --colorbar
    # panel, makes each panel's smallest the bottom)
    def ticks(name):
        texts = svg_texts(svgs[name])
        label = [re.search(r'font-size="[\d.]+"', a).group(0)
                 for a, t in texts if t.startswith("Q:")][0]
        return [float(t) for a, t in texts
                if re.fullmatch(r"\d\.\d\d", t) and label in a]
    lowest = min(float(t) for t in cell_numbers("table", 2))
    shared = ticks("table")
    ok(len(shared) == 5 and min(shared) == lowest and max(shared) == 1.0,
       "by default one bar from the smallest weight of every head, %.2f, "
       "to 1.00" % lowest, shared)
    ok(fills["table"].count(viridis_bottom) == 1,
       "by default one cell, the smallest of all heads, is viridis' "
       "bottom colour", fills["table"].count(viridis_bottom))
    own = ticks("panel")
    ok(len(own) == 25 and own.count(1.0) == 5 and
       fills["panel"].count(viridis_bottom) == 5,
       "--colorbar panel: each panel's own bar to 1.00, its smallest "
       "weight at viridis' bottom", own)
    texts = svg_texts(svgs["table"])
    labels = [a for a, t in texts if t.startswith("K:")]
    ok(labels and not any("rotate" in a for a in labels),
       "column labels that fit go across the page, not turned", labels[:2])


def check_svg_text(d):
    """An SVG keeps its text as <text>: searchable, editable, small."""
    svg = os.path.join(d, "eight.svg")
    plot(["O gato sobe no tapete", "--heads", "8", "--d-out", "16"], svg)
    with open(svg, encoding="utf-8") as f:
        body = f.read()
    texts = [t for a, t in svg_texts(svg)]
    ok("Q:gato" in texts and "[fused] head 7" in texts and
       "<symbol" not in body and 'id="glyph' not in body,
       "the SVG's labels and titles are <text>, no glyph outlines")
    ok(len(body.encode("utf-8")) < 300000,
       "8 heads: an SVG of %d bytes (586 KB with glyph outlines and a "
       "clip and hatching per masked cell before)" %
       len(body.encode("utf-8")))
    # Chinese never sideways; the face of the language
    long_words = ["我們 今天 學習 注意力 機制 的 計算 方法 與 應用 場景 介紹",
                  "--heads", "2", "--variant", "fused"]
    for lang, face in (("zh_TW", "Noto Sans CJK TC"),
                       ("zh_CN", "Noto Sans CJK SC")):
        zh = os.path.join(d, "zh-%s.svg" % lang)
        plot(long_words + ["--lang", lang], zh)
        texts = svg_texts(zh)
        turned = [t for a, t in texts if "rotate" in a and
                  re.search(r"[\u4e00-\u9fff]", t)]
        ok(not turned and any(t == "們" for a, t in texts),
           "%s: the Chinese column labels go down a character at a time, "
           "upright, never turned" % lang, turned[:3])
        ok(all(face in a for a, t in texts),
           "%s: the text asks for %s" % (lang, face), texts[0][0])
        # an emoji key among Chinese keys: upright in the stack as they are
        cat = os.path.join(d, "cat-%s.svg" % lang)
        plot(["我 的 猫 🐱 坐 在 垫子 上 。", "--variant", "fused",
              "--heads", "4", "--d-out", "8", "--lang", lang], cat)
        texts = svg_texts(cat)
        turned = [t for a, t in texts if "rotate" in a and "🐱" in t]
        ok(not turned and sum(t == "🐱" for a, t in texts) >= 4,
           "%s: an emoji key label goes down upright with the Chinese ones"
           % lang, turned[:3])
        pdf = os.path.join(d, "zh-%s.pdf" % lang)
        plot(long_words + ["--lang", lang], pdf)
        fonts = subprocess.run([tool("pdffonts"), pdf],
                               capture_output=True).stdout.decode()
        want = "NotoSansCJK" + face[-2:].lower()
        ok(want in fonts and "CJKjp" not in fonts,
           "%s: the PDF's Chinese is in %s" % (lang, face), fonts)


def leftovers(directory, expected):
    return sorted(set(os.listdir(directory)) - set(expected))


def main():
    with tempfile.TemporaryDirectory() as d:
        probe = mha.run(CLASSROOM + ["--plot", os.path.join(d, "p.png")])
        if probe.returncode != 0 and b"no plotting" in probe.stderr:
            # TAP's skip (meson's TAP protocol reads 77 as an error)
            print("1..0 # SKIP this build has no plotting (cairo and pango)")
            return 0

        # PNG: the tables on stdout are the same as without --plot.
        png = os.path.join(d, "classroom.png")
        r = plot(CLASSROOM, png)
        plain = mha.run(CLASSROOM)
        ok(r.stdout == plain.stdout, "--plot leaves the text output as it is")
        with open(png, "rb") as f:
            ok(f.read(8) == b"\x89PNG\r\n\x1a\n", "the .png is a PNG")
        mask = os.umask(0)
        os.umask(mask)
        ok(os.stat(png).st_mode & 0o777 == 0o666 & ~mask,
           "the picture has the usual permissions (umask), not mkstemp's",
           oct(os.stat(png).st_mode))

        # SVG: well-formed, renders, identical across runs.
        svg1, svg2 = os.path.join(d, "a.svg"), os.path.join(d, "b.svg")
        plot(CLASSROOM, svg1)
        plot(CLASSROOM, svg2)
        x = subprocess.run([tool("xmllint"), "--noout", svg1],
                           capture_output=True)
        ok(x.returncode == 0, "xmllint accepts the SVG", x.stderr)
        out = os.path.join(d, "svg.png")
        x = subprocess.run([tool("rsvg-convert"), "-o", out, svg1],
                           capture_output=True)
        ok(x.returncode == 0 and os.path.getsize(out) > 1000,
           "rsvg-convert renders the SVG", x.stderr)
        with open(svg1, "rb") as f1, open(svg2, "rb") as f2:
            ok(f1.read() == f2.read(), "two runs write the same SVG bytes")

        # PDF: the labels are text, CJK included; identical across runs,
        # with and without SOURCE_DATE_EPOCH.
        for words, args in (("O gato sobe no tapete".split(), CLASSROOM),
                            ("我 爱 吃 苹果".split(), CHINESE)):
            pdf = os.path.join(d, "labels.pdf")
            plot(args, pdf)
            text = subprocess.run([tool("pdftotext"), pdf, "-"],
                                  capture_output=True).stdout.decode("utf-8")
            missing = [p + w for w in words for p in ("Q:", "K:")
                       if p + w not in text]
            ok(not missing, "the PDF's text holds every label of %s"
               % " ".join(words), "missing: %r" % missing)
        pdf1, pdf2 = os.path.join(d, "a.pdf"), os.path.join(d, "b.pdf")
        plot(CLASSROOM, pdf1)
        plot(CLASSROOM, pdf2)
        with open(pdf1, "rb") as f1, open(pdf2, "rb") as f2:
            ok(f1.read() == f2.read(), "two runs write the same PDF bytes")
        plot(CLASSROOM, pdf2, env={"SOURCE_DATE_EPOCH": "1700000000"})
        with open(pdf2, "rb") as f:
            body = f.read()
        ok(b"20231114221320" in body,
           "the PDF's creation date is SOURCE_DATE_EPOCH's")
        plot(CLASSROOM, pdf2, env={"SOURCE_DATE_EPOCH": "253402300799"})
        with open(pdf2, "rb") as f:
            body = f.read()
        ok(b"(99991231235959Z)" in body,
           "SOURCE_DATE_EPOCH 253402300799 is 9999-12-31T23:59:59Z")
        # The reproducible-builds specification: a malformed value is an
        # error; a PDF date has a four-digit year.
        for bad in ("9223372036854775807", "253402300800", "", "abc", "-1",
                    " 5", "+5", "1.5", "99999999999999999999999"):
            gone = os.path.join(d, "bad.pdf")
            r = mha.run(CLASSROOM + ["--plot", gone],
                        env={"SOURCE_DATE_EPOCH": bad})
            err = r.stderr.decode("utf-8", "replace")
            ok(r.returncode == 2 and err.count("\n") == 1
               and "SOURCE_DATE_EPOCH" in err and "253402300799" in err
               and not r.stdout and not os.path.exists(gone),
               "SOURCE_DATE_EPOCH=%r: status 2, one line, nothing written"
               % bad, "%d %r" % (r.returncode, err))
        r = mha.run(CLASSROOM + ["--plot", os.path.join(d, "e.png")],
                    env={"SOURCE_DATE_EPOCH": "abc"})
        ok(r.returncode == 0, "SOURCE_DATE_EPOCH is not read for a PNG",
           r.stderr)

        # --input: a page per sentence in a PDF, a file per sentence else.
        sub = os.path.join(d, "input")
        os.mkdir(sub)
        csv = os.path.join(d, "sentences.csv")
        with open(csv, "w", encoding="utf-8") as f:
            f.write("text\nO gato sobe\n我 爱 你\nthe cat sat down\n")
        many = ["--input", csv, "--column", "text", "--heads", "2"]
        pdf = os.path.join(sub, "all.pdf")
        plot(many, pdf)
        info = subprocess.run([tool("pdfinfo"), pdf],
                              capture_output=True).stdout.decode()
        ok(re.search(r"^Pages: +3$", info, re.M) is not None,
           "one PDF page per sentence", info)
        for ext in ("png", "svg"):
            plot(many, os.path.join(sub, "all." + ext),
                 made=[os.path.join(sub, "all.sentence%d.%s" % (i, ext))
                       for i in range(3)])
        expected = ["all.pdf"] + ["all.sentence%d.%s" % (i, e)
                                  for i in range(3) for e in ("png", "svg")]
        ok(sorted(os.listdir(sub)) == sorted(expected),
           "a PNG and an SVG per sentence, numbered before the extension",
           sorted(os.listdir(sub)))
        # a name starting with a dot: the extension is after its last dot,
        # never its first character (as --html names its pages)
        dotted = os.path.join(d, "dotted")
        os.mkdir(dotted)
        plot(many, os.path.join(dotted, ".all.png"),
             made=[os.path.join(dotted, ".all.sentence%d.png" % i)
                   for i in range(3)])
        mha.check_error([CLASSROOM[0], "--plot",
                         os.path.join(dotted, ".png")],
                        "is an extension without a name: name the picture, "
                        "as in 'heads.png'", hint=True)
        ok(sorted(os.listdir(dotted)) == [".all.sentence%d.png" % i
                                          for i in range(3)],
           "--plot .all.png: .all.sentence<i>.png; --plot .png: nothing",
           sorted(os.listdir(dotted)))

        # --plot-size: pixels for PNG, points for SVG and PDF.
        sized = os.path.join(d, "slide.png")
        plot(CLASSROOM + ["--plot-size", "1920x1080"], sized)
        ok(png_size(sized) == (1920, 1080), "--plot-size 1920x1080: a PNG "
           "of 1920 x 1080 pixels", png_size(sized))
        sized = os.path.join(d, "a4.pdf")
        plot(CLASSROOM + ["--plot-size", "595x842"], sized)
        ok(pdf_page_size(sized) == (595, 842), "--plot-size 595x842: an A4 "
           "PDF page in points", pdf_page_size(sized))
        sized = os.path.join(d, "small.svg")
        plot(CLASSROOM + ["--plot-size", "400X300"], sized)
        with open(sized, encoding="utf-8") as f:
            head = f.read(400)
        ok('width="400pt" height="300pt"' in head, "--plot-size 400X300: an "
           "SVG of 400 x 300 points", head)
        # A slide: each variant's grid whole (never two variants' heads
        # mixed in a grid), beside the last when the row holds it, so that
        # the panels use the page rather than leave wide blank margins.
        for size in ("1600x900", "1280x720"):
            wide = os.path.join(d, "slide-%s.pdf" % size)
            plot(CLASSROOM + ["--plot-size", size], wide)
            boxes = subprocess.run([tool("pdftotext"), "-bbox", wide, "-"],
                                   capture_output=True).stdout.decode("utf-8")
            top, left = {}, {}
            for m in re.finditer(r'xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>'
                                 r'\[(\w+)\]<', boxes):
                top.setdefault(m.group(3), []).append(float(m.group(2)))
                left.setdefault(m.group(3), []).append(float(m.group(1)))
            ok(set(top) == {"single", "wrapper", "fused"} and
               len(set(top["wrapper"])) == 1 and
               len(set(top["fused"])) == 1 and
               top["single"] == top["wrapper"][:1] and
               max(left["single"]) < min(left["wrapper"]) and
               top["wrapper"][0] < top["fused"][0],
               "--plot-size %s: single beside wrapper's two heads, fused's "
               "two below, each variant's grid whole" % size, (top, left))
            xs = [float(v) for v in re.findall(r'x(?:Min|Max)="([\d.]+)"',
                                               boxes)]
            ys = [float(v) for v in re.findall(r'y(?:Min|Max)="([\d.]+)"',
                                               boxes)]
            w, h = (float(v) for v in size.split("x"))
            ok(xs and ys and min(xs) >= 0 and max(xs) <= w and
               min(ys) >= 0 and max(ys) <= h and
               max(xs) - min(xs) > 0.85 * w and max(ys) - min(ys) > 0.85 * h,
               "--plot-size %s: the text spans %.0f x %.0f of %.0f x %.0f "
               "points, every label on the page" %
               (size, max(xs) - min(xs) if xs else 0,
                max(ys) - min(ys) if ys else 0, w, h))
        # One variant on a slide or a page: its cells taller or wider than
        # square, so that the drawing fills the page (no blank bands).
        for variant, size in (("fused", "1920x1080"), ("single", "1280x720"),
                              ("fused", "595x842")):
            one = os.path.join(d, "one-%s-%s.pdf" % (variant, size))
            plot(CLASSROOM + ["--variant", variant, "--plot-size", size], one)
            boxes = subprocess.run([tool("pdftotext"), "-bbox", one, "-"],
                                   capture_output=True).stdout.decode("utf-8")
            xs = [float(v) for v in re.findall(r'x(?:Min|Max)="([\d.]+)"',
                                               boxes)]
            ys = [float(v) for v in re.findall(r'y(?:Min|Max)="([\d.]+)"',
                                               boxes)]
            w, h = (float(v) for v in size.split("x"))
            ok(xs and ys and min(xs) >= 0 and max(xs) <= w and
               min(ys) >= 0 and max(ys) <= h and
               max(xs) - min(xs) > 0.85 * w and max(ys) - min(ys) > 0.85 * h,
               "--variant %s --plot-size %s: the text spans %.0f x %.0f of "
               "%.0f x %.0f points, no blank band" %
               (variant, size, max(xs) - min(xs) if xs else 0,
                max(ys) - min(ys) if ys else 0, w, h))
        eight = os.path.join(d, "eight.pdf")
        plot(["O gato sobe no tapete", "--heads", "8", "--d-out", "16"],
             eight)
        boxes = subprocess.run([tool("pdftotext"), "-bbox", eight, "-"],
                               capture_output=True).stdout.decode("utf-8")
        rows = {}
        for m in re.finditer(r'yMin="([\d.]+)"[^>]*>\[(\w+)\]<', boxes):
            rows.setdefault(m.group(2), set()).add(round(float(m.group(1))))
        ok(len(rows.get("wrapper", ())) == 2 and len(rows.get("fused", ()))
           == 2 and not rows["wrapper"] & rows["fused"] and
           len(rows.get("single", ())) == 1,
           "8 heads: the wrapper's and the fused module's 2 x 4 grids, each "
           "on rows of its own", rows)
        for bad, said in (("1920", "is not WIDTHxHEIGHT"),
                          ("1920x", "is not WIDTHxHEIGHT"),
                          ("x1080", "is not WIDTHxHEIGHT"),
                          ("-5x100", "is not WIDTHxHEIGHT"),
                          ("1e3x100", "is not WIDTHxHEIGHT"),
                          ("1920x1080x2", "is not WIDTHxHEIGHT"),
                          ("31x100", "out of range (each side 32 to 8192)"),
                          ("100x8193", "out of range"),
                          ("99999999999x100", "out of range")):
            mha.check_error(CLASSROOM + ["--plot", sized, "--plot-size", bad],
                            said, hint=True)
        mha.check_error(CLASSROOM + ["--plot-size", "800x600"],
                        "--plot-size: goes with --plot", hint=True)

        # --tables: other tables, each name with its colour bar.
        tables = os.path.join(d, "tables.pdf")
        plot(CLASSROOM + ["--variant", "fused", "--colorbar", "shared",
                          "--tables",
                          "queries,attn_scores,attn_weights,out_proj.weight,"
                          "vocab"], tables)
        text = pdf_text(tables)
        want = ["[fused] head 0: queries", "[fused] head 1: attn_scores",
                "[fused] head 1: attn_weights", "[fused] out_proj.weight",
                "attention score", "attention weight", "(-inf)",
                "(weight 0)"]
        ok(all(w in text for w in want) and "vocab" not in text,
           "--tables: a panel per table (not the ids of vocab), a colour "
           "bar per name, the masked legends",
           [w for w in want if w not in text])
        mha.check_error(CLASSROOM + ["--tables", "vocab,tokens", "--plot",
                                     tables], "token ids", hint=True)
        default = os.path.join(d, "average.pdf")
        plot(CLASSROOM + ["--variant", "wrapper", "--average"], default)
        text = pdf_text(default)
        ok("[wrapper] head 1" in text and "[wrapper] mean of the heads" in
           text, "--average adds the heads' mean to the default picture",
           text[:300])

        # Very large: summarised, of bounded size.
        words = " ".join("w%d" % i for i in range(700))
        large = os.path.join(d, "large.pdf")
        plot([words, "--variant", "fused", "--tables", "attn_weights"], large)
        size = pdf_page_size(large)
        text = pdf_text(large)
        ok("Summarised: each cell of attn_weights is the mean of a block of "
           "2 x 2 values." in text and size and max(size) < 1600,
           "700 tokens: blocks of 2 x 2 on a page of %s points" % (size,),
           text[:300])
        many = os.path.join(d, "many.png")
        plot(["O gato", "--variant", "fused", "--heads", "64", "--d-out",
              "64"], many)
        w, h = png_size(many)
        ok(w * h < 36e6, "64 heads: a PNG of %d x %d pixels" % (w, h))
        many = os.path.join(d, "many.pdf")
        plot(["O gato", "--variant", "fused", "--heads", "64", "--d-out",
              "64"], many)
        text = pdf_text(many)
        ok("Summarised: 48 of 64 tables drawn" in text and "head 47" in text
           and "head 48" not in text, "64 heads: 48 panels, and it says so",
           text[:300])

        # Titles and legends in the language of --lang.
        lang = os.path.join(d, "pt.pdf")
        plot(CLASSROOM + ["--lang", "pt_BR", "--variant", "fused",
                          "--color-scale", "fixed"], lang)
        text = pdf_text(lang)
        ok("[fused] cabeça 1" in text and "peso de atenção" in text,
           "--lang pt_BR: the picture's titles and bar in Portuguese",
           text[:300])

        check_style(d)
        check_svg_text(d)
        check_model_view(d)
        check_model_view_nan(d)
        check_wide(d)

        # Mistakes.
        mha.check_error(CLASSROOM + ["--plot", os.path.join(d, "x.jpg")],
                        ".png, .svg or .pdf", hint=True)
        mha.check_error(CLASSROOM + ["--plot", os.path.join(d, "noext")],
                        ".png, .svg or .pdf", hint=True)
        gone = os.path.join(d, "missing-dir", "x.svg")
        mha.check_error(CLASSROOM + ["--format", "csv", "--plot", gone],
                        "cannot write", status=2, hint=False)
        before = sorted(os.listdir(d))
        # fails after the picture was started: no such table in this run
        mha.check_error(CLASSROOM + ["--tables", "attn_weights_avg", "--plot",
                                     os.path.join(d, "bad.pdf")],
                        "attn_weights_avg", hint=True)
        ok(sorted(os.listdir(d)) == before,
           "a failed run leaves no picture and no temporary file",
           leftovers(d, before))
    return done()


if __name__ == "__main__":
    sys.exit(main())
