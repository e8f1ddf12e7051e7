#!/usr/bin/env python3
"""html_page_size_test: a checkpoint's --html page is kept only when it
fits the largest page a browser opens well (MAX_PAGE_MB, 100 MB;
src/html/html.c checks the page as it is written, since a checkpoint
run's values count tables its page does not carry).

- a short text's page is written (status 0, the page's generator mark);
- a text whose page is larger is refused with one line naming its size
  and how to make it smaller (status 2, nothing on standard output), the
  page written before left byte for byte and no other file left beside
  it;
- the same text with --layers 0 (one layer of four shown) is written and
  is under the bound.

Over a GPT-2 checkpoint of random weights (tests/tools/gpt2_checkpoint.py:
4 layers of 12 heads, 48 wide, 1024 positions) with the vocabulary of the
reference checkpoint two_layers: 420 tokens make a page of about 137 MB.

Usage: html_page_size_test.py MHA_EXPLAIN GPT2_DIR
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from gpt2_checkpoint import write  # noqa: E402
from taplib import Program, done, ok  # noqa: E402

MHA = Program(sys.argv[1])
TWO_LAYERS = os.path.join(sys.argv[2], "two_layers")
MARK = b'<meta name="generator" content="mha-explain '
MOST = 100 * 1000 * 1000


def text(n):
    return " ".join(["the cat sat on the mat"] * n)


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model")
    write(model, TWO_LAYERS, shape=(4, 12, 48), positions=1024)
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    page = os.path.join(out, "page.html")

    # the short text first: a run under MHA_EXPLAIN_PREFIX stays short
    r = MHA.run(["--model", model, text(20), "--html", page])
    with open(page, "rb") as f:
        before = f.read()
    ok(r.returncode == 0 and MARK in before[:1024] and len(before) < MOST,
       "a short text's page is written (%d bytes)" % len(before),
       r.stderr[:300])

    MHA.check_error(["--model", model, text(70), "--html", page],
                    "--html: the page is about 137 MB, more than the 100 MB",
                    "a page of about 137 MB is refused, saying its size",
                    hint=False)
    with open(page, "rb") as f:
        after = f.read()
    ok(after == before and os.listdir(out) == ["page.html"],
       "the refused run leaves the earlier page byte for byte, and no "
       "other file", os.listdir(out))

    small = os.path.join(out, "layer0.html")
    r = MHA.run(["--model", model, text(70), "--layers", "0",
                 "--html", small])
    size = os.path.getsize(small) if os.path.exists(small) else -1
    ok(r.returncode == 0 and 0 < size < MOST,
       "with --layers 0 the page is written (%d bytes)" % size,
       r.stderr[:300])

sys.exit(done())
