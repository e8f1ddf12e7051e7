#!/usr/bin/env python3
"""Every bad input, table-driven: exit status 2 (1 for an output whose
writing fails: a full disk), one 'mha-explain: ' line naming the problem (plus at most the
--help hint), nothing on standard output, and no file left behind in a
--csv-dir.

Usage: errors_test.py MHA_EXPLAIN

Prints TAP. Python 3 standard library only.
"""
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
S = "O gato sobe no tapete"
CATALOGUE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "src", "model", "catalogue.h")


def variant_rows():
    """[(name, its tables)] of VARIANT_LIST in src/model/catalogue.h, the
    variants' one list, in its order."""
    with open(CATALOGUE, encoding="utf-8") as f:
        text = f.read()
    macro = text.split("#define VARIANT_LIST(VARIANT)", 1)[1]
    body = re.split(r"(?<!\\)\n", macro, 1)[0].replace("\\\n", " ")
    rows = []
    for entry in body.split("VARIANT(")[1:]:
        _, name, _, tables = [x.strip() for x in entry.split(",", 3)]
        rows.append((name, tables))
    return rows


def listed(names, last):
    """names as the messages list them: "a, b or c" (last "or")."""
    return (", ".join(names[:-1]) + " " + last + " " + names[-1]
            if len(names) > 1 else names[0])


VARIANTS = [name for name, _ in variant_rows()]
# --attn-dropout applies to the variants that do not drop their outputs
# (DROPOUT_TABLES among their tables: --dropout's)
ATTN_DROPOUT = [name for name, tables in variant_rows()
                if "DROPOUT_TABLES" not in tables]

