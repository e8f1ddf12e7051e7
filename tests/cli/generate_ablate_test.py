#!/usr/bin/env python3
"""--generate N with --ablate L.H: a checkpoint writes with heads switched
off, end to end.

    generate_ablate_test.py MHA_EXPLAIN REFERENCE_DIR

REFERENCE_DIR is tests/reference: the checkpoints of gpt2/ and llama/ and
the ablate_* cases of generate/ and llama_generate/, the tokens
transformers' generate() loop picked with a forward pre-hook on c_proj
(o_proj) replacing the heads' outputs at every step over the cache
(make_generate_reference.py, make_llama_generate_reference.py). Each
value of the table generated in the tidy CSV must be PyTorch's float32
exactly; the table generated_clean holds the clean model's tokens, the
reference's clean tokens, and equals the plain run's generated; the
text output adds the clean model's text (the plain run's) and where the
two part, which must agree with the reference's clean tokens; --kv-steps
shows an ablated head's output z at every step (0, or the prompt's
mean); --explain says how; and the refusals: status 2, one line.
"""
import csv
import io
import os
import sys

from taplib import Program, done, ok
from generate_test import differing, f32, read_safetensors, text_of

PROGRAM = Program(sys.argv[1])
REF = sys.argv[2]


CORPUS = ["--corpus", os.path.join(REF, "interventions", "corpus.csv"),
          "--column", "text"]


def case(name, family):
    """A reference case: generate/NAME (llama_generate/NAME), or, for a
    name corpus_generate_*, interventions/NAME (the heads set to their
    means over interventions/corpus.csv, make_intervention_reference.py's
    CORPUS_GENERATE_CASES)."""
    folder = ("interventions" if name.startswith("corpus_generate_")
              else "generate" if family == "gpt2" else family + "_generate")
    return read_safetensors(os.path.join(REF, folder, name + ".safetensors"))


def options_of(ref):
    """The command line's options for a reference case: --ablate,
    --ablate-mode and the sampling settings."""
    a = ref["ablate"]
    heads = ",".join("%d.%d" % (a[i], a[i + 1]) for i in range(0, len(a), 2))
    args = ["--generate", str(int(ref["settings"][5])), "--ablate", heads,
            "--ablate-mode", "mean" if ref["mode"][0] else "zero"]
    sample, temperature, top_k, top_p, seed = ref["settings"][:5]
    if sample:
        args += ["--sample", "--seed", str(int(seed))]
        if temperature != 1.0:
            args += ["--temperature", "%.6g" % temperature]
        if top_k:
            args += ["--top-k", str(int(top_k))]
        if top_p < 1.0:
            args += ["--top-p", "%.6g" % top_p]
    return args


def matches_reference(name, checkpoint, family="gpt2", extra=()):
    """The run of a reference case (with the options extra: --corpus)
    against it."""
    ref = case(name, family)
    model = os.path.join(REF, family, checkpoint)
    args = ["--model", model] + options_of(ref) + list(extra) + \
        [text_of(checkpoint, family)]
    r = PROGRAM.run(args + ["--tables", "generated", "--format", "csv"])
    table = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode())):
        table.setdefault(int(row["row"]), {})[row["col_label"]] = \
            float(row["value"])
    rows = [table[i] for i in sorted(table)]
    n = len(ref["tokens"])
    wrong = differing(rows, ref)
    ok(r.returncode == 0 and len(rows) == n and wrong == 0,
       "%s %s: every value of generated with %s%s is PyTorch's (%d rows, "
       "%d differ)" % (family, name, " ".join(options_of(ref)[2:]),
                       " and --corpus" if extra else "", len(rows), wrong),
       r.stderr.decode())
    # the clean model's generation in the CSV (generated_clean): its ids
    # are the reference's clean tokens, and every value is the plain
    # run's generated (the same prompt, options and seed, no hook)
    def table_of(argv, name):
        r = PROGRAM.run(argv + ["--tables", name, "--format", "csv"])
        cells = {}
        for row in csv.DictReader(io.StringIO(r.stdout.decode())):
            cells.setdefault(int(row["row"]), {})[row["col_label"]] = \
                (row["row_label"], row["value"])
        return r, [cells[i] for i in sorted(cells)]
    r, clean_rows = table_of(args, "generated_clean")
    switches = ("--ablate", "--ablate-mode", "--corpus", "--column")
    plain_args = [a for i, a in enumerate(args)
                  if a not in switches and args[i - 1] not in switches]
    p, plain_rows = table_of(plain_args, "generated")
    ids = [int(float(row["id"][1])) for row in clean_rows]
    ok(r.returncode == 0 and p.returncode == 0 and
       ids == [int(t) for t in ref["clean"]] and clean_rows == plain_rows,
       "%s %s: generated_clean holds PyTorch's clean tokens (%d), the plain "
       "run's generated value for value" % (family, name, len(ids)),
       (ids, [int(t) for t in ref["clean"]]))
    # the text output: the clean model's text, and where the two part
    common = 0
    clean = ref["clean"]
    while (common < len(clean) and common < n and
           clean[common] == ref["tokens"][common]):
        common += 1
    text = PROGRAM.run(args + ["--tables", "generated"]).stdout.decode()
    want = ("(the two new texts part at their first token)" if common == 0
            else "(the two new texts share their first token, then part)"
            if common == 1 else
            "(the two new texts share their first %d tokens, then part)"
            % common)
    lines = text.rstrip("\n").splitlines()
    plain = PROGRAM.run(plain_args + ["--tables", "generated"])
    ok("the clean model (no head switched off) continued:" in text and
       lines[-1] == want and lines[-2].startswith(text_of(checkpoint,
                                                          family)[:3]) and
       lines[-2] == plain.stdout.decode().rstrip("\n").splitlines()[-1],
       "%s %s: the text output ends with the clean model's text (the plain "
       "run's, whose tokens generated_clean holds) and %r"
       % (family, name, want), lines[-4:])


