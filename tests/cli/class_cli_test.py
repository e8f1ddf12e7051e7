#!/usr/bin/env python3
"""A classroom's command lines at their edges (a hostile new user's
findings): a model folder given to the other option, CSV from standard
input, a long word as a column label, --focus and --layout grid in a
narrow terminal.

    class_cli_test.py MHA_EXPLAIN GPT2_DIR

- a trained lesson model's folder (--csv-dir of a --train run, its
  model.json) given to --model: status 2, one line naming --weights
  DIR; a checkpoint's folder (config.json) given to --weights: one line
  naming --model DIR; nothing written (--html);
- `--input -`, `--corpus -` and `--embeddings -` read the CSV from
  standard input: the same output as the file; their messages name
  "standard input"; two readers of standard input (the sentence `-` with
  `--corpus -`) are a usage error;
- a word longer than half of --width 60, as a row and a column label:
  every line at most 60 cells, the word cut with "..." to one length as
  row and as column label, the CSV keeps it whole;
- --focus in zh_TW at --width 60: each weight on the line of its word;
- --layout grid whose heads do not fit side by side: one note on
  standard error naming --width; none where they fit, none with the
  layout chosen by the program.
Prints TAP.
"""
import os
import re
import sys
import tempfile

from taplib import Program, cells, done, ok

mha = Program(sys.argv[1])
two_layers = os.path.join(sys.argv[2], "two_layers")
tmp = tempfile.mkdtemp()



# --- a model folder given to the other option ---------------------------
corpus = os.path.join(tmp, "aula.csv")
with open(corpus, "w", encoding="utf-8") as f:
    f.write("texto\no gato dorme no tapete\no gato sobe no sofá\n"
            "o cão dorme no tapete\n")
trained = os.path.join(tmp, "br_model")
r = mha.run(["--corpus", corpus, "--column", "texto", "--train", "5",
             "--variant", "fused", "o gato dorme", "--csv-dir", trained])
ok(r.returncode == 0, "a trained lesson model saved", r.stderr)
page = os.path.join(tmp, "p.html")
mha.check_error(["--model", trained, "o gato", "--html", page],
                "--model %s: the folder holds a model trained by mha-explain "
                "(its model.json), not a checkpoint: read it with --weights %s"
                % (trained, trained),
                "--model on a trained lesson folder names --weights", hint=False)
ok(not os.path.exists(page), "--model on a trained folder: no page written")
mha.check_error(["--weights", two_layers, "the cat"],
                "--weights %s: the folder holds a checkpoint (its "
                "config.json), not a model trained by mha-explain: read it "
                "with --model %s" % (two_layers, two_layers),
                "--weights on a checkpoint folder names --model", hint=False)
r = mha.run(["--model", two_layers, "the cat", "--tables", "next_tokens"])
ok(r.returncode == 0, "--model on the checkpoint still runs", r.stderr)
r = mha.run(["--weights", trained, "o gato", "--tables", "attn_weights"])
ok(r.returncode == 0, "--weights on the trained folder still runs", r.stderr)

# --- CSV from standard input ----------------------------------------------
sentences = os.path.join(tmp, "in.csv")
with open(sentences, "w", encoding="utf-8") as f:
    f.write("texto\n\"O gato sobe no tapete, e dorme.\"\n\"O cão late: au!\"\n")
data = open(sentences, "rb").read()
by_file = mha.run(["--input", sentences, "--column", "texto",
                   "--variant", "single"])
by_stdin = mha.run(["--input", "-", "--column", "texto", "--variant",
                    "single"], stdin=data)
ok(by_file.returncode == 0 and by_stdin.stdout == by_file.stdout and
   b"=== sentence 1:" in by_stdin.stdout,
   "--input - reads the CSV from standard input as --input FILE",
   by_stdin.stderr)
train = ["--column", "texto", "--train", "5", "--variant", "fused",
         "o gato", "--tables", "loss", "--format", "csv"]
by_file = mha.run(["--corpus", corpus] + train)
by_stdin = mha.run(["--corpus", "-"] + train,
                   stdin=open(corpus, "rb").read())
ok(by_file.returncode == 0 and by_stdin.stdout == by_file.stdout,
   "--corpus - trains on standard input's sentences as --corpus FILE",
   by_stdin.stderr)
emb = os.path.join(tmp, "emb.csv")
with open(emb, "w", encoding="utf-8") as f:
    f.write("token,d0,d1,d2\nO,0.1,0.2,0.3\ngato,0.4,-0.5,0.6\n")