# (arguments, standard input, status, fragment of the first stderr line,
#  whether the --help hint follows)
CASES = [
    (["--bogus", S], b"", 2, "unknown option '--bogus'", True),
    (["-x", S], b"", 2, "unknown option '-x'", True),
    (["--heads"], b"", 2, "'--heads' needs a value", True),
    (["--heads", "3", S], b"", 2, "--heads", True),
    (["--heads", "0", S], b"", 2, "--heads", True),
    (["--heads", "2x", S], b"", 2, "--heads: '2x'", True),
    (["--d-model", "-1", S], b"", 2, "--d-model: '-1'", True),
    (["--d-model", "0", S], b"", 2, "--d-model: 0 is out of range", True),
    (["--d-model", "99999999999999999999999", S], b"", 2, "--d-model", True),
    (["--d-model", "8193", S], b"", 2, "out of range", True),
    (["--d-out", "", S], b"", 2, "--d-out", True),
    (["--heads", "1025", "--d-out", "2048", S], b"", 2, "--heads", True),
    (["--seed", "abc", S], b"", 2, "--seed", True),
    (["--seed", "18446744073709551616", S], b"", 2, "--seed", True),
    (["--seed", "-9223372036854775809", S], b"", 2, "--seed", True),
    (["--variant", "single,fused", "--d-out", "3", S], b"", 2,
     "--heads: 2 heads do not divide --d-out 3", True),
    (["--variant", "single", "--tables", "out", S], b"", 2,
     "makes no table 'out'", True),
    (["--seed", "+", S], b"", 2, "--seed: '+' is not a seed", True),
    (["--seed", "+-1", S], b"", 2, "--seed: '+-1' is not a seed", True),
    (["--seed", "++1", S], b"", 2, "--seed: '++1' is not a seed", True),
    (["--precision", "13", S], b"", 2, "--precision", True),
    (["--precision", "-1", S], b"", 2, "--precision", True),
    (["--format", "xml", S], b"", 2, "--format: unknown format 'xml'", True),
    (["--variant", "foo", S], b"", 2,
     "--variant: unknown variant in 'foo' (expected %s, comma-separated)"
     % listed(VARIANTS, "or"), True),
    (["--variant", "single,,fused", S], b"", 2, "--variant", True),
    (["--variant", "", S], b"", 2, "--variant", True),
    (["--tables", "nosuch", S], b"", 2, "--tables: unknown table 'nosuch'", True),
    (["--tables", "heads.5.W_query.weight", S], b"", 2, "heads.5", True),
    (["--tables", "out,", S], b"", 2, "--tables", True),
    (["--csv-delimiter", ";;", S], b"", 2, "--csv-delimiter", True),
    (["--color", "maybe", S], b"", 2, "--color", True),
    (["--cmap", "jet", "--plot", "p.png", S], b"", 2,
     "--cmap: 'jet' is not a colour map this program knows: viridis", True),
    (["--cmap", "Viridis", "--plot", "p.png", S], b"", 2,
     "--cmap: 'Viridis'", True),
    (["--cmap", "Blues_r_r", "--plot", "p.png", S], b"", 2, "--cmap", True),
    (["--cmap", "", "--plot", "p.png", S], b"", 2, "--cmap: ''", True),
    (["--cmap", "magma", S], b"", 2,
     "--cmap: goes with --plot FILE or --html FILE", True),
    (["--numbers", "yes", "--plot", "p.png", S], b"", 2,
     "--numbers: 'yes' is not on or off", True),
    (["--colorbar", "left", "--plot", "p.png", S], b"", 2,
     "--colorbar: 'left' is not panel, shared or none", True),
    (["--colorbar", "none", S], b"", 2, "--colorbar: goes with --plot", True),
    (["--ff", "0", "--variant", "block", "--d-out", "3", S], b"", 2, "--ff", True),
    ([], b"", 2, "no sentence given", True),
    ([""], b"", 2, "the sentence is empty", False),
    ([" \t "], b"", 2, "the sentence is empty", False),
    (["\u3000"], b"", 2, "the sentence is empty", False),
    (["-"], b"", 2, "the sentence is empty", False),
    (["-"], b"  \n\n", 2, "the sentence is empty", False),
    (["-"], b"a \xff b", 2, "not valid UTF-8 (byte 3)", False),
    (["-"], b"a\x00b", 2, "NUL byte", False),
    (["-"], b"x " * (1 << 19) + b"y", 2, "longer than 1048576 bytes", False),
    (["--help=1"], b"", 2, "option '--help' takes no value", True),
    (["--no-causal=yes", S], b"", 2, "option '--no-causal' takes no value",
     True),
    (["--d", "3", S], b"", 2, "option '--d' is ambiguous: it could be "
     "--d-model, --d-out, --decimal-comma", True),
    (["-\u00e9", S], b"", 2, "unknown option '-\u00e9'", True),
    ([S, "--focus", "gato@99999999999999999999999"], b"", 2,
     "position 99999999999999999999999 is past the end", True),
    ([" ".join("w%d" % i for i in range(6000)), "--kv",
      " ".join("k%d" % i for i in range(3000))], b"", 2,
     "the sentence and --kv have 9000 tokens together, more than 8000", False),
    (["--embeddings", "rows.csv"], b"", 2,
     "rows.csv:8002:1: more than 8000 rows besides the header", False),
    (["--input", "sentences.csv", "--column", "s"], b"", 2,
     "sentences.csv:10002:1: more than 10000 rows besides the header", False),
    (["--input", "work.csv", "--column", "s", "--d-model", "8", "--d-out",
      "8"], b"", 2, "work.csv: the 14 sentences together would make about "
     "8974 million values, more than the 8589 million", False),
    (["--embeddings", "huge.csv"], b"", 2,
     "huge.csv:2:3: a number too large for float32", False),
    (["--embeddings", "quoted.csv"], b"", 2,
     "quoted.csv:2:1: a field longer than 64 KiB", False),
    (["--embeddings", "quoted_commas.csv"], b"", 2,
     "quoted_commas.csv:2:1: a field longer than 64 KiB", False),
    (["-"], b"x " * 8001, 2, "more than 8000 tokens", False),
    (["--d-model", "8192", "--d-out", "8192", "--heads", "1",
      " ".join(["w%d" % i for i in range(600)])], b"", 2, "million values", False),
    (["--embeddings", "/nonexistent/e.csv"], b"", 2, "/nonexistent/e.csv: cannot open", False),
    (["--input", "/nonexistent/s.csv", "--column", "x"], b"", 2, "cannot open", False),
    (["--weights", "/nonexistent", S], b"", 2, "--weights", False),
    (["--embeddings", "e.csv", "--input", "s.csv", "--column", "c"], b"", 2,
     "--embeddings", True),
    (["--embeddings", "e.csv", S], b"", 2, "cannot be a sentence", True),
    ([S, "--focus", "cão"], b"", 2, "--focus", True),
    ([S, "--focus", "gato", "--format", "csv"], b"", 2, "--focus", True),
    ([S, "--variant", "block"], b"", 2, "do not divide --d-model 3 (the "
     "block's attention is d_model wide: each head needs d_model / heads "
     "columns; --d-model 4 would do)", True),
    ([S, "--variant", "block", "--heads", "3", "--d-model", "8192"], b"", 2,
     "columns; --d-model 8190 would do)", True),
    ([S, "--variant", "single", "--average"], b"", 2, "--variant single has one head",
     True),
    ([S, "--tables", "ffn_hidden"], b"", 2, "makes no table 'ffn_hidden'", True),
    ([S, "--tables", "concat_context", "--variant", "single"], b"", 2,
     "makes no table 'concat_context'", True),
    ([S, "--tables", "kv_inputs"], b"", 2, "makes no table 'kv_inputs'", True),
    ([S, "--tables", "attn_weights_avg"], b"", 2,
     "makes no table 'attn_weights_avg' (it comes with --average)", True),
    # --average does nothing to the single head: no option is named
    ([S, "--tables", "attn_weights_avg", "--variant", "single"], b"", 2,
     "makes no table 'attn_weights_avg' (it comes with another --variant or "
     "option)", True),
    ([S, "--tables", "loss"], b"", 2,
     "makes no table 'loss' (it comes with --train)", True),
    ([S, "--tables", "kv_cache_size"], b"", 2,
     "makes no table 'kv_cache_size' (it comes with --generate)", True),
    ([S, "--tables", "kv_cache_size", "--generate", "2"], b"", 2,
     "makes no table 'kv_cache_size' (it comes with --kv-steps)", True),
    ([S, "--tables", "generated_clean", "--generate", "2"], b"", 2,
     "makes no table 'generated_clean' (it comes with --ablate)", True),
    ([S, "--variant", "block", "--heads", "1", "--tables",
      "ffn_out_dropout_mask"], b"", 2,
     "makes no table 'ffn_out_dropout_mask' (it comes with --dropout)", True),
    # a mistyped table: the one nearest name of the catalogue
    ([S, "--tables", "attn_wieghts"], b"", 2,
     "--tables: unknown table 'attn_wieghts' (did you mean attn_weights?)",
     True),
    ([S, "--tables", "Attn-Weights"], b"", 2, "(did you mean attn_weights?)",
     True),
    ([S, "--tables", "queries,keyz"], b"", 2,
     "unknown table 'keyz' (did you mean keys?)", True),
    ([S, "--tables", "heads.01.W_query.weight"], b"", 2,
     "unknown table 'heads.01.W_query.weight'", True),
    ([S, "--tables", "heads.2.W_key.bias", "--heads", "2"], b"", 2,
     "unknown table 'heads.2.W_key.bias'", True),
    ([S, "--ff", "8"], b"", 2, "--ff: sets the feed-forward width", True),
    ([S, "--explain", "--focus", "gato"], b"", 2, "--explain", True),
    ([S, "--tie", "--variant", "wrapper"], b"", 2, "--tie", True),
    ([S, "--tie", "--weights", "tied"], b"", 2,
     "tied/fused.W_key.weight.csv: --tie builds the fused W_key", False),
    # help for mistakes: the nearest option, the notebooks' words, ranges
    (["--d_model", "3", S], b"", 2,
     "unknown option '--d_model' (did you mean '--d-model'?)", True),
    (["--num-heads", "2", S], b"", 2, "(did you mean '--heads'?)", True),
    (["--n-heads=2", S], b"", 2,
     "unknown option '--n-heads=2' (did you mean '--heads'?)", True),
    (["--no-mask", S], b"", 2, "(did you mean '--no-causal'?)", True),
    (["--embed-dim", "3", S], b"", 2, "(did you mean '--d-model'?)", True),
    (["--hedas", "2", S], b"", 2, "(did you mean '--heads'?)", True),
    (["--precison", "2", S], b"", 2, "(did you mean '--precision'?)", True),
    (["-heads", "2", S], b"", 2, "unknown option '-heads': long options "
     "take two dashes (did you mean '--heads'?)", True),
    (["-d_model", "2", S], b"", 2, "two dashes (did you mean '--d-model'?)",
     True),
    (["--precision", "-1", S], b"", 2,
     "--precision: '-1' is out of range (expected 0 to 12)", True),
    (["--heads", "-3", S], b"", 2, "out of range (expected 1 to", True),
    ([S, "--focus", "cat"], b"", 2, "'cat' is not a token of the sentence "
     "(its tokens: O, gato, sobe, no, tapete)", True),
    (["a a b", "--focus", "c"], b"", 2, "(its tokens: a, b)", True),
    # a word of two tokens (--punct split): its pieces
    (["o peixe. nada", "--punct", "split", "--focus", "peixe."], b"", 2,
     "'peixe.' is not one token: the sentence splits it into 2 tokens, "
     "'peixe', '.'; focus one of them, such as --focus 'peixe@1'", True),
    # a list option given twice: the second list would drop the first's
    # items (option_row.one_list)
    (["--ablate", "0.1", "--ablate", "1.0", S], b"", 2,
     "--ablate: given twice; give one list, comma-separated", True),
    (["--tables", "out", "--tables", "attn_weights", S], b"", 2,
     "--tables: given twice; give one list", True),
    (["--variant", "single", "--variant", "fused", S], b"", 2,
     "--variant: given twice; give one list", True),
    (["--layers", "0", "--layers", "1", S], b"", 2,
     "--layers: given twice; give one list", True),
    (["--show-heads", "0", "--show-heads", "1", S], b"", 2,
     "--show-heads: given twice; give one list", True),
    # a corpus-trained run: the loss at the final parameters is the shown
    # sentence's, which needs two tokens
    (["--corpus", "two.csv", "--column", "text", "--train", "2", "--variant",
      "block", "--d-model", "4", "cat"], b"", 2,
     "--train: the shown sentence has one token: the model trains on "
     "--corpus, but the loss at the final parameters is the shown "
     "sentence's", False),
    # a notebook's order of draws, random input and dropout
    (["--draw", "fused,input,fused", S], b"", 2,
     "--draw: 'fused' is listed twice in 'fused,input,fused'", True),
    (["--draw", "input,input,fused", S], b"", 2,
     "--draw: 'input' is listed twice", True),
    (["--draw", "fused,x", S], b"", 2,
     "--draw: 'fused,x' is not an order of input and the variants", True),
    (["--draw", "input", S], b"", 2,
     "--draw: 'input' is not an order of input", True),
    (["--draw", "fused,,input", S], b"", 2, "--draw: 'fused,,input'", True),
    (["--draw", "input,fused", "--variant", "single", S], b"", 2,
     "--draw: names the variants to run; --variant lists others", True),
    (["--dropout", "1", "--variant", "block", "--d-model", "4", S], b"", 2,
     "--dropout: '1' is not a probability (expected a number from 0 up "
     "to, but not including, 1)", True),
    (["--attn-dropout", "-0.1", S], b"", 2,
     "--attn-dropout: '-0.1' is not a probability", True),
    (["--attn-dropout", "nan", S], b"", 2,
     "--attn-dropout: 'nan' is not a probability", True),
    (["--dropout", "0.5x", S], b"", 2, "--dropout: '0.5x' is not a "
     "probability", True),
    (["--dropout", "0.1", S], b"", 2,
     "--dropout: applies to block, which this run does not include", True),
    (["--attn-dropout", "0.1", "--variant", "block", "--d-model", "4", S],
     b"", 2, "--attn-dropout: applies to %s," % listed(ATTN_DROPOUT, "or"),
     True),
    (["--randn-input", "--embeddings", "e.csv"], b"", 2,
     "--randn-input: draws the input itself; it does not go with "
     "--embeddings", True),
    (["--draw", "input,single", "--embeddings", "e.csv"], b"", 2,
     "--draw: input draws the input, which --embeddings gives", True),
    (["--lr", "0x1p-3", "--train", "1", S], b"", 2,
     "--lr: '0x1p-3' is not a learning rate", True),
    (["--lr", "1e-400", "--train", "1", S], b"", 2,
     "--lr: '1e-400' is not a learning rate", True),
    (["--attn-dropout", "0x1p-3", S], b"", 2,
     "--attn-dropout: '0x1p-3' is not a probability", True),
    (["--dropout", " 0.5", "--variant", "block", "--d-model", "4", S], b"",
     2, "--dropout: ' 0.5' is not a probability", True),
    (["--dropout", "0", S], b"", 2,
     "--dropout: applies to block, which this run does not include", True),
    (["--optimizer", "adam", S], b"", 2, "--optimizer: goes with --train N",
     True),
    (["--randn-input", "--kv", "a b", S], b"", 2,
     "--kv: cross-attention takes two sentences, not --randn-input", True),
    (["--batch", "0", S], b"", 2, "--batch: 0 is out of range", True),
    (["--batch", "1025", "--randn-input", S], b"", 2,
     "--batch: 1025 is out of range (expected 1 to 1024)", True),
]

