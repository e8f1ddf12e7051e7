#!/usr/bin/env python3
"""--head-scores on BERT checkpoints, on the command line.

    bert_head_scores_test.py MHA_EXPLAIN REFERENCE_DIR

(REFERENCE_DIR is tests/reference: its bert/ holds the small BERT
checkpoints, interventions/bert_scores.safetensors PyTorch's scores,
make_bert_scores_reference.py.)

What the command line writes of them: the CSV's values equal to
PyTorch's bit for bit, over a text ([CLS] ... [SEP]) and over
--repeat-random's words; the text's heading and rows; --csv-dir's file;
--plot's model view with the scores (a text; no legend of masked cells,
as nothing is masked) and its map (--repeat-random); the --html page's
data; --explain's note on attention that
looks both ways. And the interventions that need next-token predictions
refused (status 2, one line and the --help hint, nothing on standard
output, in the reader's language), as are a --repeat-random that does
not fit with [CLS] and [SEP] and a second text (--pair), which the
scores would not read.
"""
import csv
import io
import json
import os
import struct
import sys
import tempfile

from taplib import Program, done, ok

mha = Program(sys.argv[1])
REF = sys.argv[2]
MLM = os.path.join(REF, "bert", "mlm")    # 2 layers of 2 heads
BASE = os.path.join(REF, "bert", "base")  # 1 layer of 4 heads, 24 positions
TEXT = "the cat sat on the cat sat on the mat ."


