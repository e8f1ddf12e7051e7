#!/usr/bin/env python3
"""--generate N: a GPT-2 checkpoint continues the text, end to end.

    generate_test.py MHA_EXPLAIN REFERENCE_DIR

REFERENCE_DIR is tests/reference: the checkpoints of gpt2/ and the tokens
transformers' generate() picked for them in generate/
(make_generate_reference.py). Each value of the table generated in the
tidy CSV, greedy and sampled, must be PyTorch's float32 exactly; then
greedy over a NaN logit (torch.argmax's first NaN), --check over the
steps' tables, the context limit,
--stop, the text output, --explain, and bad input: status 2, one line,
nothing on standard output.
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


def read_safetensors(path):
    """name -> list of float32 values of an F32 .safetensors file."""
    with open(path, "rb") as fh:
        data = fh.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        lo, hi = t["data_offsets"]
        out[name] = list(struct.unpack("<%df" % ((hi - lo) // 4),
                                       body[lo:hi]))
    return out


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def text_of(checkpoint, family="gpt2"):
    with open(os.path.join(REF, family, checkpoint, "text.txt")) as fh:
        return fh.read()


def generated_csv(args):
    r = PROGRAM.run(args + ["--tables", "generated", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(r.stdout.decode())))
    table = {}
    for row in rows:
        table.setdefault(int(row["row"]), {})[row["col_label"]] = \
            float(row["value"])
    return r, [table[i] for i in sorted(table)]


def differing(rows, ref):
    """How many values of the generated table's first rows (one per
    reference token) differ from the reference's."""
    wrong = 0
    for i, row in enumerate(rows[:len(ref["tokens"])]):
        want = {"id": ref["tokens"][i], "probability": ref["p"][i],
                "p_logits": ref["p_logits"][i],
                "top_k_kept": ref["kept"][2 * i],
                "top_p_kept": ref["kept"][2 * i + 1]}
        for k in range(5):
            want["top%d" % (k + 1)] = ref["top"][5 * i + k]
            want["p%d" % (k + 1)] = ref["top_p"][5 * i + k]
        wrong += sum(f32(row.get(c, float("nan"))) != v
                     for c, v in want.items())
    return wrong


def matches_reference(name, checkpoint, extra, family="gpt2"):
    folder = "generate" if family == "gpt2" else family + "_generate"
    ref = read_safetensors(os.path.join(REF, folder, name + ".safetensors"))
    model = os.path.join(REF, family, checkpoint)
    r, rows = generated_csv(["--model", model, "--generate",
                             str(int(ref["settings"][5]))] + extra +
                            [text_of(checkpoint, family)])
    n = len(ref["tokens"])
    wrong = differing(rows, ref)
    ok(r.returncode == 0 and len(rows) == n and wrong == 0,
       "%s: every value of generated is PyTorch's (%d rows, %d differ)"
       % (name, len(rows), wrong), r.stderr.decode())


PARTS = {"queries": "q", "keys": "k", "values": "v",
         "attn_scores": "scores", "attn_weights": "weights",
         "head_context": "context"}


