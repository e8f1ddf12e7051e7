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
import json
import os
import re
import shutil
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
    # at 80 columns the heads of some tables do not fit side by side: the
    # grid asked for says so in one note, and nothing else is on stderr
    notes = r.stderr.decode().splitlines()
    ok(r.returncode == 0 and len(notes) <= 1 and
       all(n.startswith("mha-explain: note: --layout grid:") for n in notes)
       and b"attn_weights.grad" in r.stdout,
       "--color always on a trained run with gradients", r.stderr)
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
    # a trained block is one block: --layers does not go with its folder;
    # a folder without model.json (an older version's) says why by its
    # files' names (a stack's files are block.K.LAYER)
    MHA.check_error([S, "--weights", d, "--variant", "block", "--layers",
                     "1"], "is one block, not a stack",
                    "--layers 1 over a trained block's folder: status 2")
    os.remove(os.path.join(d, "model.json"))
    MHA.check_error([S, "--weights", d, "--variant", "block", "--d-model",
                     "8", "--layers", "1"],
                    "a file of one block, not of a stack",
                    "--layers 1 over a trained block's folder without "
                    "model.json: status 2, saying its files are one block's")


def loss_values(stdout):
    """The loss table's values of a --format csv output, a stack's
    (with its layer column) or not."""
    rows = list(csv.reader(io.StringIO(stdout.decode("utf-8"))))
    table, value = rows[0].index("table"), rows[0].index("value")
    return [row[value] for row in rows[1:] if row[table] == "loss"]


def stacks(tmp):
    """A trained stack of blocks (--layers N) and attention-only blocks
    (--attn-only): saved with their layers, read back to the same loss;
    options that do not fit refused."""
    for extra in (["--layers", "2"], ["--layers", "2", "--attn-only"],
                  ["--attn-only"]):
        d = os.path.join(tmp, "stack" + "".join(extra).replace("-", ""))
        sizes = ["--d-model", "8", "--heads", "2", "--variant", "block",
                 "--positions"] + extra
        r = MHA.run([S, "--train", "30", "--csv-dir", d, "--tables", "loss",
                     "--format", "csv"] + sizes)
        with open(os.path.join(d, "model.json"), encoding="utf-8") as f:
            saved = json.load(f)
        layers = int(extra[1]) if extra[0] == "--layers" else 0
        ok(r.returncode == 0 and saved["layers"] == layers and
           saved["attn_only"] == ("--attn-only" in extra) and
           (saved["ff"] == 0) == ("--attn-only" in extra),
           "%s: trained and saved, model.json says so" % " ".join(extra),
           r.stderr)
        again = MHA.run([S, "--weights", d, "--tables", "loss", "--format",
                         "csv"])
        first, back = loss_values(r.stdout), loss_values(again.stdout)
        ok(again.returncode == 0 and len(first) == 31 and
           back == first[-1:],
           "%s: --weights reads the stack back, the same final loss" %
           " ".join(extra), again.stderr)
        names = set(os.listdir(d))
        ok(("block.1.attention.W_query.weight.csv" in names) == (layers > 1)
           and ("block.0.norm1.weight.csv" in names or
                "block.norm1.weight.csv" in names) ==
           ("--attn-only" not in extra),
           "%s: the folder holds each block's files, an attention-only "
           "block no norm" % " ".join(extra), sorted(names))
    MHA.check_error([S, "--variant", "block", "--attn-only", "--ff", "8"],
                    "--ff: does not go with --attn-only",
                    "--attn-only with --ff: status 2")
    MHA.check_error([S, "--variant", "block", "--attn-only", "--dropout",
                     "0.1"], "--dropout: does not go with --attn-only",
                    "--attn-only with --dropout: status 2")
    MHA.check_error([S, "--variant", "fused", "--attn-only"],
                    "--attn-only: leaves the feed-forward network out",
                    "--attn-only without the block: status 2")


def csv_tables(stdout):
    """{(table, layer, head): [(row, col, value)]} of a --format csv
    output, a stack's (with its layer column) or not."""
    rows = list(csv.reader(io.StringIO(stdout.decode("utf-8"))))
    h = rows[0]
    col = {name: h.index(name) for name in h}
    out = {}
    for r in rows[1:]:
        key = (r[col["table"]], r[col["layer"]] if "layer" in col else "",
               r[col["head"]])
        out.setdefault(key, []).append((int(r[col["row"]]),
                                        int(r[col["col"]]),
                                        float(r[col["value"]])))
    return out


