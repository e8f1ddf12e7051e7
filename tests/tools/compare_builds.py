#!/usr/bin/env python3
"""Runs two builds of mha-explain on the same cases and reports every
difference in standard output, standard error, exit status and the files
a run writes (--html, --plot, --csv-dir).

    tests/tools/compare_builds.py OLD_BINARY NEW_BINARY SOURCE_ROOT \
        [--expected FILE] [--list-expected]

Build the commit to compare with beside this one, for example
    git worktree add /tmp/old HEAD~1 && meson setup /tmp/old/build /tmp/old \
        && ninja -C /tmp/old/build

The cases: the goldens and reference cases of tests/, the README's
commands, a grid of options over a few sentences, and runs that train,
read a checkpoint, set the draws, stack blocks or write a page, and lists
whose items lie past a model's sizes. Without --expected, exits 1 on any
difference. With --expected FILE, a manifest of the differences made on
purpose (expected_diffs.py describes it; compare_2d6dd40.expected is the
one against 2d6dd40), it counts the identical, expected-different and
unexpected-different cases and exits 1 on an unexpected difference or an
entry that matches none (stale). Used to show that a change of structure
leaves behaviour as it was, but for what the manifest names."""

import argparse
import glob
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import expected_diffs

SENTENCES = ["O gato sobe no tapete", "我 喜欢 吃 牛舌 和 慢煮 牛舌",
             "the cat sat on the mat the end"]
OPTION_SETS = [
    [], ["--heads", "2"], ["--variant", "fused", "--heads", "2"],
    ["--variant", "block", "--d-model", "4", "--heads", "2"],
    ["--variant", "wrapper", "--d-out", "6", "--heads", "3"],
    ["--explain"], ["--explain", "--variant", "block", "--d-model", "4",
                    "--heads", "2"],
    ["--check"], ["--check", "--tie", "--heads", "2"],
    ["--average", "--heads", "2"], ["--focus", "gato", "--heads", "2"],
    ["--format", "csv", "--heads", "2"], ["--style", "torch"],
    ["--color", "always", "--heads", "2"],
    ["--color", "always", "--color-scale", "fixed", "--average",
     "--heads", "2"],
    ["--color", "always", "--color-scale", "row", "--variant", "fused",
     "--heads", "2"],
    ["--layout", "grid", "--heads", "2", "--width", "160"],
    ["--kv", "a dog ran", "--heads", "2"],
    ["--kv", "a dog ran", "--explain", "--variant", "fused", "--heads", "2"],
    ["--tables", "inputs,attn_weights,out", "--variant", "fused"],
    ["--tables", "heads.1.W_key.weight,concat_context", "--heads", "2"],
    ["--tables", "no_such_table"], ["--tables", "attn_out"],
    ["--tables", "kv_inputs"], ["--tables", "attn_weights_avg"],
    ["--qkv-bias", "--no-scale", "--tokens", "chars"],
    ["--full", "--precision", "6", "--variant", "single"],
    ["--step"], ["--lang", "pt_BR", "--explain", "--heads", "2"],
    ["--lang", "zh_TW", "--explain", "--variant", "block", "--d-model",
     "4", "--heads", "2"],
    ["--lang", "es", "--focus", "gato", "--heads", "2"],
    ["--lang", "zh_CN", "--check"],
    ["--heads", "3"], ["--d-out", "5", "--heads", "2"],
    ["--explain", "--variant", "block", "--d-model", "4", "--heads", "2",
     "--dropout", "0.25", "--attn-dropout", "0.5", "--positions"],
    ["--explain", "--train", "2", "--positions", "--variant", "fused",
     "--attn-dropout", "0.1"],
]
FILE_SETS = [
    ["--html", "{d}/page.html", "--heads", "2"],
    ["--html", "{d}/page.html", "--variant", "block", "--d-model", "4",
     "--heads", "2", "--kv", "x y"],
    ["--plot", "{d}/p.svg", "--heads", "2"],
    ["--plot", "{d}/p.png", "--average", "--heads", "2"],
    ["--plot", "{d}/p.svg", "--tables", "attn_scores,attn_weights,values,"
     "W_query.weight", "--variant", "fused", "--heads", "2"],
    ["--csv-dir", "{d}/csv", "--heads", "2"],
    ["--csv-dir", "{d}/csv", "--variant", "block", "--d-model", "4",
     "--heads", "2"],
]


