#!/usr/bin/env python3
"""--ablate, --patch, --head-scores (also with --repeat-random),
--metric and --logit-lens on a trained lesson model, on the command
line.

    lesson_interventions_test.py MHA_EXPLAIN

The numbers are checked against PyTorch by
tests/unit/test_lesson_interventions.c; here: the tables a run makes,
their labels (the blocks' names), the model read back from --csv-dir's
folder with --weights (also by --repeat-random, without --corpus),
--csv-dir of a --repeat-random run, --explain's note, and bad input:
status 2, one line on standard error (a usage error adds the --help
hint), nothing on standard output.
"""
import csv
import io
import os
import sys
import tempfile

from taplib import Program, done, ok

mha = Program(sys.argv[1])
tmp = tempfile.mkdtemp()
corpus = os.path.join(tmp, "corpus.csv")
with open(corpus, "w", encoding="utf-8") as f:
    f.write("text\nthe cat sat on the mat\nthe dog sat on the rug\n"
            "a cat saw the dog\n")
MODEL = ["--corpus", corpus, "--column", "text", "--variant", "block",
         "--layers", "2", "--attn-only", "--d-model", "8", "--heads", "2",
         "--positions", "--seed", "1", "--threads", "1"]
TRAIN = MODEL + ["--train", "20"]
text = "the cat sat on the mat"


