#!/usr/bin/env python3
"""Messages that name the right thing, and the configurations Hugging
Face reads that the program reads too:

  - a BERT or Llama-style folder without tokenizer.json names it;
  - a lesson option with a BERT --model names attention that looks both
    ways, with GPT-2 causal self-attention;
  - an empty --pair or --stop is an empty text, not a name;
  - a text of --clean or --corrupt that cannot be read names its option;
    counts of one take the singular;
  - --answer and --wrong without --patch name --metric too;
  - a Mistral folder's sliding_window no shorter than the text, and
    rope_scaling {"rope_type": "default"}, give the same run as the
    folder without them (the folder llama_test compares with PyTorch);
    so does use_sliding_window, true or false (MistralForCausalLM reads
    sliding_window alone); a window shorter than the text is refused
    naming both lengths, and --generate's note where the window ends it
    names sliding_window (not max_position_embeddings);
  - a trained folder's model.json that does not fit its files names
    model.json and the field, never an option or --help: heads that do
    not divide d_out, positions other than pos_embedding's rows; a file
    of a variant it does not list, or of a layer its module has not;
  - GPT-2's vocab.json with an id -1 or 1e20 says negative or too large,
    with the ids the tokens have.
  - a true-or-false key of config.json (GPT-2's scale_attn_weights and
    the keys it refuses when true, BERT's is_decoder) is taken only as
    JSON's true or false: 1, "false" or null are refused naming the key,
    since Python's truthiness would read them otherwise; GPT-2's
    scale_attn_weights true is the default run, and false is said by
    --explain (its numbers: test_gpt2's case unscaled).

Usage: messages_test.py MHA_EXPLAIN REFERENCE_DIR

Prints TAP. Python 3 standard library only.
"""
import json
import os
import re
import shutil
import struct
import sys
import tempfile

from taplib import Program, done, ok

MHA = Program(sys.argv[1])
REF = sys.argv[2]
GPT2 = os.path.join(REF, "gpt2", "two_layers")
BERT = os.path.join(REF, "bert", "mlm")
LLAMA = os.path.join(REF, "llama", "llama_gqa4_bf16")
MISTRAL = os.path.join(REF, "llama", "mistral_sharded")


def refused(args, fragment, what):
    r = MHA.run(args)
    err = r.stderr.decode("utf-8", "replace")
    first = err.splitlines()[0] if err else ""
    ok(r.returncode == 2 and r.stdout == b"" and fragment in first,
       "%s: status 2, the message says %r" % (what, fragment),
       "status %d, stderr %r" % (r.returncode, err))
    return first


def copy(tmp, src, name, change=None, drop=None):
    out = os.path.join(tmp, name)
    shutil.copytree(src, out)
    if drop:
        os.remove(os.path.join(out, drop))
    if change:
        path = os.path.join(out, "config.json")
        with open(path) as f:
            c = json.load(f)
        c.update(change)
        with open(path, "w") as f:
            json.dump(c, f)
    return out


def edited(tmp, src, name, edit):
    """A copy of folder src named name, whose model.json's text is
    edit(text)."""
    out = os.path.join(tmp, name)
    shutil.copytree(src, out)
    path = os.path.join(out, "model.json")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(edit(text))
    return out


