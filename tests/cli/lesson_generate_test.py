#!/usr/bin/env python3
"""--generate N with a trained lesson model, end to end.

    lesson_generate_test.py MHA_EXPLAIN REFERENCE_DIR

REFERENCE_DIR is tests/reference/lesson_generate: each case's arguments
(--train on a corpus, --generate, greedy or --sample with the warpers)
and the words PyTorch's notebook picked when called in a loop on the
whole sequence (make_lesson_generate_reference.py). Every value of each
variant's table generated in the tidy CSV must be PyTorch's float32
exactly; with --kv-steps, every value of each step's tables (the book's
classes' tensors at that step, read by hooks); then the positions'
limit, the model read back with --weights (its generation bounded by the
longest sentence trained on, which model.json records), and bad input:
status 2, one
line, nothing on standard output.
"""
import csv
import io
import json
import os
import struct
import sys
import tempfile

from taplib import Program, done, ok

PROGRAM = Program(sys.argv[1])
REF = sys.argv[2]
COLUMNS = ["id", "probability", "p_logits", "top_k_kept", "top_p_kept"] + \
    [c for k in range(1, 6) for c in ("top%d" % k, "p%d" % k)]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def from_bits(h):
    return struct.unpack(">f", bytes.fromhex(h))[0]


def args_of(name):
    with open(os.path.join(REF, name + ".args"), encoding="utf-8") as fh:
        return [a.replace("{DIR}", REF) for a in fh.read().splitlines()]


def generated(args):
    """The run's generated tables: {variant: [row {column: value}]}."""
    r = PROGRAM.run(args + ["--tables", "generated", "--format", "csv"])
    tables = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode())):
        rows = tables.setdefault(row["variant"], {})
        rows.setdefault(int(row["row"]), {})[row["col_label"]] = \
            float(row["value"])
    return r, {v: [t[i] for i in sorted(t)] for v, t in tables.items()}


def expected(name):
    with open(os.path.join(REF, name + ".json"), encoding="utf-8") as fh:
        ref = json.load(fh)
    want = {}
    for variant, rows in ref["variants"].items():
        want[variant] = [
            {c: (from_bits(v) if isinstance(v, str) else float(v))
             for c, v in zip(COLUMNS, row)} for row in rows]
    return ref, want


def differing(got, want):
    """How many values differ, and the rows' counts."""
    wrong = 0
    for variant, rows in want.items():
        mine = got.get(variant, [])
        wrong += abs(len(mine) - len(rows))
        for a, b in zip(mine, rows):
            wrong += sum(f32(a.get(c, float("nan"))) != b[c] for c in COLUMNS)
    return wrong + len(set(got) - set(want))


def matches_reference(name):
    ref, want = expected(name)
    r, got = generated(args_of(name))
    err = r.stderr.decode()
    n = sum(len(rows) for rows in want.values())
    wrong = differing(got, want)
    ok(r.returncode == 0 and wrong == 0,
       "%s: every value of generated is PyTorch's (%d rows in %d variants, "
       "%d differ)" % (name, n, len(want), wrong), err)
    full = ref["context_full"]
    said = "at most %d positions" % full in err
    ok(len(err.splitlines()) == (1 if full else 0) and (said or not full),
       "%s: %s" % (name, "the positions full: one note on stderr" if full
                   else "no note"), err)
    return got


STEP_TABLES = ["queries", "keys", "values", "attn_scores", "attn_weights",
               "head_context"]


def step_tables(stdout):
    """The tidy CSV's tables of the generation steps: {(variant, step,
    layer, head, table): {(row, col): value}}, and kv_cache_size's rows
    per variant: {variant: {row: {column: value}}}."""
    tables, cache = {}, {}
    for row in csv.DictReader(io.StringIO(stdout.decode())):
        if row["table"] == "kv_cache_size":
            cache.setdefault(row["variant"], {}).setdefault(
                int(row["row"]), {})[row["col_label"]] = float(row["value"])
        if row["step"] == "":
            continue
        key = (row["variant"], int(row["step"]), int(row.get("layer") or 0),
               int(row["head"]), row["table"])
        tables.setdefault(key, {})[(int(row["row"]), int(row["col"]))] = \
            float(row["value"])
    return tables, cache


