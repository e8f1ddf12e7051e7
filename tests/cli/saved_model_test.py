#!/usr/bin/env python3
"""A trained model's folder (--train --csv-dir, read back with --weights)
under a careful user's runs: a diverged training is not saved (nor its
--html page written), a folder
written with --decimal-comma reads back to the same numbers, and
model.json's sizes against the options of a run that reopens it.

Usage: saved_model_test.py MHA_EXPLAIN

Prints TAP.
"""
import csv
import io
import json
import os
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
S = "the cat sat on the mat"


def folder_bytes(d):
    """{name: bytes} of every file in folder d, or None without it."""
    if not os.path.isdir(d):
        return None
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out[name] = f.read()
    return out


def loss_rows(stdout, delimiter=","):
    """The loss rows of a --format csv output: [(variant, value text)]."""
    rows = list(csv.reader(io.StringIO(stdout.decode("utf-8")),
                           delimiter=delimiter))[1:]
    return [(row[0], row[7]) for row in rows if row[2] == "loss"]


def diverged(tmp):
    """--csv-dir or --html of a diverged training: status 2, one line
    naming the step, no folder or page made, and a folder or page there
    already left as it was."""
    bad = [S, "--train", "20", "--optimizer", "sgd", "--lr", "1e30",
           "--variant", "single,block", "--d-model", "4"]
    d = os.path.join(tmp, "diverged")
    MHA.check_error(bad + ["--csv-dir", d],
                    "--csv-dir %s: single: the loss is not finite from step "
                    "1 on, so the trained model is not saved (try a smaller "
                    "--lr)" % d,
                    "--csv-dir of a diverged training: status 2, one line "
                    "naming the step", hint=False)
    ok(not os.path.exists(d), "--csv-dir of a diverged training: no folder "
       "made", os.listdir(tmp))
    MHA.run([S, "--train", "20", "--variant", "single,block", "--d-model",
             "4", "--csv-dir", d])
    saved = folder_bytes(d)
    MHA.check_error(bad + ["--csv-dir", d], "is not saved",
                    "--csv-dir of a diverged training over a saved model: "
                    "status 2", hint=False)
    ok(saved is not None and "model.json" in saved and
       folder_bytes(d) == saved,
       "--csv-dir of a diverged training over a saved model: the folder "
       "left byte for byte as it was")
    # --html's page of a diverged training: refused as --csv-dir is, no
    # page written, an earlier page left as it was
    page = os.path.join(tmp, "diverged.html")
    MHA.check_error(bad + ["--html", page],
                    "--html %s: single: the loss is not finite from step 1 "
                    "on, so the page of the training is not written (try a "
                    "smaller --lr)" % page,
                    "--html of a diverged training: status 2, one line "
                    "naming the step", hint=False)
    ok(not os.path.exists(page), "--html of a diverged training: no page "
       "written")
    MHA.run([S, "--train", "20", "--variant", "single", "--d-model", "4",
             "--html", page])
    with open(page, "rb") as f:
        good = f.read()
    MHA.check_error(bad + ["--html", page], "the page of the training is "
                    "not written", "--html of a diverged training over a "
                    "page: status 2", hint=False)
    with open(page, "rb") as f:
        ok(f.read() == good, "--html of a diverged training over a page: "
           "the page left byte for byte as it was")
    # without --csv-dir nothing is saved: the loss shows the divergence
    r = MHA.run(bad + ["--tables", "loss", "--format", "csv"])
    ok(r.returncode == 0 and ("single", "nan") in loss_rows(r.stdout),
       "a diverged training without --csv-dir: shown, status 0", r.stderr)


