#!/usr/bin/env python3
"""The options of a run of a trained model's folder (--weights DIR, its
model.json) that depend on the folder's variant, on the command line.

    folder_options_test.py MHA_EXPLAIN

Without --variant, the folder chooses the variants, so what an option
needs of them is checked against the folder's: an option that repeats a
value of model.json (--attn-only, --layers 2, with --heads, --d-model,
--positions and --variant block) gives the run without it, byte for
byte; one that contradicts it is status 2 and one line naming both
values; the interventions of a model with an lm_head (--head-scores,
also with --repeat-random, --patch) run on a trained block's folder as
with --variant block; an option the folder's variant does not take is
refused, naming model.json's value or with the option's own message
(--attn-only, --layers, --ff, --head-scores on a fused module, --average
on a single head); --generate with --head-scores names that conflict;
--average on a stack of blocks is refused (status 2, never a crash), as
--layers N --average is.
"""
import os
import random
import sys
import tempfile

from taplib import Program, done, ok

mha = Program(sys.argv[1])
tmp = tempfile.mkdtemp()

# repeated random sequences (docs/interventions.md's induction lesson)
rnd = random.Random(1)
corpus = os.path.join(tmp, "rr.csv")
with open(corpus, "w", encoding="utf-8") as f:
    f.write("text\n")
    for _ in range(40):
        half = ["w%d" % rnd.randrange(10) for _ in range(rnd.randint(3, 6))]
        f.write(" ".join(half + half) + "\n")
S = "w1 w2 w3 w1 w2 w3"
STACK = ["--layers", "2", "--attn-only", "--d-model", "8", "--heads", "2",
         "--positions"]


def train(name, args, sentence=S):
    d = os.path.join(tmp, name)
    r = mha.run([sentence, "--train", "20", "--seed", "1", "--threads", "1",
                 "--csv-dir", d, "--tables", "loss"] + args)
    ok(r.returncode == 0, "%s: trained and saved" % name, r.stderr)
    return d


stack = train("stack", ["--corpus", corpus, "--column", "text", "--variant",
                        "block"] + STACK)
block = train("block", ["--corpus", corpus, "--column", "text", "--variant",
                        "block", "--d-model", "8", "--heads", "2"])
fused = train("fused", ["--variant", "fused", "--d-model", "8", "--d-out",
                        "8", "--heads", "2"])
single = train("single", ["--variant", "single"])


def csv_of(args):
    r = mha.run(args + ["--format", "csv", "--threads", "1"])
    return r.returncode, r.stdout, r.stderr


# --- an option that repeats model.json's value is accepted --------------
plain = csv_of(["--weights", stack, S])
ok(plain[0] == 0 and b"block" in plain[1],
   "--weights DIR of a stack of blocks, no option", plain[2])
for extra in (["--attn-only"], ["--layers", "2"], ["--variant", "block"],
              ["--positions"], STACK + ["--variant", "block"]):
    r = csv_of(["--weights", stack, S] + extra)
    ok(r == plain, "%s repeats model.json: the same run" % " ".join(extra),
       r[2])

# --- one that contradicts it is an error naming both values -------------
for d, extra, fragment in (
        (stack, ["--layers", "3"], "--layers 3: the trained model in %s has "
         "layers 2 (its model.json); leave the option out, or give 2" %
         stack),
        (stack, ["--attn-only", "--heads", "4"], "--heads 4: the trained "
         "model in %s has heads 2" % stack),
        (block, ["--attn-only"], "--attn-only: the trained model in %s has "
         "attn_only false (its model.json)" % block),
        (block, ["--layers", "2"], "--layers 2: the trained model in %s is "
         "one block, not a stack" % block)):
    mha.check_error(["--weights", d, S] + extra, fragment,
                    "%s against %s's model.json: status 2 naming both" %
                    (" ".join(extra), os.path.basename(d)))

# --- an option the folder's variant does not take -----------------------
for d, extra, fragment in (
        (fused, ["--attn-only"], "--attn-only: the trained model in %s has "
         "attn_only false (its model.json)" % fused),
        (fused, ["--layers", "2"], "--layers 2: the trained model in %s is "
         "one block, not a stack" % fused),
        (fused, ["--ff", "8"], "--ff: sets the feed-forward width of "
         "--variant block, which this run does not include"),
        (fused, ["--head-scores"], "--head-scores: goes with --model DIR or "
         "a trained --variant block"),
        (single, ["--average"], "--average: averages the heads of the "
         "wrapper, fused or block; --variant single has one head")):
    mha.check_error(["--weights", d, "the cat"] + extra, fragment,
                    "%s on a %s module's folder: refused" %
                    (" ".join(extra), os.path.basename(d)))

# --- the interventions of a block's folder, as with --variant block -----
PATCH = ["--patch", "--clean", "w1 w2 w3 w1 w2", "--corrupt",
         "w1 w2 w4 w1 w2", "--answer", "w3", "--wrong", "w4"]
for name, args, table in (
        ("--head-scores", [S, "--head-scores"], b"head_scores"),
        ("--head-scores --repeat-random 3",
         ["--head-scores", "--repeat-random", "3"], b"head_scores"),
        ("--patch", PATCH, b"patch_heads"),
        ("--ablate 1.0", [S, "--ablate", "1.0"], b"ablation_loss")):
    r = csv_of(["--weights", stack] + args)
    want = csv_of(["--weights", stack, "--variant", "block"] + args)
    ok(r[0] == 0 and table in r[1] and r == want,
       "%s on a trained block's folder without --variant: the run of "
       "--variant block" % name, r[2] + want[2])

# --- the real conflict is named -----------------------------------------
mha.check_error(["--weights", stack, S, "--generate", "3", "--head-scores"],
                "--generate: generates with the model as it is, so it does "
                "not go with --head-scores",
                "--generate with --head-scores on a block's folder: that "
                "conflict named")

# --- --average: a stack's heads are not averaged (as with --layers) ----
for extra in ([], ["--variant", "block"]):
    mha.check_error(["--weights", stack, S, "--average"] + extra,
                    "--average: the trained model in %s is a stack of 2 "
                    "blocks (its model.json), whose heads are not averaged"
                    % stack,
                    "%s on a stack's folder: refused, naming its blocks" %
                    " ".join(["--average"] + extra))
r = csv_of(["--weights", block, S, "--average"])
ok(r[0] == 0 and b"attn_weights_avg" in r[1],
   "--average on one block's folder: its heads' mean", r[2])

sys.exit(done())