# Far from every option: no guess.
NO_GUESS = [["--bogus", S], ["--zzzzzzzz", S], ["-x", S]]


def snapshot(top):
    """{relative path: (kind, bytes or link target, mode)} under top."""
    found = {}
    for root, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, top)
            st = os.lstat(path)
            if os.path.islink(path):
                found[rel] = ("link", os.readlink(path), 0)
            elif os.path.isdir(path):
                found[rel] = ("dir", b"", st.st_mode & 0o777)
            else:
                with open(path, "rb") as f:
                    found[rel] = ("file", f.read(), st.st_mode & 0o777)
    return found


def csv_dir_failures(tmp):
    """--csv-dir replaces files of the same names; a run that fails
    leaves the directory exactly as it was."""
    out = os.path.join(tmp, "keep")
    r = MHA.run([S, "--csv-dir", out])
    ok(r.returncode == 0 and len(os.listdir(out)) > 5, "--csv-dir writes")
    # the user's own file, untouched by any run
    with open(os.path.join(out, "notes.txt"), "w") as f:
        f.write("mine\n")
    # a name the run must write is a directory: nothing is replaced
    os.remove(os.path.join(out, "fused.out.csv"))
    os.mkdir(os.path.join(out, "fused.out.csv"))
    before = snapshot(out)
    r = MHA.run([S, "--seed", "7", "--csv-dir", out])
    lines = r.stderr.decode("utf-8", "replace").splitlines()
    ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 1 and
       "fused.out.csv" in lines[0], "--csv-dir onto a directory named like "
       "a file: status 2, one line naming it", (r.returncode, r.stderr))
    ok(snapshot(out) == before, "a failed --csv-dir run leaves every earlier "
       "file as it was, adds nothing", sorted(set(snapshot(out)) ^ set(before)))
    # the same with the blocking name late in the set: files before it were
    # already moved when it fails, and are put back
    os.rmdir(os.path.join(out, "fused.out.csv"))
    late = sorted(n for n in os.listdir(out) if n.endswith(".csv"))[-1]
    os.remove(os.path.join(out, late))
    os.mkdir(os.path.join(out, late))
    before = snapshot(out)
    r = MHA.run([S, "--seed", "7", "--csv-dir", out])
    ok(r.returncode == 2 and snapshot(out) == before,
       "a failure at the last file (%s) puts back the files already "
       "replaced" % late, (r.returncode, r.stderr))
    os.rmdir(os.path.join(out, late))
    # a symlink named like an output file is refused: neither replaced
    # nor followed
    victim = os.path.join(tmp, "victim.txt")
    with open(victim, "w") as f:
        f.write("victim\n")
    os.chmod(victim, 0o600)
    os.symlink(victim, os.path.join(out, "input.inputs.csv.tmp"))
    os.remove(os.path.join(out, "input.inputs.csv"))
    os.symlink(victim, os.path.join(out, "input.inputs.csv"))
    before = snapshot(out)
    r = MHA.run([S, "--csv-dir", out])
    with open(victim) as f:
        kept = f.read()
    ok(r.returncode == 2 and b"symbolic link" in r.stderr and
       kept == "victim\n" and os.stat(victim).st_mode & 0o777 == 0o600 and
       snapshot(out) == before,
       "a symlink at an output name is refused; it and its target stay "
       "as they were", (r.returncode, r.stderr, kept))
    os.remove(os.path.join(out, "input.inputs.csv"))
    os.remove(os.path.join(out, "input.inputs.csv.tmp"))
    r = MHA.run([S, "--csv-dir", out])
    assert r.returncode == 0, r.stderr
    left = [n for n in os.listdir(out) if n.startswith(".")]
    ok(left == [], "nothing hidden is left after a run", left)
    # a second run replaces the files of the same names, keeps the rest
    with open(os.path.join(out, "fused.out.csv")) as f:
        first = f.read()
    r = MHA.run([S, "--seed", "7", "--csv-dir", out])
    with open(os.path.join(out, "fused.out.csv")) as f:
        second = f.read()
    with open(os.path.join(out, "notes.txt")) as f:
        notes = f.read()
    ok(r.returncode == 0 and first != second and notes == "mine\n",
       "a second run replaces its files and keeps the user's others")
    # --input: sentence1 blocked by a file; sentence0 is not left behind
    sentences = os.path.join(tmp, "two.csv")
    with open(sentences, "w") as f:
        f.write("s\nO gato\nO cão sobe\n")
    many = os.path.join(tmp, "many")
    os.mkdir(many)
    with open(os.path.join(many, "sentence1"), "w") as f:
        f.write("in the way\n")
    before = snapshot(many)
    for form in ("csv", "text"):
        r = MHA.run(["--input", sentences, "--column", "s", "--csv-dir", many,
                     "--format", form])
        ok(r.returncode == 2 and b"sentence1" in r.stderr and
           r.stderr.count(b"\n") == 1 and r.stdout == b"" and
           snapshot(many) == before, "--input --format %s: a later sentence "
           "that cannot be written leaves no earlier sentence's files and "
           "prints nothing" % form, (r.returncode, r.stderr, r.stdout[:80],
                                     sorted(snapshot(many))))
    # a full disk (a file-size limit) at the second sentence: nothing on
    # stdout, nothing in the folder
    grows = os.path.join(tmp, "grows.csv")
    with open(grows, "w") as f:
        f.write("s\nO gato\n" + " ".join("w%d" % i for i in range(200)) +
                "\n")
    r = subprocess.run(MHA.command(["--input", grows, "--column", "s",
                                    "--d-model", "8", "--d-out", "8",
                                    "--tables", "inputs", "--csv-dir", many]),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=small_files, timeout=600)
    ok(r.returncode == 1 and b"sentence1/input.inputs.csv: File too large"
       in r.stderr and r.stderr.count(b"\n") == 1 and r.stdout == b"" and
       snapshot(many) == before, "--input: a full disk at the second "
       "sentence prints nothing and leaves the folder as it was",
       (r.returncode, r.stderr, r.stdout[:80]))
    os.remove(os.path.join(many, "sentence1"))
    r = MHA.run(["--input", sentences, "--column", "s", "--csv-dir", many,
                 "--format", "csv"])
    ok(r.returncode == 0 and sorted(os.listdir(many)) ==
       ["sentence0", "sentence1"], "--input --csv-dir writes a folder per "
       "sentence", os.listdir(many))
    # a file too large to write (a file-size limit stands in for a full
    # disk) after 70 new levels were made: none is left
    deep = os.path.join(tmp, "deep", *["d%d" % i for i in range(70)])
    r = subprocess.run(MHA.command([S, "--d-model", "256", "--csv-dir", deep]),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=small_files, timeout=600)
    ok(r.returncode == 1 and r.stdout == b"" and b"File too large" in r.stderr
       and not os.path.exists(os.path.join(tmp, "deep")),
       "a write that fails removes all 70 directories the run made",
       (r.returncode, r.stderr))
    # the same into the earlier output: it is left as it was
    before = snapshot(out)
    r = subprocess.run(MHA.command([S, "--d-model", "256", "--csv-dir", out]),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=small_files, timeout=600)
    ok(r.returncode == 1 and snapshot(out) == before,
       "a write that fails leaves the earlier output as it was",
       (r.returncode, r.stderr))


