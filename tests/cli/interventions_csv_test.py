#!/usr/bin/env python3
"""What a reader of the interventions' text and CSV relies on.

    interventions_csv_test.py MHA_EXPLAIN GPT2_REFERENCE_DIR

- a trained lesson model's interventions are named by what ran, the
  variant block, in the text's headings, the tidy CSV's variant column
  and --csv-dir's file names, as the run's other tables are;
- each map's cells carry their keys: the tidy CSV's layer and head
  columns (ablation_map, patch_heads, head_scores), the layer of
  patch_resid's rows, and --csv-dir's key columns (layer, or layer and
  head) in place of the row labels, so that pandas reads them as they
  are;
- a second --csv-dir run into the same folder names, on standard error,
  the files it did not write, and leaves them as they were;
- a map whose every value prints as 0 at --precision says so under it,
  in every language, and no other table changes.

The numbers themselves are PyTorch's (test_interventions.c,
test_lesson_interventions.c); the clean text beside an ablated
generation is checked against PyTorch by generate_ablate_test.py.
"""
import csv
import io
import os
import sys
import tempfile

from taplib import Program, done, ok

mha = Program(sys.argv[1])
two = os.path.join(sys.argv[2], "two_layers")
tmp = tempfile.mkdtemp()
text = "the cat sat on the mat"


def tidy(args):
    r = mha.run(args + ["--format", "csv"])
    return r, list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))


def read_rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


# ---- a lesson model's interventions are named by its variant -------------
corpus = os.path.join(tmp, "corpus.csv")
with open(corpus, "w", encoding="utf-8") as f:
    f.write("text\nthe cat sat on the mat\nthe dog sat on the rug\n"
            "a cat saw the dog\n")
LESSON = ["--corpus", corpus, "--column", "text", "--variant", "block",
          "--attn-only", "--d-model", "8", "--heads", "2", "--positions",
          "--seed", "1", "--threads", "1", "--train", "20"]
for layers in (["--layers", "2"], []):
    for what, table in ((["--ablate", "all-heads"], "ablation_map"),
                        (["--ablate", "1.0" if layers else "0.1"],
                         "ablation_loss"),
                        (["--head-scores"], "head_scores")):
        args = LESSON + layers + what + [text, "--tables", "out," + table]
        r = mha.run(args)
        heads = [line.split()[0] for line in r.stdout.decode().splitlines()
                 if line.startswith("[")]
        want = "[block]"
        ok(r.returncode == 0 and (want, "[block]" if not layers else
                                  "[block.1]") ==
           (heads[-1], heads[-2]) and "[model]" not in heads,
           "%s %s: the heading names the variant that ran, as the run's "
           "other tables" % (" ".join(layers) or "one block", table), heads)
        r, rows = tidy(args)
        ok(r.returncode == 0 and
           {row["variant"] for row in rows if row["table"] == table} ==
           {"block"},
           "%s %s: the tidy CSV's variant is block" %
           (" ".join(layers) or "one block", table), r.stderr)
folder = os.path.join(tmp, "lesson")
r = mha.run(LESSON + ["--layers", "2", "--ablate", "all-heads", text,
                      "--tables", "ablation_map", "--csv-dir", folder])
ok(r.returncode == 0 and "block.ablation_map.csv" in os.listdir(folder) and
   not any(n.startswith("model.") and n.endswith(".csv")
           for n in os.listdir(folder)),
   "--csv-dir: block.ablation_map.csv", sorted(os.listdir(folder))[:5])
# the trained model read back from its folder
r = mha.run(["--weights", folder, "--variant", "block", "--ablate",
             "all-heads", "--tables", "ablation_map", text])
ok(r.returncode == 0 and
   r.stdout.decode().startswith("[block] ablation_map (2 x 2)"),
   "--weights DIR: the map of the model read back is [block]'s",
   r.stdout.decode()[:80] + r.stderr.decode())

# ---- each map's cells carry their keys -----------------------------------
r, rows = tidy(["--model", two, text, "--ablate", "all-heads",
                "--tables", "ablation_map"])