def reference():
    """name -> (rows, cols, floats) of bert_scores.safetensors (F32)."""
    path = os.path.join(REF, "interventions", "bert_scores.safetensors")
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        lo, hi = t["data_offsets"]
        body = data[8 + n + lo:8 + n + hi]
        out[name] = (t["shape"][0], t["shape"][1],
                     struct.unpack("<%df" % (len(body) // 4), body))
    return out


REFERENCE = reference()


def run(args, env=None):
    r = mha.run(args, env=env)
    r.stdout = r.stdout.decode("utf-8")
    r.stderr = r.stderr.decode("utf-8")
    return r


def f32(text):
    """The float32 a CSV value reads back as."""
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


def scores_csv(args):
    r = run(args + ["--format", "csv", "--tables", "head_scores"])
    rows = [row for row in csv.DictReader(io.StringIO(r.stdout))
            if row["table"] == "head_scores"]
    return r, rows


def same_as_reference(rows, key):
    """Whether the CSV rows hold the reference's scores bit for bit."""
    n, cols, want = REFERENCE[key + ".scores"]
    got = [f32(row["value"]) for row in rows]
    want32 = [struct.unpack("<f", struct.pack("<f", v))[0] for v in want]
    return len(rows) == n * cols and got == want32


# ---- the scores, equal to PyTorch's -------------------------------------
r, rows = scores_csv(["--model", MLM, TEXT, "--head-scores"])
ok(r.returncode == 0 and same_as_reference(rows, "mlm.text"),
   "a text: the CSV's head_scores are PyTorch's bit for bit",
   r.stderr + str(rows[:3]))
ok([row["row_label"] for row in rows[::3]] ==
   ["layer.0.0", "layer.0.1", "layer.1.0", "layer.1.1"] and
   [row["col_label"] for row in rows[:3]] ==
   ["previous_token", "duplicate_token", "induction"] and
   rows[0]["variant"] == "bert",
   "a row per head (layer.L.H), the three scores as columns",
   [row["row_label"] for row in rows])
for ckpt, n, seed, key in ((MLM, 6, 3, "mlm.random_6_3"),
                           (BASE, 11, 5, "base.random_11_5")):
    r, rows = scores_csv(["--model", ckpt, "--head-scores",
                          "--repeat-random", str(n), "--seed", str(seed)])
    ok(r.returncode == 0 and same_as_reference(rows, key),
       "--repeat-random %d --seed %d (%s): PyTorch's scores bit for bit"
       % (n, seed, os.path.basename(ckpt)), r.stderr + str(rows[:3]))

r = run(["--model", MLM, TEXT, "--head-scores", "--tables", "head_scores"])
lines = r.stdout.splitlines()
ok(r.returncode == 0 and lines[0] == "[bert] head_scores (4 x 3)" and
   lines[1].split() == ["previous_token", "duplicate_token", "induction"] and
   [line.split()[0] for line in lines[2:6]] ==
   ["layer.0.0", "layer.0.1", "layer.1.0", "layer.1.1"],
   "the text output: its heading and a row per head", r.stdout + r.stderr)

# ---- the files and pictures ---------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    folder = os.path.join(tmp, "csv")
    r = run(["--model", MLM, "--head-scores", "--repeat-random", "6",
             "--seed", "3", "--csv-dir", folder])
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    rows, table = [], [[]]
    if names:  # a row per head, its layer and head then the three scores
        with open(os.path.join(folder, "bert.head_scores.csv")) as f:
            table = list(csv.reader(f))
        rows = [{"value": v} for line in table[1:] for v in line[2:]]
    ok(r.returncode == 0 and names == ["bert.head_scores.csv"] and
       table[0] == ["layer", "head", "previous_token", "duplicate_token",
                    "induction"] and
       [line[:2] for line in table[1:]] ==
       [["0", "0"], ["0", "1"], ["1", "0"], ["1", "1"]] and
       same_as_reference(rows, "mlm.random_6_3"),
       "--csv-dir with --repeat-random: bert.head_scores.csv alone, "
       "PyTorch's scores", names)
    folder = os.path.join(tmp, "csv_text")
    r = run(["--model", MLM, TEXT, "--head-scores", "--csv-dir", folder])
    names = os.listdir(folder) if os.path.isdir(folder) else []
    ok(r.returncode == 0 and "bert.head_scores.csv" in names and
       "bert.layer1.head1.attn_weights.csv" in names,
       "--csv-dir with a text: the run's tables and head_scores", names)

    def png_size(path):
        with open(path, "rb") as f:
            head = f.read(24)
        if head[:8] != b"\x89PNG\r\n\x1a\n":
            return None
        return struct.unpack(">II", head[16:24])

    view = os.path.join(tmp, "view.png")
    r = run(["--model", MLM, TEXT, "--head-scores", "--plot", view])
    text_plot = r.returncode == 0 and os.path.exists(view)
    plain = os.path.join(tmp, "plain.png")
    r2 = run(["--model", MLM, TEXT, "--plot", plain])
    # the scores' strips and their legend make the model view taller
    ok(text_plot and r2.returncode == 0 and png_size(view) is not None and
       png_size(view)[1] > png_size(plain)[1],
       "--plot with a text: the model view, with each head's scores",
       (r.stderr, png_size(view) if text_plot else None,
        png_size(plain) if r2.returncode == 0 else None))
    # nothing is masked in BERT's weights: no legend of masked cells (a
    # causal model's view keeps it)
    svgs = []
    for ckpt, name in ((MLM, "bert.svg"),
                       (os.path.join(REF, "gpt2", "two_layers"), "gpt2.svg")):
        r = run(["--model", ckpt, "the cat sat", "--head-scores", "--plot",
                 os.path.join(tmp, name)])
        svgs.append(open(os.path.join(tmp, name), encoding="utf-8").read()
                    if r.returncode == 0 else "")
    ok("Model view" in svgs[0] and "masked" not in svgs[0] and
       "masked" in svgs[1],
       "the model view's legend of masked cells: none for BERT, kept for "
       "GPT-2", [("masked" in s, len(s)) for s in svgs])
    drawn = os.path.join(tmp, "map.png")
    r = run(["--model", MLM, "--head-scores", "--repeat-random", "6",
             "--plot", drawn])
    ok(r.returncode == 0 and os.path.exists(drawn) and
       png_size(drawn) is not None,
       "--plot with --repeat-random: the head_scores map", r.stderr)

    page = os.path.join(tmp, "page.html")
    r = run(["--model", MLM, TEXT, "--head-scores", "--html", page])
    html = open(page, encoding="utf-8").read() if os.path.exists(page) \
        else ""
    ok(r.returncode == 0 and '"head_scores"' in html and
       "layer.1.1" in html,
       "--html: the page carries head_scores (its model view and maps)",
       r.stderr)

r = run(["--model", MLM, TEXT, "--head-scores", "--explain",
         "--tables", "head_scores"])
note = " ".join(line.lstrip("# ") for line in r.stdout.splitlines()
                if line.startswith("#"))
ok(r.returncode == 0 and "BERT reads both ways" in note and
   "[CLS] and [SEP]" in note,
   "--explain: what a score means when a head looks both ways", note)

# ---- what BERT cannot run ------------------------------------------------
BOTH_WAYS = ("reads the model's next-token predictions, which BERT does "
             "not make: its attention looks both ways, so each token "
             "already sees the one after it (--head-scores runs on it)")
for args, flag in (
        (["--ablate", "0.1"], "--ablate"),
        (["--ablate", "1.0", "--ablate-mode", "mean"], "--ablate"),
        (["--ablate", "all-heads"], "--ablate"),
        (["--ablate", "all-heads", "--metric", "prob", "--answer", "cat"],
         "--ablate"),
        (["--logit-lens"], "--logit-lens")):
    mha.check_error(["--model", MLM, TEXT] + args, flag + ": " + BOTH_WAYS,
                    "BERT refuses %s: status 2, one line" % " ".join(args),
                    hint=True)
mha.check_error(["--model", MLM, "--patch", "--clean", "the cat sat",
                 "--corrupt", "the mat sat", "--answer", "cat",
                 "--wrong", "mat"], "--patch: " + BOTH_WAYS,
                "BERT refuses --patch: status 2, one line", hint=True)
r = run(["--model", MLM, TEXT, "--ablate", "0.1", "--lang", "pt_BR"])
ok(r.returncode == 2 and r.stdout == "" and
   r.stderr.startswith("mha-explain: --ablate: lê as previsões do próximo "
                       "token do modelo, que BERT não faz"),
   "... in the reader's language", r.stderr)
# the scores read one text: a second one (--pair) would not be scored
mha.check_error(["--model", os.path.join(REF, "bert", "mlm_pair"),
                 "the cat sat .", "--pair", "the dog sat .", "--head-scores"],
                "--head-scores: scores one text, so it does not go with "
                "--pair", "--head-scores with --pair: refused", hint=True)
# 2 * 12 words and [CLS] and [SEP] are 26 tokens; the model has 24
mha.check_error(["--model", BASE, "--head-scores", "--repeat-random", "12"],
                "--repeat-random: 12 tokens twice and the 2 special tokens "
                "around them are more than the model's 24 positions",
                "--repeat-random 12 on 24 positions: refused, naming [CLS] "
                "and [SEP]'s two", hint=False)

sys.exit(done())
