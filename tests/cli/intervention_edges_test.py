#!/usr/bin/env python3
"""The edges of the interventions and of generation on a checkpoint.

    intervention_edges_test.py MHA_EXPLAIN GPT2_DIR

(GPT2_DIR is tests/reference/gpt2.) What a run refuses, with status 2,
one line on standard error (a usage error adds the --help hint) and
nothing on standard output: --generate with an intervention other than
--ablate L.H (generation runs one model: as it is, or with those heads
switched off; generate_ablate_test.py tests that), --input with --patch
or --repeat-random (their texts are their own), --clean, --corrupt,
--answer or --wrong without --patch, --patch whose two runs give the same
logit difference (the score divides by it), with nothing on standard
output even when the plain tables come first, --answer equal to --wrong, a head
listed twice in --ablate, --sample over NaN logits (a checkpoint made
NaN here: torch.multinomial raises on it). What it accepts: --metric
prob and logit-diff on a one-token text (they read the last token
only), and generation's likeliest tokens are the ones the warpers left.
"""
import csv
import io
import json
import os
import shutil
import struct
import sys
import tempfile

from taplib import Program, done, ok

mha = Program(sys.argv[1])
model = os.path.join(sys.argv[2], "two_layers")
text = "the cat sat on the mat"


def run(args):
    r = mha.run(["--model", model] + args)
    r.stdout = r.stdout.decode("utf-8")
    r.stderr = r.stderr.decode("utf-8")
    return r


def refused(args, words, name):
    """Status 2, one line naming words (then the --help hint of a usage
    error), nothing on standard output."""
    r = run(args)
    lines = r.stderr.splitlines()
    ok(r.returncode == 2 and r.stdout == "" and 1 <= len(lines) <= 2 and
       all(w in lines[0] for w in words) and
       (len(lines) == 1 or lines[1].startswith("Try ")), name,
       "status %d\n%s%s" % (r.returncode, r.stderr, r.stdout[:300]))
    return r


# --generate runs one model: every head in turn, patching and scoring
# are refused
for extra, option in ((["--ablate", "all-heads"], "--ablate"),
                      (["--head-scores"], "--head-scores")):
    refused(["the cat sat", "--generate", "2"] + extra,
            ["--generate", option],
            "--generate with %s: refused, naming both" % " ".join(extra))
refused(["--generate", "2", "--patch", "--clean", text, "--corrupt",
         "the mat sat on the cat", "--answer", " cat", "--wrong", " mat"],
        ["--generate", "--patch"], "--generate with --patch: refused")

# --patch's texts are --clean's and --corrupt's, --repeat-random's is
# drawn: a file of sentences is refused, as a sentence given is
with tempfile.TemporaryDirectory() as folder:
    sentences = os.path.join(folder, "in3.csv")
    with open(sentences, "w", encoding="utf-8") as f:
        f.write("text\na\nthe mat\n")
    patch = ["--patch", "--clean", "a", "--corrupt", "b", "--answer", "c",
             "--wrong", "d"]
    refused(["--input", sentences, "--column", "text"] + patch +
            ["--tables", "tokens,next_tokens,patch_heads,patch_resid"],
            ["--patch", "--input"], "--patch with --input: refused")
    refused(["--input", sentences, "--column", "text", "--head-scores",
             "--repeat-random", "4"], ["--repeat-random", "--input"],
            "--repeat-random with --input: refused")

# --repeat-random's run is --head-scores' alone: a table of the plain run
# asked for is refused, not left out; its drawn text is shown when
# --tables asks for tokens
r = refused(["--head-scores", "--repeat-random", "4", "--tables",
             "next_tokens"], ["--tables", "next_tokens"],
            "--repeat-random --tables next_tokens: refused, as any table "
            "the run does not make")
r = run(["--head-scores", "--repeat-random", "4", "--tables",
         "tokens,head_scores", "--format", "csv"])