def kv_steps():
    """--kv-steps: the steps' tables in the tidy CSV, with their step,
    against GPT2Attention._attn's tensors (greedy.steps.safetensors); the
    step column only in such a run; --csv-dir's names."""
    ref = read_safetensors(os.path.join(REF, "generate",
                                        "greedy.steps.safetensors"))
    two = os.path.join(REF, "gpt2", "two_layers")
    args = ["--model", two, "--generate", "8", text_of("two_layers")]
    r = PROGRAM.run(args + ["--kv-steps", "--format", "csv"])
    lines = r.stdout.decode().splitlines()
    ok(r.returncode == 0 and lines and lines[0].startswith(
        "variant,layer,step,head,table,"),
       "--kv-steps: the tidy CSV has a step column after layer",
       lines[:1])
    got, outside = {}, 0
    for row in csv.DictReader(io.StringIO(r.stdout.decode())):
        if row["step"] == "":
            outside += 1
            continue
        name = "s%s.l%s.h%s.%s" % (row["step"], row["layer"], row["head"],
                                   PARTS.get(row["table"], row["table"]))
        got.setdefault(name, []).append(float(row["value"]))
    wrong = sum(1 for k, v in ref.items()
                if [f32(x) for x in got.get(k, [])] != v)
    ok(r.returncode == 0 and len(got) == len(ref) and wrong == 0 and
       outside > 0,
       "--kv-steps: every step's q, cached k and v, scores, weights and "
       "context in the CSV are PyTorch's (%d tables, %d differ; the "
       "prompt's tables have an empty step)" % (len(got), wrong))
    r = PROGRAM.run(args + ["--format", "csv", "--tables", "keys"])
    ok(r.returncode == 0 and r.stdout.decode().startswith(
        "variant,layer,head,table,"),
       "without --kv-steps, no step column", r.stdout[:80])
    r = PROGRAM.run(args + ["--kv-steps", "--tables",
                            "kv_cache_size,attn_weights", "--show-heads",
                            "1", "--layers", "0"])
    text = r.stdout.decode()
    ok(r.returncode == 0 and "[h.0] step 7, head 1: attn_weights (1 x 13)"
       in text and "head 0:" not in text and "[h.1]" not in text and
       "kv_cache_size (8 x 3)" in text,
       "--kv-steps: headings with the step, --layers and --show-heads "
       "kept, kv_cache_size a row per step", text[-800:])
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "csv")
        r = PROGRAM.run(args + ["--kv-steps", "--csv-dir", out,
                                "--tables", "keys"])
        names = sorted(os.listdir(out)) if os.path.isdir(out) else []
        ok(r.returncode == 0 and "gpt2.h1.step7.head0.keys.csv" in names
           and "gpt2.h1.head0.keys.csv" in names,
           "--csv-dir: a step's files are named with it", names[:6])


def kv_steps_check():
    """--check over a generation's steps (--kv-steps): each step's
    attn_weights is the newest position's one row over every key, which
    the causal mask leaves whole; GPT-2's and a Llama-style checkpoint's,
    with heads switched off too, pass (status 0, no cell misplaced)."""
    two = os.path.join(REF, "gpt2", "two_layers")
    tied = os.path.join(REF, "llama", "llama_tied_f32")
    for name, args in [("gpt2", ["--model", two, "the cat"]),
                       ("llama", ["--model", tied, "hello world"]),
                       ("llama --ablate", ["--model", tied, "hello world",
                                           "--ablate", "0.1"])]:
        r = PROGRAM.run(args + ["--generate", "3", "--kv-steps", "--check",
                                "--tables", "attn_weights"])
        lines = [x for x in r.stdout.decode().splitlines()
                 if x.startswith("[check] masked cells")]
        ok(r.returncode == 0 and len(lines) == 1 and
           " 0 cells masked where they should not be" in lines[0] and
           lines[0].endswith(": ok"),
           "%s --generate --kv-steps --check: the steps' rows masked as "
           "their positions say" % name,
           (r.returncode, lines, r.stderr[-200:]))


def focus_continued():
    """--generate with --focus: the focused token's view of the prompt,
    then the text continued, the same as without --focus."""
    two = os.path.join(REF, "gpt2", "two_layers")
    args = ["--model", two, "the cat", "--generate", "3"]
    plain = PROGRAM.run(args + ["--tables", "generated"])
    want = plain.stdout.decode().rstrip("\n").splitlines()[-2:]
    r = PROGRAM.run(args + ["--focus", "cat"])
    out = r.stdout.decode()
    ok(r.returncode == 0 and out.startswith("focus: ") and
       len(want) == 2 and "the text continued" in want[0] and
       out.rstrip("\n").splitlines()[-2:] == want,
       "--generate --focus: the focus view, then the text continued",
       (r.returncode, out[-300:], want))


LLAMA_PARTS = {"queries_rotated": "q", "keys_rotated": "k", "values": "v",
               "attn_scores": "scores", "attn_weights": "weights",
               "head_context": "context"}