def tables_of(args):
    r = mha.run(args + ["--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode("utf-8"))))
    return r, rows, {row["table"] for row in rows}


r, rows, made = tables_of(TRAIN + [text, "--ablate", "1.0",
                                   "--ablate-mode", "mean"])
ok(r.returncode == 0 and {"ablation_effect", "ablation_loss"} <= made,
   "--ablate 1.0: ablation_effect and ablation_loss", r.stderr)
loss = [row for row in rows if row["table"] == "ablation_loss"]
ok(len(loss) == 6 * 3 and loss[-1]["row_label"] == "mean",
   "ablation_loss: a row per next word, then the mean", loss[-3:])
r, rows, made = tables_of(TRAIN + [text, "--ablate", "all-heads",
                                   "--tables", "ablation_map"])
ok(r.returncode == 0 and made == {"ablation_map"} and len(rows) == 4 and
   [rows[0]["row_label"], rows[2]["row_label"]] == ["block.0", "block.1"],
   "--ablate all-heads: the 2 x 2 map, a row per block", rows[:3])
r, rows, made = tables_of(TRAIN + ["the cat sat on the", "--ablate",
                                   "all-heads", "--metric", "logit-diff",
                                   "--answer", "mat", "--wrong", "rug",
                                   "--tables", "ablation_map"])
ok(r.returncode == 0 and len(rows) == 4,
   "--metric logit-diff: the map of the logit difference", r.stderr)
r, rows, made = tables_of(TRAIN + ["--patch", "--clean", "the cat sat on",
                                   "--corrupt", "the dog sat on",
                                   "--answer", "the", "--wrong", "a",
                                   "--tables", "patch_heads,patch_resid"])
ok(r.returncode == 0 and made == {"patch_heads", "patch_resid"},
   "--patch: patch_heads and patch_resid", r.stderr)
r, rows, made = tables_of(TRAIN + ["the cat sat on the cat",
                                   "--head-scores", "--tables",
                                   "head_scores"])
ok(r.returncode == 0 and len(rows) == 4 * 3 and
   rows[0]["row_label"] == "block.0.0", "--head-scores: a row per head",
   rows[:1])

# --repeat-random N: no sentence, the model trained on the corpus alone,
# N words of its vocabulary drawn from --seed, then the same N again
r, rows, made = tables_of(TRAIN + ["--head-scores", "--repeat-random", "3"])
random_rows = rows
ok(r.returncode == 0 and made == {"head_scores"} and len(rows) == 4 * 3 and
   rows[0]["row_label"] == "block.0.0",
   "--repeat-random 3: head_scores, a row per head of the stack", r.stderr)
again = tables_of(TRAIN + ["--head-scores", "--repeat-random", "3"])[1]
other = tables_of(TRAIN[:-3] + ["--seed", "2", "--train", "20",
                                "--head-scores", "--repeat-random", "3"])[1]
ok(again == rows and other != rows,
   "--repeat-random: the same draw from the same --seed, another from "
   "another", other[:3])
r = mha.run(TRAIN + ["--head-scores", "--repeat-random", "3", "--explain"])
ok(r.returncode == 0 and b"--repeat-random drew 3 tokens at random from "
   b"the trained vocabulary" in r.stdout.replace(b"\n# ", b" "),
   "--explain: what the text is", r.stdout[-700:])
r = mha.run(TRAIN + ["--head-scores", "--repeat-random", "3", "--explain",
                     "--lang", "es"])
ok(r.returncode == 0 and "--repeat-random sacó 3 tokens".encode() in
   r.stdout.replace(b"\n# ", b" "), "--explain --lang es: translated",
   r.stdout[-700:])

# the trained model written, then read back: the same ablation
folder = os.path.join(tmp, "model")
r = mha.run(TRAIN + [text, "--csv-dir", folder])
ok(r.returncode == 0, "--csv-dir writes the trained model", r.stderr)
_, trained, _ = tables_of(TRAIN + [text, "--ablate", "1.0",
                                   "--tables", "ablation_loss"])
r, read, _ = tables_of(["--weights", folder, "--variant", "block", text,
                        "--ablate", "1.0", "--tables", "ablation_loss"])
ok(r.returncode == 0 and read == trained and len(read) == 18,
   "--weights DIR: the model read back ablates as trained", r.stderr)

# the folder read as it is: --repeat-random draws from its model.json's
# vocabulary, with no --corpus, and scores the model as trained
r, read, made = tables_of(["--weights", folder, "--variant", "block",
                           "--seed", "1", "--head-scores", "--repeat-random",
                           "3"])
ok(r.returncode == 0 and read == random_rows and made == {"head_scores"},
   "--weights DIR --repeat-random 3: the trained model's scores, no "
   "--corpus", r.stderr)
mha.check_error(["--weights", folder, "--variant", "block", "--train", "2",
                 "--head-scores", "--repeat-random", "3"],
                "it goes with --corpus FILE", hint=True)


def seed_note(args):
    """--explain's note on the drawn text, on one line."""
    r = mha.run(args + ["--head-scores", "--repeat-random", "3",
                        "--explain"])
    return r.returncode, r.stdout.decode().replace("\n# ", " ")


# --explain states the seed that drew the text, and whether it also drew
# the model: a trained run's, the folder's model.json's, or --seed's
rc, note = seed_note(TRAIN)
ok(rc == 0 and "after torch.manual_seed(1). The same seed drew the model "
   "before its training." in note,
   "--explain --repeat-random: the training's seed drew text and model",
   note[-600:])
rc, note = seed_note(["--weights", folder, "--variant", "block"])
ok(rc == 0 and "after torch.manual_seed(1). Without --seed it is the seed "
   "the folder's model.json records" in note,
   "--explain --weights DIR: model.json's seed, said so", note[-600:])
rc, note = seed_note(["--weights", folder, "--variant", "block", "--seed",
                      "7"])
ok(rc == 0 and "after torch.manual_seed(7). The model was read from "
   "--weights, not drawn from this seed" in note and
   "drew the model" not in note,
   "--explain --weights DIR --seed 7: the seed used, not the model's",
   note[-600:])

# --csv-dir of a --repeat-random run: its table, and no model.json (the
# run shows no table of its model); --html is refused, naming both ways
scores_dir = os.path.join(tmp, "scores")
r = mha.run(TRAIN + ["--head-scores", "--repeat-random", "3", "--format",
                     "csv", "--csv-dir", scores_dir])
written = sorted(os.listdir(scores_dir)) if os.path.isdir(scores_dir) else []
with open(os.path.join(scores_dir, written[0]) if written else os.devnull,
          encoding="utf-8") as f:
    lines = f.read().splitlines()
    saved = [line.split(",") for line in lines[1:]]
ok(r.returncode == 0 and written == ["block.head_scores.csv"] and
   lines[:1] == ["layer,head,previous_token,duplicate_token,induction"] and
   saved == [[random_rows[3 * i]["layer"], random_rows[3 * i]["head"]] +
             [random_rows[3 * i + k]["value"] for k in range(3)]
             for i in range(4)],
   "--csv-dir with --repeat-random: head_scores as printed, no model.json",
   (written, saved, r.stderr))
page = os.path.join(tmp, "scores.html")
mha.check_error(TRAIN + ["--head-scores", "--repeat-random", "3", "--html",
                         page], "--plot FILE or write them with --csv-dir",
                hint=True)
ok(not os.path.exists(page), "--html with --repeat-random: no page", page)

# --logit-lens: each block's out through the lm_head (no final norm), a
# table per block, then the grid; the last block's lens is the model's
# own next_tokens; the folder read back gives the same lens
LENS = [text, "--logit-lens", "--tables", "next_tokens,logit_lens,"
        "logit_lens_grid"]
r, lens, made = tables_of(TRAIN + LENS)
blocks = sorted({row["layer"] for row in lens
                 if row["table"] == "logit_lens"})
last = [row["value"] for row in lens
        if row["table"] == "logit_lens" and row["layer"] == "1"]
ok(r.returncode == 0 and made == {"next_tokens", "logit_lens",
                                  "logit_lens_grid"} and
   blocks == ["0", "1"] and len(last) == 6 * 5 and
   last == [row["value"] for row in lens if row["table"] == "next_tokens"],
   "--logit-lens on a trained stack: a lens per block, the last one "
   "next_tokens", (r.stderr, blocks, made))
grid = [row for row in lens if row["table"] == "logit_lens_grid"]
ok(len(grid) == 2 * 6 and grid[0]["row_label"] == "block.0",
   "logit_lens_grid: a row per block", grid[:1])
r, read, _ = tables_of(["--weights", folder, "--variant", "block"] + LENS)
ok(r.returncode == 0 and read == lens,
   "--weights DIR --logit-lens: the model read back, the same lens",
   r.stderr)
r = mha.run(TRAIN + [text, "--logit-lens", "--tables", "logit_lens",
                     "--explain"])
ok(r.returncode == 0 and b"so the lens is the lm_head alone" in
   r.stdout.replace(b"\n# ", b" "), "--explain: the lens is the lm_head "
   "alone", r.stdout[:800])

r = mha.run(TRAIN + [text, "--ablate", "all-heads", "--tables",
                     "ablation_map", "--explain"])
ok(r.returncode == 0 and b"The ablation map" in r.stdout,
   "--explain: the map's note", r.stderr)

# bad input
mha.check_error(["--variant", "block", "--d-model", "8", text, "--ablate",
                 "all-heads"], "only once trained", hint=True)
mha.check_error(["--variant", "block", "--d-model", "8", "--patch",
                 "--clean", "the cat", "--corrupt", "the mat", "--answer",
                 "sat", "--wrong", "on"], "only once trained", hint=True)
# without --train the modules switch their own heads off (no lm_head):
# a head beyond every chosen module's is refused
mha.check_error(["--variant", "block", "--d-model", "8", "--heads", "2",
                 text, "--ablate", "0.2"], "out of range", hint=True)
mha.check_error(["--variant", "block", "--layers", "2", "--d-model", "8",
                 "--heads", "2", text, "--ablate", "2.0"], "out of range",
                hint=True)
mha.check_error(["--corpus", corpus, "--column", "text", "--train", "5",
                 "--variant", "block,fused", "--d-model", "8", text,
                 "--ablate", "0.1"], "one --variant block", hint=True)
mha.check_error(["--train", "5", text, "--ablate", "0.1"],
                "one --variant block", hint=True)
mha.check_error(TRAIN + [text, "--ablate", "2.0"], "out of range",
                hint=True)
mha.check_error(TRAIN + ["--patch", "--clean", "the cat sat",
                         "--corrupt", "the cow sat", "--answer", "on",
                         "--wrong", "a"], "'cow' is not in the trained",
                hint=False)
mha.check_error(TRAIN + [text, "--ablate", "0.1", "--metric", "prob",
                         "--answer", "mat"], "--metric: goes with --ablate "
                "all-heads", hint=True)
mha.check_error(TRAIN + [text, "--ablate", "all-heads", "--metric",
                         "prob"], "--metric prob: needs --answer",
                hint=True)
mha.check_error(TRAIN + [text, "--ablate", "all-heads", "--metric",
                         "logit-diff", "--answer", "mat"],
                "needs --answer TOKEN and --wrong TOKEN", hint=True)
mha.check_error(TRAIN + [text, "--ablate", "all-heads", "--metric",
                         "prob", "--answer", "mat rug"],
                "'mat rug' is 2 tokens (mat, rug)", hint=False)
mha.check_error(TRAIN + [text, "--ablate", "all-heads", "--metric",
                         "odds"], "is not loss, logit-diff or prob",
                hint=True)
# --repeat-random: the longest sentence of the corpus bounds the positions
mha.check_error(TRAIN + ["--head-scores", "--repeat-random", "4"],
                "4 tokens twice are more than the model's 6 positions",
                hint=False)
mha.check_error(["--train", "5", "--variant", "block", "--d-model", "8",
                 "--head-scores", "--repeat-random", "2"],
                "it goes with --corpus FILE, or with --weights DIR",
                hint=True)
mha.check_error(["--variant", "block", "--d-model", "8", "--head-scores",
                 "--repeat-random", "2"], "only once trained", hint=True)
mha.check_error(["--corpus", corpus, "--column", "text", "--variant",
                 "fused", "--train", "5", "--head-scores",
                 "--repeat-random", "2"],
                "or a trained --variant block", hint=True)
mha.check_error(TRAIN + [text, "--head-scores", "--repeat-random", "2"],
                "the text is drawn", hint=True)
# --logit-lens needs the lm_head of a trained block, and its words
mha.check_error(["--variant", "block", "--d-model", "8", text,
                 "--logit-lens"], "--logit-lens: a lesson model has an "
                "lm_head only once trained", hint=True)
mha.check_error(["--corpus", corpus, "--column", "text", "--train", "5",
                 "--variant", "block,fused", "--d-model", "8", text,
                 "--logit-lens"], "--logit-lens: a lesson model is one "
                "--variant block", hint=True)
mha.check_error(["--corpus", corpus, "--column", "text", "--variant",
                 "fused", "--train", "5", text, "--logit-lens"],
                "--logit-lens: goes with --model DIR or a trained "
                "--variant block", hint=True)
mha.check_error(["--weights", folder, "--variant", "block",
                 "the cow sat", "--logit-lens"],
                "'cow' is not in the trained", hint=False)
done()