def induction(weights, ids):
    """head_detector.py's induction score of a head's weights
    {(i, j): a}, in double: (A * D).sum() / A.sum()."""
    total = sum(weights.values())
    on = sum(a for (i, j), a in weights.items()
             if 0 < j <= i and ids[j - 1] == ids[i])
    return on / total


def score_steps():
    """head_scores_steps: a row per step taken, a column per head of
    every block; its last row the scores of the trained model's own
    attn_weights on the shown sentence."""
    words = "a b c d e a b c d e".split()
    for steps, extra in ((12, ["--layers", "2", "--attn-only"]),
                         (250, ["--variant", "fused"])):
        args = [" ".join(words), "--train", str(steps), "--d-model", "8",
                "--heads", "2", "--tables",
                "head_scores_steps,attn_weights", "--format", "csv",
                "--positions"]
        if extra[0] == "--layers":
            args += ["--variant", "block"]
        r = MHA.run(args + extra)
        t = csv_tables(r.stdout)
        scores = [v for (name, _, _), v in t.items()
                  if name == "head_scores_steps"]
        layers = 2 if "--layers" in extra else 1
        variant = "block" if layers == 2 else "fused"
        want_rows = min(steps + 1, 101)
        ok(r.returncode == 0 and len(scores) == 1 and
           len(scores[0]) == want_rows * layers * 2,
           "--train %d %s: head_scores_steps has %d steps x %d heads" %
           (steps, " ".join(extra), want_rows, layers * 2), r.stderr)
        if not scores:
            continue
        last = {c: v for row, c, v in scores[0] if row == want_rows - 1}
        ids = [words.index(w) for w in words]
        wrong = []
        for layer in range(layers):
            for head in range(2):
                w = t.get(("attn_weights", str(layer) if layers > 1 else "",
                           str(head)), [])
                got = last.get(layer * 2 + head)
                want = induction({(i, j): a for i, j, a in w}, ids)
                if got is None or abs(got - want) > 1e-6:
                    wrong.append((layer, head, got, want))
        ok(not wrong, "--train %d %s: the last step's scores are the "
           "trained heads' induction scores on the shown sentence" %
           (steps, " ".join(extra)), wrong)
    r = MHA.run([S, "--train", "3", "--tables", "loss", "--format", "csv"])
    ok(r.returncode == 0 and b"head_scores_steps" not in r.stdout,
       "head_scores_steps only when asked for (--tables, --plot, --html)")


def train_into(d, extra, sentence=S):
    r = MHA.run([sentence, "--train", "20", "--csv-dir", d, "--tables",
                 "loss", "--format", "csv"] + extra)
    ok(r.returncode == 0, "a trained run saves into %s" % os.path.basename(d),
       r.stderr)
    return r


def final_losses(stdout):
    """{variant: its last loss value} of a --format csv output."""
    return {v: rows[-1][7] for (v, t), rows in tables(stdout).items()
            if t == "loss"}