def llama_kv_steps():
    """--kv-steps with a Llama-style checkpoint whose query heads share
    key/value heads: every step's tables against what
    eager_attention_forward received and returned
    (llama_generate/greedy_steps.steps.safetensors): the query rotated,
    the cache's rotated keys and its values of the key/value head each
    query head reads, scores, weights, context."""
    ref = read_safetensors(os.path.join(REF, "llama_generate",
                                        "greedy_steps.steps.safetensors"))
    tied = os.path.join(REF, "llama", "llama_tied_f32")
    matches_reference("greedy_steps", "llama_tied_f32", [], "llama")
    r = PROGRAM.run(["--model", tied, "--generate", "4", "--kv-steps",
                     "--format", "csv", text_of("llama_tied_f32", "llama")])
    got, tables = {}, set()
    for row in csv.DictReader(io.StringIO(r.stdout.decode())):
        if row["step"] == "":
            continue
        tables.add(row["table"])
        if row["table"] not in LLAMA_PARTS:
            continue
        name = "s%s.l%s.h%s.%s" % (row["step"], row["layer"], row["head"],
                                   LLAMA_PARTS[row["table"]])
        got.setdefault(name, []).append(float(row["value"]))
    wrong = sorted(k for k, v in ref.items()
                   if [f32(x) for x in got.get(k, [])] != v)
    ok(r.returncode == 0 and len(ref) == 3 * 2 * 4 * 6 and
       len(got) == len(ref) and not wrong,
       "llama --kv-steps: every step's rotated q, cached rotated k and v of "
       "the key/value head read, scores, weights and context are PyTorch's "
       "(%d tables, %d differ)" % (len(got), len(wrong)), wrong[:4])
    ok("keys" not in tables and "keys_rotated" in tables,
       "llama --kv-steps: the keys shown once, rotated as the cache keeps "
       "them", sorted(tables))
    r = PROGRAM.run(["--model", tied, "--generate", "4", "--kv-steps",
                     "--tables", "kv_cache_size", "--format", "csv",
                     text_of("llama_tied_f32", "llama")])
    sizes = [float(x["value"]) for x in csv.DictReader(
        io.StringIO(r.stdout.decode())) if x["col_label"] == "bytes"]
    # 2 layers x (keys, values) x positions x KV hd (2 x 4) floats
    ok(r.returncode == 0 and sizes == [2 * 2 * p * 8 * 4 for p in
                                       (9, 10, 11, 12)],
       "llama kv_cache_size: the cache holds num_key_value_heads' keys and "
       "values", sizes)


def greedy_nan():
    """Greedy over logits with a NaN: a copy of two_layers with the wte
    (and tied lm_head) row that make_generate_reference.py's greedy_nan
    made NaN; torch.argmax picks the first NaN, then index 0 once every
    logit is NaN: the ids are PyTorch's, each probability NaN as
    there."""
    import shutil
    import tempfile
    ref = read_safetensors(os.path.join(REF, "generate",
                                        "greedy_nan.safetensors"))
    row = int(ref["nan_row"][0])
    two = os.path.join(REF, "gpt2", "two_layers")
    with tempfile.TemporaryDirectory() as d:
        for name in os.listdir(two):
            shutil.copy(os.path.join(two, name), d)
        with open(os.path.join(d, "model.safetensors"), "r+b") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            wte = json.loads(fh.read(n))["transformer.wte.weight"]
            width = wte["shape"][1]
            fh.seek(8 + n + wte["data_offsets"][0] + 4 * row * width)
            fh.write(struct.pack("<%df" % width, *[float("nan")] * width))
        r, rows = generated_csv(["--model", d, "--generate",
                                 str(len(ref["tokens"])),
                                 text_of("two_layers")])
    ids = [row_["id"] for row_ in rows]
    nan = [row_["probability"] != row_["probability"] for row_ in rows]
    ok(r.returncode == 0 and ids == ref["tokens"] and ids[0] == row and
       nan == [p != p for p in ref["p"]],
       "greedy over a NaN logit: torch.argmax's first NaN, then 0 (%s, "
       "PyTorch %s)" % (ids, ref["tokens"]), r.stderr.decode())
    lines = r.stderr.decode().splitlines()
    ok(lines == ["mha-explain: warning: --generate: the logits are not "
                 "finite from new token 1 on (the model's weights or "
                 "activations hold NaN or infinity), so the tokens picked "
                 "from them mean nothing"],
       "greedy over a NaN logit: one line on stderr says the logits are "
       "not finite", r.stderr.decode())
    r, rows = generated_csv(["--model", two, "--generate", "2",
                             text_of("two_layers")])
    ok(r.returncode == 0 and b"not finite" not in r.stderr,
       "finite logits: no such warning", r.stderr.decode())


