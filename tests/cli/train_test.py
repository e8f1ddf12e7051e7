#!/usr/bin/env python3
"""--train, --lr, --optimizer, --positions, --corpus, --grad: bad input,
the tables a trained run makes, a diverging loss, threads, and a trained
model saved with --csv-dir and read back with --weights.

Usage: train_test.py MHA_EXPLAIN

The numbers themselves are checked against PyTorch's by
tests/reference/train_reference_test.py. Prints TAP.
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

from ptylib import Terminal
from taplib import Program, done, ok

MHA = Program(sys.argv[1])
S = "the cat sat on the mat"


def tables(stdout):
    """{(variant, table): rows} of a --format csv output."""
    out = {}
    for row in list(csv.reader(io.StringIO(stdout.decode("utf-8"))))[1:]:
        out.setdefault((row[0], row[2]), []).append(row)
    return out


def errors(tmp):
    for value in ("-1", "1000001", "many", "", "1.5"):
        MHA.check_error([S, "--train", value], "--train",
                        "--train %r: status 2, one line" % value)
    for value in ("0", "-0.1", "nan", "inf", "-inf", "fast", ""):
        MHA.check_error([S, "--train", "3", "--lr", value], "--lr",
                        "--lr %r: status 2, one line" % value)
    MHA.check_error([S, "--train", "3", "--optimizer", "rmsprop"],
                    "unknown optimizer 'rmsprop'",
                    "--optimizer rmsprop: status 2, one line")
    MHA.check_error(["hello", "--train", "3"], "no next word to predict",
                    "a one-word sentence: nothing to predict, status 2")
    for opt in (["--lr", "0.1"], ["--grad"], ["--optimizer", "sgd"]):
        MHA.check_error([S] + opt, "goes with --train N",
                        "%s without --train: status 2" % opt[0])
    emb = os.path.join(tmp, "emb.csv")
    with open(emb, "w") as f:
        f.write("token,d0,d1\nthe,0.5,1\ncat,1,2\n")
    MHA.check_error(["--embeddings", emb, "--train", "2"],
                    "does not go with --embeddings",
                    "--train with --embeddings: status 2 (the embedding "
                    "is what training learns)")
    MHA.check_error([S, "--train", "2", "--kv", "a dog"], "--kv",
                    "--train with --kv: status 2")
    empty = os.path.join(tmp, "empty.csv")
    with open(empty, "w") as f:
        f.write("text\n")
    MHA.check_error([S, "--train", "2", "--corpus", empty, "--column",
                     "text"], "no data rows",
                    "an empty corpus column: status 2")
    one = os.path.join(tmp, "one.csv")
    with open(one, "w") as f:
        f.write("text\na dog ran\nhello\n")
    MHA.check_error([S, "--train", "2", "--corpus", one, "--column",
                     "text"], "%s:3: column 'text': the sentence has one "
                    "token" % one,
                    "a one-word corpus sentence: status 2, naming its file "
                    "and line as --input does")
    MHA.check_error([S, "--train", "2", "--corpus", one],
                    "--column NAME", "--corpus without --column: status 2")
    MHA.check_error([S, "--train", "2", "--corpus", one, "--column",
                     "words"], "words",
                    "--corpus with a missing column: status 2")


def tables_made():
    r = MHA.run([S, "--train", "4", "--grad", "--positions", "--variant",
                 "single,fused", "--format", "csv"])
    ok(r.returncode == 0 and r.stderr == b"", "a trained run succeeds",
       r.stderr)
    t = tables(r.stdout)
    for v in ("single", "fused"):
        for name in ("embedding.weight", "pos_embedding.weight",
                     "lm_head.weight", "inputs", "logits", "loss",
                     "embedding.weight.grad", "pos_embedding.weight.grad",
                     "W_query.weight.grad", "lm_head.weight.grad"):
            ok((v, name) in t, "%s makes %s" % (v, name))
    ok(len(t[("single", "loss")]) == 5,
       "loss has N + 1 rows: before each step, then at the end")
    ok(("fused", "out_proj.bias.grad") in t, "the fused module's out_proj "
       "bias has its gradient")
    ok(("input", "embedding.weight") not in t,
       "a trained run has no shared input embedding: each variant its own")
    r = MHA.run([S, "--train", "0", "--grad", "--format", "csv",
                 "--variant", "single"])
    t = tables(r.stdout)
    ok(r.returncode == 0 and len(t[("single", "loss")]) == 1 and
       ("single", "W_key.weight.grad") in t,
       "--train 0 --grad: one backward pass at initialisation")
    r = MHA.run([S, "--train", "3", "--grad", "--check", "--variant",
                 "single,wrapper,fused,block", "--d-model", "4"])
    ok(r.returncode == 0 and b"masked cells get no gradient" in r.stdout
       and b"largest |gradient| there 0: ok" in r.stdout,
       "--check passes on a trained run with gradients: the masked scores "
       "get exactly no gradient", r.stderr)
    r = MHA.run([S, "--train", "3", "--grad", "--variant", "fused",
                 "--focus", "cat"])
    ok(r.returncode == 0 and b"focus: cat" in r.stdout and
       r.stdout.count(b"[fused] head 0") == 1,
       "--focus on a trained run: the forward pass's view, once", r.stderr)
    r = MHA.run([S, "--train", "2", "--grad", "--format", "csv",
                 "--variant", "wrapper"])
    heads = {(row[1], row[2]) for row in
             csv.reader(io.StringIO(r.stdout.decode()))}
    ok(("0", "attn_weights.grad") in heads and
       ("1", "queries.grad") in heads and ("", "inputs.grad") in heads and
       ("", "logits.grad") in heads,
       "--grad: the intermediates' gradients, per head")
    r = MHA.run([S, "--positions", "--format", "csv", "--variant", "single"])
    t = tables(r.stdout)
    ok(r.returncode == 0 and ("input", "pos_embedding.weight") in t and
       len(t[("input", "pos_embedding.weight")]) == 6 * 3,
       "--positions without --train: pos_embedding.weight (T x D) among "
       "the inputs")
    r = MHA.run([S, "--train", "2", "--tables", "loss,lm_head.weight.grad",
                 "--grad", "--format", "csv", "--variant", "single"])
    t = tables(r.stdout)
    ok(r.returncode == 0 and set(t) == {("single", "loss"),
                                        ("single", "lm_head.weight.grad")},
       "--tables names the new tables and gradients", r.stderr)


def average():
    r = MHA.run([S, "--train", "3", "--average", "--variant",
                 "single,fused", "--tables", "attn_weights_avg", "--format",
                 "csv"])
    t = tables(r.stdout)
    ok(r.returncode == 0 and list(t) == [("fused", "attn_weights_avg")],
       "--average on a trained run: the mean of the trained heads",
       r.stderr)


def many_heads():
    r = MHA.run([S, "--train", "2", "--variant", "wrapper", "--heads", "40",
                 "--d-out", "80", "--qkv-bias", "--tables", "loss",
                 "--format", "csv"])
    ok(r.returncode == 0 and len(tables(r.stdout)[("wrapper", "loss")]) == 3,
       "a wrapper of 40 heads with biases (240 parameters) trains",
       r.stderr)


def outputs(tmp):
    base = [S, "--train", "2", "--grad", "--variant", "wrapper,fused,block",
            "--d-model", "4"]
    r = MHA.run(base + ["--color", "always", "--layout", "grid"])
    ok(r.returncode == 0 and r.stderr == b"" and b"attn_weights.grad" in
       r.stdout, "--color always on a trained run with gradients", r.stderr)
    r = MHA.run(base + ["--style", "torch"])
    ok(r.returncode == 0 and b"lm_head.weight.grad" in r.stdout,
       "--style torch on a trained run", r.stderr)
    r = MHA.run(base + ["--plot", os.path.join(tmp, "p.png"), "--html",
                        os.path.join(tmp, "p.html")])
    ok(r.returncode == 0 and os.path.getsize(os.path.join(tmp, "p.png")) > 0
       and os.path.getsize(os.path.join(tmp, "p.html")) > 0,
       "--plot and --html on a trained run", r.stderr)


def diverges():
    r = MHA.run([S, "--train", "20", "--optimizer", "sgd", "--lr", "1e30",
                 "--variant", "single", "--tables", "loss", "--format",
                 "csv"])
    lines = r.stderr.decode().splitlines()
    loss = [row[7] for row in tables(r.stdout)[("single", "loss")]]
    ok(r.returncode == 0 and len(lines) == 1 and "not finite" in lines[0]
       and "step 1" in lines[0] and "nan" in loss,
       "a diverging loss: shown in loss, one warning line naming the step, "
       "status 0", r.stderr)


def threads():
    args = [S + " and the dog sat on the cat", "--train", "30", "--grad",
            "--d-model", "32", "--d-out", "32", "--heads", "4", "--variant",
            "single,wrapper,fused,block", "--format", "csv", "--positions"]
    one = MHA.run(args + ["--threads", "1"])
    two = MHA.run(args + ["--threads", "2"])
    ok(one.returncode == 0 and one.stdout == two.stdout,
       "1 and 2 threads train to the same bytes")


def weights(tmp):
    d = os.path.join(tmp, "model")
    sizes = ["--d-model", "8", "--d-out", "8", "--variant", "single,block",
             "--positions"]
    r = MHA.run([S, "--train", "40"] + sizes + ["--csv-dir", d, "--tables",
                                                "loss", "--format", "csv"])
    ok(r.returncode == 0, "a trained run saves its model with --csv-dir",
       r.stderr)
    r = MHA.run([S, "--train", "40"] + sizes + ["--csv-dir", d])
    trained = tables(MHA.run([S, "--train", "40"] + sizes +
                             ["--format", "csv", "--tables", "loss"]).stdout)
    again = MHA.run([S, "--weights", d, "--format", "csv", "--tables",
                     "loss"] + sizes)
    t = tables(again.stdout)
    ok(again.returncode == 0 and
       t[("single", "loss")][0][7] == trained[("single", "loss")][-1][7] and
       t[("block", "loss")][0][7] == trained[("block", "loss")][-1][7],
       "--weights reads the trained model back: the same final loss",
       again.stderr)
    r = MHA.run(["the mat sat on the cat", "--weights", d, "--format",
                 "csv"] + sizes)
    t = tables(r.stdout)
    ok(r.returncode == 0 and [row[4] for row in
                              t[("single", "embedding.weight")]][::8] ==
       ["the", "cat", "sat", "on", "mat"],
       "a new sentence from the vocabulary: the embedding's rows are the "
       "trained vocabulary")
    MHA.check_error(["the dog sat", "--weights", d] + sizes,
                    "'dog' is not in the trained vocabulary",
                    "a word outside the trained vocabulary: status 2, "
                    "naming it")
    r = MHA.run([S, "--weights", d, "--explain"] + sizes)
    text = " ".join(line[2:] for line in r.stdout.decode("utf-8").split("\n")
                    if line.startswith("# "))
    ok(r.returncode == 0 and "the trained model that --weights reads" in
       text and "drawn after" not in text,
       "--explain of a trained --weights folder: the training starts from "
       "the folder's model, not from the seed", text[:400])
    ok("its embedding.weight file (--weights): each token is looked up" in
       text and "in the order words first appear" not in text,
       "--explain of a trained --weights folder: the vocabulary is the "
       "folder's", text[:400])
    # the folder, not --train, makes the run a trained one: the message
    # says so, not "--train: ..."
    single = ["--d-out", "8", "--variant", "single"]
    MHA.check_error(["--embeddings", os.path.join(d, "single.inputs.csv"),
                     "--weights", d] + single,
                    "--weights %s: the folder holds a trained embedding "
                    "(single.embedding.weight.csv), which makes the run a "
                    "trained one: it does not go with --embeddings" % d,
                    "--embeddings with a trained --weights folder: status 2, "
                    "naming the folder's embedding")
    # a trained block is one block: --layers reads a stack's files
    # (block.K.LAYER) and says so
    MHA.check_error([S, "--weights", d, "--variant", "block", "--d-model",
                     "8", "--layers", "1"],
                    "a file of one block, not of a stack",
                    "--layers 1 over a trained block's folder: status 2, "
                    "saying its files are one block's")


def memory(tmp):
    """Training's size check counts what training holds: the parameters,
    their gradients and Adam's averages, the top's logits over the
    longest sentence trained on, the backward pass's tables. Each run
    below passed the old check and peaked far above the limit."""
    limit = "(at most 134 million)"
    words = os.path.join(tmp, "words.csv")
    with open(words, "w") as f:
        f.write("text\n")
        for i in range(10000):
            f.write(" ".join("w%d_%d" % (i, j) for j in range(20)) + "\n")
    # 200,000 words at width 72: embedding and lm_head, 14.4 million
    # values each, held 4 times by Adam (peaked at 668 MB)
    MHA.check_error(["w1_1 w1_2", "--train", "2", "--corpus", words,
                     "--column", "text", "--variant", "single", "--d-model",
                     "72", "--d-out", "72", "--heads", "1"], limit,
                    "a 200,000-word vocabulary: refused by the size check, "
                    "status 2, one line", hint=False)
    # the longest sentence trained on, not the shown one, sets the size of
    # the backward pass's (T, T) tables
    long = os.path.join(tmp, "long.csv")
    with open(long, "w") as f:
        f.write("text\n" + " ".join("w%d" % (i % 50) for i in range(8000))
                + "\n")
    MHA.check_error(["w1 w2", "--train", "1", "--corpus", long, "--column",
                     "text", "--variant", "fused", "--heads", "2"], limit,
                    "an 8000-word corpus sentence behind a two-word one: "
                    "refused, status 2, one line", hint=False)
    MHA.check_error([" ".join("w%d" % (i % 50) for i in range(8000)),
                     "--train", "1", "--variant", "fused", "--heads", "2"],
                    limit, "an 8000-word sentence trained on: refused, "
                    "status 2, one line", hint=False)


def progress():
    """A long training shows its step on standard error when that is a
    terminal (after a second, redrawn in place, erased at the end); never
    on a pipe, nor with --quiet."""
    args = [S, "--train", "300000", "--variant", "fused", "--tables", "loss",
            "--format", "csv"]
    env = dict(os.environ, LANGUAGE="en", LANG="C.UTF-8", LC_ALL="C.UTF-8")

    def on_pty(extra):
        term = Terminal(MHA.command(args + extra), env,
                        stdout=subprocess.DEVNULL)
        status, err = term.finish(300)
        term.close()
        return status, err.decode("utf-8", "replace")

    status, err = on_pty([])
    steps = [int(k) for k in re.findall(
        r"\r\x1b\[Kmha-explain: training fused: step (\d+) of 300000", err)]
    ok(status == 0 and steps and steps == sorted(steps) and
       all(1 <= k <= 300000 for k in steps) and err.endswith("\r\x1b[K") and
       "\n" not in err,
       "--train on a terminal: 'training fused: step k of N' redrawn in "
       "place, k rising, erased at the end",
       "status %r, stderr %r" % (status, err[:300]))
    status, err = on_pty(["--quiet"])
    ok(status == 0 and err == "", "--quiet: no progress line",
       "status %r, stderr %r" % (status, err[:300]))
    r = MHA.run(args)
    ok(r.returncode == 0 and r.stderr == b"",
       "stderr a pipe: no progress line", r.stderr[:300])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        errors(tmp)
        memory(tmp)
        progress()
        tables_made()
        average()
        many_heads()
        outputs(tmp)
        diverges()
        threads()
        weights(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