by_file = mha.run(["--embeddings", emb, "--variant", "single"])
by_stdin = mha.run(["--embeddings", "-", "--variant", "single"],
                   stdin=open(emb, "rb").read())
ok(by_file.returncode == 0 and by_stdin.stdout == by_file.stdout,
   "--embeddings - reads standard input as --embeddings FILE",
   by_stdin.stderr)
mha.check_error(["--input", "-", "--column", "texto"],
                "standard input: no data rows after the header",
                "--input -: a message names standard input", stdin=b"x\n")
mha.check_error(["--corpus", "-", "--column", "texto", "--train", "5", "-"],
                "- and --corpus -: both read standard input",
                "the sentence - and --corpus -: refused", stdin=b"o gato\n")

# --- a long word as a column label at --width 60 --------------------------
WORD = "supercalifragilisticexpialidocious-antidisestablishmentarianism"
r = mha.run(["o %s gato" % WORD, "--variant", "single", "--tables",
             "attn_weights,head_context", "--width", "60"])
text = r.stdout.decode()
lines = text.split("\n")
cut = re.findall(r"[QK]:(\S*\.\.\.\S*)", text)
bare = re.findall(r"^(\S*\.\.\.\S*) ", text, re.M)
ok(r.returncode == 0 and all(cells(l) <= 60 for l in lines) and
   WORD not in text and cut and len(set(cut)) == 1 and
   any(l.strip().startswith("K:" + cut[0]) for l in lines),
   "a long word: cut as row and as column label, every line within 60 "
   "cells", "\n".join(l for l in lines if cells(l) > 60) or text[:1500])
ok(bare and all(len(b) == len(cut[0]) + 2 for b in bare),
   "the word cut to one length in every table (without Q:/K:, two cells "
   "more)", (cut, bare))
r = mha.run(["o %s gato" % WORD, "--variant", "single", "--tables",
             "attn_weights", "--format", "csv", "--width", "60"])
ok(("K:" + WORD).encode() in r.stdout, "the CSV keeps the word whole")

# --- --focus at 60 columns -----------------------------------------------
ZH = "我 的 猫 🐱 坐 在 垫子 上 。 🐱"
r = mha.run([ZH, "--variant", "block", "--layers", "2", "--d-model", "8",
             "--heads", "2", "--focus", "🐱@9", "--lang", "zh_TW",
             "--width", "60"])
lines = r.stdout.decode().split("\n")


def pieces(line):
    """The "word weight" entries of a line of a weights list."""
    body = re.sub(r"^\s+(關注|被關注)?\s*", "", line)
    body = re.sub(r"（另有 \d+ 個）$", "", body.rstrip()).rstrip(",")
    return body.split(", ") if body else []


lists = [l for l in lines if l.startswith(("  關注", "  被關注")) or
         (l.startswith(" " * 12) and not l.strip().startswith("-") and
          not re.match(r"\s+-?\d", l))]
entries = [p for l in lists for p in pieces(l)]
ok(r.returncode == 0 and len(lists) > 8 and entries and
   all(re.fullmatch(r"\S+ \d\.\d{4}", p) for p in entries) and
   all(cells(l) <= 60 for l in lines) and "\u00a0" not in r.stdout.decode(),
   "--focus at 60 columns: each word and its weight on one line, plain "
   "spaces", [p for p in entries if not re.fullmatch(r"\S+ \d\.\d{4}", p)]
   or "\n".join(lines[:14]))

# --- --layout grid that does not fit ---------------------------------------
LONG = "o gato sobe no tapete azul e dorme bem"
r = mha.run([LONG, "--heads", "4", "--variant", "fused", "--layout", "grid",
             "--width", "100"])
notes = [l for l in r.stderr.decode().splitlines() if "--layout grid" in l]
ok(r.returncode == 0 and len(notes) == 1 and
   notes[0].startswith("mha-explain: note: --layout grid:") and
   "100 columns" in notes[0] and "--width" in notes[0],
   "--layout grid, heads too wide for --width 100: one note on stderr",
   r.stderr)
r = mha.run(["o gato", "--heads", "2", "--variant", "fused", "--layout",
             "grid", "--width", "100"])
ok(r.returncode == 0 and r.stderr == b"",
   "--layout grid that fits: no note", r.stderr)
r = mha.run([LONG, "--heads", "4", "--variant", "fused", "--width", "100"])
ok(r.returncode == 0 and r.stderr == b"",
   "the layout the program chose: no note", r.stderr)
done()