def self_describing(tmp):
    """--csv-dir of a trained run writes the whole model and model.json,
    whatever --tables says; --weights reads it back with no size or
    variant option, refuses an option that contradicts it and never
    mixes trained and seeded modules."""
    d = os.path.join(tmp, "modelo")
    sizes = ["--d-model", "8", "--d-out", "8", "--heads", "2", "--variant",
             "fused", "--positions"]
    trained = train_into(d, sizes)
    names = sorted(os.listdir(d))
    ok("model.json" in names and "fused.W_query.weight.csv" in names and
       "fused.embedding.weight.csv" in names and
       "fused.pos_embedding.weight.csv" in names and
       "fused.lm_head.weight.csv" in names and
       "fused.out_proj.bias.csv" in names and "fused.inputs.csv" not in names,
       "--tables loss --csv-dir of a trained run: the parameters, the "
       "embedding, the positions, lm_head and model.json besides loss",
       names)
    with open(os.path.join(d, "model.json"), encoding="utf-8") as f:
        m = json.load(f)
    ok(m["variants"] == ["fused"] and m["d_model"] == 8 and m["d_out"] == 8
       and m["heads"] == 2 and m["positions"] == 6 and
       m["tokens"] == "words" and
       m["vocab"] == ["the", "cat", "sat", "on", "mat"] and
       m["training"]["steps"] == 20 and m["training"]["optimizer"] == "adam"
       and str(m["final_loss"]["fused"]) ==
       final_losses(trained.stdout)["fused"],
       "model.json: the variants, sizes, positions, tokens, vocabulary, "
       "the training's options and its final loss", m)
    again = MHA.run([S, "--weights", d, "--tables", "loss", "--format",
                     "csv"])
    ok(again.returncode == 0 and list(tables(again.stdout)) ==
       [("fused", "loss")] and final_losses(again.stdout) ==
       final_losses(trained.stdout),
       "--weights DIR with no size or variant option: exactly the trained "
       "fused module, its final loss again", again.stderr)
    same = MHA.run([S, "--weights", d, "--tables", "loss", "--format",
                    "csv"] + sizes)
    ok(same.returncode == 0 and same.stdout == again.stdout,
       "options that repeat model.json's values are accepted")
    for opt, fragment in ((["--heads", "4"], "--heads 4: the trained model "
                           "in %s has heads 2" % d),
                          (["--d-model", "16"], "--d-model 16: the trained "
                           "model in %s has d_model 8" % d),
                          (["--variant", "single,fused"], "--variant "
                           "single,fused: the trained model in %s has the "
                           "variants fused" % d),
                          (["--no-causal"], "--no-causal: the trained "
                           "model in %s has causal true" % d),
                          (["--tokens", "chars"], "--tokens chars: the "
                           "trained model in %s has tokens words" % d)):
        MHA.check_error([S, "--weights", d] + opt, fragment,
                        "%s against model.json: status 2 naming both "
                        "values" % " ".join(opt))
    # a --tables name of a head is checked against the folder's heads, not
    # --heads' default (2)
    four = os.path.join(tmp, "quatro")
    train_into(four, ["--variant", "wrapper", "--heads", "4", "--d-out",
                      "8"])
    r = MHA.run([S, "--weights", four, "--tables", "heads.3.W_query.weight",
                 "--format", "csv"])
    ok(r.returncode == 0 and list(tables(r.stdout)) ==
       [("wrapper", "heads.3.W_query.weight")],
       "--tables heads.3.W_query.weight of a 4-head folder: its fourth "
       "head's W_query", r.stderr)
    MHA.check_error([S, "--weights", four, "--tables",
                     "heads.4.W_query.weight"],
                    "--tables: unknown table 'heads.4.W_query.weight'",
                    "--tables heads.4 of a 4-head folder: status 2, unknown")
    # --explain: what runs is the trained module, and says so
    r = MHA.run([S, "--weights", d, "--explain"])
    text = r.stdout.decode("utf-8")
    ok(r.returncode == 0 and "[fused]" in text and "[single]" not in text
       and "[wrapper]" not in text and
       "the trained model that --weights reads" in " ".join(
           line[2:] for line in text.split("\n") if line.startswith("# ")),
       "--explain of the folder: only the trained fused module runs, and "
       "the note says it starts from the trained model")
    # a folder that holds no parameter: empty, or --tables-filtered by an
    # older version (no model.json, no parameter file)
    empty = os.path.join(tmp, "vazio")
    os.mkdir(empty)
    MHA.check_error([S, "--weights", empty],
                    "--weights %s: the folder holds no parameter file of "
                    "the modules this run includes (single, wrapper, "
                    "fused): expected the files --csv-dir writes, such as "
                    "single.W_query.weight.csv" % empty,
                    "an empty --weights folder: status 2 naming it and "
                    "what was expected")
    old = os.path.join(tmp, "filtered")
    os.mkdir(old)
    for name in ("fused.loss.csv", "fused.head0.attn_weights.csv"):
        shutil.copy(os.path.join(d, name if name.endswith("loss.csv")
                                 else "fused.loss.csv"),
                    os.path.join(old, name))
    MHA.check_error([S, "--weights", old, "--variant", "fused"],
                    "--weights %s: the folder holds no parameter file of "
                    "the modules this run includes (fused)" % old,
                    "an older --tables-filtered folder: status 2 naming it")
    # a file of the model missing: named, never drawn from the seed
    part = os.path.join(tmp, "part")
    shutil.copytree(d, part)
    os.remove(os.path.join(part, "fused.W_key.weight.csv"))
    MHA.check_error([S, "--weights", part],
                    "%s/fused.W_key.weight.csv: missing" % part,
                    "model.json with a parameter file missing: status 2 "
                    "naming it")
    # an older folder (no model.json) of a trained fused module: without
    # --variant only fused runs; a --variant with a seeded one is refused
    legacy = os.path.join(tmp, "legacy")
    shutil.copytree(d, legacy)
    os.remove(os.path.join(legacy, "model.json"))
    r = MHA.run([S, "--weights", legacy, "--tables", "loss", "--format",
                 "csv"] + sizes[:6] + ["--positions"])
    ok(r.returncode == 0 and list(tables(r.stdout)) == [("fused", "loss")]
       and final_losses(r.stdout) == final_losses(trained.stdout),
       "a folder without model.json: its trained variants only", r.stderr)
    MHA.check_error([S, "--weights", legacy, "--variant", "single,fused",
                     "--d-model", "8", "--d-out", "8"],
                    "a run does not mix trained and seeded modules",
                    "a folder without model.json and a --variant it has not "
                    "trained: status 2")