# Runs that train, read a checkpoint (SOURCE_ROOT/... is the source root),
# set the draws, stack blocks or write a page, and the options a
# checkpoint's run or a lesson's variants leave without effect.
MORE_SETS = [
    ["--train", "3"], ["--train", "5", "--optimizer", "sgd", "--lr", "0.05"],
    ["--train", "2", "--grad", "--variant", "fused"],
    ["--train", "2", "--positions", "--variant", "block", "--d-model", "4"],
    ["--train", "2", "--explain", "--variant", "wrapper"],
    ["--train", "2", "--format", "csv", "--variant", "single"],
    ["--train", "2", "--lr", "1e-320"], ["--train", "2", "--lr", "0x1p-3"],
    ["--train", "2", "--lr", "0"], ["--train", "2", "--kv", "x"],
    ["--lr", "0.1"], ["--optimizer", "adam"], ["--optimizer", "sgd"],
    ["--model", "{root}/tests/reference/gpt2/tiny"],
    ["--model", "{root}/tests/reference/gpt2/two_layers", "--layers", "1",
     "--show-heads", "0"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--explain"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--format", "csv"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--tables", "logits"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--heads", "2"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--heads", "3"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--d-out", "4"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--tie"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--average"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--randn-input"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--attn-dropout", "0.5"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--batch", "4"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--positions"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--train", "2"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--variant", "single"],
    ["--model", "{root}/tests/reference/gpt2/tiny", "--format", "csv",
     "--tables", "next_tokens,attn_entropy"],
    ["--model", "{root}/tests/reference/llama/llama_tied_f32"],
    ["--model", "{root}/tests/reference/llama/llama_tied_f32", "--format",
     "csv", "--tables", "next_tokens,attn_entropy,logits"],
    ["--model", "{root}/tests/reference/llama/qwen2_bias_f16", "--tables",
     "next_tokens"],
    ["--model", "{root}/tests/reference/llama/mistral_sharded", "--format",
     "csv"],
    ["--model", "{root}/tests/reference/bert/mlm", "--format", "csv"],
    ["--model", "{root}/tests/reference/bert/mlm", "--pair",
     "the dog [MASK] .", "--tables", "next_tokens,attn_entropy,hidden"],
    ["--model", "{root}/tests/reference/bert/base", "--format", "csv",
     "--tables", "embeddings.word_embeddings.weight,"
     "encoder.layer.0.output.dense.bias,hidden"],
    ["--model", "{root}/tests/reference/gpt2/wide", "--tables",
     "wte.weight,wpe.weight,h.1.attn.c_attn.weight,ln_f.bias"],
    ["--model", "{root}/tests/reference/llama/qwen2_bias_f16", "--format",
     "csv", "--tables",
     "embed_tokens.weight,layers.1.self_attn.k_proj.bias,norm.weight"],
    ["--show-heads", "0"],
    ["--draw", "input,fused,single", "--heads", "2"],
    ["--draw", "block,input", "--d-model", "4", "--dropout", "0.25"],
    ["--draw", "wrapper,input", "--variant", "fused"],
    ["--randn-input", "--batch", "3", "--attn-dropout", "0.5"],
    ["--attn-dropout", "1e-400"], ["--attn-dropout", "0x1p-3"],
    ["--dropout", "1e-400", "--variant", "block", "--d-model", "4"],
    ["--dropout", "0.5"], ["--dropout", "0"], ["--attn-dropout", "0",
                                              "--variant", "block"],
    ["--ff", "8"], ["--tie", "--variant", "wrapper"],
    ["--average", "--variant", "single"],
    ["--variant", "block", "--d-model", "4", "--layers", "3"],
    ["--variant", "block", "--d-model", "4", "--layers", "2", "--explain",
     "--dropout", "0.1"],
    ["--layers", "2"], ["--layers", ""], ["--variant", "block", "--layers",
                                          "0"],
    # what --check and --focus take from the trace: causal heads, cross-
    # attention, tied modules, their own dropout masks, --grad
    ["--check", "--kv", "a dog ran", "--heads", "2"],
    ["--check", "--no-causal", "--heads", "2"],
    ["--check", "--tie", "--attn-dropout", "0.5", "--heads", "2"],
    ["--check", "--train", "2", "--grad", "--variant", "fused"],
    ["--check", "--train", "2", "--grad", "--no-causal"],
    ["--check", "--variant", "block", "--d-model", "4", "--layers", "2"],
    ["--check", "--model", "{root}/tests/reference/gpt2/tiny"],
    ["--check", "--model", "{root}/tests/reference/bert/mlm"],
    ["--focus", "gato", "--kv", "a dog ran", "--heads", "2"],
    ["--focus", "cat", "--kv", "a dog ran", "--variant", "block",
     "--d-model", "4"],
]
FILE_MORE = [
    ["--html", "{d}/page.html", "--train", "3"],
    ["--html", "{d}/page.html", "--precision", "3", "--full", "--cmap",
     "Blues", "--color-scale", "row", "--numbers", "off", "--average"],
    ["--html", "{d}/page.html", "--tie", "--attn-dropout", "0.25",
     "--randn-input", "--batch", "2"],
    ["--html", "{d}/page.html", "--variant", "block", "--d-model", "4",
     "--ff", "6", "--dropout", "0.5", "--layers", "2"],
    ["--html", "{d}/page.html", "--draw", "input,single"],
    ["--html", "{d}/page.html", "--tables", "attn_weights"],
    ["--html", "{d}/page.html", "--model",
     "{root}/tests/reference/gpt2/tiny"],
    ["--plot", "{d}/p.svg", "--model", "{root}/tests/reference/gpt2/tiny"],
    ["--csv-dir", "{d}/csv", "--train", "2"],
]
# The checkpoints' interventions, logit lens and generation, whole
# command lines.
MODEL_RUNS = [
    [m, "--format", "csv", "the cat sat on the mat"] + opts
    for m in ("{root}/tests/reference/gpt2/two_layers",
              "{root}/tests/reference/llama/llama_gqa4_bf16",
              "{root}/tests/reference/bert/mlm")
    for opts in (["--ablate", "0.1"],
                 ["--ablate", "1.0,0.1", "--ablate-mode", "mean"],
                 ["--ablate", "all-heads"], ["--logit-lens"],
                 ["--generate", "4"],
                 ["--generate", "3", "--sample", "--seed", "5"],
                 ["--ablate", "2.0"], ["--ablate-mode", "mean"])
] + [
    [m, "--format", "csv"] + opts
    for m in ("{root}/tests/reference/gpt2/two_layers",
              "{root}/tests/reference/llama/llama_gqa4_bf16",
              "{root}/tests/reference/bert/mlm")
    for opts in (["--head-scores", "--repeat-random", "4"],
                 ["--patch", "--clean", "the cat sat", "--corrupt",
                  "the mat sat", "--answer", " cat", "--wrong", " mat"],
                 ["--patch", "--clean", "the cat", "--corrupt",
                  "the cat sat", "--answer", " cat", "--wrong", " mat"])
]