def decimal_comma(tmp):
    """model.json records how its folder's CSV files are written, and
    --weights reads them so, whatever the reopening run's options."""
    args = [S, "--train", "20", "--variant", "single", "--tables", "loss",
            "--format", "csv"]
    comma = os.path.join(tmp, "comma")
    trained = MHA.run(args + ["--csv-dir", comma, "--decimal-comma"])
    with open(os.path.join(comma, "model.json"), encoding="utf-8") as f:
        m = json.load(f)
    ok(trained.returncode == 0 and
       m.get("csv") == {"delimiter": ";", "decimal_comma": True},
       "model.json of a --decimal-comma folder records its CSV form",
       m.get("csv"))
    final = loss_rows(trained.stdout, ";")[-1][1]
    for opts, delim in (([], ","), (["--decimal-comma"], ";"),
                        (["--csv-delimiter", "tab"], "\t")):
        r = MHA.run([S, "--weights", comma, "--tables", "loss", "--format",
                     "csv"] + opts)
        got = loss_rows(r.stdout, delim)
        ok(r.returncode == 0 and
           [v.replace(",", ".") for _, v in got] == [final.replace(",", ".")],
           "a --decimal-comma folder reopened with %s: the same final loss"
           % (" ".join(opts) or "no CSV option"), r.stderr)
    point = os.path.join(tmp, "point")
    trained = MHA.run(args + ["--csv-dir", point, "--csv-delimiter", "tab"])
    with open(os.path.join(point, "model.json"), encoding="utf-8") as f:
        m = json.load(f)
    ok(m.get("csv") == {"delimiter": "\t", "decimal_comma": False},
       "model.json of a --csv-delimiter tab folder records it", m.get("csv"))
    r = MHA.run([S, "--weights", point, "--tables", "loss", "--format", "csv",
                 "--decimal-comma"])
    ok(r.returncode == 0 and
       loss_rows(r.stdout, ";")[0][1].replace(",", ".") ==
       loss_rows(trained.stdout, "\t")[-1][1],
       "a tab folder reopened with --decimal-comma: the same final loss",
       r.stderr)
    # a folder written before "csv" was recorded: the options' form
    old = os.path.join(tmp, "old")
    os.rename(comma, old)
    with open(os.path.join(old, "model.json"), encoding="utf-8") as f:
        m = json.load(f)
    m.pop("csv", None)
    with open(os.path.join(old, "model.json"), "w", encoding="utf-8") as f:
        json.dump(m, f)
    r = MHA.run([S, "--weights", old, "--tables", "loss", "--format", "csv",
                 "--decimal-comma"])
    ok(r.returncode == 0 and loss_rows(r.stdout, ";")[0][1] == final,
       "a folder without 'csv': read with --decimal-comma as given",
       r.stderr)
    for bad in ({"delimiter": ",", "decimal_comma": True},
                {"delimiter": "ab", "decimal_comma": False},
                {"delimiter": "1", "decimal_comma": False},
                {"delimiter": ";"}, ";"):
        m["csv"] = bad
        with open(os.path.join(old, "model.json"), "w",
                  encoding="utf-8") as f:
            json.dump(m, f)
        MHA.check_error([S, "--weights", old, "--decimal-comma"],
                        "model.json: 'csv' must be",
                        "model.json's 'csv' %r: status 2 naming the field"
                        % (bad,), hint=False)


def block_d_out(tmp):
    """A block's attention is d_model wide whatever --d-out says:
    model.json records that width as d_out, a run reopening the folder
    takes it without --d-out, accepts --d-out giving it and refuses
    another, naming both values; an older folder that wrote --d-out's
    unused value is read the same."""
    b = os.path.join(tmp, "block")
    MHA.run([S, "--train", "5", "--variant", "block", "--d-model", "8",
             "--csv-dir", b])
    manifest = os.path.join(b, "model.json")
    with open(manifest, encoding="utf-8") as f:
        m = json.load(f)
    ok(m["d_model"] == 8 and m["d_out"] == 8,
       "model.json of a block: d_out is its attention's width, d_model",
       (m["d_model"], m["d_out"]))
    for written in (8, 4):
        m["d_out"] = written
        with open(manifest, "w", encoding="utf-8") as f:
            json.dump(m, f)
        plain = MHA.run([S, "--weights", b, "--tables", "loss", "--format",
                         "csv"])
        same = MHA.run([S, "--weights", b, "--tables", "loss", "--format",
                        "csv", "--d-out", "8"])
        ok(plain.returncode == 0 and same.stdout == plain.stdout and
           len(loss_rows(plain.stdout)) == 1,
           "a block's folder (\"d_out\": %d) reopened without --d-out and "
           "with --d-out 8: the same run" % written, same.stderr)
        MHA.check_error([S, "--weights", b, "--d-out", "4"],
                        "--d-out 4: the trained model in %s has the variants "
                        "block, whose attention is d_model 8 wide (its "
                        "model.json); leave the option out, or give 8" % b,
                        "a block's folder (\"d_out\": %d) reopened with "
                        "--d-out 4: status 2 naming both widths" % written)
    # beside a d_out-wide variant, d_out is that variant's
    both = os.path.join(tmp, "both")
    MHA.run([S, "--train", "5", "--variant", "single,block", "--d-model",
             "8", "--csv-dir", both])
    with open(os.path.join(both, "model.json"), encoding="utf-8") as f:
        m = json.load(f)
    ok(m["d_out"] == 4, "model.json of single and block: single's d_out 4",
       m["d_out"])
    MHA.check_error([S, "--weights", both, "--d-out", "8"],
                    "--d-out 8: the trained model in %s has d_out 4" % both,
                    "single and block reopened with --d-out 8: status 2 "
                    "naming both values")