def trained_folder_defects(tmp):
    """Trained folders under hostile edits: each is refused with status 2
    before anything is printed, or read as the model it is."""
    # a word that looks like a position label (mp3, v2, covid19)
    w = os.path.join(tmp, "mp3")
    train_into(w, [], "play the mp3 file v2 covid19 now")
    r = MHA.run(["play the mp3 file", "--weights", w, "--tables", "loss",
                 "--format", "csv"])
    ok(r.returncode == 0 and len(final_losses(r.stdout)) == 3,
       "a trained vocabulary with mp3, v2, covid19 reads back", r.stderr)
    d = os.path.join(tmp, "cat")
    train_into(d, [], S)

    def edited(name, edit):
        e = os.path.join(tmp, name)
        shutil.copytree(d, e)
        edit(e)
        return e

    def sort_rows(path):
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines[:1] + sorted(lines[1:]))

    for table in ("embedding", "lm_head"):
        e = edited("sorted-" + table, lambda e: sort_rows(
            os.path.join(e, "fused.%s.weight.csv" % table)))
        MHA.check_error([S, "--weights", e],
                        "fused.%s.weight.csv:2:1: row 0 is labelled 'cat', "
                        "but word 0 of the trained vocabulary is 'the'"
                        % table,
                        "rows of %s.weight sorted in a spreadsheet: status "
                        "2, never vectors paired with other words" % table)
    for table in ("embedding", "lm_head"):
        e = edited("bias-" + table, lambda e: shutil.copy(
            os.path.join(e, "fused.%s.weight.csv" % table),
            os.path.join(e, "fused.%s.bias.csv" % table)))
        MHA.check_error([S, "--weights", e],
                        "fused.%s.bias.csv: a trained model's %s has no bias"
                        % (table, table),
                        "fused.%s.bias.csv: refused, status 2" % table)

    def drop_row(e):
        path = os.path.join(e, "fused.embedding.weight.csv")
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines[:3] + lines[4:])

    e = edited("bad-fused", drop_row)
    for extra in ([], ["--layout", "stack"], ["--format", "csv"]):
        MHA.check_error([S, "--weights", e] + extra,
                        "fused.embedding.weight.csv: has 4 rows",
                        "a bad file of the last variant %s: status 2 before "
                        "the first table is printed" % " ".join(extra))


