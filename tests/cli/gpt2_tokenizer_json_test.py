#!/usr/bin/env python3
"""--model DIR with tokenizer.json in place of vocab.json and merges.txt.

    gpt2_tokenizer_json_test.py MHA_EXPLAIN GPT2_DIR

For each checkpoint of GPT2_DIR (tests/reference/make_gpt2_reference.py's),
a copy whose vocab.json and merges.txt are replaced by the tokenizer.json
tests/tools/gpt2_tokenizer_json.py writes from them must give the same
standard output and error, byte for byte, as the folder itself: the
tokens, every table, the CSV, next_tokens' labels (and the same error
where a text is longer than a small checkpoint's n_positions). A folder with both keeps reading
vocab.json and merges.txt. A broken or unsupported tokenizer.json is
status 2 with one line.
"""
import json
import os
import shutil
import sys
import tempfile

from taplib import Program, done, ok

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import gpt2_tokenizer_json  # noqa: E402

TEXTS = ["hello, hello world!", "the cat sat on the mat",
         "  two  spaces\nand a newline", "Olá, coração! 你好 😀 123",
         "hello<|endoftext|>world"]
RUNS = [[], ["--format", "csv"], ["--tables", "next_tokens,tokens"],
        ["--tables", "attn_weights", "--layers", "0"]]


def json_copy(folder, tmp):
    """The folder, its vocab.json and merges.txt made tokenizer.json."""
    out = os.path.join(tmp, os.path.basename(folder) + "-json")
    shutil.copytree(folder, out)
    gpt2_tokenizer_json.write(os.path.join(out, "vocab.json"),
                              os.path.join(out, "merges.txt"),
                              os.path.join(out, "tokenizer.json"))
    os.remove(os.path.join(out, "vocab.json"))
    os.remove(os.path.join(out, "merges.txt"))
    return out


def main():
    mha = Program(sys.argv[1])
    root = sys.argv[2]
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isfile(os.path.join(root, d, "vocab.json")))
    with tempfile.TemporaryDirectory() as tmp:
        for folder in folders:
            copy = json_copy(folder, tmp)
            same, n, ran = [], 0, 0
            for text in TEXTS:
                for extra in RUNS:
                    a = mha.run(["--model", folder] + extra + [text])
                    b = mha.run(["--model", copy] + extra + [text])
                    n += 1
                    ran += a.returncode == 0 and len(a.stdout) > 0
                    if (a.returncode, a.stdout, a.stderr) != \
                            (b.returncode, b.stdout, b.stderr):
                        same.append((text, extra, a.stdout[:300],
                                     b.stdout[:300], b.stderr[:300]))
            ok(not same and ran >= n // 2,
               f"{os.path.basename(folder)}: tokenizer.json gives the output "
               f"of vocab.json and merges.txt ({ran} of {n} runs succeed)",
               "\n".join(map(repr, same[:3])))
        tiny = json_copy(folders[0], os.path.join(tmp, "both"))
        shutil.copy(os.path.join(folders[0], "vocab.json"), tiny)
        shutil.copy(os.path.join(folders[0], "merges.txt"), tiny)
        with open(os.path.join(tiny, "tokenizer.json"), "w") as f:
            f.write("{ not json")
        a = mha.run(["--model", folders[0], TEXTS[0]])
        b = mha.run(["--model", tiny, TEXTS[0]])
        ok(a.stdout == b.stdout and b.returncode == 0,
           "with vocab.json and merges.txt there, tokenizer.json is not read",
           b.stderr)
        bad = json_copy(folders[0], os.path.join(tmp, "bad"))
        path = os.path.join(bad, "tokenizer.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        cases = [
            ("{ not json", "tokenizer.json"),
            ("[]", "no \"model\""),
            (json.dumps(dict(doc, model=dict(doc["model"], type="Unigram"))),
             "Unigram"),
            (json.dumps(dict(doc, normalizer={"type": "Precompiled"})),
             "Precompiled"),
            (json.dumps(dict(doc, pre_tokenizer={
                "type": "Split", "pattern": {"Regex": "(unclosed"},
                "behavior": "Isolated", "invert": False})), "pattern"),
            (json.dumps(dict(doc, model=dict(doc["model"],
                                              vocab={"a": 1 << 40}))),
             "id"),
        ]
        for text, fragment in cases:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            mha.check_error(["--model", bad, "hello"], fragment,
                            f"a bad tokenizer.json ({fragment}): status 2, "
                            f"one line")
        # a FIFO in place of tokenizer.json is refused, not waited on
        os.remove(path)
        os.mkfifo(path)
        mha.check_error(["--model", bad, "hello"], "not a regular file",
                        "a FIFO tokenizer.json: status 2 at once, one line")
    return done()


if __name__ == "__main__":
    sys.exit(main())