def huge_sizes(tmp):
    """A size past its limit, however large, is said to be out of range
    or too large, with the limit: an option's, and model.json's (a
    fraction there is not a whole number)."""
    for opt, limit in (("--d-model", 8192), ("--d-out", 8192),
                       ("--heads", 1024), ("--ff", 32768)):
        MHA.check_error([S, opt, "99999999999999999999"],
                        "%s: 99999999999999999999 is out of range (expected "
                        "1 to %d)" % (opt, limit),
                        "%s 99999999999999999999: status 2, out of range, "
                        "the limit" % opt)
    d = os.path.join(tmp, "huge")
    MHA.run([S, "--train", "2", "--variant", "single", "--csv-dir", d])
    manifest = os.path.join(d, "model.json")
    with open(manifest, encoding="utf-8") as f:
        text = f.read()
    for value, fragment in (
            ("99999999999999999999", "the field 'd_model' is "
             "99999999999999999999, too large (at most 8192)"),
            ("1e400", "the field 'd_model' is 1e400, too large (at most "
             "8192)"),
            ("8193", "the field 'd_model' is 8193, too large (at most "
             "8192)"),
            ("2.5", "the field 'd_model' must be a whole number from 1 to "
             "8192")):
        with open(manifest, "w", encoding="utf-8") as f:
            f.write(text.replace('"d_model": 3', '"d_model": ' + value))
        MHA.check_error([S, "--weights", d], fragment,
                        "model.json's d_model %s: status 2, %s" %
                        (value, fragment.split(", ")[-1]), hint=False)


def vocab_limit(tmp):
    """A corpus of 8000 different words (MAX_VOCAB) trains and its
    --csv-dir folder is read back by --weights; one more word is refused
    before training, and no folder is made."""
    for n in (8000, 8001):
        words = ["w%d" % i for i in range(n)]
        lines = [" ".join(words[i:i + 2]) for i in range(0, n, 2)]
        if len(lines[-1].split()) == 1:
            lines[-1] += " w0"
        corpus = os.path.join(tmp, "c%d.csv" % n)
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("text\n" + "\n".join(lines) + "\n")
        d = os.path.join(tmp, "v%d" % n)
        train = ["--corpus", corpus, "--column", "text", "--train", "2",
                 "--variant", "block", "--d-model", "4", "--heads", "2",
                 "--csv-dir", d, "w0 w1"]
        if n == 8000:
            r = MHA.run(train)
            back = MHA.run(["--weights", d, "--tables", "next_tokens",
                            "w0 w1"])
            ok(r.returncode == 0 and back.returncode == 0 and
               back.stdout != b"",
               "a corpus of 8000 different words: trained, saved and read "
               "back by --weights", r.stderr.decode() + back.stderr.decode())
        else:
            MHA.check_error(train, "have 8001 different words; a trained "
                            "model keeps at most 8000",
                            "a corpus of 8001 different words: refused "
                            "before training", hint=False)
            ok(not os.path.exists(d), "no folder is made for it")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        vocab_limit(tmp)
        diverged(tmp)
        decimal_comma(tmp)
        block_d_out(tmp)
        huge_sizes(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