# The interventions on a trained lesson model (--variant block), whole
# command lines over corpus.csv, which each run's folder (its working
# folder) gets: a relative name, as the page shows the path.
LESSON = ["--corpus", "corpus.csv", "--column", "text", "--variant",
          "block", "--d-model", "8", "--heads", "2", "--seed", "3"]
LESSON_RUNS = [
    LESSON + extra + ["--train", steps, "the cat sat on the mat"] + opts
    for extra, steps in ((["--layers", "2", "--attn-only", "--positions"],
                          "40"),
                         (["--optimizer", "sgd", "--lr", "0.1"], "25"),
                         (["--layers", "2", "--threads", "1"], "30"))
    for opts in (["--ablate", "all-heads", "--format", "csv"],
                 ["--ablate", "1.0,0.1", "--ablate-mode", "mean"],
                 ["--ablate", "0.1", "--ablate-mode", "mean", "--explain"],
                 ["--ablate", "all-heads", "--metric", "logit-diff",
                  "--answer", "mat", "--wrong", "rug", "--tables",
                  "ablation_map"],
                 ["--head-scores", "--format", "csv"],
                 ["--ablate", "all-heads", "--html", "{d}/page.html"],
                 ["--ablate", "all-heads", "--grad", "--generate", "3",
                  "--format", "csv"])
] + [
    LESSON + ["--layers", "2", "--train", "30", "--patch", "--clean",
              "the cat sat on the", "--corrupt", "the dog sat on the",
              "--answer", "mat", "--wrong", "rug", "--format", "csv"],
]
# The mistakes the model tells in numbers and the command line writes
# (cli/run_errors.c): a list's item past the model's sizes (--layers,
# --show-heads and --ablate on each family, the bad item not first, typed
# with spaces or zeros, in other languages, in a row of an --input
# file), an intervention without an lm_head, a text of one token, and
# --repeat-random past the model's positions.
TWO = "{root}/tests/reference/gpt2/two_layers"
BERT_BASE = "{root}/tests/reference/bert/base"
MISTAKE_RUNS = [
    ["--model", TWO, "x", "--layers", "0,1,5-7"],
    ["--model", TWO, "x", "--layers", " 3"],
    ["--model", TWO, "x", "--layers", "99999999999999999999"],
    ["--model", TWO, "x", "--show-heads", "1,0-9"],
    ["--model", TWO, "x", "--ablate", "0.1,7.0"],
    ["--model", TWO, "x", "--ablate", "0.1,01.009"],
    ["--model", TWO, "x", "--ablate", "1.1,01.01"],
    ["--model", TWO, "x", "--ablate", "0.1,1.0", "--ablate-mode", "mean",
     "--layers", "4"],
    ["--lang", "pt_BR", "--model", TWO, "x", "--layers", "0,2"],
    ["--lang", "zh_CN", "--model", TWO, "x", "--show-heads", "5"],
    ["--lang", "es", "--model", TWO, "x", "--ablate", "3.0"],
    ["--lang", "zh_TW", "--model", TWO, "x", "--ablate", "0.0,0.0"],
    ["--model", "{root}/tests/reference/llama/llama_gqa4_bf16", "x",
     "--layers", "1,2"],
    ["--model", "{root}/tests/reference/llama/llama_gqa4_bf16", "x",
     "--show-heads", "0-4", "--format", "csv"],
    ["--model", "{root}/tests/reference/bert/mlm", "x", "--show-heads",
     "0,64"],
    ["--model", "{root}/tests/reference/bert/mlm", "x", "--ablate", "9.0"],
    ["--model", TWO, "--input", "corpus.csv", "--column", "text",
     "--layers", "7"],
    ["the cat sat", "--ablate", "0.0,0.5"],
    ["the cat sat", "--variant", "block", "--layers", "2", "--ablate",
     "2.0"],
    ["--lang", "zh_TW", "the cat sat", "--ablate", "1.0"],
    ["--lang", "pt_BR", "the cat sat", "--variant", "single", "--ablate",
     "0.1"],
    LESSON + ["--train", "2", "the cat sat on the mat", "--ablate",
              "0.1,2.0"],
    LESSON + ["--train", "2", "the cat sat on the mat", "--ablate",
              "0.1,0.01", "--lang", "es"],
    ["--model", BERT_BASE, "x", "--ablate", "0.0"],
    ["--model", BERT_BASE, "x", "--head-scores"],
    ["--model", BERT_BASE, "x", "--logit-lens"],
    ["--model", BERT_BASE, "--patch", "--clean", "a b", "--corrupt", "b a",
     "--answer", "a", "--wrong", "b"],
    ["--lang", "pt_BR", "--model", BERT_BASE, "x", "--ablate", "0.0"],
    ["--lang", "zh_CN", "--model", "{root}/tests/reference/bert/mlm", "x",
     "--logit-lens"],
    ["--model", TWO, "the", "--ablate", "0.1"],
    ["--model", TWO, "the", "--head-scores"],
    ["--lang", "es", "--model", TWO, "the", "--head-scores"],
    ["--lang", "zh_TW", "--model", TWO, "the", "--ablate", "1.1"],
    ["--model", TWO, "the", "--ablate", "all-heads", "--metric", "prob",
     "--answer", " cat"],
    ["--model", TWO, "--head-scores", "--repeat-random", "300"],
    ["--model", "{root}/tests/reference/llama/llama_gqa4_bf16",
     "--head-scores", "--repeat-random", "33"],
    ["--lang", "zh_TW", "--model", TWO, "--head-scores", "--repeat-random",
     "9"],
    LESSON + ["--train", "2", "the", "--ablate", "0.1"],
    LESSON + ["--train", "2", "the", "--head-scores", "--lang", "pt_BR"],
    LESSON + ["--train", "2", "--head-scores", "--repeat-random", "200"],
    ["--model", TWO, "--kv", "a b", "x"],
    ["--model", "{root}/tests/reference/llama/llama_gqa4_bf16",
     "--embeddings", "{root}/tests/reference/cases/decimals_embeddings.csv"],
    ["x", "--ablate", "all-heads"], ["x", "--head-scores", "--lang", "es"],
    ["--train", "2", "--variant", "fused", "x", "--ablate", "all-heads"],
    ["--train", "2", "--variant", "fused,block", "--d-model", "4", "x",
     "--head-scores", "--lang", "zh_CN"],
    ["x", "--generate", "3"], ["--lang", "zh_TW", "x", "--generate", "3"],
    ["--embeddings", "{root}/tests/reference/cases/decimals_embeddings.csv",
     "--d-model", "7"],
    ["--lang", "pt_BR", "--embeddings",
     "{root}/tests/reference/cases/decimals_embeddings.csv", "--d-model",
     "1"],
    ["x", "--variant", "block", "--heads", "2"],
    ["--lang", "es", "x", "--variant", "block", "--heads", "2", "--focus",
     "x"],
    ["--variant", "block", "--heads", "2", "--input", "corpus.csv",
     "--column", "text"],
]
LESSON_CORPUS = ("text\nthe cat sat on the mat\nthe dog sat on the rug\n"
                 "a cat saw the dog on the mat\n")