def trained_folder(tmp):
    """A trained folder whose model.json does not fit its files: the
    message names model.json and the key, never an option nor --help;
    a file of a variant model.json does not describe, or of a layer its
    module has not, is refused naming it."""
    d = os.path.join(tmp, "fused")
    r = MHA.run(["the cat sat on the mat", "--train", "2", "--variant",
                 "fused", "--d-model", "32", "--d-out", "32", "--heads", "2",
                 "--positions", "--csv-dir", d])
    ok(r.returncode == 0, "a trained fused model with positions saved",
       r.stderr)
    r = MHA.run(["--weights", d, "the cat"])
    ok(r.returncode == 0 and r.stdout, "the folder as saved runs", r.stderr)

    folder = edited(tmp, d, "heads3",
                    lambda t: t.replace('"heads": 2', '"heads": 3'))
    first = refused(["--weights", folder, "the cat"],
                    "heads3/model.json: the field 'heads' is 3, which does "
                    "not divide the field 'd_out' (32)",
                    "model.json's heads 3 over d_out 32")
    r = MHA.run(["--weights", folder, "the cat"])
    ok("--heads" not in first and b"--help" not in r.stderr,
       "model.json's heads 3: no option, no --help", r.stderr)

    folder = edited(tmp, d, "positions2",
                    lambda t: re.sub(r'"positions": \d+', '"positions": 2',
                                     t))
    refused(["--weights", folder, "the cat"],
            "positions2/model.json: the field 'positions' is 2, but "
            "fused.pos_embedding.weight.csv has 6 rows",
            "model.json's positions against pos_embedding's rows")

    folder = edited(tmp, d, "extra_variant", lambda t: t)
    shutil.copy(os.path.join(d, "fused.W_key.weight.csv"),
                os.path.join(folder, "single.W_key.weight.csv"))
    refused(["--weights", folder, "the cat"],
            "extra_variant/single.W_key.weight.csv: the folder's model.json "
            "describes a trained model of the variants fused: the file is "
            "not its own", "a file of a variant model.json does not list")

    folder = edited(tmp, d, "extra_layer", lambda t: t)
    shutil.copy(os.path.join(d, "fused.W_key.weight.csv"),
                os.path.join(folder, "fused.W_extra.weight.csv"))
    first = refused(["--weights", folder, "the cat"],
                    "extra_layer/fused.W_extra.weight.csv: the fused module "
                    "has no layer 'W_extra' (with heads 2, as the folder's "
                    "model.json says)", "a file of a layer the module has not")
    ok("--heads" not in first, "a layer the module has not: no --heads",
       first)