def byte_decoder():
    """GPT-2's bytes_to_unicode, reversed: a vocab.json character's byte."""
    bs = (list(range(ord("!"), ord("~") + 1)) +
          list(range(ord("\xa1"), ord("\xac") + 1)) +
          list(range(ord("\xae"), ord("\xff") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def shown(text):
    """The text as the program shows it: controls but a new line and a tab
    as U+FFFD."""
    return "".join(c if (ord(c) >= 0x20 or c in "\n\t") and c != "\x7f"
                   else "\ufffd" for c in text)


def new_text(args):
    """The new text of a run's text output (between the marks)."""
    r = PROGRAM.run(args + ["--tables", "generated"])
    last = r.stdout.decode().rstrip("\n").splitlines()[-1]
    return r, last.split("\u27e6", 1)[1].rstrip("\u27e7")


def continued_bytes():
    """The new text is the bytes of all the new tokens joined, decoded as
    Python's bytes.decode("utf-8", errors="replace") does (a character
    whose bytes are two tokens whole, a cut one a single U+FFFD), and
    --stop matches that text, also a character two tokens make, and
    U+FFFD itself."""
    wide = os.path.join(REF, "gpt2", "wide")
    with open(os.path.join(wide, "vocab.json"), encoding="utf-8") as fh:
        vocab = {i: t for t, i in json.load(fh).items()}
    to_byte = byte_decoder()
    wrong, spanning = [], []
    for seed in range(1, 9):
        args = ["--model", wide, "--generate", "12", "--sample", "--seed",
                str(seed), "the cat"]
        _, rows = generated_csv(args)
        pieces = [bytes(to_byte[c] for c in vocab[int(row["id"])])
                  for row in rows]
        want = shown(b"".join(pieces).decode("utf-8", "replace"))
        r, got = new_text(args)
        if r.returncode != 0 or got != want:
            wrong.append((seed, got, want))
        # a character whose bytes two tokens hold (a decoder starts a
        # character afresh at each byte that leads one)
        raw = b"".join(pieces)
        ends = [sum(len(p) for p in pieces[:i + 1])
                for i in range(len(pieces))]
        for i in range(len(raw)):
            for k in (2, 3, 4):
                try:
                    c = raw[i:i + k].decode("utf-8")
                except UnicodeDecodeError:
                    continue
                if len(c) == 1 and any(i < e < i + k for e in ends):
                    spanning.append((seed, c))
    ok(not wrong, "the new text is the tokens' bytes joined and decoded as "
       "Python decodes them", wrong)
    ok(spanning != [], "some new text holds a character two tokens make",
       spanning)
    for seed, c in spanning[:2]:
        args = ["--model", wide, "--generate", "12", "--sample", "--seed",
                str(seed), "the cat"]
        _, full = new_text(args)
        r, cut = new_text(args + ["--stop", c])
        ok(r.returncode == 0 and cut == full[:full.index(c) + 1],
           "--stop %r (two tokens' bytes): the text stops where it first "
           "holds it" % c, (full, cut))
    args = ["--model", wide, "--generate", "12", "--sample", "--seed", "1",
            "the cat"]
    _, full = new_text(args)
    r, cut = new_text(args + ["--stop", "\ufffd"])
    ok("\ufffd" in full and r.returncode == 0 and
       cut == full[:full.index("\ufffd") + 1],
       "--stop U+FFFD: the text stops at the first byte shown so",
       (full, cut))
    PROGRAM.check_error(["--model", wide, "--generate", "3", "--stop",
                         b"\xd1".decode("utf-8", "surrogateescape"),
                         "the cat"], "not UTF-8",
                        "--stop of bytes that are not UTF-8: refused")


def end_token_note():
    """Generation that stops at the model's end-of-text token says so on
    stderr, one line, as a full context does: a copy of a checkpoint
    whose config.json makes the third token greedy picks its
    eos_token_id."""
    wide = os.path.join(REF, "gpt2", "wide")
    args = ["--generate", "8", "the cat"]
    _, rows = generated_csv(["--model", wide] + args)
    third = int(rows[2]["id"])
    # the first token that id is picked at (it may come sooner)
    first = next(i for i, row in enumerate(rows) if int(row["id"]) == third)
    with tempfile.TemporaryDirectory() as d:
        for name in os.listdir(wide):
            os.symlink(os.path.join(os.path.abspath(wide), name),
                       os.path.join(d, name))
        os.remove(os.path.join(d, "config.json"))
        with open(os.path.join(wide, "config.json")) as fh:
            cfg = json.load(fh)
        cfg["eos_token_id"] = third
        with open(os.path.join(d, "config.json"), "w") as fh:
            json.dump(cfg, fh)
        r, got = generated_csv(["--model", d] + args)
        err = r.stderr.decode()
        ok(r.returncode == 0 and len(got) == first + 1 and
           "end-of-text token (id %d)" % third in err and
           "new token %d " % (first + 1) in err and
           len(err.splitlines()) == 1,
           "the end-of-text token stops generation with a one-line note",
           (len(got), first, err))
        r, _ = generated_csv(["--model", wide] + args)
        ok(r.returncode == 0 and r.stderr == b"",
           "no note when generation makes the tokens asked for", r.stderr)


def one_position_note():
    """A model of one position: the note says "1 position", as ngettext
    chooses it in each language: a copy of two_layers whose config.json
    says n_positions 1 and whose wpe keeps its first row."""
    two = os.path.join(REF, "gpt2", "two_layers")
    with open(os.path.join(two, "model.safetensors"), "rb") as fh:
        data = fh.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    tensors = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        lo, hi = t["data_offsets"]
        raw = body[lo:hi]
        if name.endswith("wpe.weight"):
            raw = raw[:len(raw) // t["shape"][0]]
            t = dict(t, shape=[1, t["shape"][1]])
        tensors[name] = (t, raw)
    with tempfile.TemporaryDirectory() as d:
        for name in ("vocab.json", "merges.txt"):
            os.symlink(os.path.join(os.path.abspath(two), name),
                       os.path.join(d, name))
        with open(os.path.join(two, "config.json")) as fh:
            cfg = json.load(fh)
        cfg["n_positions"] = cfg["n_ctx"] = 1
        with open(os.path.join(d, "config.json"), "w") as fh:
            json.dump(cfg, fh)
        head, blob = {}, b""
        for name, (t, raw) in tensors.items():
            head[name] = {"dtype": t["dtype"], "shape": t["shape"],
                          "data_offsets": [len(blob), len(blob) + len(raw)]}
            blob += raw
        text = json.dumps(head).encode()
        text += b" " * (-len(text) % 8)
        with open(os.path.join(d, "model.safetensors"), "wb") as fh:
            fh.write(struct.pack("<Q", len(text)) + text + blob)
        said = {"en": "at most 1 position (n_positions)",
                "pt_BR": "no máximo 1 posição (n_positions)",
                "es": "como máximo 1 posición (n_positions)"}
        for lang, words in said.items():
            r, rows = generated_csv(["--model", d, "--generate", "3",
                                     "--lang", lang, "t"])
            err = r.stderr.decode()
            ok(r.returncode == 0 and len(rows) == 1 and words in err and
               len(err.splitlines()) == 1,
               "--lang %s: a model of one position: \"%s\"" % (lang, words),
               err)


def kv_steps_limit():
    """--kv-steps over a long generation: the steps' tables' size is
    estimated before anything is written (every step's query row, cached
    keys and values, scores, weights, context, and a rotary model's
    rotated queries and keys, of the layers and heads shown and the
    tables --tables names) and a run past MAX_STEP_VALUES (2^25) is
    refused, status 2, one line giving the estimate and how to narrow
    it, nothing written. A copy of a Llama-style checkpoint given 8192
    positions (rotary: no table holds them) makes 4000 steps possible."""
    tied = os.path.join(REF, "llama", "llama_tied_f32")
    with open(os.path.join(tied, "config.json")) as fh:
        cfg = json.load(fh)
    r = PROGRAM.run(["--model", tied, "--tables", "tokens", "--format", "csv",
                     "the cat"])
    T = len(list(csv.DictReader(io.StringIO(r.stdout.decode()))))
    hd = cfg["hidden_size"] // cfg["num_attention_heads"]
    S = 4000 - 1
    P = S * T + S * (S + 1) // 2
    per_head = {"queries": S * hd, "keys": P * hd, "values": P * hd,
                "attn_scores": P, "attn_weights": P, "head_context": S * hd,
                "queries_rotated": S * hd, "keys_rotated": P * hd}
    L, H = cfg["num_hidden_layers"], cfg["num_attention_heads"]
    with tempfile.TemporaryDirectory() as d:
        model = os.path.join(d, "model")
        os.mkdir(model)
        for name in os.listdir(tied):
            if name != "config.json":
                os.symlink(os.path.join(os.path.abspath(tied), name),
                           os.path.join(model, name))
        cfg["max_position_embeddings"] = 8192
        with open(os.path.join(model, "config.json"), "w") as fh:
            json.dump(cfg, fh)
        base = ["--model", model, "--generate", "4000", "--kv-steps"]
        for extra, want in [
                (["--format", "csv"], sum(per_head.values()) * L * H),
                (["--layers", "0", "--show-heads", "0"],
                 sum(per_head.values())),
                (["--tables", "attn_weights,generated"],
                 per_head["attn_weights"] * L * H)]:
            r = PROGRAM.check_error(base + extra + ["the cat"],
                                    "--kv-steps: the steps' tables would "
                                    "hold about %.0f million values"
                                    % (want / 1e6),
                                    "--kv-steps %s: refused, the estimate "
                                    "given" % " ".join(extra), hint=False)
            line = r.stderr.decode()
            ok(all(o in line for o in ("--tables", "--layers",
                                       "--show-heads", "GB as CSV")),
               "--kv-steps %s: the line says how to narrow the tables"
               % " ".join(extra), line)
        out = os.path.join(d, "out")
        PROGRAM.check_error(base + ["--csv-dir", out, "the cat"],
                            "--kv-steps", hint=False)
        ok(not os.path.exists(out), "--kv-steps --csv-dir refused: no "
           "folder written")


def main():
    kv_steps_limit()
    continued_bytes()
    greedy_nan()
    kv_steps()
    kv_steps_check()
    focus_continued()
    llama_kv_steps()
    matches_reference("greedy", "two_layers", [])
    matches_reference("greedy_wide", "wide", [])
    matches_reference("sample_warped", "two_layers",
                      ["--sample", "--seed", "3", "--temperature", "0.8",
                       "--top-k", "20", "--top-p", "0.9"])
    matches_reference("sample_default", "wide", ["--sample", "--seed", "42"])
    # a Llama-style checkpoint (make_llama_generate_reference.py)
    matches_reference("greedy_gqa4_bf16", "llama_gqa4_bf16", [], "llama")
    matches_reference("sample_warped", "llama_gqa4_bf16",
                      ["--sample", "--seed", "3", "--temperature", "0.8",
                       "--top-k", "20", "--top-p", "0.9"], "llama")
    tied = os.path.join(REF, "llama", "llama_tied_f32")
    r, rows = generated_csv(["--model", tied, "--generate", "80",
                             text_of("llama_tied_f32", "llama")])
    err = r.stderr.decode()
    ok(r.returncode == 0 and len(rows) == 56 and "64 positions" in err
       and "(max_position_embeddings)" in err and len(err.splitlines()) == 1,
       "llama: the model's positions full: the tokens so far and a "
       "one-line note naming its config.json key", err)

    two = os.path.join(REF, "gpt2", "two_layers")
    wide = os.path.join(REF, "gpt2", "wide")
    # the context: 16 positions, 6 in the prompt: 11 tokens, then a note
    r, rows = generated_csv(["--model", two, "--generate", "30",
                             text_of("two_layers")])
    err = r.stderr.decode()
    ok(r.returncode == 0 and len(rows) == 11 and "16 positions" in err
       and "(n_positions)" in err and len(err.splitlines()) == 1,
       "the model's positions full: the tokens so far and a one-line note",
       err)
    one_position_note()
    end_token_note()

    # --top-k 0 keeps every token, as transformers' top_k=0: the draws of
    # --top-k V, V the vocabulary's size (the CSV, every table and digit)
    with open(os.path.join(wide, "config.json"), encoding="utf-8") as f:
        vocab = json.load(f)["vocab_size"]
    draws = [PROGRAM.run(["--model", wide, "--generate", "8", "--sample",
                          "--seed", "7", "--temperature", "1.5", "--top-k", k,
                          "--format", "csv", "the cat"])
             for k in ("0", str(vocab), "50")]
    ok(all(d.returncode == 0 for d in draws) and
       draws[0].stdout == draws[1].stdout and
       draws[0].stdout != draws[2].stdout and
       f",top_k_kept,{vocab}\n".encode() in draws[0].stdout,
       f"--top-k 0 draws as --top-k {vocab} (every token kept), not as 50",
       draws[0].stderr.decode()[:300])
    # a temperature so small that the logits divided by it overflow is
    # refused naming --temperature, not the model's logits
    PROGRAM.check_error(["--model", two, "--generate", "4", "--sample",
                         "--temperature", "1e-40", "--seed", "1",
                         "the cat sat on the mat"],
                        "--sample: at step 1 the logits divided by "
                        "--temperature 1e-40 overflow",
                        "--temperature 1e-40: the division named, status 2")

    # the same seed, the same text; the text output shows it continued
    args = ["--model", wide, "--generate", "8", "--sample", "--seed", "5",
            "--tables", "generated", "the cat"]
    a, b = PROGRAM.run(args), PROGRAM.run(args)
    out = a.stdout.decode()
    ok(a.returncode == 0 and a.stdout == b.stdout,
       "the same seed gives the same text")
    last = out.rstrip("\n").splitlines()[-1]
    ok("the text continued" in out and last.startswith("the cat\u27e6")
       and last.endswith("\u27e7"),
       "the text output ends with the prompt and the new text marked", last)

    # --stop: the new text ends once it holds the text
    r, rows = generated_csv(["--model", wide, "--generate", "12",
                             "the cat and the hat"])
    full = PROGRAM.run(["--model", wide, "--generate", "12", "--tables",
                        "generated", "the cat and the hat"])
    new = full.stdout.decode().rstrip("\n").splitlines()[-1]
    new = new.split("\u27e6", 1)[1].rstrip("\u27e7")
    # the first letter of the new text after its first character
    stop = next((c for c in new[1:] if c.isascii() and c.isalnum()), "")
    s = PROGRAM.run(["--model", wide, "--generate", "12", "--stop", stop,
                     "--tables", "generated", "the cat and the hat"])
    cut = s.stdout.decode().rstrip("\n").splitlines()[-1]
    cut = cut.split("\u27e6", 1)[1].rstrip("\u27e7")
    ok(stop != "" and s.returncode == 0 and cut.endswith(stop) and
       stop not in cut[:-1] and new.startswith(cut) and len(cut) < len(new),
       "--stop %r: the new text stops where it first holds it" % stop,
       (new, cut))

    # --explain: why a step costs one row, and the warpers' numbers
    e = PROGRAM.run(["--model", wide, "--generate", "3", "--sample",
                     "--top-p", "0.8", "--explain", "--tables", "generated",
                     "the cat"]).stdout.decode()
    ok("KV cache" in e and "one row of each table" in e and
       "top-p" in e and "1: 50," in e,
       "--explain: the cache and each step's warpers", e[:400])

    # bad input: one line, status 2
    # (a lesson model's --kv-steps: lesson_generate_test.py)
    # --kv-steps goes with --plot (plot_generate_test.py) and --html
    # (html_generation_test.py)
    base = ["--model", wide]
    for args, fragment in [
            (["--generate", "0"], "--generate"),
            (["--generate", "100001"], "--generate"),
            (["--generate", "-1"], "--generate"),
            (["--sample"], "goes with --generate"),
            (["--stop", "x"], "goes with --generate"),
            (["--generate", "2", "--temperature", "2"], "goes with --sample"),
            (["--generate", "2", "--top-k", "5"], "goes with --sample"),
            (["--generate", "2", "--top-p", "0.5"], "goes with --sample"),
            (["--generate", "2", "--sample", "--temperature", "0"],
             "not a temperature"),
            (["--generate", "2", "--sample", "--temperature", "-1"],
             "not a temperature"),
            (["--generate", "2", "--sample", "--temperature", "inf"],
             "not a temperature"),
            (["--generate", "2", "--sample", "--temperature", "nan"],
             "not a temperature"),
            (["--generate", "2", "--sample", "--top-k", "-1"], "--top-k"),
            (["--generate", "2", "--sample", "--top-p", "0"],
             "not a probability"),
            (["--generate", "2", "--sample", "--top-p", "1.01"],
             "not a probability"),
            (["--generate", "2", "--seed", "3"], "goes with --sample")]:
        PROGRAM.check_error(base + args + ["the cat"], fragment)
    # without --model, a lesson model generates once trained
    # (lesson_generate_test.py)
    PROGRAM.check_error(["--generate", "2", "the cat"], "once trained",
                        "--generate with an untrained lesson model: no "
                        "lm_head to generate with")
    PROGRAM.check_error(["--sample", "the cat"], "goes with --generate",
                        "--sample without --generate")
    # the families that do not continue a text are refused by name
    for family, folder in (("BERT", os.path.join(REF, "bert", "mlm")),):
        PROGRAM.check_error(["--model", folder, "--generate", "2", "the cat"],
                            "does not continue texts with a %s model" %
                            family, "--generate with a %s checkpoint" % family)
    done()


if __name__ == "__main__":
    main()
