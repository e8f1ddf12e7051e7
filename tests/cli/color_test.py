#!/usr/bin/env python3
"""--color's heat scale, read back from the escape sequences.

Usage: color_test.py MHA_EXPLAIN

Each shaded cell is parsed into its text and background colours and its
number; the checks are the scale's ends, the masked cells' style, the
contrast of every cell's text, the legend, 24-bit against 256 colours and
--color-scale. Prints TAP. Python 3 standard library only.
"""
import math
import re
import sys

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
S = "O gato sobe no tapete"
CELL = re.compile(r"((?:\x1b\[[0-9;]*m)+)\s*(\S+)\x1b\[0m")
TOP_256, BOTTOM_256 = "48;5;220", "48;5;53"      # viridis 1 and 0
TOP_24, BOTTOM_24 = "48;2;253;231;37", "48;2;68;1;84"
MASKED = ("38;5;244", "38;2;128;128;128")


def run(args, env=None):
    r = MHA.run([S, "--color", "always"] + args, env=env or {})
    return r.returncode, r.stdout.decode("utf-8")


def tables(text):
    """{heading: (rows of cells [(codes, number text)], legend line)}."""
    out = {}
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        rows = [CELL.findall(l) for l in lines[2:] if not l.startswith("scale")]
        legend = [l for l in lines if l.startswith("scale")]
        out[lines[0]] = (rows, legend[0] if legend else None)
    return out


def codes(seq):
    return [c for c in re.findall(r"\x1b\[([0-9;]*)m", seq)]