# A live page's WebAssembly core is the program's own code compiled, which
# any change of the code changes: the pages are compared without it (the
# wasm-core and html-live tests run it).
CORE = re.compile(rb'(<script type="application/octet-stream" '
                  rb'id="mha-core">)[^<]*')


def run(binary, args, stdin, cwd):
    env = dict(os.environ, LANGUAGE="", LC_ALL="C.UTF-8",
               SOURCE_DATE_EPOCH="1700000000", COLUMNS="100")
    r = subprocess.run([binary] + args, input=stdin, capture_output=True,
                       cwd=cwd, env=env, timeout=120)
    files = {}
    for root, _, names in os.walk(cwd):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, cwd)] = CORE.sub(b"\\1", f.read())
    return r.returncode, r.stdout, r.stderr, files


def case_files(root):
    """The case files of tests/ (goldens first): (path, arguments)."""
    for args_file in sorted(glob.glob(os.path.join(
            root, "tests", "**", "golden", "*.args"), recursive=True)):
        with open(args_file, encoding="utf-8") as f:
            yield args_file, f.read().splitlines()
    for args_file in sorted(glob.glob(os.path.join(
            root, "tests", "**", "*.args"), recursive=True)):
        if "golden" in args_file:
            continue
        # {DIR}: the case's folder, as the tests that run it give it
        with open(args_file, encoding="utf-8") as f:
            yield args_file, [a.replace("{DIR}", os.path.dirname(args_file))
                              for a in f.read().splitlines()]


