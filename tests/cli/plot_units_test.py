#!/usr/bin/env python3
"""plot_units_test: --plot of a table whose columns hold numbers of
different kinds (TAP).

ablation_effect (probabilities and the change of a logit),
ablation_loss (losses and their change) and generated (token ids,
probabilities and counts of tokens kept) are drawn as a panel per
unit, each with its own colour bar and caption (the catalogue's column
groups): a change on a scale centred on 0, a probability or a loss on
its own range of one sign, no bar mixing units, and no token ids
drawn. In zh_CN, a colour bar's vertical caption keeps its opening
bracket "︵" with the text it opens, at the head of a column, never at
the foot of the one before. Read back from the SVG's text.

Usage: plot_units_test.py MHA_EXPLAIN GPT2_DIR
A build without plotting skips (TAP plan 1..0 # SKIP)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

mha = Program(sys.argv[1])
GPT2 = os.path.join(sys.argv[2], "two_layers")
TEXT = "the cat sat on the mat"


def bars(texts, caption):
    """The 5 ticks of each bar with this caption (they precede it, drawn
    after the panels), as numbers, in the order drawn."""
    found = []
    for at in range(5, len(texts or [])):
        try:
            if texts[at] == caption:
                found.append([float(t) for t in texts[at - 5:at]])
        except ValueError:
            pass  # the caption's words as a column's label
    return found


def ticks(texts, caption):
    """The ticks of the one bar with this caption, or None."""
    found = bars(texts, caption)
    return found[0] if len(found) == 1 else None


def centred(v):
    """Ticks centred on 0: the ends opposite numbers, 0 in the middle."""
    return v is not None and v[0] == -v[-1] != 0 and v[2] == 0


def one_sign(v, most):
    """Ticks of a quantity on its own range: rising, all above 0 and at
    most `most`."""
    return (v is not None and v == sorted(v) and v[0] >= 0 and
            v[-1] <= most and v[0] != -v[-1])


def ablation(d):
    t = plotlib.svg_of(mha, ["--model", GPT2, TEXT, "--ablate", "0.1",
                             "--tables", "ablation_effect,ablation_loss"],
                       os.path.join(d, "ablation.svg"))
    p = ticks(t, "probability")
    ok(one_sign(p, 1.0) and p[-1] < 0.5,
       "ablation_effect: its probabilities on their own bar, from the "
       "least to the most (not the logit change's ±1.46)", p)
    loss = ticks(t, "loss (nats)")
    ok(one_sign(loss, 100.0) and loss[0] > 1.0,
       "ablation_loss: its losses on their own bar, not centred on 0 "
       "(a loss of 6 is not an increase)", loss)
    change = bars(t, "change (ablated - clean)")
    ok(len(change) == 2 and all(centred(v) for v in change) and
       change[0] != change[1],
       "ablation_effect's logit change and ablation_loss's change: each "
       "on its own bar centred on 0", change)
    ok(t is not None and t.count("[gpt2] ablation_effect") == 2 and
       t.count("[gpt2] ablation_loss") == 2 and "ablation_effect" not in t,
       "a panel per unit of each table, the bars captioned by unit", t)


def generated(d):
    t = plotlib.svg_of(mha, ["--model", GPT2, "the cat", "--generate", "5",
                             "--tables", "generated"],
                       os.path.join(d, "generated.svg"))
    p = ticks(t, "probability")
    ok(one_sign(p, 1.0), "generated: its probabilities on their own bar "
       "(not the token ids' 0 to 285)", p)
    kept = ticks(t, "number of tokens")
    ok(kept is not None and kept[-1] >= 100,
       "generated: the counts of tokens kept on their own bar", kept)
    ids = [c for c in ("id", "top1", "top2", "top3", "top4", "top5")
           if t is None or c in t]
    ok(t is not None and not ids and "p1" in t and "top_k_kept" in t,
       "generated: no token id drawn as a quantity", ids)


def vertical(d):
    path = os.path.join(d, "zh.svg")
    drawn = plotlib.draw(mha, ["--model", GPT2, TEXT, "--ablate",
                               "all-heads", "--lang", "zh_CN"], path)
    items = plotlib.svg_items(path) if drawn else []
    at = {text: (x, y) for text, x, y in items}
    ok("\ufe35" in at and "\ufe36" in at and "化" in at and
       "（" not in at and "）" not in at,
       "zh_CN: the caption's brackets in their vertical forms", sorted(at))
    if "\ufe35" in at and "化" in at:
        opening, before = at["\ufe35"], at["化"]
        same_column = [y for text, x, y in items
                       if abs(x - opening[0]) < 0.5 and text != "\ufe35"]
        ok(opening[0] != before[0] and
           all(y > opening[1] for y in same_column),
           "zh_CN: the opening bracket heads the column of what it opens, "
           "not the foot of the one before", (opening, before))
    else:
        ok(False, "zh_CN: the opening bracket heads its column", items)


def main():
    with tempfile.TemporaryDirectory() as d:
        if plotlib.cannot_plot(mha, d):
            print("1..0 # SKIP this build draws no pictures")
            return 0
        ablation(d)
        generated(d)
        vertical(d)
    return done()


if __name__ == "__main__":
    sys.exit(main())