def output_paths(tmp):
    """Every option that writes (--plot, --html, --csv-dir, a trained
    model's --csv-dir folder) given a path that cannot take its file: a
    folder that is a file, a folder missing, a symlink, a folder where a
    file goes, a folder this user may not write in. Each is bad input:
    status 2, one line naming the path, nothing on standard output and
    nothing changed on disk."""
    top = tempfile.mkdtemp(prefix="mha-paths-", dir=tmp)
    os.chmod(top, 0o755)
    with open(os.path.join(top, "file"), "w") as f:
        f.write("mine\n")
    with open(os.path.join(top, "real.txt"), "w") as f:
        f.write("target\n")
    for name in ("link.png", "link.html"):
        os.symlink("real.txt", os.path.join(top, name))
    for name in ("adir.png", "adir.html", "cd_dir", "cd_link", "trained"):
        os.mkdir(os.path.join(top, name))
    os.mkdir(os.path.join(top, "cd_dir", "input.inputs.csv"))
    os.symlink("../real.txt", os.path.join(top, "cd_link", "input.inputs.csv"))
    os.mkdir(os.path.join(top, "trained", "model.json"))
    small = [S, "--d-model", "4", "--d-out", "4", "--heads", "2"]
    train = ["O gato sobe no tapete", "--d-model", "4", "--d-out", "4",
             "--heads", "2", "--variant", "single", "--train", "2"]
    cases = [
        # (what, arguments, fragment of the line)
        ("--plot in a folder that is a file", small + ["--plot",
         "file/x.png"], "--plot: cannot write file/x.png: Not a directory"),
        ("--html in a folder that is a file", small + ["--html",
         "file/x.html"], "--html: cannot write file/x.html: Not a directory"),
        ("--csv-dir in a folder that is a file", small + ["--csv-dir",
         "file/sub"], "--csv-dir: file is not a directory"),
        ("--plot in a missing folder", small + ["--plot", "none/x.png"],
         "--plot: cannot write none/x.png: No such file or directory"),
        ("--html in a missing folder", small + ["--html", "none/x.html"],
         "--html: cannot write none/x.html: No such file or directory"),
        ("--plot a symlink", small + ["--plot", "link.png"],
         "--plot: link.png is a symbolic link"),
        ("--html a symlink", small + ["--html", "link.html"],
         "--html: link.html is a symbolic link"),
        ("--csv-dir with a file that is a symlink", small + ["--csv-dir",
         "cd_link"], "cd_link/input.inputs.csv: it is a symbolic link"),
        ("--plot a folder", small + ["--plot", "adir.png"],
         "--plot: cannot write adir.png: Is a directory"),
        ("--html a folder", small + ["--html", "adir.html"],
         "--html: cannot write adir.html: Is a directory"),
        ("--csv-dir a file", small + ["--csv-dir", "file"],
         "--csv-dir: file is not a directory"),
        ("--csv-dir with a folder where a table goes", small + ["--csv-dir",
         "cd_dir"], "cd_dir/input.inputs.csv: Is a directory"),
        ("--train --csv-dir with a folder where model.json goes", train +
         ["--csv-dir", "trained"], "trained/model.json: Is a directory"),
    ]
    for what, args, fragment in cases:
        before = snapshot(top)
        r = MHA.run(args, cwd=top)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 1 and
           fragment in lines[0] and snapshot(top) == before,
           "%s: status 2, one line, nothing changed" % what,
           (r.returncode, r.stderr[:300]))
    # a folder this user may not write in (as another user when root)
    os.mkdir(os.path.join(top, "ro"))
    as_other = None
    if os.geteuid() == 0:
        def as_other():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
    try:
        probe = subprocess.run(MHA.command(["--version"]), cwd=top,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=as_other, timeout=600)
        runs = probe.returncode == 0
    except OSError:
        runs = False
    if not runs:
        ok(True, "# SKIP a folder one may not write in: the program cannot "
           "be run as another user here")
        return
    os.chmod(os.path.join(top, "ro"), 0o555)
    for what, args, fragment in [
            ("--plot", small + ["--plot", "ro/x.png"],
             "--plot: cannot write ro/x.png: Permission denied"),
            ("--html", small + ["--html", "ro/x.html"],
             "--html: cannot write ro/x.html: Permission denied"),
            ("--csv-dir", small + ["--csv-dir", "ro"],
             "cannot write ro: Permission denied"),
            ("--csv-dir's new folder", small + ["--csv-dir", "ro/sub"],
             "--csv-dir: cannot create ro/sub: Permission denied"),
            ("--train --csv-dir", train + ["--csv-dir", "ro/t"],
             "--csv-dir: cannot create ro/t: Permission denied")]:
        before = snapshot(top)
        # the text's spool in a folder every user may write in
        r = subprocess.run(MHA.command(args), cwd=top, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=as_other,
                           env=dict(os.environ, TMPDIR="/tmp"), timeout=600)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 1 and
           fragment in lines[0] and snapshot(top) == before,
           "%s in a folder one may not write in: status 2, one line, "
           "nothing changed" % what, (r.returncode, r.stderr[:300]))