def matches_steps(name, layers):
    """--kv-steps: each step's tables are PyTorch's, bit for bit, and
    kv_cache_size counts what a cache would hold."""
    with open(os.path.join(REF, name + ".steps.json"), encoding="utf-8") as fh:
        ref = json.load(fh)
    args = args_of(name)
    r = PROGRAM.run(args + ["--format", "csv"])
    got, cache = step_tables(r.stdout)
    n = wrong = values = 0
    for variant, kept in ref.items():
        for step, layer, head, table, rows, cols, hexes in kept:
            want = [from_bits(hexes[8 * i:8 * i + 8])
                    for i in range(rows * cols)]
            mine = got.pop((variant, step, layer, head, table), {})
            n += 1
            values += len(want)
            wrong += len(mine) != len(want) or any(
                f32(mine.get((i // cols, i % cols), float("nan"))) != w
                for i, w in enumerate(want))
    ok(r.returncode == 0 and n > 0 and wrong == 0 and not got,
       "%s --kv-steps: every step's q, k, v, scores, weights and context "
       "are PyTorch's (%d tables, %d values, %d differ, %d not in the "
       "reference)" % (name, n, values, wrong, len(got)),
       r.stderr.decode()[-400:])
    # a cache of the keys and values (every layer, all heads' columns)
    # would hold 2 x L x P x width values after each step
    steps = {s for kept in ref.values() for s, *_ in kept}
    T = len(args[-1].split())
    width = {v: sum(c for s, l, h, t, _, c, _ in kept
                    if s == 1 and l == 0 and t == "keys")
             for v, kept in ref.items()}
    right = all(
        [cache.get(v, {}).get(s) for s in range(len(steps) + 1)] ==
        [{"positions": T + s, "values": 2 * layers * (T + s) * width[v],
          "bytes": 8 * layers * (T + s) * width[v]}
         for s in range(len(steps) + 1)] for v in ref)
    ok(right, "%s: kv_cache_size, per step what a cache would hold" % name,
       cache)


def folder_context():
    """A folder trained without --positions records the longest sentence
    trained on (model.json's context_length), and read back with
    --weights its generation is bounded by it, not by the prompt: 6 words
    of the corpus, so "the dog sat" gets 4 (the last predicted from the
    sixth position) and the note says 6; a longer prompt gets the one word
    its last position predicts. A folder written before the field lacks
    it: not bounded (but by the most a sentence may have)."""
    with tempfile.TemporaryDirectory() as d:
        corpus = os.path.join(d, "corpus.csv")
        with open(corpus, "w") as fh:
            fh.write("text\nthe cat sat on the mat\nthe dog sat on the rug\n"
                     "a cat and a dog\n")
        for variant in (["fused"], ["block", "--layers", "2"]):
            folder = os.path.join(d, variant[0])
            r = PROGRAM.run(["the cat sat on the mat", "--train", "50",
                             "--variant"] + variant +
                            ["--d-model", "16", "--d-out", "16", "--heads",
                             "4", "--corpus", corpus, "--column", "text",
                             "--csv-dir", folder, "--tables", "loss"])
            with open(os.path.join(folder, "model.json")) as fh:
                saved = json.load(fh) if r.returncode == 0 else {}
            ok(saved.get("context_length") == 6 and saved["positions"] == 0,
               "%s: model.json records the longest sentence trained on"
               % variant[0], saved.get("context_length"))
            r, got = generated(["--weights", folder, "--generate", "5",
                                "the dog sat"])
            err = r.stderr.decode()
            ok(r.returncode == 0 and len(got.get(variant[0], [])) == 4 and
               "at most 6 positions" in err and len(err.splitlines()) == 1,
               "%s read back: generation bounded by the 6 words trained on, "
               "not by the prompt's 3" % variant[0],
               (len(got.get(variant[0], [])), err))
            r, got = generated(["--weights", folder, "--generate", "5",
                                "the dog sat on the mat and the cat"])
            ok(r.returncode == 0 and len(got.get(variant[0], [])) == 1 and
               "at most 6 positions" in r.stderr.decode(),
               "%s read back: a prompt longer than that gets one word"
               % variant[0], (len(got.get(variant[0], [])), r.stderr))
        # the interventions' model (lesson_lm.c) read back as it is is
        # bounded the same: --repeat-random's 2 x 3 words fit, 2 x 4 not
        folder = os.path.join(d, "block")
        r = PROGRAM.run(["--weights", folder, "--variant", "block",
                         "--repeat-random", "3", "--head-scores"])
        ok(r.returncode == 0 and r.stderr == b"",
           "block read back: --repeat-random 3 within the 6 words trained "
           "on", r.stderr)
        PROGRAM.check_error(["--weights", folder, "--variant", "block",
                             "--repeat-random", "4", "--head-scores"],
                            "more than the model's 6 positions",
                            "block read back: --repeat-random 4 runs past "
                            "the 6 words trained on: refused")
        folder = os.path.join(d, "fused")
        with open(os.path.join(folder, "model.json")) as fh:
            saved = json.load(fh)
        del saved["context_length"]
        with open(os.path.join(folder, "model.json"), "w") as fh:
            json.dump(saved, fh)
        r, got = generated(["--weights", folder, "--generate", "5",
                            "the dog sat"])
        ok(r.returncode == 0 and len(got.get("fused", [])) == 5 and
           r.stderr == b"",
           "a folder whose model.json does not record it: the words asked "
           "for, unbounded", (len(got.get("fused", [])), r.stderr))


def main():
    matches_steps("steps", 1)
    matches_steps("steps_stack", 2)
    greedy = matches_reference("greedy")
    matches_reference("sample_warped")
    matches_reference("sample_default")
    matches_reference("greedy_no_positions")
    matches_reference("steps")
    matches_reference("steps_stack")
    folder_context()

    # the text: each variant's continuation between the marks, the words
    # of its generated table each after a space; the ids without decimals
    args = args_of("greedy")
    r = PROGRAM.run(args + ["--tables", "generated"])
    text = r.stdout.decode()
    c = PROGRAM.run(args + ["--tables", "generated", "--format", "csv"])
    words = {}
    for row in csv.DictReader(io.StringIO(c.stdout.decode())):
        if row["col_label"] == "id":
            words.setdefault(row["variant"], []).append(row["row_label"])
    lines = ["[%s] the text continued (the new text between \u27e6 \u27e7):\n"
             "%s\u27e6%s\u27e7" % (v, args[-1], "".join(" " + w for w in ws))
             for v, ws in words.items()]
    ok(r.returncode == 0 and len(words) == 4 and
       all(line in text for line in lines),
       "the text shows each variant's continuation between the marks",
       text[-600:])
    first = [ln for ln in text.splitlines() if ln.startswith("ran ")]
    ok(first and first[0].split()[1] == "9" and ".0000" not in
       first[0].split()[4] and "." in first[0].split()[2],
       "generated prints ids and counts as integers, probabilities with "
       "decimals", first)

    # the same seed, the same words
    args = args_of("sample_warped") + ["--tables", "generated"]
    a, b = PROGRAM.run(args), PROGRAM.run(args)
    ok(a.returncode == 0 and a.stdout == b.stdout and b"saw" in a.stdout,
       "the same seed gives the same words")

    # --explain: no cache, the whole sequence each step, and the warpers
    e = PROGRAM.run(args_of("sample_warped") + ["--tables", "generated",
                                                "--explain"]).stdout.decode()
    ok("no KV cache" in e and "whole sequence" in e and "top-p" in e and
       "1: 5, 2," in e, "--explain: no cache, and each step's warpers",
       e[:600])

    # --explain: what a cache would save, with the run's numbers: the
    # prompt's 2 words, then 3, 4 and 5 positions run again (14 rows); a
    # cache computes 2, then one a step (5)
    e = PROGRAM.run(args_of("steps") + ["--tables", "generated",
                                        "--explain"]).stdout.decode()
    said = " ".join(ln[2:] for ln in e.splitlines() if ln.startswith("# "))
    ok("these 4 steps computed 14 rows" in said and
       "would compute 5 of them, the prompt's 2" in said and "9 fewer" in said,
       "--explain: what a cache would save, with the run's numbers",
       said[:900])

    # the trained model saved with --csv-dir and read back with --weights
    # generates the same words
    args = args_of("greedy")
    prompt = args.pop()
    with tempfile.TemporaryDirectory() as d:
        folder = os.path.join(d, "model")
        r = PROGRAM.run(args + ["--csv-dir", folder, "--tables", "loss",
                                prompt])
        ok(r.returncode == 0, "the trained model saved", r.stderr.decode())
        r, again = generated(["--weights", folder, "--generate", "20",
                              prompt])
        ok(r.returncode == 0 and again == greedy,
           "read back with --weights, it generates the same words and "
           "probabilities (%d variants)" % len(again), r.stderr.decode())

    # --stop: the words stop at the first that ends with the text
    # the reference's --variant list replaced by fused (a list is given once)
    base = args_of("greedy")[:-1]
    at = base.index("--variant")
    base[at + 1] = "fused"
    r, got = generated(base + ["--stop", "park", "the dog"])
    words = [int(row["id"]) for row in got.get("fused", [])]
    full = [int(row["id"]) for row in greedy["fused"]]
    ok(r.returncode == 0 and 0 < len(words) < len(full) and
       words == full[:len(words)],
       "--stop park: the words so far, up to park", (words, full))

    # bad input: one line, status 2
    PROGRAM.check_error(["--generate", "2", "the cat"], "once trained",
                        "--generate with an untrained lesson model")
    PROGRAM.check_error(["--variant", "fused", "--generate", "2", "--sample",
                         "the cat"], "once trained",
                        "--generate --sample with an untrained lesson model")
    for extra, fragment in [
            (["--generate", "0"], "--generate"),
            (["--generate", "2", "--top-k", "3"], "goes with --sample"),
            (["--generate", "2", "--sample", "--temperature", "0"],
             "not a temperature"),
            (["--generate", "2", "--sample", "--top-p", "1.5"],
             "not a probability"),
            (["--sample"], "goes with --generate")]:
        PROGRAM.check_error(["--variant", "fused", "--train", "2"] + extra +
                            ["the cat"], fragment)
    done()


if __name__ == "__main__":
    main()