drawn = [line.split(",") for line in r.stdout.splitlines()
         if ",tokens," in line]
ids = [row[-1] for row in drawn]
ok(r.returncode == 0 and len(ids) == 8 and ids[:4] == ids[4:] and
   all(row[5] for row in drawn) and "head_scores" in r.stdout,
   "--repeat-random --tables tokens,head_scores: the 4 drawn ids twice, "
   "each under its token's label, then the scores", r.stdout[:400])
r = run(["--head-scores", "--repeat-random", "4"])
ok(r.returncode == 0 and "tokens" not in r.stdout,
   "--repeat-random without --tables: the scores alone", r.stdout[:200])
r = run(["--head-scores", "--repeat-random", "4", "--tables", "head_scores"])
ok(r.returncode == 0 and "head_scores" in r.stdout,
   "--repeat-random --tables head_scores: the scores", r.stderr)

# --patch's texts and tokens without --patch: said, not "no sentence"
for option, words in (("--clean", ["--clean", "--patch"]),
                      ("--corrupt", ["--corrupt", "--patch"]),
                      ("--answer", ["--answer", "--patch", "--metric"]),
                      ("--wrong", ["--wrong", "--patch", "--metric"])):
    refused([option, "a"], words,
            "%s without --patch or a sentence: goes with --patch" % option)

# --patch whose clean and corrupted runs give the same difference
r = refused(["--patch", "--clean", text, "--corrupt", text,
             "--answer", " cat", "--wrong", " mat",
             "--tables", "patch_heads,patch_resid"],
            ["--patch", "same logit difference", "normalised"],
            "--patch with equal baselines: refused, the score cannot be "
            "normalised")
ok(any(c.isdigit() for c in r.stderr), "... and the difference is shown",
   r.stderr)
# ... and with every table, in CSV too: the error comes before any output
for form in ([], ["--format", "csv"]):
    refused(["--patch", "--clean", "the cat", "--corrupt", "the cat",
             "--answer", " cat", "--wrong", " mat"] + form,
            ["--patch", "normalised"],
            "--patch with equal baselines, every table%s: nothing on "
            "standard output" % "".join(" " + f for f in form))
# the other errors an intervention finds in its text, with every table
refused(["t", "--ablate", "0.0"], ["--ablate", "one token"],
        "--ablate on a one-token text, every table: nothing on standard "
        "output")
refused(["t", "--head-scores"], ["--head-scores", "one token"],
        "--head-scores on a one-token text, every table: nothing on "
        "standard output")
refused(["--patch", "--clean", text, "--corrupt", "the mat sat on the cat",
         "--answer", " cat", "--wrong", " cat"],
        ["--answer", "--wrong", "' cat'"],
        "--patch with --answer equal to --wrong: refused")
refused([text, "--ablate", "all-heads", "--metric", "logit-diff",
         "--answer", " cat", "--wrong", " cat"],
        ["--answer", "--wrong"],
        "--metric logit-diff with --answer equal to --wrong: refused")

# a head listed twice, however typed
for heads in ("0.1,0.1", "0.1,1.0,00.1"):
    refused([text, "--ablate", heads], ["--ablate", "twice", heads],
            "--ablate %s: a head listed twice is refused" % heads)
r = run([text, "--ablate", "0.1,1.0", "--tables", "ablation_loss"])
ok(r.returncode == 0, "--ablate 0.1,1.0: two heads are accepted", r.stderr)

