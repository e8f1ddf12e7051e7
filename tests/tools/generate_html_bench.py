#!/usr/bin/env python3
"""--generate N --html on a checkpoint of GPT-2 small's layers and heads:
the time of each N, and whether two builds write the same page.

    python3 tests/tools/generate_html_bench.py MHA_EXPLAIN [OTHER] [N ...]

Writes (once, into /tmp/mha-generate-bench) a random GPT-2 checkpoint of
12 layers of 12 heads, narrow (48 wide, 4 per head) so that the time
goes to the page's 12 x 12 heads at every step rather than to the
arithmetic, with 1024 positions and the vocabulary and merges of
tests/reference/gpt2/two_layers. Then, for each N (by default 50, 150
and 300), runs

  MHA_EXPLAIN --model DIR "the cat sat on the mat" --generate N --html P

and prints its wall time. With OTHER (another build of the program, or
"-" for none), runs it the same way and says whether the two pages are
the same bytes. No PyTorch is needed: gpt2_checkpoint.py writes the
weights, Python's random.gauss draws, as F32 safetensors.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt2_checkpoint  # noqa: E402 (beside this file)

VOCAB = os.path.join(HERE, "..", "reference", "gpt2", "two_layers")
FOLDER = "/tmp/mha-generate-bench"
L, H, D, N_POS, V = 12, 12, 48, 1024, 285
PROMPT = "the cat sat on the mat"


def write_checkpoint(folder):
    gpt2_checkpoint.write(folder, VOCAB, (L, H, D), N_POS, vocab_size=V,
                          spread=gpt2_checkpoint.NARROW)


def run(program, n, page):
    start = time.monotonic()
    subprocess.run([program, "--model", FOLDER, PROMPT, "--generate", str(n),
                    "--html", page], check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    program = sys.argv[1]
    other = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
    counts = [int(a) for a in sys.argv[3:]] or [50, 150, 300]
    if not os.path.exists(os.path.join(FOLDER, "model.safetensors")):
        write_checkpoint(FOLDER)
    for n in counts:
        mine = "/tmp/mha-generate-bench-%d.html" % n
        line = "N=%d: %.2f s" % (n, run(program, n, mine))
        if other is not None:
            theirs = "/tmp/mha-generate-bench-%d-other.html" % n
            line += ", other build %.2f s" % run(other, n, theirs)
            with open(mine, "rb") as a, open(theirs, "rb") as b:
                same = a.read() == b.read()
            line += ", pages %s" % ("the same bytes" if same else "DIFFER")
        print(line, flush=True)


if __name__ == "__main__":
    main()