def accepted_inputs(tmp):
    """Inputs at the edge of a limit, or with bytes that need care, that
    are not errors."""
    # standard input of exactly 1 MiB
    r = MHA.run(["-", "--variant", "single", "--tables", "tokens"],
                b"x" + b" " * ((1 << 20) - 1))
    ok(r.returncode == 0 and b"x" in r.stdout,
       "standard input of exactly 1048576 bytes is read", r.stderr)
    # a byte-order mark before the sentence on standard input
    r = MHA.run(["-", "--focus", "O"], b"\xef\xbb\xbfO gato")
    ok(r.returncode == 0 and r.stdout.startswith(b"focus: O (position 0"),
       "a UTF-8 byte-order mark on standard input is not part of a token",
       (r.stdout[:80], r.stderr))
    r = MHA.run(["-"], b"\xef\xbb\xbf")
    ok(r.returncode == 2 and b"the sentence is empty" in r.stderr,
       "a byte-order mark alone is an empty sentence", r.stderr)
    # unique prefixes are still taken
    r = MHA.run(["--decimal", S, "--variant", "single", "--tables", "tokens"])
    ok(r.returncode == 0, "a unique prefix (--decimal) is accepted", r.stderr)
    # a decimal with 200 zeros after the point is a number (0, as in
    # PyTorch), not "not a number"
    path = os.path.join(tmp, "tiny.csv")
    with open(path, "w") as f:
        f.write("token,a\nx,0." + "0" * 200 + "1\n")
    r = MHA.run(["--embeddings", path, "--variant", "single", "--tables",
                 "inputs", "--format", "csv"])
    ok(r.returncode == 0 and r.stdout.rstrip().endswith(b",0"),
       "0.(200 zeros)1 reads as 0, as float() then torch.tensor() read it",
       (r.stdout[-80:], r.stderr))
    # a number too small to be told from 0 rounds, as float() rounds it:
    # to a subnormal (a learning rate) or to 0 (a probability)
    r = MHA.run(["--attn-dropout", "1e-400", S, "--variant", "single",
                 "--tables", "tokens"])
    ok(r.returncode == 0, "--attn-dropout 1e-400 is 0", r.stderr)
    r = MHA.run(["--lr", "1e-320", "--train", "1", "the cat sat",
                 "--variant", "single", "--tables", "loss", "--format",
                 "csv"])
    ok(r.returncode == 0, "--lr 1e-320 is a subnormal rate", r.stderr)
    # bidirectional controls are escaped in text, kept in CSV
    rlo = "ab\u202ecd"
    for ch in ["\u202a", "\u202e", "\u2066", "\u2069", "\u200e", "\u200f",
               "\u061c"]:
        r = MHA.run(["x" + ch + "y z", "--variant", "single", "--tables",
                     "tokens"])
        want = ("x\\u%04xy" % ord(ch)).encode()
        ok(r.returncode == 0 and want in r.stdout and
           ch.encode() not in r.stdout,
           "U+%04X is shown as \\u%04x in text" % (ord(ch), ord(ch)),
           r.stdout[:200])
    r = MHA.run([rlo + " z", "--variant", "single", "--tables", "tokens",
                 "--format", "csv"])
    ok(r.returncode == 0 and rlo.encode() in r.stdout,
       "CSV keeps U+202E as it is", r.stdout[:200])
    r = MHA.run(["x y", "--focus", rlo])
    ok(r.returncode == 2 and b"ab\\u202ecd" in r.stderr and
       "\u202e".encode() not in r.stderr, "error messages escape it too",
       r.stderr)