# --metric prob and logit-diff read the last token only: one token will do
for metric in (["prob", "--answer", " cat"],
               ["logit-diff", "--answer", " cat", "--wrong", " mat"]):
    r = run(["t", "--ablate", "all-heads", "--metric"] + metric +
            ["--tables", "ablation_map", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    ok(r.returncode == 0 and len(rows) == 4 and
       all(row["table"] == "ablation_map" for row in rows),
       "--metric %s on a one-token text: the map" % metric[0],
       r.stderr + r.stdout[:300])
refused(["t", "--ablate", "all-heads"], ["one token", "loss"],
        "--metric loss on a one-token text: refused with the loss's reason")

# ablation_map's colour scale names the metric used, in the run's language
def page_measure(args):
    with tempfile.TemporaryDirectory() as folder:
        page = os.path.join(folder, "map.html")
        r = run([text, "--ablate", "all-heads", "--html", page] + args)
        if r.returncode != 0:
            return r.stderr
        with open(page, encoding="utf-8") as f:
            html = f.read()
    at = html.find('"measure":')
    return json.JSONDecoder().raw_decode(html, at + 10)[0] if at >= 0 else None


for args, want in (([], "--metric loss"),
                   (["--metric", "prob", "--answer", " cat"], "--metric prob"),
                   (["--metric", "logit-diff", "--answer", " cat", "--wrong",
                     " mat"], "--metric logit-diff")):
    got = page_measure(args)
    ok(got is not None and want in got,
       "the page's ablation_map says it measures %s" % want, got)
got = page_measure(["--metric", "prob", "--answer", " cat", "--lang", "pt_BR"])
ok(got == "varia\u00e7\u00e3o da probabilidade de --answer (--metric prob)",
   "... in the run's language (pt_BR)", got)

# --top-k 3: the likeliest listed are the three it left, then none
r = run(["the cat", "--generate", "5", "--sample", "--top-k", "3", "--seed",
         "3", "--tables", "generated,generated_top", "--format", "csv"])
rows = list(csv.DictReader(io.StringIO(r.stdout)))
gen = {}
for row in rows:
    if row["table"] == "generated":
        gen.setdefault(int(row["row"]), {})[row["col_label"]] = \
            float(row["value"])
top = [row for row in rows if row["table"] == "generated_top"]
ids = [float(row["value"]) for row in top if row["col_label"] == "id"]
ps = [float(row["value"]) for row in top if row["col_label"] == "probability"]
ok(r.returncode == 0 and len(gen) == 5 and
   all(g["top_k_kept"] == 3 and g["top4"] == -1 and g["top5"] == -1 and
       g["p4"] == 0 and g["p5"] == 0 and min(g["p1"], g["p2"], g["p3"]) > 0
       for g in gen.values()),
   "--top-k 3: generated's top4 and top5 are none (-1, 0)",
   r.stderr + r.stdout[:600])
ok(len(ids) == 5 * 3 and all(i >= 0 for i in ids) and all(p > 0 for p in ps)
   and all(abs(sum(ps[3 * s:3 * s + 3]) - 1) < 1e-5 for s in range(5)),
   "--top-k 3: generated_top lists the three tokens left at each step",
   list(zip(ids, ps)))


# --sample over NaN logits: a copy of the checkpoint with ln_f's bias NaN
def nan_checkpoint(folder):
    for name in os.listdir(model):
        shutil.copy(os.path.join(model, name), folder)
    path = os.path.join(folder, "model.safetensors")
    with open(path, "r+b") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        start = header["transformer.ln_f.bias"]["data_offsets"][0]
        f.seek(8 + n + start)
        f.write(struct.pack("<f", float("nan")))


with tempfile.TemporaryDirectory() as folder:
    nan_checkpoint(folder)
    model = folder
    # (the tables before generation stream out before its steps run)
    refused(["the cat", "--generate", "3", "--sample", "--seed", "1",
             "--tables", "generated"],
            ["--sample", "1", "NaN"],
            "--sample over NaN logits: refused at its first step")
    refused(["the cat", "--generate", "3", "--sample", "--seed", "1"],
            ["--sample", "NaN"],
            "... with every table: nothing on standard output")
    refused(["the cat", "--generate", "3", "--sample", "--seed", "1",
             "--top-k", "5", "--tables", "generated"],
            ["--sample", "NaN"], "... with --top-k too")

sys.exit(done())
