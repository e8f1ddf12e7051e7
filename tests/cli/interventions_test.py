#!/usr/bin/env python3
"""--ablate, --patch, --head-scores and --logit-lens on the command line.

    interventions_test.py MHA_EXPLAIN GPT2_DIR

(GPT2_DIR is tests/reference/gpt2; its sibling llama/ holds the
Llama-style checkpoints and bert/ a BERT one.)

The numbers are checked against PyTorch by tests/unit/test_interventions.c;
here: the tables a run makes (and --tables accepts), the CSV's labels,
the --explain notes' lines filled (in every language), and bad input:
status 2, one line on standard error (a usage error adds
the --help hint), nothing on standard output.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata

from taplib import Program, done, ok

mha = Program(sys.argv[1])


def run(args):
    """The program's run with its output as text."""
    r = mha.run(args)
    r.stdout = r.stdout.decode("utf-8")
    r.stderr = r.stderr.decode("utf-8")
    return r


model = os.path.join(sys.argv[2], "two_layers")
text = "the cat sat on the mat"


def tables_of(args):
    r = run(["--model", model, "--format", "csv"] + args)
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    return r, rows, {row["table"] for row in rows}


r, rows, made = tables_of([text, "--ablate", "0.1"])
ok(r.returncode == 0 and {"ablation_effect", "ablation_loss"} <= made and
   "ablation_map" not in made, "--ablate 0.1: the ablated run and its tables",
   r.stderr)
loss = [row for row in rows if row["table"] == "ablation_loss"]
ok(len(loss) == 6 * 3 and loss[-1]["row_label"] == "mean" and
   [row["col_label"] for row in loss[:3]] == ["clean", "ablated", "change"],
   "ablation_loss: a row per next token, then the mean", loss[-3:])
r, rows, made = tables_of([text, "--ablate", "all-heads",
                           "--ablate-mode", "mean",
                           "--tables", "ablation_map"])
ok(r.returncode == 0 and made == {"ablation_map"} and len(rows) == 4 and
   rows[0]["row_label"] == "h.0", "--ablate all-heads: the L x H map",
   r.stdout + r.stderr)
r, rows, made = tables_of(["--patch", "--clean", text,
                           "--corrupt", "the mat sat on the cat",
                           "--answer", " cat", "--wrong", " mat",
                           "--tables", "patch_heads,patch_resid"])
resid = [row for row in rows if row["table"] == "patch_resid"]
ok(r.returncode == 0 and made == {"patch_heads", "patch_resid"} and
   len(resid) == 2 * 6 and resid[1]["col_label"] == "\u2423cat",
   "--patch: patch_heads and patch_resid, columns the clean tokens",
   r.stdout[-400:] + r.stderr)
# where the clean and corrupted tokens are the same the score is 0 over a
# negative difference, -0.0: the CSV keeps its sign, the text prints the
# exact zero as 0.0000 (as the picture's 0.00), not as a small negative
zeros = [k for k, row in enumerate(resid) if row["value"] == "-0"]
text_resid = run(["--model", model, "--patch", "--clean", text,
                  "--corrupt", "the mat sat on the cat", "--answer", " cat",
                  "--wrong", " mat", "--tables", "patch_resid"]).stdout