def cases(root):
    """Every case: (name, arguments, standard input). The name is the
    command line with root written {root}, after the case file's path
    when a file of tests/ holds it (the manifest's entries match it)."""
    for args_file, args in case_files(root):
        yield (os.path.relpath(args_file, root) + ": "
               + shlex.join(args).replace(root, "{root}"), args, b"")
    for args, stdin in generated_cases(root):
        yield shlex.join(args).replace(root, "{root}"), args, stdin


def generated_cases(root):
    """The cases no file of tests/ holds: (arguments, standard input)."""
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("$ mha-explain "):
                cmd = line[2:].split(" | ")[0].split(" > ")[0]
                yield shlex.split(cmd)[1:], b""
    for s, opts in itertools.product(SENTENCES, OPTION_SETS):
        yield [s] + opts, b""
    for s, opts in itertools.product(SENTENCES[:2], FILE_SETS):
        yield [s] + opts, b""
    for s, opts in itertools.product(SENTENCES[::2], MORE_SETS):
        yield [s] + [o.replace("{root}", root) for o in opts], b""
    for opts in FILE_MORE:
        yield ([SENTENCES[2]] + [o.replace("{root}", root) for o in opts],
               b"")
    for opts in MODEL_RUNS:
        yield ["--model"] + [o.replace("{root}", root) for o in opts], b""
    for args in LESSON_RUNS:
        yield args, b""
    for args in MISTAKE_RUNS:
        yield [o.replace("{root}", root) for o in args], b""
    emb = os.path.join(root, "tests", "reference", "cases",
                       "decimals_embeddings.csv")
    yield ["--embeddings", emb, "--draw", "input,single"], b""
    yield ["--embeddings", emb, "--draw", "single"], b""
    yield ["--embeddings", emb, "--randn-input"], b""
    yield ["-"], "um dois três".encode()


