"""plotlib: what the tests of --plot's intervention pictures share
(plot_maps_test.py, plot_marks_test.py): drawing a picture, reading the
texts back from its SVG, and the checkpoints they draw.

    from plotlib import cannot_plot, draw, svg_items, svg_texts
    if cannot_plot(mha, d):
        print("1..0 # SKIP this build draws no pictures")
    if draw(mha, ["--model", DIR, "the cat"], "/tmp/x.svg"):
        texts = svg_texts("/tmp/x.svg")
"""
import json
import os
import re

# a <text> element of the SVG the program writes: its attributes, then
# what it says (escaped as XML)
TEXT = re.compile(r"<text ([^>]*)>([^<]*)</text>")


def cannot_plot(mha, d):
    """Whether this build was made without the picture libraries (a --plot
    run says so and fails)."""
    probe = mha.run(["the cat sat on the mat", "--plot",
                     os.path.join(d, "probe.png")])
    return probe.returncode != 0 and b"without" in probe.stderr


def draw(mha, args, path):
    """Runs mha-explain ARGS --plot PATH; whether it succeeded (its stderr
    printed as a TAP comment when it did not)."""
    r = mha.run(args + ["--plot", path])
    if r.returncode != 0:
        print("# " + r.stderr.decode("utf-8", "replace"))
    return r.returncode == 0


def svg_items(path):
    """The SVG's texts as (text, x, y), in the order drawn."""
    with open(path, encoding="utf-8") as f:
        body = f.read()
    items = []
    for attrs, text in TEXT.findall(body):
        x = re.search(r'\bx="([-\d.]+)"', attrs)
        y = re.search(r'\by="([-\d.]+)"', attrs)
        items.append((text, float(x.group(1)) if x else 0.0,
                      float(y.group(1)) if y else 0.0))
    return items


def svg_texts(path):
    """The SVG's texts, one string each, in the order drawn."""
    return [t for t, _, _ in svg_items(path)]


def svg_of(mha, args, path):
    """The texts of the SVG that ARGS --plot PATH draws, or None."""
    return svg_texts(path) if draw(mha, args, path) else None


def sixteen_heads(gpt2, d):
    """A folder in d holding the GPT-2 checkpoint gpt2 (2 layers, 16
    wide) cut in 16 heads of one dimension each: its files linked, its
    config.json with n_head 16. head_scores is then 32 x 3."""
    gpt2 = os.path.abspath(gpt2)  # the links work from d
    many = os.path.join(d, "sixteen_heads")
    os.mkdir(many)
    for name in os.listdir(gpt2):
        if name != "config.json":
            os.symlink(os.path.join(gpt2, name), os.path.join(many, name))
    with open(os.path.join(gpt2, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["n_head"] = 16
    with open(os.path.join(many, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f)
    return many