def kv_steps(mode):
    """--kv-steps: the ablated head's head_context at every step is 0
    (zero) or the prompt's mean (mean), and another head's is not."""
    two = os.path.join(REF, "gpt2", "two_layers")
    r = PROGRAM.run(["--model", two, "--generate", "5", "--ablate", "0.1",
                     "--ablate-mode", mode, "--kv-steps", "--tables",
                     "head_context", "--layers", "0", "--format", "csv",
                     text_of("two_layers")])
    rows = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode())):
        key = (row["step"], row["head"], row["row"])
        rows.setdefault(key, []).append(f32(float(row["value"])))
    prompt = rows.get(("", "1", "0"), [])
    steps = [rows.get((str(s), "1", "0")) for s in range(1, 5)]
    other = [rows.get((str(s), "0", "0")) for s in range(1, 5)]
    want = [0.0] * len(prompt) if mode == "zero" else prompt
    ok(r.returncode == 0 and prompt and all(s == want for s in steps) and
       all(o and any(v != 0 for v in o) for o in other) and
       len(set(tuple(o) for o in other)) > 1,
       "--kv-steps --ablate-mode %s: head 0.1's z is %s at every step; "
       "head 0.0's is its own" % (mode, "0" if mode == "zero" else
                                  "the prompt's mean"),
       r.stderr.decode()[:300])


def corpus_not_prompt():
    """--corpus sets the corpus's mean, not the prompt's: the same
    heads at the prompt's mean pick other tokens; and --kv-steps shows
    the head's z as one row at the prompt's every position and at every
    step."""
    two = os.path.join(REF, "gpt2", "two_layers")
    args = ["--model", two, "--generate", "8", "--ablate", "1.0,0.1",
            "--ablate-mode", "mean", "--tables", "generated", "--format",
            "csv", text_of("two_layers")]
    prompt = PROGRAM.run(args)
    corpus = PROGRAM.run(args + CORPUS)
    ok(prompt.returncode == 0 and corpus.returncode == 0 and
       prompt.stdout != corpus.stdout,
       "--generate --ablate-mode mean: --corpus's mean makes another text "
       "than the prompt's mean")
    r = PROGRAM.run(["--model", two, "--generate", "4", "--ablate", "0.1",
                     "--ablate-mode", "mean", "--kv-steps", "--tables",
                     "head_context", "--layers", "0", "--format", "csv",
                     text_of("two_layers")] + CORPUS)
    rows = {}
    for row in csv.DictReader(io.StringIO(r.stdout.decode())):
        if row["head"] == "1":
            key = (row["step"], row["row"])
            rows.setdefault(key, []).append(f32(float(row["value"])))
    first = rows.get(("", "0"))
    ok(r.returncode == 0 and first is not None and len(rows) == 6 + 3 and
       all(v == first for v in rows.values()),
       "--kv-steps with --corpus: head 0.1's z is the one corpus row at "
       "each of the prompt's 6 positions and at every step (%d rows)"
       % len(rows), r.stderr.decode()[:300])


# --explain's note on generation's mean over --corpus, as each language
# says it
CORPUS_NOTE = {
    "en": "With --corpus, mean set each switched-off head's z instead to "
          "its mean over every position of every text of the corpus",
    "pt_BR": "Com --corpus, mean pôs o z de cada cabeça desligada, em vez "
             "disso, na sua média",
    "es": "Con --corpus, mean puso en cambio el z de cada cabeza apagada en "
          "su media",
    "zh_CN": "配合 --corpus，mean 改为把每个被关闭的头的 z 设为它在语料",
    "zh_TW": "配合 --corpus，mean 改為把每個被關閉的頭的 z 設為它在語料",
}


def explain_corpus():
    """--explain with --generate says the mean was the corpus's, in every
    language, and not without --corpus."""
    two = os.path.join(REF, "gpt2", "two_layers")
    base = ["--model", two, "--generate", "3", "--ablate", "1.0",
            "--ablate-mode", "mean", "--explain", "--tables", "generated",
            "the cat"]
    for lang, start in CORPUS_NOTE.items():
        r = PROGRAM.run(base + CORPUS + ["--lang", lang])
        notes = [line[2:] for line in r.stdout.decode().splitlines()
                 if line.startswith("# ")]
        joined = (" " if lang in ("en", "pt_BR", "es") else "").join(notes)
        ok(r.returncode == 0 and start in joined,
           "--explain --generate (%s): the heads' mean is the corpus's" % lang,
           r.stderr.decode() + "\n".join(notes[-6:]))
    r = PROGRAM.run(base)
    ok(r.returncode == 0 and b"With --corpus" not in r.stdout,
       "--explain --generate without --corpus: no note on a corpus")