def compare(old, new, args, stdin):
    """Both builds' results on one case, each in a folder of its own:
    (old, new), each (status, stdout, stderr, files)."""
    results = []
    for binary in (old, new):
        d = tempfile.mkdtemp()
        a = [x.replace("{d}", d) for x in args]
        if "corpus.csv" in args:
            with open(os.path.join(d, "corpus.csv"), "w",
                      encoding="utf-8") as f:
                f.write(LESSON_CORPUS)
        results.append(run(binary, a, stdin, d))
        shutil.rmtree(d)
    return results


def build_dir(binary):
    """The meson build folder that holds binary, or None."""
    d = os.path.dirname(os.path.abspath(binary))
    while d != os.path.dirname(d):
        if os.path.isdir(os.path.join(d, "meson-info")):
            return d
        d = os.path.dirname(d)
    return None


def read_manifest(path, root, new):
    """The --expected manifest's entries; exits 2 when it cannot be read
    or names a commit or a test that does not exist."""
    try:
        entries = expected_diffs.read(path)
    except (OSError, expected_diffs.ManifestError) as e:
        sys.exit("compare_builds.py: %s" % e)
    wrong = expected_diffs.missing_commits(entries, root)
    build = build_dir(new)
    if build:
        wrong += expected_diffs.missing_tests(entries, build)
    if wrong:
        sys.exit("compare_builds.py: " + "\ncompare_builds.py: ".join(wrong))
    return entries


def main():
    parser = argparse.ArgumentParser(
        description="Runs two builds on the same cases and reports every "
        "difference.")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("root", help="the source root the cases come from")
    parser.add_argument("--expected", metavar="FILE",
                        help="a manifest of the differences made on purpose"
                        " (tests/tools/expected_diffs.py describes it)")
    parser.add_argument("--list-expected", action="store_true",
                        help="print each expected difference too")
    opt = parser.parse_args()
    # each run's working folder is its own: the paths taken from here
    opt.old, opt.new, opt.root = (os.path.abspath(p) for p in (
        opt.old, opt.new, opt.root))
    entries = (read_manifest(opt.expected, opt.root, opt.new)
               if opt.expected else [])
    n = same = expected = unexpected = 0
    for name, args, stdin in cases(opt.root):
        n += 1
        old, new = compare(opt.old, opt.new, args, stdin)
        if old == new:
            same += 1
            continue
        what = [k for i, k in enumerate(expected_diffs.ASPECTS)
                if old[i] != new[i]]
        entry = expected_diffs.expected_by(entries, name, what, old, new)
        if entry is None:
            unexpected += 1
            print("DIFF (%s): %s" % (", ".join(what), name))
        else:
            expected += 1
            if opt.list_expected:
                print("EXPECTED (%s) [%s]: %s" % (", ".join(what),
                                                 entry["where"], name))
    stale = [e for e in entries if not e["matched"]]
    for e in entries:
        if e["matched"]:
            print("%4d expected: %s %s (%s)" % (e["matched"], e["commit"],
                                                e["why"], " ".join(e["test"])))
    for e in stale:
        print("STALE: %s matches no differing case: %s" % (e["where"],
                                                           e["why"]))
    if opt.expected:
        print("%d cases: %d identical, %d expected-different, "
              "%d unexpected-different; %d stale entries" % (
                  n, same, expected, unexpected, len(stale)))
    else:
        print("%d cases, %d differ" % (n, unexpected))
    return 1 if unexpected or stale else 0


if __name__ == "__main__":
    sys.exit(main())
