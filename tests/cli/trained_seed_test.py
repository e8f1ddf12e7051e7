#!/usr/bin/env python3
"""A trained model's folder keeps its training's --seed (model.json's
"training": {"seed": S}) and a run of the folder without --seed is
seeded with it: --weights DIR --head-scores --repeat-random N draws the
words the training run drew, --generate N --sample the same
continuation; --seed chooses other draws. A model.json without the
seed still loads (the default seed); a malformed one (negative, past
2^64 - 1, a fraction, not a number) is refused: status 2, one line.

The rest of the record travels too: a run of the folder with no
--train, written with --csv-dir (into the folder itself, or a copy),
writes the folder's "training" and "final_loss" back unchanged rather
than a record of 0 steps; --explain says how many steps, which
optimizer, --lr and corpus model.json gives, and tells of no update
(a model.json without the record says it does not say); a run that
trains further (--train N) records the folder's steps and its own:
"steps" the sum, "steps_before" the folder's, its own optimizer, --lr
and corpus, and --explain of the folder it saved says so (3 steps, then
2 more: 5 in all, 3 of an earlier training). A "steps_before" of 0 or
more than "steps" leaves the record unread.

Usage: trained_seed_test.py MHA_EXPLAIN

Prints TAP.
"""
import json
import os
import shutil
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])


def model_args(corpus, seed):
    return ["--corpus", corpus, "--column", "text", "--variant", "block",
            "--layers", "2", "--attn-only", "--d-model", "8", "--heads", "2",
            "--positions", "--seed", seed, "--threads", "1", "--train", "20"]


def run_out(args, name):
    r = MHA.run(args + ["--format", "csv"])
    ok(r.returncode == 0, "%s: status 0" % name, r.stderr)
    return r.stdout