def main():
    matches_reference("ablate_zero_greedy", "two_layers")
    matches_reference("ablate_mean_sample", "wide")
    matches_reference("ablate_mean_greedy", "llama_tied_f32", "llama")
    matches_reference("corpus_generate_greedy_two_layers", "two_layers",
                      extra=CORPUS)
    matches_reference("corpus_generate_sample_wide", "wide", extra=CORPUS)
    matches_reference("corpus_generate_greedy_llama_tied_f32",
                      "llama_tied_f32", "llama", extra=CORPUS)
    corpus_not_prompt()
    explain_corpus()
    kv_steps("zero")
    kv_steps("mean")

    wide = os.path.join(REF, "gpt2", "wide")
    e = PROGRAM.run(["--model", wide, "--generate", "3", "--ablate", "1.3",
                     "--ablate-mode", "mean", "--explain", "--tables",
                     "generated", "the cat"]).stdout.decode()
    # the notes' words, without their wrapping and comment marks
    e = " ".join(w for w in e.split() if w != "#")
    ok("With --ablate, every step ran with those heads switched off" in e
       and "mean over the prompt's positions" in e,
       "--explain: how each step switches the heads off")
    # the same new text when the heads change no pick
    args = ["--model", wide, "--generate", "4", "--ablate", "1.3",
            "--ablate-mode", "mean", "--tables", "generated", "the cat sat"]
    out = PROGRAM.run(args).stdout.decode().rstrip("\n").splitlines()
    ok(out[-1] == "(the same new text as with the heads switched off)"
       and out[-2] == out[-5],
       "the same new text: both texts shown, and said so", out[-5:])
    # where the two texts part: one shared token is said without a
    # number, in every language; two are counted (ngettext)
    two = os.path.join(REF, "gpt2", "two_layers")
    for lang, one, more in (
            ("en", "(the two new texts share their first token, then part)",
             "(the two new texts share their first 2 tokens, then part)"),
            ("pt_BR", "(os dois textos novos compartilham o primeiro token, "
             "depois se separam)", "(os dois textos novos compartilham os 2 "
             "primeiros tokens, depois se separam)"),
            ("es", "(los dos textos nuevos comparten su primer token, luego "
             "se separan)", "(los dos textos nuevos comparten sus 2 "
             "primeros tokens, luego se separan)"),
            ("zh_CN", "（两段新文本的第一个词元相同，之后分开）",
             "（两段新文本的前 2 个词元相同，之后分开）"),
            ("zh_TW", "（兩段新文本的第一個詞元相同，之後分開）",
             "（兩段新文本的前 2 個詞元相同，之後分開）")):
        last = [PROGRAM.run(["--model", two, "--generate", "4", "--ablate",
                             head, "--tables", "generated", "--lang", lang,
                             "The cat"]).stdout.decode().rstrip("\n")
                .splitlines()[-1] for head in ("0.1", "1.1")]
        ok(last == [one, more], "--lang %s: one shared token without a "
           "number, two counted" % lang, last)

    # bad input: one line, status 2
    two = os.path.join(REF, "gpt2", "two_layers")
    base = ["--model", two, "--generate", "3"]
    for args, fragment in [
            (["--ablate", "all-heads"], "does not go with --ablate all-heads"),
            (["--ablate", "2.0"], "2.0 is out of range"),
            (["--ablate", "0.2"], "0.2 is out of range"),
            (["--ablate", "0.1,0.1"], "--ablate"),
            (["--head-scores"], "does not go with --head-scores")]:
        PROGRAM.check_error(base + args + ["the cat sat"], fragment,
                            hint=True)
    PROGRAM.check_error(base + ["--patch", "--clean", "the cat", "--corrupt",
                                "the mat", "--answer", " cat", "--wrong",
                                " mat"], "does not go with --patch",
                        hint=True)
    llama = os.path.join(REF, "llama", "llama_tied_f32")
    PROGRAM.check_error(["--model", llama, "--generate", "3", "--ablate",
                         "0.4", "the cat sat"], "0.4 is out of range",
                        hint=True)
    # a trained lesson model generates, but not with heads switched off
    PROGRAM.check_error(["--variant", "block", "--heads", "1", "--train",
                         "2", "--generate", "2", "--ablate", "0.0",
                         "the cat sat on the mat"],
                        "switches heads off while generating with a --model "
                        "checkpoint (llama, qwen2, mistral, gpt2), not with "
                        "a lesson model", hint=True)
    # BERT does not continue a text at all
    PROGRAM.check_error(["--model", os.path.join(REF, "bert", "mlm"),
                         "--generate", "2", "--ablate", "0.0", "the cat"],
                        "does not continue texts with a BERT model")
    done()


if __name__ == "__main__":
    main()
