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
the same bytes. No PyTorch is needed: the weights are Python's
random.gauss draws, written as F32 safetensors.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = os.path.join(HERE, "..", "reference", "gpt2", "two_layers")
FOLDER = "/tmp/mha-generate-bench"
L, H, D, N_POS, V = 12, 12, 48, 1024, 285
PROMPT = "the cat sat on the mat"


def tensors():
    """(name, shape, std, base) of every tensor, in GPT-2's order."""
    names = [("wte.weight", (V, D), 0.5, 0.0),
             ("wpe.weight", (N_POS, D), 0.1, 0.0)]
    for i in range(L):
        for s, shape, std, base in [
                ("ln_1.weight", (D,), 0.1, 1.0), ("ln_1.bias", (D,), 0.02, 0.0),
                ("attn.c_attn.weight", (D, 3 * D), 0.2, 0.0),
                ("attn.c_attn.bias", (3 * D,), 0.02, 0.0),
                ("attn.c_proj.weight", (D, D), 0.1, 0.0),
                ("attn.c_proj.bias", (D,), 0.02, 0.0),
                ("ln_2.weight", (D,), 0.1, 1.0), ("ln_2.bias", (D,), 0.02, 0.0),
                ("mlp.c_fc.weight", (D, 4 * D), 0.1, 0.0),
                ("mlp.c_fc.bias", (4 * D,), 0.02, 0.0),
                ("mlp.c_proj.weight", (4 * D, D), 0.1, 0.0),
                ("mlp.c_proj.bias", (D,), 0.02, 0.0)]:
            names.append(("h.%d.%s" % (i, s), shape, std, base))
    names += [("ln_f.weight", (D,), 0.1, 1.0), ("ln_f.bias", (D,), 0.02, 0.0)]
    return names


def write_checkpoint(folder):
    names = tensors()
    header, offset = {}, 0
    for name, shape, _, _ in names:
        size = 4
        for s in shape:
            size *= s
        header[name] = {"dtype": "F32", "shape": list(shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(124)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, shape, std, base in names:
            n = 1
            for s in shape:
                n *= s
            f.write(struct.pack("<%df" % n,
                                *(base + rng.gauss(0.0, std) for _ in range(n))))
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_layer": L, "n_head": H,
                   "n_embd": D, "n_positions": N_POS, "vocab_size": V,
                   "n_inner": None, "activation_function": "gelu_new",
                   "layer_norm_epsilon": 1e-5}, f)
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(os.path.join(VOCAB, name), os.path.join(folder, name))


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