def vocab_ids(tmp):
    """GPT-2's vocab.json: an id negative or too large is said so, with
    the ids the tokens have; a fraction is not a whole number."""
    for name, value, fragment in (
            ("negative", -1, "the id of hi is -1, a negative number: with "
             "283 tokens the ids go from 0 to 282"),
            ("huge", 1e20, "the id of hi is 1e+20, too large: with 283 "
             "tokens the ids go from 0 to 282"),
            ("fraction", 1.5, "the id of hi is not a whole number")):
        folder = os.path.join(tmp, "vocab-" + name)
        shutil.copytree(GPT2, folder)
        path = os.path.join(folder, "vocab.json")
        with open(path) as f:
            v = json.load(f)
        v["hi"] = value
        with open(path, "w") as f:
            json.dump(v, f)
        refused(["--model", folder, "the cat"], "vocab.json: " + fragment,
                "vocab.json, an id %s" % name)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for src, name in ((LLAMA, "llama"), (BERT, "bert")):
            folder = copy(tmp, src, name + "-notok", drop="tokenizer.json")
            first = refused(["--model", folder, "the cat"], "tokenizer.json",
                            "a %s folder without tokenizer.json" % name)
            ok("vocab.json" not in first,
               "a %s folder without tokenizer.json: vocab.json is not "
               "named" % name, first)
        folder = copy(tmp, LLAMA, "llama-gen-notok", drop="tokenizer.json")
        refused(["--model", folder, "--generate", "2", "the cat"],
                "tokenizer.json", "--generate, a Llama folder without "
                "tokenizer.json")

        for opt in (["--no-causal"], ["--heads", "2"]):
            first = refused(["--model", BERT, "the cat"] + opt,
                            "looks both ways", "BERT with %s" % opt[0])
            ok("causal self" not in first, "BERT with %s: no causal attention "
               "named" % opt[0], first)
        refused(["--model", GPT2, "the cat", "--no-causal"],
                "causal self-attention", "GPT-2 with --no-causal")

        refused(["--pair", "", "x"], "--pair: the text is empty",
                "--pair ''")
        refused(["--model", GPT2, "--generate", "5", "--stop", "", "a"],
                "--stop: the text is empty", "--stop ''")
        refused(["--model", GPT2, "--generate", "5", "--stop", "", "a",
                 "--lang", "pt_BR"], "--stop: o texto está vazio",
                "--stop '' in pt_BR")

        patch = ["--model", GPT2, "--patch", "--answer", " cat", "--wrong",
                 " mat"]
        refused(patch + ["--clean", "\udcff", "--corrupt", "a"],
                "--clean: the text is not valid UTF-8", "invalid --clean")
        refused(patch + ["--clean", "a", "--corrupt", "\udcff"],
                "--corrupt: the text is not valid UTF-8", "invalid --corrupt")
        refused(patch + ["--clean", "a " * 40, "--corrupt", "a"],
                "--clean: the text is 80 tokens; the model takes at most 16 "
                "(n_positions)", "a long --clean")
        refused(patch + ["--clean", "a", "--corrupt", "ab"],
                "--clean is 1 token and --corrupt 2;", "one token and two")
        refused(patch + ["--clean", "ab", "--corrupt", "a"],
                "--clean is 2 tokens and --corrupt 1;", "two tokens and one")
        refused(patch + ["--clean", "a", "--corrupt", "ab", "--lang",
                         "pt_BR"],
                "--clean tem 1 token e --corrupt 2;", "one token in pt_BR")

        base = ["--model", GPT2, "the cat sat", "--ablate", "0.1"]
        refused(base + ["--answer", " cat", "--wrong", " mat"],
                "--answer: goes with --patch, or with --metric logit-diff "
                "or prob", "--answer with --ablate 0.1")
        refused(base + ["--metric", "prob", "--answer", " cat", "--wrong",
                        " mat"],
                "--wrong: goes with --patch, or with --metric logit-diff",
                "--wrong with --metric prob")

        text = "the end of the world"
        want = MHA.run(["--model", MISTRAL, "--format", "csv", text])
        ok(want.returncode == 0 and want.stdout, "the Mistral folder runs",
           want.stderr)
        n = sum(1 for line in want.stdout.decode().splitlines()
                if line.startswith("llama,,,tokens,"))
        for what, change in (
                ("sliding_window 4096", {"sliding_window": 4096}),
                ("sliding_window as long as the text",
                 {"sliding_window": n}),
                ("rope_scaling rope_type default",
                 {"rope_scaling": {"rope_type": "default"}}),
                ("rope_scaling type default",
                 {"rope_scaling": {"type": "default"}})):
            folder = copy(tmp, MISTRAL, what.replace(" ", "_"), change)
            r = MHA.run(["--model", folder, "--format", "csv", text])
            ok(r.returncode == 0 and r.stdout == want.stdout,
               "%s: the same run as without it" % what, r.stderr)
        # MistralForCausalLM reads sliding_window alone (MistralConfig has
        # no use_sliding_window): the key changes nothing, either way
        for used in (True, False):
            folder = copy(tmp, MISTRAL, "use_window_%s" % used,
                          {"use_sliding_window": used})
            r = MHA.run(["--model", folder, "--format", "csv", text])
            ok(r.returncode == 0 and r.stdout == want.stdout,
               "mistral, use_sliding_window %s: not read; the same run"
               % used, r.stderr)
        folder = copy(tmp, MISTRAL, "short_window",
                      {"sliding_window": n - 1})
        refused(["--model", folder, text],
                "the text is %d tokens, longer than the model's "
                "sliding_window %d" % (n, n - 1),
                "a window one token shorter than the text")
        folder = copy(tmp, MISTRAL, "short_window_unused",
                      {"sliding_window": n - 1, "use_sliding_window": False})
        refused(["--model", folder, text],
                "the text is %d tokens, longer than the model's "
                "sliding_window %d" % (n, n - 1),
                "mistral, use_sliding_window false: the window still "
                "shorter than the text")
        r = MHA.run(["--model", folder, "--generate", "8", "the"])
        ok(r.returncode == 0 and b"at most %d positions (sliding_window)" %
           (n - 1) in r.stderr,
           "--generate stops at the window, naming sliding_window", r.stderr)
        folder = copy(tmp, MISTRAL, "linear",
                      {"rope_scaling": {"rope_type": "linear",
                                        "factor": 2.0}})
        refused(["--model", folder, text], "rope_scaling is not supported",
                "rope_scaling linear")

        # GPT-2's messages name the problem: a missing key as missing, a
        # tensor of another dtype by its dtype (its offsets F32's)
        c = json.load(open(os.path.join(GPT2, "config.json")))
        folder = copy(tmp, GPT2, "no-embd")
        del c["n_embd"]
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(c, f)
        refused(["--model", folder, "the cat"], "the key n_embd is missing",
                "GPT-2 config.json without n_embd")
        folder = copy(tmp, GPT2, "f64")
        path = os.path.join(folder, "model.safetensors")
        with open(path, "rb") as f:
            data = f.read()
        n = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + n])
        header["transformer.ln_f.bias"]["dtype"] = "F64"
        text = json.dumps(header).encode()
        text += b" " * (-len(text) % 8)
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text + data[8 + n:])
        refused(["--model", folder, "the cat"],
                "its shape in F64 takes 128 bytes, but its data_offsets "
                "hold 64", "GPT-2 tensor made F64, its offsets F32's")

        # true-or-false keys: JSON's true or false only
        want = MHA.run(["--model", GPT2, "--format", "csv", "the cat"])
        folder = copy(tmp, GPT2, "scaled", {"scale_attn_weights": True})
        r = MHA.run(["--model", folder, "--format", "csv", "the cat"])
        ok(r.returncode == 0 and r.stdout == want.stdout,
           "GPT-2 scale_attn_weights true: the same run as without it",
           r.stderr)
        for key, value in (("scale_attn_weights", None),
                           ("scale_attn_weights", 0),
                           ("scale_attn_by_inverse_layer_idx", 1),
                           ("reorder_and_upcast_attn", "false"),
                           ("add_cross_attention", [])):
            folder = copy(tmp, GPT2, "flag-" + key + str(value),
                          {key: value})
            refused(["--model", folder, "the cat"],
                    "%s must be true or false" % key,
                    "GPT-2 %s %r" % (key, value))
        for key in ("scale_attn_by_inverse_layer_idx",
                    "reorder_and_upcast_attn", "add_cross_attention"):
            folder = copy(tmp, GPT2, "on-" + key, {key: True})
            refused(["--model", folder, "the cat"], "%s is not supported" % key,
                    "GPT-2 %s true" % key)
        folder = copy(tmp, BERT, "bert-decoder", {"is_decoder": 1})
        refused(["--model", folder, "the cat"],
                "is_decoder must be true or false", "BERT is_decoder 1")
        folder = copy(tmp, GPT2, "tie-null", {"tie_word_embeddings": None})
        refused(["--model", folder, "the cat"],
                "tie_word_embeddings must be true or false",
                "GPT-2 tie_word_embeddings null")
        unscaled = os.path.join(REF, "gpt2", "unscaled")
        r = MHA.run(["--model", unscaled, "--explain", "--tables",
                     "attn_scores", "--layers", "0", "--show-heads", "0",
                     "the cat"])
        out = r.stdout.decode()
        ok(r.returncode == 0 and "scale_attn_weights is false" in out,
           "--explain says scale_attn_weights is false", out[-400:])
        r = MHA.run(["--model", GPT2, "--explain", "--tables", "attn_scores",
                     "--layers", "0", "--show-heads", "0", "the cat"])
        ok(r.returncode == 0 and "scale_attn_weights" not in r.stdout.decode(),
           "--explain of a scaled checkpoint does not name it", r.stderr)

        # a trained folder's model.json naming an unknown variant
        d = os.path.join(tmp, "trained")
        MHA.run(["the cat sat", "--train", "2", "--variant", "single",
                 "--csv-dir", d])
        manifest = os.path.join(d, "model.json")
        with open(manifest) as f:
            m = f.read()
        with open(manifest, "w") as f:
            f.write(m.replace('"single"', '"nope"', 1))
        first = refused(["--weights", d, "the cat"],
                        "'variants' lists 'nope', which is not a variant",
                        "model.json with an unknown variant")
        ok("at most once" not in first,
           "model.json with an unknown variant: not called repeated", first)
        trained_folder(tmp)
        vocab_ids(tmp)
    sys.exit(done())


if __name__ == "__main__":
    main()