ok(r.returncode == 0 and len(rows) == 4 and
   all(row["layer"] == row["row"] and row["head"] == row["col"]
       for row in rows),
   "ablation_map in the tidy CSV: cell (l, h) has layer l and head h",
   rows[:2])
patch = ["--model", two, "--patch", "--clean", text, "--corrupt",
         "the mat sat on the cat", "--answer", " cat", "--wrong", " mat"]
r, rows = tidy(patch + ["--tables", "patch_heads,patch_resid"])
heads = [row for row in rows if row["table"] == "patch_heads"]
resid = [row for row in rows if row["table"] == "patch_resid"]
ok(r.returncode == 0 and len(heads) == 4 and len(resid) == 12 and
   all(x["layer"] == x["row"] and x["head"] == x["col"] for x in heads) and
   all(x["layer"] == x["row"] and x["head"] == "" for x in resid),
   "patch_heads: layer and head; patch_resid: the layer, col the position",
   resid[:2])
scores = ["--model", two, "the cat sat on the cat sat on the",
          "--head-scores", "--tables", "head_scores"]
r, rows = tidy(scores)
ok(r.returncode == 0 and len(rows) == 12 and
   all(row["row_label"] == "h.%s.%s" % (row["layer"], row["head"])
       for row in rows),
   "head_scores: each row's layer and head, as its label h.L.H says",
   rows[:1])
r, rows = tidy(LESSON + ["--ablate", "all-heads", text, "--tables",
                         "ablation_map,out"])
maps = [row for row in rows if row["table"] == "ablation_map"]
ok(r.returncode == 0 and "layer" in rows[0] and len(maps) == 2 and
   all(row["layer"] == "0" and row["head"] == row["col"] for row in maps) and
   all(row["layer"] == "" for row in rows if row["table"] == "out"),
   "one block: the tidy CSV has its layer column for the map's cells",
   maps[:1])

out = os.path.join(tmp, "keys")
r = mha.run(["--model", two, text, "--ablate", "all-heads", "--tables",
             "ablation_map", "--csv-dir", out])
got = read_rows(os.path.join(out, "gpt2.ablation_map.csv"))
ok(r.returncode == 0 and got[0] == ["layer", "0", "1"] and
   [row[0] for row in got[1:]] == ["0", "1"],
   "--csv-dir's ablation_map: a row per layer, keyed by it", got)
r = mha.run(patch + ["--tables", "patch_heads,patch_resid", "--csv-dir",
                     out])
got = read_rows(os.path.join(out, "gpt2.patch_resid.csv"))
ok(r.returncode == 0 and got[0][0] == "layer" and
   got[0][1:] == ["the", "\u2423cat", "\u2423sat", "\u2423on", "\u2423the",
                  "\u2423mat"] and [row[0] for row in got[1:]] == ["0", "1"],
   "--csv-dir's patch_resid: layer, then a column per position", got[0])
r = mha.run(scores + ["--csv-dir", out])
got = read_rows(os.path.join(out, "gpt2.head_scores.csv"))
ok(r.returncode == 0 and got[0] == ["layer", "head", "previous_token",
                                    "duplicate_token", "induction"] and
   [row[:2] for row in got[1:]] == [["0", "0"], ["0", "1"], ["1", "0"],
                                    ["1", "1"]],
   "--csv-dir's head_scores: layer and head, then the three scores", got[:2])
r = mha.run(["--model", two, text, "--tables", "attn_weights", "--csv-dir",
             os.path.join(tmp, "weights")])
got = read_rows(os.path.join(tmp, "weights", "gpt2.h0.head0.attn_weights.csv"))
ok(got[0][0] == "token" and got[1][0].startswith("Q:"),
   "another table's file keeps its labels", got[0][:2])

# ---- a folder that another run wrote into --------------------------------
out = os.path.join(tmp, "twice")
r = mha.run(["--model", two, text, "--ablate", "all-heads", "--csv-dir",
             out])