def bounded_reading(tmp):
    """The CSV readers refuse a bad shape or cell as they read it, with
    memory for what can be accepted only (256 MiB of address space here,
    far less than keeping every cell of these files would take)."""
    cases = [
        ("empty_cells.csv", "token" + "," * 8192 + "\n" +
         ("x" + "," * 8192 + "\n") * 4096, [],
         "empty_cells.csv:2:3: an empty cell where a number belongs"),
        ("wide_row.csv", "token,a\nx,1," + "," * (3 << 20) + "\n", [],
         "wide_row.csv:2:5: this row has 3145731 fields, the header has 2"),
        ("wide_sentence.csv", "s\nO gato" + "," * (3 << 20) + "\n",
         ["--column", "s"],
         "wide_sentence.csv:2:8: this row has 3145729 fields, the header has 1"),
        ("short_row.csv", "token,a,b\nx,1,2\ny,1\n", [],
         "short_row.csv:3:3: this row has 2 fields, the header has 3"),
    ]
    # AddressSanitizer and valgrind need far more address space than that
    with open(MHA.path, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    limit = None if sanitized or MHA.prefix else small_memory
    for name, text, more, fragment in cases:
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        option = "--input" if more else "--embeddings"
        r = subprocess.run(MHA.command([option, path] + more),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=limit, timeout=600)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 1 and
           fragment in lines[0], "%s: refused while reading, in 256 MiB"
           % name, (r.returncode, r.stderr[:300]))