def natural_sentences(tmp):
    """--lower, --punct and --unk make words of sentences written as
    sentences; the default keeps today's whitespace split."""
    corpus = os.path.join(tmp, "corpus.csv")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write('frase\nO gato come o peixe.\n"O cachorro, feliz, corre."\n'
                "A menina lê um livro!\nO peixe nada; o gato olha.\n")

    def vocab(args):
        r = MHA.run(args + ["--tables", "vocab", "--format", "csv",
                            "--variant", "fused"])
        return r.returncode, [row[4] for row in
                              tables(r.stdout).get(("input", "vocab"), [])]

    base = ["O gato come o peixe", "--train", "2", "--corpus", corpus,
            "--column", "frase"]
    status, words = vocab(base)
    ok(status == 0 and "peixe." in words and "O" in words and "o" in words
       and "cachorro," in words,
       "the default keeps the whitespace split: 'peixe.', 'O' and 'o'",
       words)
    status, words = vocab(base + ["--lower", "--punct", "drop"])
    ok(status == 0 and "peixe." not in words and "O" not in words and
       words[:4] == ["o", "gato", "come", "peixe"] and "cachorro" in words
       and "!" not in words,
       "--lower --punct drop: a vocabulary without 'peixe.' or 'O'", words)
    status, words = vocab(base + ["--punct", "split"])
    ok(status == 0 and words[:6] == ["O", "gato", "come", "o", "peixe", "."]
       and "," in words and "cachorro" in words,
       "--punct split: each mark at a word's end a token of its own", words)
    r = MHA.run(["Olá, guarda-chuva... (sim)", "--punct", "split",
                 "--tables", "tokens", "--format", "csv", "--variant",
                 "single"])
    ok(r.returncode == 0 and [row[4] for row in
                              tables(r.stdout)[("input", "tokens")]] ==
       ["Olá", ",", "guarda-chuva", ".", ".", ".", "(", "sim", ")"],
       "--punct split keeps punctuation inside a word", r.stdout[:300])
    r = MHA.run(["Árvore ÉPICA Ωmega", "--lower", "--tables", "tokens",
                 "--format", "csv", "--variant", "single"])
    ok(r.returncode == 0 and [row[4] for row in
                              tables(r.stdout)[("input", "tokens")]] ==
       ["árvore", "épica", "ωmega"], "--lower lower-cases beyond ASCII",
       r.stdout[:300])
    MHA.check_error(["... !", "--punct", "drop"], "--punct drop",
                    "a sentence of punctuation only with --punct drop: "
                    "status 2")
    MHA.check_error([S, "--punct", "all"], "--punct: 'all' is not keep, "
                    "split or drop", "--punct all: status 2")
    MHA.check_error([S, "--unk"], "--unk: goes with --train N",
                    "--unk without a trained run: status 2")
    # --unk: a word outside the corpus is <unk>, saved and read back
    d = os.path.join(tmp, "unk")
    r = MHA.run(["O gato come o bolo", "--train", "5", "--corpus", corpus,
                 "--column", "frase", "--lower", "--punct", "drop", "--unk",
                 "--variant", "fused", "--csv-dir", d, "--tables",
                 "tokens", "--format", "csv"])
    with open(os.path.join(d, "model.json"), encoding="utf-8") as f:
        m = json.load(f)
    ok(r.returncode == 0 and [row[4] for row in
                              tables(r.stdout)[("input", "tokens")]][-1] ==
       "<unk>" and m["vocab"][-1] == "<unk>" and "bolo" not in m["vocab"]
       and m["lower"] is True and m["punct"] == "drop" and m["unk"] is True,
       "--unk: 'bolo' outside the corpus is <unk>; model.json keeps the "
       "rules", r.stderr)
    r = MHA.run(["O Gato come o Sorvete!", "--weights", d, "--tables",
                 "tokens", "--format", "csv"])
    ok(r.returncode == 0 and [row[4] for row in
                              tables(r.stdout)[("input", "tokens")]] ==
       ["o", "gato", "come", "o", "<unk>"],
       "--weights applies the saved rules: lower-cased, punctuation "
       "dropped, an unknown word <unk>", r.stderr)
    MHA.check_error(["o gato", "--weights", d, "--punct", "keep"],
                    "--punct keep: the trained model in %s has punct drop"
                    % d, "--punct against model.json: status 2")
    r = MHA.run(["O gato", "--weights", d, "--explain", "--tables", "vocab"])
    text = " ".join(line[2:] for line in r.stdout.decode("utf-8").split("\n")
                    if line.startswith("# "))
    ok(r.returncode == 0 and "lower-cased first (--lower)" in text and
       "dropped (--punct drop)" in text and "<unk> (--unk)" in text,
       "--explain says which rules made the tokens", text[:500])
    # continuing the training on new words: they are <unk>, learned
    more = os.path.join(tmp, "more.csv")
    with open(more, "w", encoding="utf-8") as f:
        f.write("frase\nO bolo come gato\nO sorvete nada\n")
    r = MHA.run(["o gato come", "--weights", d, "--train", "3", "--corpus",
                 more, "--column", "frase", "--tables", "embedding.weight",
                 "--format", "csv"])
    before = tables(MHA.run(["o gato come", "--weights", d, "--tables",
                             "embedding.weight", "--format",
                             "csv"]).stdout)[("fused", "embedding.weight")]
    after = tables(r.stdout)[("fused", "embedding.weight")]
    ok(r.returncode == 0 and
       [x[7] for x in after if x[4] == "<unk>"] !=
       [x[7] for x in before if x[4] == "<unk>"],
       "training on sentences with new words learns <unk>'s row", r.stderr)