def rgb_of(code):
    """The colour of a 38/48 code, as (r, g, b)."""
    parts = [int(p) for p in code.split(";")]
    if parts[1] == 2:
        return tuple(parts[2:5])
    n = parts[2]
    if n == 16:
        return (0, 0, 0)
    if n == 231:
        return (255, 255, 255)
    n -= 16
    level = [0, 95, 135, 175, 215, 255]
    return (level[n // 36], level[n // 6 % 6], level[n % 6])


def luminance(c):
    def lin(v):
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def background(cs):
    return next((c for c in cs if c.startswith("48;")), None)


def check_scale(truecolor):
    env = {"COLORTERM": "truecolor"} if truecolor else {"COLORTERM": ""}
    top, bottom = (TOP_24, BOTTOM_24) if truecolor else (TOP_256, BOTTOM_256)
    kind = "24-bit" if truecolor else "256-colour"
    status, text = run(["--variant", "single", "--tables",
                        "attn_scores,attn_weights"], env)
    t = tables(text)
    scores = t["[single] head 0: attn_scores (5 x 5)"]
    weights = t["[single] head 0: attn_weights (5 x 5)"]
    good_masked = good_extremes = good_contrast = good_legend = True
    worst = 99.0
    for (rows, legend), name in ((scores, "scores"), (weights, "weights")):
        values = []
        for i, row in enumerate(rows):
            for j, (seq, number) in enumerate(row):
                cs = codes(seq)
                masked = j > i  # the causal mask
                if masked:
                    good_masked &= background(cs) is None and \
                        any(c in MASKED for c in cs)
                    continue
                good_masked &= background(cs) is not None
                values.append((float(number), background(cs)))
                fg = next(c for c in cs if c.startswith("38;"))
                ratio = contrast(rgb_of(fg), rgb_of(background(cs)))
                worst = min(worst, ratio)
        lo = min(values)
        hi = max(values)
        good_extremes &= lo[1] == bottom and hi[1] == top
        plain = re.sub(r"\x1b\[[0-9;]*m", "", legend or "")
        good_legend &= plain.startswith("scale: %.4f " % lo[0]) and \
            (" %.4f, the table's range; masked: grey" % hi[0]) in plain
    good_contrast = worst >= 4.5
    ok(status == 0, "%s: the run succeeds" % kind)
    ok(good_masked, "%s: masked cells have no scale colour, the others do"
       % kind, text[:600])
    ok(good_extremes, "%s: each table's smallest unmasked value is viridis' "
       "darkest, its largest the yellow" % kind, text[:600])
    ok(good_contrast, "%s: every cell's text contrasts 4.5:1 or more "
       "(worst %.2f)" % (kind, worst))
    ok(good_legend, "%s: a legend line with the table's range under each "
       "table" % kind, [scores[1], weights[1]])
    ok(("\x1b[48;2;" in text) == truecolor and ("\x1b[48;5;" in text) != truecolor,
       "%s: only %s escape codes" % (kind, kind))


def check_modes():
    _, text = run(["--variant", "single", "--tables", "attn_weights",
                   "--color-scale", "row"], {"COLORTERM": ""})
    rows, legend = tables(text)["[single] head 0: attn_weights (5 x 5)"]
    good = True
    for i, row in enumerate(rows[1:], start=1):  # row 0 has one value
        vals = [(float(n), background(codes(s))) for s, n in row[:i + 1]]
        good &= min(vals)[1] == BOTTOM_256 and max(vals)[1] == TOP_256
    ok(good and "in each row" in legend,
       "--color-scale row: every row spans the whole scale", text[:600])

    _, text = run(["--variant", "single", "--tables", "attn_weights",
                   "--color-scale", "fixed"], {"COLORTERM": ""})
    rows, legend = tables(text)["[single] head 0: attn_weights (5 x 5)"]
    plain = re.sub(r"\x1b\[[0-9;]*m", "", legend)
    ok(background(codes(rows[0][0][0])) == TOP_256 and
       plain.startswith("scale: 0.0000 ") and "1.0000, fixed" in plain,
       "--color-scale fixed: weights on 0 to 1", plain)
    # the legend's parts are joined in the language's way: a full-width
    # comma in Chinese, never ", "
    for lang, joined in (("zh_CN", "1.0000，固定"), ("zh_TW", "1.0000，固定"),
                         ("pt_BR", "1.0000, fixa")):
        _, text = run(["--variant", "single", "--tables", "attn_weights",
                       "--color-scale", "fixed", "--lang", lang],
                      {"COLORTERM": ""})
        plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
        line = [l for l in plain.splitlines() if "1.0000" in l][-1]
        ok(joined in line and (lang == "pt_BR" or ", " not in line),
           "--lang %s: the legend's top value and its span joined as the "
           "language joins them" % lang, line)

    r = MHA.run([S, "--variant", "single", "--tables", "attn_weights",
                 "--color", "never"])
    ok(b"\x1b" not in r.stdout and b"scale:" not in r.stdout,
       "--color never: no escape byte and no legend")
    r = MHA.run([S, "--variant", "single", "--tables", "attn_weights"],
                env={"NO_COLOR": "1"})
    ok(b"\x1b" not in r.stdout, "NO_COLOR on a pipe: plain")
    MHA.check_error([S, "--color-scale", "log"], "--color-scale: 'log'")


def check_focus():
    """--focus: each listed weight shaded as its cell in the table."""
    for scale in ("table", "row", "fixed"):
        _, table_text = run(["--variant", "fused", "--tables",
                             "attn_weights", "--color-scale", scale])
        _, focus = run(["--variant", "fused", "--focus", "gato",
                        "--color-scale", scale])
        heads = tables(table_text)
        good, seen = True, 0
        for h in (0, 1):
            rows, _ = heads["[fused] head %d: attn_weights (5 x 5)" % h]
            block = focus.split("[fused] head %d\n" % h)[1].split("\n\n")[0]
            attends = [l for l in block.split("\n") if "attends" in l][0]
            seen_by = [l for l in block.split("\n") if "seen by" in l][0]
            for word, seq, number in re.findall(
                    r"(\S+) ((?:\x1b\[[0-9;]*m)+)([0-9.]+)\x1b\[0m",
                    attends):
                col = S.split().index(word)
                good &= rows[1][col] == (seq, number)
                seen += 1
            for word, seq, number in re.findall(
                    r"(\S+) ((?:\x1b\[[0-9;]*m)+)([0-9.]+)\x1b\[0m",
                    seen_by):
                row = S.split().index(word)
                good &= rows[row][1] == (seq, number)
                seen += 1
        ok(good and seen == 12,
           "--focus --color-scale %s: %d weights shaded as in their tables"
           % (scale, seen), focus[:800])
    r = MHA.run([S, "--focus", "gato", "--color", "never"])
    ok(b"\x1b" not in r.stdout, "--focus --color never: plain")


check_scale(False)
check_scale(True)
check_modes()
check_focus()
sys.exit(done())