def own_lines(stderr):
    """stderr without the lines of a valgrind prefix (==PID== ...), which
    reports what a process ended by a signal still held."""
    return b"".join(line for line in stderr.splitlines(True)
                    if not re.match(rb"==\d+==", line))


def signals(tmp):
    """SIGINT, SIGTERM and SIGHUP while --csv-dir files are written leave
    nothing behind: the run is stopped as soon as its unfinished folder
    holds the first sentence's files, while the later sentences are still
    being computed (a 512-wide model, 20 sentences of 100 words)."""
    sentences = os.path.join(tmp, "signal.csv")
    with open(sentences, "w") as f:
        f.write("s\n" + "".join(
            " ".join("w%d" % j for j in range(i, i + 100)) + "\n"
            for i in range(20)))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        out = os.path.join(tmp, "sig%d" % sig, "new")
        p = subprocess.Popen(
            MHA.command(["--input", sentences, "--column", "s",
                         "--d-model", "512", "--d-out", "512", "--heads", "1",
                         "--variant", "fused", "--tables", "attn_weights",
                         "--csv-dir", out]),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 300
        seen = []
        while time.time() < deadline and p.poll() is None:
            try:
                seen = [n for n in os.listdir(out) if n.startswith(".")]
                if seen and os.listdir(os.path.join(out, seen[0])):
                    break
            except FileNotFoundError:
                pass
            time.sleep(0.01)
        p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=600)
        stderr = own_lines(stderr)
        ok(seen and seen[0].startswith(".mha-explain-unfinished.") and
           p.returncode == -sig and stdout == b"" and stderr == b"" and
           not os.path.exists(os.path.join(tmp, "sig%d" % sig)),
           "signal %d while --csv-dir files are unfinished: the temporary "
           "files and the folders made are removed, nothing printed" % sig,
           (seen, p.returncode, stdout[:100], stderr[:200]))


def closed_pipe(tmp):
    """A reader that goes away ends the program by SIGPIPE, as it ends cat
    or grep, with nothing on stderr and no unfinished file left; when
    SIGPIPE is ignored, the write error is a failure: status 1, one line.
    The files a run replaced are kept until its text is all written, so
    either way the run fails and they are put back: nothing new is
    left."""
    sentences = os.path.join(tmp, "pipe.csv")
    with open(sentences, "w") as f:
        f.write("s\n" + "".join("w%d x y z\n" % i for i in range(30)))
    ignore = lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    runs = [([S, "--full", "--d-model", "64", "--d-out", "64"], None),
            (["--input", sentences, "--column", "s", "--full", "--d-model",
              "64", "--d-out", "64"], None),
            (["--input", sentences, "--column", "s", "--full", "--d-model",
              "64", "--d-out", "64", "--csv-dir", "DIR"], None),
            (["--input", sentences, "--column", "s", "--full", "--d-model",
              "64", "--d-out", "64", "--csv-dir", "DIR"], ignore),
            ([S, "--full", "--d-model", "64", "--d-out", "64", "--plot", "DIR/p.png",
              "--format", "csv"], ignore)]
    # a build without plotting (-Dplots=disabled) writes the page instead
    probe = os.path.join(tmp, "probe.png")
    if MHA.run([S, "--plot", probe]).returncode != 0:
        runs[-1] = ([a.replace("--plot", "--html").replace("p.png", "p.html")
                     for a in runs[-1][0]], ignore)
    for number, (args, preexec) in enumerate(runs):
        out = os.path.join(tmp, "pipe%d" % number)
        args = [a.replace("DIR", out) for a in args]
        if "--plot" in args or "--html" in args:
            os.mkdir(out)
        p = subprocess.Popen(MHA.command(args), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, preexec_fn=preexec)
        p.stdout.readline()
        p.stdout.close()
        err = own_lines(p.stderr.read())
        p.wait(timeout=600)
        p.stderr.close()
        lines = err.decode("utf-8", "replace").splitlines()
        if preexec is None:
            good = p.returncode == -signal.SIGPIPE and err == b""
        else:
            good = (p.returncode == 1 and len(lines) == 1 and
                    lines[0].startswith("mha-explain: cannot write the output"))
        left = []
        for top, dirs, names in os.walk(out):
            left += [n for n in dirs + names if n.startswith(".")]
        if "--csv-dir" in args:
            good = good and not os.path.exists(out)
        if "--plot" in args or "--html" in args:
            good = good and os.listdir(out) == []
        ok(good and not left, "a closed pipe %s: %s" % (
            "with SIGPIPE ignored" if preexec else "ends the run by SIGPIPE",
            " ".join(args[:3])), (p.returncode, err[:300], left))


def weights_files(tmp):
    """Every file in a --weights folder that looks like a parameter file
    is read or is an error naming it; none is silently skipped."""
    cases = [
        ("dangling", lambda d: os.symlink(os.path.join(d, "missing"), os.path.join(
            d, "fused.W_query.weight.csv")), "fused.W_query.weight.csv: cannot open"),
        ("folder", lambda d: os.mkdir(os.path.join(d, "fused.W_key.weight.csv")),
         "fused.W_key.weight.csv: not a regular file"),
        ("leading_zero", lambda d: open(os.path.join(
            d, "wrapper.heads.01.W_query.weight.csv"), "w").close(),
         "wrapper.heads.01.W_query.weight.csv: the wrapper module has no layer"),
        ("upper_case", lambda d: open(os.path.join(
            d, "fused.W_query.weight.CSV"), "w").close(),
         "fused.W_query.weight.CSV: parameter files end in '.weight.csv'"),
    ]
    for name, make, fragment in cases:
        d = os.path.join(tmp, "weights_" + name)
        os.mkdir(d)
        make(d)
        MHA.check_error([S, "--weights", d], fragment,
                        "--weights with a %s file: an error naming it" % name,
                        hint=False)