def concurrent_reader(tmp):
    """A reader of a trained folder while other runs replace it reads one
    training's model, never a mixture of two."""
    a, b, w = (os.path.join(tmp, n) for n in ("A", "B", "W"))
    args = {a: ["--seed", "1"], b: ["--seed", "2"]}
    for d in (a, b):
        train_into(d, args[d])
    read = [S, "--tables", "loss", "--format", "csv", "--weights"]
    want = {MHA.run(read + [d]).stdout for d in (a, b)}
    ok(len(want) == 2, "two trainings, two models")
    train_into(w, args[a])
    cmd = MHA.command([S, "--train", "20", "--csv-dir", w, "--tables",
                       "loss", "--format", "csv"])
    writer = subprocess.Popen(
        ["sh", "-c", 'i=0; while [ $i -lt 60 ]; do "$@" --seed $((i % 2 + 1))'
         ' >/dev/null || exit 1; i=$((i + 1)); done', "sh"] + cmd)
    seen, bad = 0, []
    while writer.poll() is None or seen < 20:
        r = MHA.run(read + [w])
        seen += 1
        if r.returncode != 0 or r.stdout not in want:
            bad.append((r.returncode, r.stdout[:300], r.stderr[:300]))
        if seen > 2000:
            break
    ok(writer.wait() == 0 and not bad,
       "%d reads of a folder being replaced 60 times: each one training's "
       "model" % seen, bad[:3])


def memory(tmp):
    """Training's size check counts what training holds: the parameters,
    their gradients and Adam's averages, the top's logits over the
    longest sentence trained on, the backward pass's tables: each run
    below holds more than the limit only with all of those counted."""
    limit = "(at most 134 million)"
    words = os.path.join(tmp, "words.csv")
    with open(words, "w") as f:
        f.write("text\n")
        for i in range(400):
            f.write(" ".join("w%d_%d" % (i, j) for j in range(20)) + "\n")
    # 8000 words (the most a trained model keeps) at width 2304: embedding
    # and lm_head, 18.4 million values each, the parameters about 58
    # million, held 4 times with their gradients and Adam's averages
    MHA.check_error(["w1_1 w1_2", "--train", "2", "--corpus", words,
                     "--column", "text", "--variant", "single", "--d-model",
                     "2304", "--d-out", "2304", "--heads", "1"], limit,
                    "an 8000-word vocabulary 2304 wide: refused by the size "
                    "check, status 2, one line", hint=False)
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
    losses = re.findall(r"step (\d+) of 300000, loss (\d+\.\d{4})\r", err)
    ok(status == 0 and steps and steps == sorted(steps) and
       all(1 <= k <= 300000 for k in steps) and err.endswith("\r\x1b[K") and
       "\n" not in err,
       "--train on a terminal: 'training fused: step k of N' redrawn in "
       "place, k rising, erased at the end",
       "status %r, stderr %r" % (status, err[:300]))
    ok(losses and all(int(k) > 1 for k, _ in losses) and
       len(losses) == len(steps),
       "the progress line shows the loss of the step before: 'step k of N, "
       "loss 0.1234'", err[:300])
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
        stacks(tmp)
        score_steps()
        self_describing(tmp)
        trained_folder_defects(tmp)
        natural_sentences(tmp)
        concurrent_reader(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
