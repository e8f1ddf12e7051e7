#!/usr/bin/env python3
"""Runs two builds of mha-explain on the same cases and reports every
difference in standard output, standard error, exit status and the files
a run writes (--html, --plot, --csv-dir).

    tests/tools/compare_builds.py OLD_BINARY NEW_BINARY SOURCE_ROOT

Build the commit to compare with beside this one, for example
    git worktree add /tmp/old HEAD~1 && meson setup /tmp/old/build /tmp/old \
        && ninja -C /tmp/old/build

The cases: the goldens and reference cases of tests/, the README's
commands, a grid of options over a few sentences, and runs that train,
read a checkpoint, set the draws, stack blocks or write a page. Exits 1 on any
difference. Used to show that a change of structure leaves behaviour as
it was."""

import glob
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

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


def cases(root):
    for args_file in sorted(glob.glob(os.path.join(
            root, "tests", "**", "golden", "*.args"), recursive=True)):
        with open(args_file, encoding="utf-8") as f:
            yield f.read().splitlines(), b""
    for args_file in sorted(glob.glob(os.path.join(
            root, "tests", "**", "*.args"), recursive=True)):
        if "golden" in args_file:
            continue
        # {DIR}: the case's folder, as the tests that run it give it
        with open(args_file, encoding="utf-8") as f:
            yield [a.replace("{DIR}", os.path.dirname(args_file))
                   for a in f.read().splitlines()], b""
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
    emb = os.path.join(root, "tests", "reference", "cases",
                       "decimals_embeddings.csv")
    yield ["--embeddings", emb, "--draw", "input,single"], b""
    yield ["--embeddings", emb, "--draw", "single"], b""
    yield ["--embeddings", emb, "--randn-input"], b""
    yield ["-"], "um dois três".encode()


def main():
    old, new, root = sys.argv[1:4]
    n = bad = 0
    for args, stdin in cases(root):
        n += 1
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
        if results[0] != results[1]:
            bad += 1
            what = [k for k, i in (("status", 0), ("stdout", 1),
                                    ("stderr", 2), ("files", 3))
                    if results[0][i] != results[1][i]]
            print("DIFF (%s): %s" % (", ".join(what), shlex.join(args)))
    print("%d cases, %d differ" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