def small_memory():
    """In the child: at most 256 MiB of address space."""
    resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))


def small_files():
    """In the child: files stop at 4 KiB, and writing past that is an
    error (EFBIG) rather than a signal."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

def main():
    with tempfile.TemporaryDirectory() as tmp:
        # a weight file that --tie would replace
        os.mkdir(os.path.join(tmp, "tied"))
        with open(os.path.join(tmp, "tied", "fused.W_key.weight.csv"), "w") as f:
            f.write("token,in0,in1,in2\n" +
                    "".join("out%d,1,0,0\n" % i for i in range(4)))
        # CSV files at and past the readers' limits
        data = {
            "rows.csv": "token,a\n" + "x,1\n" * 8001,
            "sentences.csv": "s\n" + "x\n" * 10001,
            "huge.csv": "token,a\nx,1" + "0" * 120 + "\n",
            "quoted.csv": 'token,a\n"' + "a\n" * 40000 + '",1\n',
            "work.csv": "s\n" + (" ".join("w%d" % (j % 100)
                                          for j in range(8000)) + "\n") * 14,
            "quoted_commas.csv": 'token,a\n"' + "a," * 40000 + '",1\n',
            "two.csv": "text\nthe cat sat\nthe dog sat\n",
        }
        for name, text in data.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        for number, (args, stdin, status, fragment, hint) in enumerate(CASES):
            # every case also asks for a --csv-dir, which must stay empty
            out = os.path.join(tmp, "out%d" % number)
            r = MHA.run(["--csv-dir", out] + args, stdin, cwd=tmp)
            lines = r.stderr.decode("utf-8", "replace").splitlines()
            good = (r.returncode == status and r.stdout == b"" and lines and
                    lines[0].startswith("mha-explain: ") and fragment in lines[0])
            if hint:
                good = good and len(lines) == 2 and lines[1] == \
                    "Try 'mha-explain --help' for more information."
            else:
                good = good and len(lines) == 1
            good = good and not os.path.exists(out)
            shown = " ".join(a if len(a) < 40 else a[:37] + "..." for a in args)
            ok(good, "status %d, '%s' for: %s" % (status, fragment, shown),
               "status %d stdout %r stderr %r" % (r.returncode, r.stdout[:80], r.stderr[:300]))

        # no guess when nothing is near, or two names are as near
        for name in ("nosuch", "ln_3", "attn_weights_avgxyz"):
            r = MHA.run(["--tables", name, S])
            ok(r.returncode == 2 and
               b"unknown table '%s'\n" % name.encode() in r.stderr,
               "--tables %s: no guess" % name, r.stderr)

        for args in NO_GUESS:
            r = MHA.run(args)
            ok(r.returncode == 2 and b"unknown option" in r.stderr and
               b"did you mean" not in r.stderr,
               "no guess for %s" % args[0], r.stderr)

        # --help: within 80 columns, in groups
        r = MHA.run(["--help"])
        text = r.stdout.decode("utf-8")
        widest = max(len(line) for line in text.split("\n"))
        groups = [line for line in text.split("\n")
                  if line and not line.startswith(" ") and line.endswith(":")]
        ok(r.returncode == 0 and widest <= 80,
           "--help fits 80 columns (widest %d)" % widest)
        ok([g.split()[0] for g in groups] ==
           ["Model", "Inputs", "Output:", "Pictures:", "On", "Teaching:",
            "Speed:", "Tables,"],
           "--help is grouped: model, inputs, output, pictures, terminal, "
           "teaching, speed, then the tables",
           groups)
        # the tables --help lists are the catalogue's (model/catalogue.h)
        catalogue = open(os.path.join(os.path.dirname(os.path.abspath(
            __file__)), "..", "..", "src", "model", "catalogue.h"),
            encoding="utf-8").read()
        rows = re.findall(r'TABLE\(\w+, "([a-z_.0-9]+)"', catalogue)
        listed = text[text.index("\nTables,"):]
        ok(len(rows) > 20 and all(re.search(r"\b%s\b" % re.escape(n), listed)
                                  for n in rows),
           "--help lists every table of the catalogue (%d)" % len(rows))

        # a csv-dir that cannot be created is bad input
        blocker = os.path.join(tmp, "file")
        open(blocker, "w").close()
        r = MHA.run([S, "--csv-dir", os.path.join(blocker, "sub")])
        ok(r.returncode == 2 and r.stdout == b"" and b"--csv-dir" in r.stderr,
           "a --csv-dir under a regular file: status 2, nothing on stdout")
        # a failed run leaves nothing it made: a bad weight file stops the run
        weights = os.path.join(tmp, "w")
        os.mkdir(weights)
        with open(os.path.join(weights, "fused.out_proj.bias.csv"), "w") as f:
            f.write("token,out0\nbias,1\n")
        out = os.path.join(tmp, "made", "here")
        r = MHA.run([S, "--weights", weights, "--csv-dir", out])
        ok(r.returncode == 2 and not os.path.exists(os.path.join(tmp, "made")),
           "a run that fails creates no --csv-dir")
        csv_dir_failures(tmp)
        output_paths(tmp)
        accepted_inputs(tmp)
        bounded_reading(tmp)
        signals(tmp)
        weights_files(tmp)
        # output that cannot be written
        with open("/dev/full", "wb") as full:
            r = MHA.run([S], stdout=full)
        lines = r.stderr.decode().splitlines()
        ok(r.returncode == 1 and len(lines) == 1 and lines[0].startswith("mha-explain: ")
           and "No space left" in lines[0], "stdout on a full disk: status 1, one line")
        closed_pipe(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
