#!/usr/bin/env python3
"""--ablate-mode mean over --corpus FILE --column NAME on a checkpoint
(model/intervene/corpus_mean.h) on the command line.

    corpus_mean_test.py MHA_EXPLAIN REFERENCE_DIR

(REFERENCE_DIR is tests/reference: gpt2/two_layers, llama/
llama_head48_bf16, interventions/corpus.csv and PyTorch's tables of
make_intervention_reference.py and make_llama_intervention_reference.py,
interventions/corpus_CHECKPOINT.safetensors.)

What a user sees: the CSV's ablation_loss and ablation_map equal to
PyTorch's bit for bit (tests/unit/test_interventions.c checks every
table through pipeline_run), a mean other than the text's own; a blank
line of the file skipped; --explain's note on the corpus's mean, in
every language; and bad input: status 2, one line on standard error (a
usage error adds the --help hint), nothing on standard output.
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
GPT2 = os.path.join(REF, "gpt2", "two_layers")
LLAMA = os.path.join(REF, "llama", "llama_head48_bf16")
CORPUS = os.path.join(REF, "interventions", "corpus.csv")
TEXT = "the cat sat on the mat"
WITH_CORPUS = ["--ablate-mode", "mean", "--corpus", CORPUS, "--column",
               "text"]


def reference(name):
    """table name -> floats of interventions/corpus_NAME.safetensors."""
    path = os.path.join(REF, "interventions", "corpus_%s.safetensors" % name)
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for key, t in header.items():
        if key == "__metadata__":
            continue
        lo, hi = t["data_offsets"]
        body = data[8 + n + lo:8 + n + hi]
        out[key] = list(struct.unpack("<%df" % (len(body) // 4), body))
    return out


def f32(text):
    """The float32 a CSV value reads back as."""
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


def run(args):
    r = mha.run(args)
    r.stdout = r.stdout.decode("utf-8")
    r.stderr = r.stderr.decode("utf-8")
    return r


def values(args, table):
    """The run's status and the CSV's values of table, in order."""
    r = run(args + ["--format", "csv", "--tables", table])
    rows = [row for row in csv.DictReader(io.StringIO(r.stdout))
            if row["table"] == table]
    return r, [f32(row["value"]) for row in rows]


# ---- PyTorch's numbers ---------------------------------------------------
gpt2_ref = reference("two_layers")
r, got = values(["--model", GPT2, TEXT, "--ablate", "1.0,0.1"] + WITH_CORPUS,
                "ablation_loss")
ok(r.returncode == 0 and got == gpt2_ref["corpus_1.0_0.1.loss"],
   "GPT-2 --ablate 1.0,0.1: ablation_loss is PyTorch's bit for bit",
   r.stderr + str(got[:6]))
r2, own = values(["--model", GPT2, TEXT, "--ablate", "1.0,0.1",
                  "--ablate-mode", "mean"], "ablation_loss")
ok(r2.returncode == 0 and own != got,
   "the corpus's mean is not the text's own", r2.stderr)
r, got = values(["--model", GPT2, TEXT, "--ablate", "all-heads"] +
                WITH_CORPUS, "ablation_map")
ok(r.returncode == 0 and got == gpt2_ref["corpus_all.map"],
   "GPT-2 --ablate all-heads: ablation_map is PyTorch's bit for bit",
   r.stderr + str(got))
llama_ref = reference("llama_head48_bf16")
r, got = values(["--model", LLAMA, "hello world, the cat", "--ablate",
                 "all-heads", "--metric", "prob", "--answer", " cat"] +
                WITH_CORPUS, "ablation_map")
ok(r.returncode == 0 and got == llama_ref["corpus_all_prob.map"],
   "Llama-style head 48 wide, --metric prob: ablation_map is PyTorch's",
   r.stderr + str(got))

# ---- the file -----------------------------------------------------------
tmp = tempfile.mkdtemp()


def corpus_file(name, body):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
    return path


plain = corpus_file("plain.csv", "text\nthe cat\nhello world\n")
blank = corpus_file("blank.csv", "text\nthe cat\n\nhello world\n\n")
base = ["--model", GPT2, TEXT, "--ablate", "0.1", "--ablate-mode", "mean",
        "--column", "text", "--format", "csv"]
a = run(base + ["--corpus", plain])
b = run(base + ["--corpus", blank])
ok(a.returncode == 0 and b.returncode == 0 and a.stdout == b.stdout,
   "a blank line of the file is skipped, as a CSV reader does",
   a.stderr + b.stderr)

# ---- --explain ----------------------------------------------------------
NOTE = {"en": "With --corpus, --ablate-mode mean",
        "pt_BR": "Com --corpus, --ablate-mode mean",
        "es": "Con --corpus, --ablate-mode mean",
        "zh_CN": "配合 --corpus",
        "zh_TW": "配合 --corpus"}
for lang, start in NOTE.items():
    r = run(["--model", GPT2, TEXT, "--ablate", "all-heads", "--explain",
             "--lang", lang, "--tables", "ablation_map"] + WITH_CORPUS)
    notes = [line for line in r.stdout.splitlines() if line.startswith("# ")]
    joined = (" " if lang in ("en", "pt_BR", "es") else "").join(
        line[2:] for line in notes)
    said = start in joined and "--ablate-mode mean" in joined
    ok(r.returncode == 0 and said,
       "--explain (%s): the ablation map's mean is the corpus's" % lang,
       r.stderr + "\n".join(notes[-6:]))
r = run(["--model", GPT2, TEXT, "--ablate", "0.1", "--ablate-mode", "mean",
         "--explain", "--tables", "ablation_effect"])
ok(r.returncode == 0 and "With --corpus" not in r.stdout,
   "--explain without --corpus: no note on a corpus", r.stderr)

# ---- bad input ----------------------------------------------------------
long_text = corpus_file(
    "long.csv", "text\nthe cat\n" + "the cat sat on the mat " * 3 + "\n")
empty_cell = corpus_file("empty.csv", "text,n\nthe cat,1\n,2\n")
header_only = corpus_file("header.csv", "text\n")
BAD = [
    (["--ablate", "0.1", "--corpus", CORPUS, "--column", "text"],
     "--corpus: goes with --train N, or with --model DIR and --ablate-mode "
     "mean"),
    (["--ablate", "0.1", "--ablate-mode", "zero", "--corpus", CORPUS,
      "--column", "text"],
     "--corpus: with --model, the texts --ablate-mode mean takes each "
     "head's mean over: it goes with --ablate and --ablate-mode mean"),
    (["--head-scores", "--corpus", CORPUS, "--column", "text"],
     "--corpus: goes with --train N, or with --model DIR"),
    (["--ablate", "0.1", "--ablate-mode", "mean", "--corpus", CORPUS],
     "--corpus: say which column holds the sentences with --column NAME"),
    (["--ablate", "0.1", "--generate", "3", "--ablate-mode", "mean",
      "--corpus", long_text, "--column", "text"],
     "long.csv:3: column 'text': the text is 18 tokens; the model takes at "
     "most 16 (n_positions)"),
    (["--ablate", "0.1", "--ablate-mode", "mean", "--corpus", long_text,
      "--column", "text"],
     "long.csv:3: column 'text': the text is 18 tokens; the model takes at "
     "most 16 (n_positions)"),
    (["--ablate", "all-heads", "--ablate-mode", "mean", "--corpus",
      long_text, "--column", "text"], "long.csv:3: column 'text'"),
    (["--ablate", "0.1", "--ablate-mode", "mean", "--corpus", empty_cell,
      "--column", "text"],
     "empty.csv:3: column 'text': the text has no tokens"),
    (["--ablate", "0.1", "--ablate-mode", "mean", "--corpus", header_only,
      "--column", "text"], "no data rows after the header"),
    (["--ablate", "0.1", "--ablate-mode", "mean", "--corpus", CORPUS,
      "--column", "sentence"], "no column named 'sentence'"),
]
for args, want in BAD:
    r = run(["--model", GPT2, TEXT] + args)
    first = r.stderr.splitlines()[0] if r.stderr else ""
    ok(r.returncode == 2 and r.stdout == "" and want in first and
       len(r.stderr.splitlines()) <= 2,
       "refused with status 2: %s" % " ".join(args[:6]), r.stderr)
# a lesson's --corpus is its training's
r = run([TEXT, "--ablate", "0.1", "--ablate-mode", "mean", "--corpus",
         CORPUS, "--column", "text"])
ok(r.returncode == 2 and "--corpus: goes with --train N" in r.stderr,
   "without --model, --corpus goes with --train", r.stderr)
sys.exit(done())