cells_resid = [line.split()[1:] for line in text_resid.split("\n")[2:4]]
ok(len(zeros) == 5 and "-0.0000" not in text_resid and
   all(cells_resid[k // 6][k % 6] == "0.0000" for k in zeros),
   "patch_resid: its exact zeros (-0 in the CSV) print as 0.0000",
   text_resid)
r, rows, made = tables_of(["--patch", "--clean", text,
                           "--corrupt", "the mat sat on the cat",
                           "--answer", " cat", "--wrong", " mat"])
base = [row for row in rows if row["table"] == "patch_baselines"]
ok(r.returncode == 0 and
   [row["row_label"] for row in base] ==
   ["clean: " + text, "corrupted: the mat sat on the cat"] and
   all(row["col_label"] == "logit[\u2423cat] - logit[\u2423mat]"
       for row in base) and base[0]["value"] != base[1]["value"],
   "--patch: patch_baselines names both texts, --answer and --wrong, "
   "and each run's logit difference", r.stdout[-400:] + r.stderr)
# texts of 16 tokens ("hello" is one of two_layers'), 80 and 76 letters:
# their labels cut in the middle to fit 80 columns beside the column,
# each text's beginning and end kept; the CSV has them whole
LONG, LONG_X = "hello" * 16, "hello" * 15 + "x"
LONG_PATCH = ["--patch", "--clean", LONG, "--corrupt", LONG_X,
              "--answer", " cat", "--wrong", " mat", "--tables",
              "patch_baselines"]
r = run(["--model", model, "--width", "80"] + LONG_PATCH)
lines = r.stdout.splitlines()
labels = [line.rsplit("  ", 1)[0].rstrip() for line in lines[2:4]]
ok(r.returncode == 0 and len(lines) == 4 and
   all(len(line) <= 80 for line in lines) and
   labels[0].startswith("clean: hellohello") and
   labels[0].endswith("hellohello") and
   labels[1].startswith("corrupted: hello") and
   labels[1].endswith("hellox") and all("..." in x for x in labels),
   "--patch: patch_baselines' long labels cut in their middle to fit 80 "
   "columns, each text's end kept", r.stdout + r.stderr)
r, rows, made = tables_of(LONG_PATCH)
ok(r.returncode == 0 and [row["row_label"] for row in rows] ==
   ["clean: " + LONG, "corrupted: " + LONG_X],
   "--patch: the CSV's patch_baselines labels whole", r.stdout + r.stderr)
r, rows, made = tables_of(["--head-scores", "--repeat-random", "4",
                           "--seed", "5"])
ok(r.returncode == 0 and made == {"head_scores"} and len(rows) == 4 * 3 and
   rows[0]["row_label"] == "h.0.0" and
   all(0 <= float(row["value"]) <= 1 for row in rows),
   "--head-scores --repeat-random: head_scores alone, each in [0, 1]",
   r.stdout + r.stderr)
r2 = run(["--model", model, "--format", "csv", "--head-scores",
              "--repeat-random", "4", "--seed", "5"])
r3 = run(["--model", model, "--format", "csv", "--head-scores",
              "--repeat-random", "4", "--seed", "6"])
ok(r2.stdout == r.stdout and r3.stdout != r.stdout,
   "--repeat-random: the same seed draws the same tokens, another not")

# a Llama-style tokenizer's special tokens (bos, eos, pad) are never
# drawn: with every token of llama_tied_f32's but " the" (268) marked
# special, the 2N drawn tokens are " the" each, and the scores are those
# of the text " the" eight times
llama = os.path.join(sys.argv[2], "..", "llama", "llama_tied_f32")
with tempfile.TemporaryDirectory() as tmp:
    marked = os.path.join(tmp, "llama")
    shutil.copytree(llama, marked)
    with open(os.path.join(marked, "tokenizer.json"), encoding="utf-8") as f:
        tj = json.load(f)
    tj["added_tokens"] = [
        {"id": i, "content": piece, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for piece, i in sorted(tj["model"]["vocab"].items(),
                               key=lambda kv: kv[1]) if i != 268]
    with open(os.path.join(marked, "tokenizer.json"), "w",
              encoding="utf-8") as f:
        json.dump(tj, f)
    drawn = run(["--model", marked, "--format", "csv", "--head-scores",
                 "--repeat-random", "4", "--seed", "4", "--tables",
                 "head_scores"])
    the = run(["--model", llama, "--format", "csv", "--head-scores",
               " the" * 8, "--tables", "head_scores"])
    ok(drawn.returncode == 0 and the.returncode == 0 and
       drawn.stdout == the.stdout and drawn.stdout.count("\n") == 25,
       "--repeat-random on a Llama-style checkpoint: no special token drawn",
       drawn.stdout[-300:] + drawn.stderr + the.stderr)

# --head-scores shows the heads the run shows (--layers, --show-heads):
# their rows of the whole table, and the same heads as the run's tables
whole = {(row["row_label"], row["col_label"]): row["value"] for row in
         tables_of(["--head-scores", text, "--tables", "head_scores"])[1]}
for picked, heads in [(["--layers", "1"], ["h.1.0", "h.1.1"]),
                      (["--show-heads", "0"], ["h.0.0", "h.1.0"]),
                      (["--layers", "0", "--show-heads", "1"], ["h.0.1"])]:
    r, rows, made = tables_of(["--head-scores", text, "--tables",
                               "head_scores,attn_weights"] + picked)
    scores = [row for row in rows if row["table"] == "head_scores"]
    shown = sorted({"h.%s.%s" % (row["layer"], row["head"]) for row in rows
                    if row["table"] == "attn_weights"})
    ok(r.returncode == 0 and
       sorted({row["row_label"] for row in scores}) == heads == shown and
       len(scores) == 3 * len(heads) and
       all(whole[(row["row_label"], row["col_label"])] == row["value"]
           for row in scores),
       "--head-scores %s: the rows of the heads shown (%s), as the whole "
       "table has them" % (" ".join(picked), ", ".join(heads)),
       r.stdout[-400:] + r.stderr)
r, rows, made = tables_of(["--head-scores", "--repeat-random", "4",
                           "--layers", "1", "--show-heads", "1"])
ok(r.returncode == 0 and [row["row_label"] for row in rows] == ["h.1.1"] * 3,
   "--head-scores --repeat-random --layers 1 --show-heads 1: one head's row",
   r.stdout + r.stderr)

# --logit-lens: a table per layer, T·5 rows of probabilities; the
# last layer's probabilities are next_tokens'
for ckpt in (model, os.path.join(sys.argv[2], "..", "llama",
                                 "llama_gqa4_bf16")):
    r = run(["--model", ckpt, "--format", "csv", "--logit-lens", "--tables",
             "logit_lens,next_tokens", text])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    lens = [row for row in rows if row["table"] == "logit_lens"]
    layers = sorted({int(row["layer"]) for row in lens})
    last = [row["value"] for row in lens if int(row["layer"]) == layers[-1]]
    nxt = [row["value"] for row in rows if row["table"] == "next_tokens"]
    ok(r.returncode == 0 and layers == [0, 1] and
       len(lens) == 2 * len(nxt) and
       {row["col_label"] for row in lens} == {"probability"} and
       "\u2192" in lens[0]["row_label"] and last == nxt,
       "--logit-lens (%s): a table per layer, the last one next_tokens"
       % os.path.basename(ckpt), r.stdout[-400:] + r.stderr)


def opens(args, name):
    """How many times a run opens the file name (strace's openat)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "strace")
        subprocess.run(["strace", "-f", "-e", "trace=openat", "-o", log] +
                       mha.command(args), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=600)
        with open(log, encoding="utf-8", errors="replace") as f:
            return sum(name in line and "= -1" not in line for line in f)


# --logit-lens opens the checkpoint once more than the run alone (the
# lens's own session), not in its check before the run too (lm.h,
# run_refuses_text)
for ckpt, tensors in ((model, "model.safetensors"),
                      (os.path.join(sys.argv[2], "..", "llama",
                                    "llama_gqa4_bf16"), ".safetensors")):
    alone = opens(["--model", ckpt, text], tensors)
    lens = opens(["--model", ckpt, "--logit-lens", text], tensors)
    ok(alone >= 1 and lens == alone + 1,
       "--logit-lens (%s): the checkpoint opened by the run and by the "
       "lens, not by its check too" % os.path.basename(ckpt),
       "%d alone, %d with the lens" % (alone, lens))
r = run(["--model", os.path.join(sys.argv[2], "..", "bert", "mlm"),
         "--logit-lens", text])
ok(r.returncode == 2 and r.stdout == "" and
   "--logit-lens: reads the model's next-token predictions, which BERT "
   "does not make" in r.stderr,
   "--logit-lens with BERT: refused, status 2", r.stderr)

BAD = [
    ([text, "--ablate", "2.0"], "--ablate: 2.0 is out of range"),
    ([text, "--ablate", "0.2"], "--ablate: 0.2 is out of range"),
    ([text, "--ablate", "1"], "is not a list of heads"),
    ([text, "--ablate", "0.1,"], "is not a list of heads"),
    (["the", "--ablate", "0.1"], "the text has one token"),
    ([text, "--ablate-mode", "mean"], "--ablate-mode: goes with --ablate"),
    ([text, "--ablate", "0.1", "--ablate-mode", "half"], "is not zero or mean"),
    (["--patch", "--clean", "the cat", "--corrupt", "the cat sat",
      "--answer", " cat", "--wrong", " mat"],
     "--clean is 2 tokens and --corrupt 3"),
    (["--patch", "--clean", "the cat", "--corrupt", "the mat",
      "--answer", " catapult", "--wrong", " mat"], "give one token"),
    (["--patch", "--clean", "the cat", "--answer", " cat", "--wrong", " mat"],
     "--corrupt is missing"),
    (["--patch", "--clean", "the cat", "--corrupt", "the mat",
      "--answer", " cat", "--wrong", " mat", "extra"],
     "cannot be a sentence too"),
    ([text, "--clean", "the cat"], "--clean: goes with --patch"),
    ([text, "--head-scores", "--ablate", "0.1"], "one intervention at a time"),
    (["--head-scores", "--repeat-random", "9"], "more than the model's 16"),
    (["--head-scores", "--repeat-random", "4", "--layers", "2"],
     "--layers: 2 is out of range"),
    (["--head-scores", "--repeat-random", "4", "--show-heads", "0,5"],
     "--show-heads: 5 is out of range"),
    ([text, "--seed", "3"], "--seed: with --model"),
    (["--repeat-random", "3"], "goes with --head-scores"),
    ([text, "--logit-lens", "--ablate", "0.1"],
     "--logit-lens: reads the model as it is"),
    (["--head-scores", "--repeat-random", "4", "--logit-lens"],
     "--logit-lens: reads the sentence"),
]
for args, want in BAD:
    r = run(["--model", model] + args)
    first = r.stderr.splitlines()[0] if r.stderr else ""
    ok(r.returncode == 2 and r.stdout == "" and want in first and
       len(r.stderr.splitlines()) <= 2,
       "refused with status 2: %s" % " ".join(args), r.stderr)
# a lesson run switches its modules' heads off itself, without an lm_head:
# no ablation table (model/lesson/lesson_ablate.h); all-heads needs one
r = run([text, "--ablate", "0.1", "--heads", "2", "--format", "csv"])
ok(r.returncode == 0 and ",head_context," in r.stdout and
   "ablation_effect" not in r.stdout,
   "--ablate without --model: the lesson's modules, no ablation_effect",
   r.stderr)
r = run([text, "--ablate", "all-heads"])
ok(r.returncode == 2 and "an lm_head only once trained" in r.stderr,
   "--ablate all-heads without --model or --train: refused, status 2",
   r.stderr)
r = run([text, "--logit-lens"])
ok(r.returncode == 2 and r.stdout == "" and
   "--logit-lens: goes with --model DIR" in r.stderr,
   "--logit-lens without --model: refused, status 2", r.stderr)
# a table asked for that only an option makes: the option is named (its
# row's .makes, cli/option_list.h)
for table, option in (("logit_lens", "--logit-lens"),
                      ("logit_lens_grid", "--logit-lens"),
                      ("ablation_effect", "--ablate"),
                      ("ablation_map", "--ablate"),
                      ("patch_heads", "--patch"),
                      ("head_scores", "--head-scores"),
                      ("generated_top", "--generate")):
    r = run(["--model", model, "--tables", table, text])
    ok(r.returncode == 2 and r.stdout == "" and
       "--tables: this run makes no table '%s' (it comes with %s)"
       % (table, option) in r.stderr,
       "--tables %s without %s: the option named, status 2" % (table, option),
       r.stderr)


def cells(s):
    """Terminal cells of s: two for a wide (Chinese) character."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in s)


def short_lines(out):
    """The "# " lines of the notes in out that end although the next
    line's first word (its first character, in Chinese) would have fit
    in the 76 cells of a note's line, a space between them."""
    lines = out.splitlines()
    short = []
    for a, b in zip(lines, lines[1:]):
        if not (a.startswith("# ") and b.startswith("# ")):
            continue
        first = b[2] if cells(b[2]) == 2 else b[2:].split(" ")[0]
        if cells(a[2:]) + 1 + cells(first) <= 76:
            short.append(a)
    return short


PATCH = ["--patch", "--clean", text, "--corrupt", "the mat sat on the cat",
         "--answer", " cat", "--wrong", " mat"]
for lang in ("en", "pt_BR", "es", "zh_CN", "zh_TW"):
    short = []
    for args in ([text, "--ablate", "all-heads", "--tables", "ablation_map"],
                 [text, "--ablate", "0.1", "--tables",
                  "ablation_effect,ablation_loss"],
                 PATCH + ["--tables",
                          "patch_baselines,patch_heads,patch_resid"],
                 ["--head-scores", "--repeat-random", "4", "--tables",
                  "head_scores"]):
        r = run(["--model", model, "--explain", "--lang", lang, "--width",
                 "80"] + args)
        short += short_lines(r.stdout) if r.returncode == 0 else [r.stderr]
    ok(short == [], "--explain --lang %s: the interventions' notes fill "
       "their lines, words in parentheses broken as any words" % lang,
       short)
sys.exit(done())