first = os.path.join(out, "gpt2.ablation_map.csv")
with open(first, "rb") as f:
    before = f.read()
stamp = os.stat(first).st_mtime_ns
# a user's own files beside the tables are not another run's
for name in ("corpus.csv", "notes.txt", ".csv"):
    with open(os.path.join(out, name), "w") as f:
        f.write("text\nO gato\n")
r2 = mha.run(["--model", two, text, "--csv-dir", out, "--html",
              os.path.join(out, "page.csv")])
err = r2.stderr.decode()
ok(r.returncode == 0 and r2.returncode == 0 and
   err.count("\n") == 1 and "warning" in err and out in err and
   "1 file" in err and "gpt2.ablation_map.csv" in err and
   "corpus.csv" not in err and "page.csv" not in err,
   "a second --csv-dir run names the table it did not write, not the "
   "user's CSV nor this run's page", err)
with open(first, "rb") as f:
    ok(f.read() == before and os.stat(first).st_mtime_ns == stamp,
       "and leaves it as it was")
r3 = mha.run(["--model", two, text, "--csv-dir", out, "--lang", "es"])
ok(r3.returncode == 0 and "gpt2.ablation_map.csv" in r3.stderr.decode() and
   "warning" not in r3.stderr.decode(),
   "the warning in the reader's language", r3.stderr.decode())
r4 = mha.run(["--model", two, text, "--ablate", "all-heads", "--csv-dir",
              out])
ok(r4.returncode == 0 and r4.stderr == b"",
   "a run that writes every file of the folder warns of nothing",
   r4.stderr.decode())

# ---- values that all round to 0 at --precision ---------------------------
prob = ["--model", two, text, "--ablate", "all-heads", "--metric", "prob",
        "--answer", " cat", "--tables", "ablation_map"]
lines = mha.run(prob + ["--precision", "2"]).stdout.decode().splitlines()
cells = [c for line in lines[2:4] for c in line.split()[1:]]
ok(set(cells) <= {"0.00", "-0.00"} and len(lines) == 5 and
   lines[4] == "(every value rounds to 0 at --precision 2: the largest in "
   "size is -0.00144; --precision 3 shows it)",
   "--metric prob at --precision 2: a line under the map says so", lines)
shown = mha.run(prob + ["--precision", "3"]).stdout.decode().splitlines()
ok(len(shown) == 4 and "-0.001" in shown[2] + shown[3],
   "--precision 3 shows the values, and the line goes", shown)
for lang, word in (("pt_BR", "--precision 3"), ("es", "--precision 3"),
                   ("zh_CN", "--precision 3"), ("zh_TW", "--precision 3")):
    got = mha.run(prob + ["--precision", "2", "--lang", lang]).stdout.decode()
    last = got.splitlines()[-1]
    ok(word in last and "-0.00144" in last and "every value" not in last,
       "the line in %s" % lang, last)
# next_tokens' probabilities (a row of ROUNDS_NOTE_TABLES, text_rounds.h)
nt = ["--model", two, text, "--tables", "next_tokens"]
lines = mha.run(nt + ["--precision", "0"]).stdout.decode().splitlines()
ok(len(lines) == 33 and
   all(line.split()[-1] == "0" for line in lines[2:-1]) and
   lines[-1].startswith("(every value rounds to 0 at --precision 0: the "
                        "largest in size is 0.") and
   lines[-1].endswith("; --precision 1 shows it)"),
   "next_tokens at --precision 0: a line under it says so", lines[-3:])
shown = mha.run(nt + ["--precision", "2"]).stdout.decode()
ok("every value" not in shown and "0.04" in shown,
   "next_tokens at --precision 2 shows the values, and the line goes")
plain = mha.run(["--model", two, text, "--ablate", "all-heads",
                 "--precision", "2", "--tables", "ablation_map,out"])
ok(all("every value" not in line for line in
       plain.stdout.decode().splitlines()),
   "a map with values that show, and other tables: no line")
done()