def edited(folder, tmp, name, edit):
    """A copy of folder whose model.json (a dict) edit changes."""
    e = os.path.join(tmp, name)
    shutil.copytree(folder, e)
    path = os.path.join(e, "model.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    edit(manifest)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    return e


def seed_text(folder):
    """model.json's "seed" exactly as written."""
    with open(os.path.join(folder, "model.json"), encoding="utf-8") as f:
        text = f.read()
    at = text.index('"seed": ') + len('"seed": ')
    return text[at:text.index(",", at)]


def explained(folder):
    """The # notes of --explain of a run of folder, as one line."""
    r = MHA.run(["--weights", folder, "the cat sat", "--explain"])
    ok(r.returncode == 0, "--weights %s --explain: status 0"
       % os.path.basename(folder), r.stderr)
    return " ".join(line[2:] for line in r.stdout.decode().split("\n")
                    if line.startswith("# "))


def history(tmp):
    """3 steps saved, read back and trained 2 more, saved, then 1 more:
    each record counts every step; a bad steps_before is left unread."""
    first, second, third = (os.path.join(tmp, n)
                            for n in ("three", "five", "six"))
    base = ["the cat sat on the mat", "--variant", "fused", "--d-model", "8",
            "--heads", "2", "--threads", "1"]
    r = MHA.run(base + ["--train", "3", "--csv-dir", first])
    ok(r.returncode == 0, "--train 3 --csv-dir: status 0", r.stderr)
    r = MHA.run(["--weights", first, "the cat sat on the mat", "--train", "2",
                 "--optimizer", "sgd", "--lr", "0.1", "--csv-dir", second])
    ok(r.returncode == 0, "--weights DIR --train 2 --csv-dir: status 0",
       r.stderr)
    r = MHA.run(["--weights", second, "the cat sat on the mat", "--train",
                 "1", "--csv-dir", third])
    ok(r.returncode == 0, "--weights DIR --train 1 --csv-dir: status 0",
       r.stderr)
    records = []
    for folder in (first, second, third):
        with open(os.path.join(folder, "model.json"), encoding="utf-8") as f:
            records.append(json.load(f)["training"])
    ok([(t["steps"], t.get("steps_before")) for t in records] ==
       [(3, None), (5, 3), (6, 5)] and records[1]["optimizer"] == "sgd" and
       records[1]["lr"] == 0.1,
       "3 steps, 2 more, 1 more: model.json says 3, then 5 (3 before, the "
       "last run's sgd and lr 0.1), then 6 (5 before)", records)
    text = explained(second)
    said = ("its model.json says it took 5 steps in all: 3 of an earlier "
            "training, which it does not describe, then 2 steps of SGD with "
            "--lr 0.1 on one sentence.")
    ok(said in text, "--explain of the folder trained 3 then 2 steps: 5 "
       "in all, 3 earlier, the last 2 of SGD", text[:700])
    text = explained(third)
    ok("it took 6 steps in all: 5 of an earlier training, which it does "
       "not describe, then 1 step of Adam with --lr 0.01 on one sentence."
       in text, "--explain after one more step: 6 in all, 1 step (singular)",
       text[:700])
    for name, value in (("zero", 0), ("past-steps", 7), ("text", "3")):
        e = edited(second, tmp, "before-" + name,
                   lambda m: m["training"].update(steps_before=value))
        ok("does not say how it was trained" in explained(e),
           "model.json's steps_before %r: the record is left unread" %
           (value,))


def main():
    tmp = tempfile.mkdtemp()
    corpus = os.path.join(tmp, "corpus.csv")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write("text\nthe cat sat on the mat\nthe dog sat on the rug\n"
                "a cat saw the dog\n")
    random = ["--head-scores", "--repeat-random", "3"]
    sample = ["the cat sat", "--generate", "3", "--sample", "--tables",
              "generated"]
    folders = {}
    # the seeds: one, --seed -1 (kept as 2^64 - 1) and 2^53 + 1, which a
    # double would read as 2^53
    for seed, kept in (("1", "1"), ("-1", "18446744073709551615"),
                       ("9007199254740993", "9007199254740993")):
        d = os.path.join(tmp, "model" + seed)
        r = MHA.run(model_args(corpus, seed) + ["the cat sat on the mat",
                                                "--csv-dir", d])
        ok(r.returncode == 0 and seed_text(d) == kept,
           "--seed %s: model.json keeps the seed, %s" % (seed, kept),
           r.stderr)
        folders[seed] = d
        trained = run_out(model_args(corpus, seed) + random,
                          "--seed %s --repeat-random 3" % seed)
        read = run_out(["--weights", d, "--variant", "block"] + random,
                       "--weights DIR --repeat-random 3")
        ok(read == trained,
           "--weights DIR (trained with --seed %s) --repeat-random 3, no "
           "--seed: the words the training run drew" % seed, read[-300:])
    d = folders["1"]
    trained = run_out(model_args(corpus, "1") + sample,
                      "--seed 1 --generate 3 --sample")
    read = run_out(["--weights", d] + sample,
                   "--weights DIR --generate 3 --sample")
    ok(read == trained and b"generated" in read,
       "--weights DIR --generate 3 --sample, no --seed: the training "
       "run's continuation", (trained[-300:], read[-300:]))
    trained = run_out(model_args(corpus, "1") + random,
                      "--seed 1 --repeat-random 3")
    other = run_out(["--weights", d, "--variant", "block", "--seed", "2"] +
                    random, "--weights DIR --seed 2 --repeat-random 3")
    ok(other != trained,
       "--weights DIR --seed 2: --seed chooses other draws")
    r = MHA.run(["--weights", d, "--variant", "block", "--explain"] + random)
    ok(r.returncode == 0 and
       b"torch.manual_seed(1)" in r.stdout.replace(b"\n# ", b" "),
       "--explain names the folder's seed", r.stdout[-600:])

    # a model.json without the seed, or without "training": read, and the
    # run's seed is --seed's default
    default = run_out(["--weights", d, "--variant", "block", "--seed",
                       "42"] + random, "--weights DIR --seed 42")
    for name, edit in (("no-seed", lambda m: m["training"].pop("seed")),
                       ("no-training", lambda m: m.pop("training"))):
        e = edited(d, tmp, name, edit)
        read = run_out(["--weights", e, "--variant", "block"] + random,
                       "--weights DIR (%s)" % name)
        ok(read == default,
           "model.json %s: loads, seeded by --seed's default 42" % name)

    # the record travels: a run of no step writes the folder's own
    with open(os.path.join(d, "model.json"), encoding="utf-8") as f:
        before = json.load(f)
    for name, into in (("itself", None), ("a copy", "copy")):
        src = d if into is None else d
        out = os.path.join(tmp, "resaved") if into else None
        if into is None:
            out = os.path.join(tmp, "inplace")
            shutil.copytree(d, out)
            src = out
        r = MHA.run(["--weights", src, "--variant", "block", "the cat sat",
                     "--csv-dir", out])
        with open(os.path.join(out, "model.json"), encoding="utf-8") as f:
            after = json.load(f)
        ok(r.returncode == 0 and after["training"] == before["training"] and
           after["final_loss"] == before["final_loss"],
           "--weights DIR --csv-dir (%s), no --train: model.json keeps the "
           "training record (%d steps, lr %g) and final_loss" %
           (name, before["training"]["steps"], before["training"]["lr"]),
           (r.stderr, after.get("training"), after.get("final_loss")))
    more = os.path.join(tmp, "more")
    r = MHA.run(["--weights", d, "--variant", "block", "the cat sat",
                 "--train", "2", "--lr", "0.5", "--csv-dir", more])
    with open(os.path.join(more, "model.json"), encoding="utf-8") as f:
        after = json.load(f)
    ok(r.returncode == 0 and after["training"]["steps"] == 22 and
       after["training"]["steps_before"] == 20 and
       after["training"]["lr"] == 0.5 and
       after["training"]["corpus"] is None,
       "--weights DIR --train 2 --lr 0.5: model.json records the folder's "
       "20 steps and this run's 2 (steps 22, steps_before 20, this run's "
       "lr and corpus)", (r.stderr, after.get("training")))
    history(tmp)
    r = MHA.run(["--weights", d, "--variant", "block", "the cat sat",
                 "--explain"])
    text = " ".join(line[2:] for line in r.stdout.decode().split("\n")
                    if line.startswith("# "))
    said = ("its model.json says it took 20 steps of Adam with --lr 0.01 on "
            "the sentences of %s" % corpus)
    ok(r.returncode == 0 and said in text and "takes 0 steps" not in text and
       "torch.optim.Adam's defaults" not in text and
       "Row step i" not in text and
       "No step is taken" in text,
       "--explain of the folder: the training model.json records, no "
       "update of this run", text[:700])
    e = edited(d, tmp, "no-record", lambda m: m.pop("training"))
    r = MHA.run(["--weights", e, "--variant", "block", "the cat sat",
                 "--explain"])
    text = " ".join(line[2:] for line in r.stdout.decode().split("\n")
                    if line.startswith("# "))
    ok(r.returncode == 0 and "does not say how it was trained" in text,
       "--explain of a folder without the record says it does not say",
       text[:500])

    # a malformed seed: status 2, one line naming the file
    for name, value in (("negative", -1), ("huge", 18446744073709551616),
                        ("far", 10 ** 30), ("fraction", 7.5),
                        ("float", 1e3), ("string", "7"), ("null", None),
                        ("list", [7])):
        e = edited(d, tmp, "seed-" + name,
                   lambda m: m["training"].update(seed=value))
        MHA.check_error(["--weights", e, "--variant", "block"] + random,
                        "%s: the training's 'seed' must be a whole number "
                        "from 0 to 18446744073709551615"
                        % os.path.join(e, "model.json"),
                        "model.json's seed %s (%r): status 2, one line"
                        % (name, value), hint=False)
    e = edited(d, tmp, "training-text", lambda m: m.update(training="x"))
    MHA.check_error(["--weights", e, "--variant", "block"] + random,
                    "the field 'training' is missing or of the wrong type",
                    "model.json's training not an object: status 2, one line",
                    hint=False)
    shutil.rmtree(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
