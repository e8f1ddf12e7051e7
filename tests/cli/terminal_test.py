#!/usr/bin/env python3
"""The text output fits the screen: runs on a real pseudo-terminal.

Usage: terminal_test.py MHA_EXPLAIN

Each run gets a pty of 80 or 120 columns (tests/cli/ptylib.py: the window
size set with TIOCSWINSZ, the output read whole) and no line it prints
may be wider than the terminal in display cells. Also on a pty: --layout grid (heads side by
side), the pager (used on a terminal for long output, never on a pipe),
and --step driven by keys. Prints TAP. Python 3 standard library only.
"""
import os
import pty
import re
import signal
import sys
import tempfile
import termios

from ptylib import Terminal
from taplib import ESCAPE, Program, cells, done, ok

MHA = Program(sys.argv[1])
TEN = "the quick brown fox jumps over the sleeping lazy dog"
CLASSROOM = "O gato sobe no tapete"



def spawn(args, columns, rows, env_extra=None):
    """The program on a new pty of that size (ptylib.Terminal)."""
    env = dict(os.environ, TERM="xterm-256color")
    for name in ("COLUMNS", "NO_COLOR", "PAGER", "MHA_EXPLAIN_PAGER",
                 "LINES", "COLORTERM", "LESS", "LESSCHARSET",
                 "LESSCHARDEF"):
        env.pop(name, None)
    env.update(env_extra or {})
    return Terminal(MHA.command(args), env, columns, rows)


def on_pty(args, columns, rows=40, env=None):
    """(exit status, output text) of the program on a pty of that size."""
    term = spawn(args, columns, rows, env)
    status, out = term.finish(300)
    term.close()
    return status, out.decode("utf-8", "replace")


def plain_lines(text):
    return ESCAPE.sub("", text).replace("\r\n", "\n").split("\n")


def fits(args, columns, name):
    status, text = on_pty(args + ["--no-pager"], columns)
    lines = text.replace("\r\n", "\n").split("\n")
    widest = max(lines, key=cells)
    ok(status == 0 and len(lines) > 5 and cells(widest) <= columns,
       "%s at %d columns: no line wider than the terminal" % (name, columns),
       "status %d, widest %d cells: %r" % (status, cells(widest), widest))
    return text


def screens():
    for columns in (80, 120):
        text = fits([TEN, "--heads", "8", "--d-out", "16"], columns,
                    "10 words, 8 heads")
        fits([TEN, "--heads", "8", "--d-out", "16", "--explain"], columns,
             "10 words, 8 heads, --explain")
        fits(["O gato sobe no tapete", "--d-model", "64", "--d-out", "64"],
             columns, "a 64-wide model")
        fits(["我 喜欢 吃 牛舌 和 慢煮 牛舌", "--d-out", "6", "--heads", "3"],
             columns, "a Chinese sentence")
        fits(["café naïve 🙂 cafe 🎉", "--no-causal"], columns,
             "an emoji sentence")
        fits([TEN, "--heads", "8", "--d-out", "16", "--focus", "sleeping",
              "--precision", "8"], columns, "--focus with 8 decimals")
    # --check: wrapped on a terminal, one line per invariant in a pipe
    for columns in (80, 120):
        text = fits([CLASSROOM, "--check", "--tie"], columns, "--check")
        lines = plain_lines(text)
        at = [i for i, l in enumerate(lines) if l.startswith("[check]")]
        after = lines[at[0]:] if at else []
        ok(len(at) == 3 and all(l.startswith(("[check] ", "        "))
                                for l in after if l) and
           (columns > 100 or len([l for l in after if l]) > 3),
           "%d columns: 3 [check] lines, wrapped under their text" % columns,
           "\n".join(after))
    r = MHA.run([CLASSROOM, "--check", "--tie", "--width", "40"])
    out = r.stdout.decode().split("\n")
    checks = [l for l in out if l.startswith("[check]")]
    ok(r.returncode == 0 and len(checks) == 3 and
       all(l.endswith(": ok") for l in checks) and
       max(len(l) for l in checks) > 40,
       "a pipe: each invariant one whole [check] line, for scripts",
       "\n".join(checks))
    # at 80 columns the 10x10 weights need two blocks, at 120 one
    _, narrow = on_pty([TEN, "--heads", "8", "--d-out", "16", "--variant",
                        "fused", "--tables", "attn_weights", "--no-pager"], 80)
    _, wide = on_pty([TEN, "--heads", "8", "--d-out", "16", "--variant",
                      "fused", "--tables", "attn_weights", "--no-pager"], 120)
    ok("in 2 blocks of columns (width 80)" in narrow and
       "blocks of columns" not in wide,
       "the weights are split into column blocks only where they must be",
       narrow[:400])
    # each block is a whole table: row labels on every row of both blocks
    block = ESCAPE.sub("", narrow).replace("\r\n", "\n").split("\n\n")[1]
    rows = [r for r in block.split("\n") if not r.startswith("scale: ")]
    ok(rows[0].strip().startswith("K:sleeping") and
       [r.split()[0] for r in rows[1:] if r] ==
       ["Q:" + w for w in TEN.split()],
       "the second block repeats every row label", block)


def not_a_terminal():
    args = [TEN, "--heads", "8", "--d-out", "16", "--variant", "fused",
            "--tables", "attn_weights"]

    def widest(r):
        return max(cells(l) for l in r.stdout.decode().split("\n"))
    r = MHA.run(args)
    ok(r.returncode == 0 and widest(r) <= 80 and b"(width 80)" in r.stdout,
       "a pipe without COLUMNS: 80 columns", r.stdout[:300])
    r = MHA.run(args, env={"COLUMNS": "120"})
    ok(r.returncode == 0 and widest(r) > 80 and widest(r) <= 120 and
       b"blocks of columns" not in r.stdout,
       "a pipe with COLUMNS=120: 120 columns", r.stdout[:300])
    r = MHA.run(args + ["--width", "50"], env={"COLUMNS": "120"})
    ok(r.returncode == 0 and widest(r) <= 50 and b"(width 50)" in r.stdout,
       "--width 50 wins over COLUMNS", r.stdout[:300])
    # a title too long for the line: its note of blocks on a line of its
    # own, whole ("(width" and its number together)
    title = r.stdout.decode().split("\n")[:2]
    ok(title[0] == "[fused] head 0: attn_weights (10 x 10)" and
       re.fullmatch(r"  in \d+ blocks of columns \(width 50\)", title[1]),
       "a long title: the note of its blocks on a line of its own", title)
    r = MHA.run(["O gato sobe no tapete", "--variant", "block", "--d-model",
                 "4", "--tables", "ffn_hidden", "--width", "0"])
    ok(r.returncode == 0 and widest(r) > 120 and
       b"blocks of columns" not in r.stdout,
       "--width 0: no limit, one block", r.stdout[:300])
    r = MHA.run(args, env={"COLUMNS": "wide"})
    ok(r.returncode == 0 and widest(r) <= 80,
       "a COLUMNS that is not a number is ignored (80)", r.stdout[:300])
    MHA.check_error(["x", "--width", "-1"], "--width")
    MHA.check_error(["x", "--width", "100001"], "--width")


def grid():
    """--layout: the heads of a table side by side where they fit."""
    weights = [CLASSROOM, "--variant", "fused", "--tables", "attn_weights",
               "--no-pager"]
    status, wide = on_pty(weights, 120)
    lines = plain_lines(wide)
    ok(status == 0 and "[fused] heads 0 to 1: attn_weights (5 x 5)" in lines
       and any(re.match(r"^ +head 0 +\| +head 1$", l) for l in lines) and
       any(re.match(r"^Q:O( +[0-9.]+){5} \|( +[0-9.]+){5}$", l)
           for l in lines) and max(map(cells, lines)) <= 120,
       "120 columns: both heads' weights side by side, rows labelled once",
       wide[:1500])
    status, narrow = on_pty(weights, 80)
    lines = plain_lines(narrow)
    ok(status == 0 and "[fused] head 0: attn_weights (5 x 5)" in lines and
       "[fused] head 1: attn_weights (5 x 5)" in lines and
       not any("|" in l for l in lines) and max(map(cells, lines)) <= 80,
       "80 columns: the weights do not fit twice, one under another",
       narrow[:1500])
    # queries of 8 heads, 2 columns each: rows of as many heads as fit
    for columns in (80, 120):
        status, text = on_pty([TEN, "--heads", "8", "--d-out", "16",
                               "--variant", "fused", "--tables", "queries",
                               "--no-pager"], columns)
        lines = plain_lines(text)
        titles = [l for l in lines if re.match(r"^ +head \d", l)]
        heads = [int(h) for l in titles for h in re.findall(r"head (\d)", l)]
        ok(status == 0 and heads == list(range(8)) and len(titles) >= 2 and
           all(l.count("|") == len(re.findall("head", l)) - 1
               for l in titles) and max(map(cells, lines)) <= columns,
           "%d columns: 8 heads' queries in %d rows of the grid, none wider"
           % (columns, len(titles)), text[:2000])
    # order: every head's queries, then every head's keys, ...
    status, text = on_pty([CLASSROOM, "--variant", "wrapper", "--no-pager"],
                          120)
    order = [l.split(": ", 1)[1].split(" ")[0] for l in plain_lines(text)
             if l.startswith("[wrapper] heads 0 to 1: ")]
    ok(status == 0 and order == ["queries", "keys", "values", "attn_scores",
                                 "attn_weights", "head_context"],
       "the wrapper's tables by name, each a grid of both heads", order)
    # colour: a short legend under each head, the full one under the grid
    status, text = on_pty([CLASSROOM, "--variant", "fused", "--tables",
                           "attn_weights", "--color", "always", "--no-pager"],
                          120)
    lines = plain_lines(text)
    ok(status == 0 and text.count("\x1b[48;5;") > 50 and
       any(re.match(r"^ +0\.1765 +1\.0000 +\| +0\.0907 +1\.0000$", l)
           for l in lines) and
       any(l.startswith("scale: smallest") and "each head's own range" in l
           and "masked: grey" in l for l in lines) and
       max(map(cells, lines)) <= 120,
       "a coloured grid: each head's range under it, one legend line",
       "\n".join(lines))
    # Chinese and emoji labels keep the panels aligned
    for args, name in (
            (["我 喜欢 吃 牛舌 和 慢煮 牛舌", "--d-out", "6", "--heads", "3"],
             "Chinese"),
            (["café naïve 🙂 cafe 🎉", "--no-causal", "--heads", "4",
              "--d-out", "8"], "emoji")):
        for columns in (80, 120):
            status, text = on_pty(args + ["--variant", "fused", "--tables",
                                          "queries,values", "--color",
                                          "always", "--no-pager"], columns)
            lines = plain_lines(text)
            rows = [l for l in lines if l.startswith("Q:")]
            ok(status == 0 and "heads 0 to" in text and
               max(map(cells, lines)) <= columns and
               len({cells(l.split("|")[0]) for l in rows}) == 1,
               "%s labels at %d columns: a grid, aligned, none wider"
               % (name, columns), "\n".join(lines[:30]))
    # --layout stack on a terminal; --layout grid into a pipe
    status, text = on_pty(weights + ["--layout", "stack"], 120)
    ok(status == 0 and "heads 0 to" not in text and
       "head 1: attn_weights" in text, "--layout stack on a terminal",
       text[:300])
    r = MHA.run([CLASSROOM, "--variant", "fused", "--layout", "grid",
                 "--tables", "queries"])
    ok(r.returncode == 0 and b"heads 0 to 1: queries" in r.stdout,
       "--layout grid into a pipe (80 columns)", r.stdout[:300])
    r = MHA.run([CLASSROOM, "--variant", "fused", "--tables", "queries"])
    ok(r.returncode == 0 and b"heads 0 to" not in r.stdout,
       "a pipe keeps one table under another by default", r.stdout[:300])
    # the legend itself is broken to fit a narrow --width, its ramp
    # shortened first, "masked: grey" kept together
    for width in (20, 40, 60):
        for layout in ("grid", "stack"):
            r = MHA.run(["O gato sobe no tapete", "--tables", "attn_weights",
                         "--layout", layout, "--color", "always",
                         "--width", str(width)])
            text = r.stdout.decode()
            lines = plain_lines(text)
            joined = " ".join(l.strip() for l in lines)
            greys = [l for l in lines if "grey" in l]
            ok(r.returncode == 0 and max(map(cells, lines)) <= width and
               joined.count("range; masked: grey") == len(greys) >= 3 and
               all("masked: grey" in l for l in greys),
               "--width %d --layout %s: the legend within the width"
               % (width, layout), "\n".join(lines[-6:]))
    # a language whose "masked:" has no space after it gets none
    r = MHA.run(["O gato sobe no tapete", "--tables", "attn_weights",
                 "--variant", "single", "--color", "always", "--lang",
                 "zh_CN", "--width", "30"])
    lines = plain_lines(r.stdout.decode())
    ok(r.returncode == 0 and max(map(cells, lines)) <= 30 and
       any(l.endswith("被掩码：灰色") for l in lines),
       "--lang zh_CN --width 30: the legend within the width, no space added",
       "\n".join(lines[-3:]))
    # narrow panels whose legend line would be wider than the screen
    for width, grid_expected in ((70, False), (100, True)):
        r = MHA.run(["O gato sobe", "--variant", "fused", "--tables",
                     "attn_weights", "--layout", "grid", "--color", "always",
                     "--width", str(width)])
        lines = plain_lines(r.stdout.decode())
        ok(r.returncode == 0 and max(map(cells, lines)) <= width and
           ("heads 0 to 1" in r.stdout.decode()) == grid_expected,
           "--width %d: the grid %s, the legend line within the width"
           % (width, "used" if grid_expected else "not used"),
           "\n".join(lines))
    MHA.check_error([CLASSROOM, "--layout", "side"], "--layout")


def pager():
    """Long output on a terminal goes through the pager; never on a pipe,
    with --no-pager or --step."""
    long_run = [TEN, "--heads", "8", "--d-out", "16"]
    with tempfile.TemporaryDirectory() as tmp:
        got = os.path.join(tmp, "paged")
        keep = "cat > '%s'" % got
        expected = MHA.run(long_run, env={"COLUMNS": "120"}).stdout
        status, text = on_pty(long_run, 120, rows=40,
                              env={"MHA_EXPLAIN_PAGER": keep,
                                   "PAGER": "false"})
        paged = open(got, "rb").read() if os.path.exists(got) else b""
        ok(status == 0 and text == "" and
           ESCAPE.sub("", paged.decode()).count("\n") > 40 and
           b"[fused] heads 0 to 7: queries" in paged,
           "a long run on a terminal goes all through $MHA_EXPLAIN_PAGER",
           "status %d, %d bytes shown, %d paged" % (status, len(text),
                                                    len(paged)))
        os.remove(got)
        # the text is UTF-8 whatever the locale: less is told so (a
        # pt_BR run with no generated locale showed cabe<C3><A7>a), unless
        # the user chose a character set
        charset = "echo \"$LESSCHARSET\" > '%s'" % got
        for extra, want in (({}, "utf-8"), ({"LESSCHARSET": "latin1"},
                                            "latin1"),
                            ({"LESSCHARDEF": "8bcccbcc18b95.b"}, "")):
            env = dict({"MHA_EXPLAIN_PAGER": charset, "LANG": "pt_BR.UTF-8",
                        "LC_ALL": ""}, **extra)
            env.pop("LESSCHARSET", None) if not extra else None
            status, text = on_pty(long_run, 120, env=env)
            seen = open(got).read().strip() if os.path.exists(got) else None
            ok(status == 0 and seen == want,
               "the pager's LESSCHARSET with %s: %r" % (extra or "none", want),
               "status %d, saw %r" % (status, seen))
            if os.path.exists(got):
                os.remove(got)
        status, text = on_pty(long_run, 120, env={"PAGER": keep})
        ok(status == 0 and text == "" and os.path.exists(got),
           "... else through $PAGER")
        os.remove(got)
        status, text = on_pty(long_run + ["--layout", "stack",
                                          "--color", "never"], 120,
                              env={"MHA_EXPLAIN_PAGER": keep})
        ok(status == 0 and os.path.exists(got) and
           open(got, "rb").read() == expected,
           "the pager reads the same bytes a pipe gets")
        os.remove(got)
        status, text = on_pty([CLASSROOM, "--tables", "vocab"], 120,
                              env={"MHA_EXPLAIN_PAGER": keep})
        ok(status == 0 and "tapete" in text and not os.path.exists(got),
           "output that fits the screen is not paged", text)
        status, text = on_pty(long_run + ["--no-pager"], 120,
                              env={"MHA_EXPLAIN_PAGER": keep})
        ok(status == 0 and text.count("\n") > 40 and not os.path.exists(got),
           "--no-pager writes to the terminal")
        r = MHA.run(long_run, env={"MHA_EXPLAIN_PAGER": keep, "PAGER": keep})
        ok(r.returncode == 0 and r.stdout == MHA.run(long_run).stdout and
           not os.path.exists(got), "a pipe is never paged")
        status, text = on_pty(long_run, 120,
                              env={"MHA_EXPLAIN_PAGER": "/nonexistent/pager"})
        ok(status == 0 and "[fused] heads 0 to 7: head_context" in text,
           "a pager that cannot start: the output is written plainly",
           text[-300:])
        status, text = on_pty(long_run, 120, env={"MHA_EXPLAIN_PAGER": ""})
        ok(status == 0 and "[fused] heads 0 to 7: head_context" in text,
           "an empty MHA_EXPLAIN_PAGER means no pager", text[-300:])
        # a pager that quits after one line (of 90 kB, more than a pipe
        # holds): no error, no hang
        status, text = on_pty(long_run, 120,
                              env={"MHA_EXPLAIN_PAGER": "head -n 1"})
        ok(status == 0 and text.replace("\r\n", "\n").count("\n") == 1,
           "a pager that quits early: status 0, one line shown", text[:300])
        status, text = on_pty(["--help"], 80, rows=24,
                              env={"MHA_EXPLAIN_PAGER": keep})
        ok(status == 0 and text == "" and b"--no-pager" in
           open(got, "rb").read(), "--help on a small terminal is paged")
        os.remove(got)
        status, text = on_pty(["--help", "--no-pager"], 80, rows=24,
                              env={"MHA_EXPLAIN_PAGER": keep})
        ok(status == 0 and "--no-pager" in text and not os.path.exists(got),
           "--help --no-pager is not")
        # --check's status comes through the pager
        status, text = on_pty(long_run + ["--check"], 120,
                              env={"MHA_EXPLAIN_PAGER": keep})
        ok(status == 0 and b"[check]" in open(got, "rb").read(),
           "--check's lines are paged with the tables")
        os.remove(got)
    # the default pager, less -FRX, quit with q
    if subprocess_ok("less"):
        term = spawn(long_run, 120, 40)
        shown = term.read_until(b"\n:", 20)
        term.write(b"q")
        st, rest = term.finish(20)
        term.close()
        ok(st == 0 and b"[input] vocab" in shown,
           "less -FRX by default, quit with q: status 0",
           (shown + rest)[-300:])
    else:
        ok(True, "# SKIP less is not installed")


def subprocess_ok(program):
    return any(os.access(os.path.join(d, program), os.X_OK)
               for d in os.environ.get("PATH", "").split(os.pathsep))


def termios_restored(term):
    lflag = term.settings()[3]
    return bool(lflag & termios.ICANON) and bool(lflag & termios.ECHO)


def step():
    """--step driven by keys on a real pty."""
    args = [CLASSROOM, "--variant", "fused", "--explain", "--step"]
    # 120 x 30: the first three steps fit the screen, so space and Enter
    # go on at once (one_step_per_screen scrolls the taller ones)
    term = spawn(args, 120, 30)
    first = term.read_until(b"[step 1 of", 20)
    total = re.search(rb"\[step 1 of (\d+)", first)
    raw = not termios_restored(term)
    term.write(b" ")
    second = term.read_until(b"[step 2 of", 10)
    term.write(b"\r")
    third = term.read_until(b"[step 3 of", 10)
    term.write(b"b")
    back = term.read_until(b"[step 2 of", 10)
    term.write(b"q")
    st, rest = term.finish(10)
    restored = termios_restored(term)
    term.close()
    text = lambda b: ESCAPE.sub("", b.decode("utf-8", "replace"))
    ok(total is not None and int(total.group(1)) >= 9 and  # both heads on one step
       "# Tokenize:" in text(first) and "[input] vocab" in text(first) and
       "embedding.weight" not in text(first),
       "step 1: the tokens, its note first", text(first)[-600:])
    ok(b"\x1b[H\x1b[2J" in second and "# Embeddings:" in text(second) and
       text(second).index("# Embeddings:") <
       text(second).index("[input] embedding.weight") and
       "[input] vocab" not in text(second).split("\x1b")[-1],
       "space: the screen cleared, step 2 the embeddings after its note",
       text(second)[-600:])
    ok("# The fused module" in text(third) and
       "[fused] W_query.weight" in text(third),
       "Enter: step 3, the module's note and parameters", text(third)[-600:])
    ok("[input] embedding.weight" in text(back),
       "b: back to step 2", text(back)[-300:])
    ok(st == 0 and raw and restored,
       "q quits with status 0; raw mode while waiting, restored after",
       "status %r, raw %r, restored %r" % (st, raw, restored))

    # through every step to the end
    term = spawn([CLASSROOM, "--variant", "fused", "--step"], 120, 40)
    seen = term.read_until(b"[step 1 of", 20)
    n = int(re.search(rb"\[step 1 of (\d+)", seen).group(1))
    for k in range(2, n + 1):
        term.write(b" ")
        seen += term.read_until(b"[step %d of" % k, 10)
    term.write(b"\r")
    st, rest = term.finish(10)
    seen += rest
    restored = termios_restored(term)
    term.close()
    plain = text(seen)
    ok(st == 0 and restored and
       "[fused] heads 0 to 1: attn_weights" in plain and
       "[fused] out (5 x 4)" in plain and ", the last" in plain,
       "Enter past the last of %d steps ends the run, status 0" % n,
       plain[-500:])

    # a checkpoint's run (--model) steps through its layers: each layer's
    # tables, its heads side by side (the grid), then the model's
    two = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "reference", "gpt2", "two_layers")
    term = spawn(["--model", two, "the cat sat", "--step", "--tables",
                  "tokens,ln_1,attn_weights,hidden,out"], 120, 40)
    seen = term.read_until(b"[step 1 of", 20)
    n = int(re.search(rb"\[step 1 of (\d+)", seen).group(1))
    for k in range(2, n + 1):
        term.write(b" ")
        seen += term.read_until(b"[step %d of" % k, 10)
    term.write(b"\r")
    st, rest = term.finish(10)
    seen += rest
    term.close()
    plain = text(seen)
    order = ["[gpt2] tokens", "[h.0] ln_1", "[h.0] heads 0 to 1: "
             "attn_weights", "[h.0] hidden", "[h.1] ln_1", "[h.1] heads 0 "
             "to 1: attn_weights", "[h.1] hidden", "[gpt2] out"]
    at = [plain.find(x) for x in order]
    ok(st == 0 and n == len(order) and -1 not in at and at == sorted(at),
       "--model --step: a step per layer's table and head, %d in order" % n,
       (n, at, plain[-300:]))

    # --kv-steps: a screen per generation step, every layer's heads in it
    term = spawn(["--model", two, "the cat sat", "--generate", "3",
                  "--kv-steps", "--step", "--tables",
                  "attn_weights,generated"], 120, 40)
    seen = term.read_until(b"[step 1 of", 20)
    n = int(re.search(rb"\[step 1 of (\d+)", seen).group(1))
    screens_seen = [seen]
    for k in range(2, n + 1):
        term.write(b" ")
        screens_seen.append(term.read_until(b"[step %d of" % k, 10))
    term.write(b"\r")
    st, rest = term.finish(10)
    screens_seen[-1] += rest
    term.close()
    plain = [text(x) for x in screens_seen]
    where = {}
    for i, screen in enumerate(plain):
        for x in ("[h.0] step 1, heads 0 to 1: attn_weights",
                  "[h.1] step 1, heads 0 to 1: attn_weights",
                  "[h.0] step 2, heads 0 to 1: attn_weights",
                  "[h.1] step 2, heads 0 to 1: attn_weights",
                  "[gpt2] generated"):
            if x in screen and x not in where:
                where[x] = i
    ok(st == 0 and n == 5 and len(where) == 5 and
       where["[h.0] step 1, heads 0 to 1: attn_weights"] ==
       where["[h.1] step 1, heads 0 to 1: attn_weights"] == 2 and
       where["[h.0] step 2, heads 0 to 1: attn_weights"] ==
       where["[h.1] step 2, heads 0 to 1: attn_weights"] == 3 and
       where["[gpt2] generated"] == 4,
       "--kv-steps --step: a screen per generation step with every layer's "
       "heads (%d screens)" % n, (n, where, plain[-1][-300:]))
    # a Llama-style checkpoint's layer, walked the same way: the rotated
    # queries and the weights of its heads side by side, the layer's
    # output, then the model's
    llama = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "reference", "llama", "llama_tied_f32")
    term = spawn(["--model", llama, "hello world the cat", "--step",
                  "--layers", "1", "--tables",
                  "tokens,ln_1,queries_rotated,attn_weights,hidden,out"],
                 120, 40)
    seen = term.read_until(b"[step 1 of", 20)
    n = int(re.search(rb"\[step 1 of (\d+)", seen).group(1))
    for k in range(2, n + 1):
        term.write(b" ")
        seen += term.read_until(b"[step %d of" % k, 10)
    term.write(b"\r")
    st, rest = term.finish(10)
    seen += rest
    term.close()
    plain = text(seen)
    order = ["[llama] tokens", "[layers.1] ln_1",
             "[layers.1] heads 0 to 3: queries_rotated",
             "[layers.1] heads 0 to 3: attn_weights", "[layers.1] hidden",
             "[llama] out"]
    at = [plain.find(x) for x in order]
    ok(st == 0 and n == len(order) and -1 not in at and at == sorted(at) and
       "[layers.0]" not in plain,
       "--model (Llama) --step --layers 1: that layer's tables and heads, "
       "%d steps in order" % n, (n, at, plain[-300:]))

    # a signal while waiting: the terminal restored, the signal's status
    for sig, key in ((signal.SIGTERM, None), (signal.SIGINT, b"\x03")):
        term = spawn(args, 80, 24)
        term.read_until(b"[step 1 of", 20)
        if key is None:
            os.kill(term.pid, sig)
        else:
            term.write(key)
        st, _ = term.finish(10)
        restored = termios_restored(term)
        term.close()
        ok(st == -sig and restored,
           "%s while waiting: the terminal restored, then the signal ends it"
           % signal.Signals(sig).name, "status %r" % st)

    # no terminal: a usage error that says which side is not one
    MHA.check_error([CLASSROOM, "--step"], "standard input is not one",
                    "--step without a terminal on standard input")
    master, slave = pty.openpty()
    import subprocess
    r = subprocess.run(MHA.command([CLASSROOM, "--step"]), stdin=slave,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    os.close(master)
    os.close(slave)
    ok(r.returncode == 2 and r.stdout == b"" and
       b"standard output is not one" in r.stderr,
       "--step with standard output a pipe: a usage error", r.stderr)
    MHA.check_error([CLASSROOM, "--step", "--format", "csv"], "--step")
    # --step never pages
    with tempfile.TemporaryDirectory() as tmp:
        got = os.path.join(tmp, "paged")
        term = spawn(args, 80, 24, {"MHA_EXPLAIN_PAGER": "cat > '%s'" % got})
        term.read_until(b"[step 1 of", 20)
        term.write(b"q")
        st, _ = term.finish(10)
        term.close()
        ok(st == 0 and not os.path.exists(got),
           "--step never pages")


CLEAR = b"\x1b[H\x1b[2J"
BOTTOM = re.compile(rb"\x1b\[0m\x1b\[(\d+);1H")
STATUS = re.compile(r"\[\D*(\d+)\D+(\d+)")
DOWN, UP = b"\x1b[B", b"\x1b[A"
PAGE_DOWN, PAGE_UP = b"\x1b[6~", b"\x1b[5~"
SS3_DOWN = b"\x1bOB"


class Stepper:
    """--step on a pty, each screen it draws read as (step, lines shown,
    status line, the screen's rows of text)."""

    def __init__(self, args, columns, rows, env=None):
        self.columns, self.rows = columns, rows
        self.term = spawn(args + ["--step"], columns, rows, env)
        self.data = b""
        self.screens = []
        self.status = None
        self.wait(20)

    def wait(self, seconds):
        """Reads until one more screen is complete; False when none came
        (or the program ended)."""
        import select
        import time
        end = time.monotonic() + seconds
        while True:
            pieces = self.data.split(CLEAR)
            if len(pieces) - 1 > len(self.screens):
                last = pieces[len(self.screens) + 1]
                m = BOTTOM.search(last)
                status = last[m.end():].decode("utf-8", "ignore") if m \
                    else ""
                # a whole status line: up to its "]", or cut to the width
                if m and (status.rstrip("\n").endswith("]") or
                          cells(status) >= self.columns - 2):
                    self.screens.append(self.parse(last, m))
                    return True
            left = end - time.monotonic()
            if left <= 0 or self.term.proc.poll() is not None:
                return False
            ready, _, _ = select.select([self.term.master], [], [],
                                        min(left, 0.2))
            if ready:
                self.data += os.read(self.term.master, 65536)

    def parse(self, piece, m):
        body = piece[:m.start()].decode("utf-8", "replace")
        status = piece[m.end():].decode("utf-8", "replace").rstrip("\n")
        lines = ESCAPE.sub("", body).replace("\r\n", "\n").split("\n")
        step = STATUS.match(status)
        shown = re.search(r"(\d+)-(\d+)/?\D*?(\d+)", status[step.end():]) \
            if step else None
        return {"step": int(step.group(1)) if step else None,
                "steps": int(step.group(2)) if step else None,
                "lines": lines, "status": status,
                "rows": int(m.group(1)),
                "first": int(shown.group(1)) if shown else 1,
                "last": int(shown.group(2)) if shown else len(lines),
                "of": int(shown.group(3)) if shown else len(lines)}

    def key(self, k, seconds=10):
        """Types k; the screen it brings, or None (no new screen)."""
        self.term.write(k)
        return self.screens[-1] if self.wait(seconds) else None

    @property
    def screen(self):
        return self.screens[-1]

    def finish(self):
        st, rest = self.term.finish(10)
        restored = termios_restored(self.term)
        self.term.close()
        return st, restored

    def rows_used(self, screen):
        """Screen rows its text takes (a line wider than the screen
        wraps)."""
        return sum(max(1, -(-cells(l) // self.columns))
                   for l in screen["lines"])


def through(args, columns, rows, key, env=None, name=""):
    """Every step with one key, from the first screen to the end: each
    screen within the window, each step opening at its top, never a step
    back, every line of the run shown (the same as --layout grid prints
    into a pipe, with --color always)."""
    st = Stepper(args, columns, rows, env)
    first = st.screen
    while st.key(key) is not None:
        pass
    status, restored = st.finish()
    screens = st.screens
    n = first["steps"]
    too_tall = [s for s in screens if st.rows_used(s) > rows - 1 or
                cells(s["status"]) >= columns or s["rows"] != rows]
    order = [s["step"] for s in screens]
    opens = {}
    for s in screens:
        opens.setdefault(s["step"], s)
    shown = {}
    for s in screens:
        lines = shown.setdefault(s["step"], {})
        for i, line in enumerate(s["lines"]):
            lines[s["first"] + i] = line
    tall = [k for k, s in opens.items() if s["of"] > len(s["lines"])]
    ok(status == 0 and restored and order == sorted(order) and
       set(order) == set(range(1, n + 1)) and not too_tall,
       "%s at %dx%d, key %r: %d steps (%d taller than the screen) in %d "
       "screens, each within the window, none back"
       % (name, columns, rows, key, n, len(tall), len(screens)),
       "status %r, order %r, too tall %r" % (
           status, order, [(s["step"], s["status"]) for s in too_tall]))
    ok(all(s["first"] == 1 for s in opens.values()),
       "%s at %dx%d: every step opens at its own top" % (name, columns, rows),
       [(k, s["status"]) for k, s in opens.items() if s["first"] != 1])
    env_all = dict(env or {})
    pipe = MHA.run([a for a in args] + ["--layout", "grid", "--width",
                                        str(columns), "--color", "always"],
                   env=env_all)
    want = [l for l in plain_lines(pipe.stdout.decode().replace("\f", "\n"))
            if l.strip()]
    got = [l for k in sorted(shown) for i, l in sorted(shown[k].items())
           if l.strip()]
    ok(pipe.returncode == 0 and got == want,
       "%s at %dx%d: every line of every step was on a screen, in order"
       % (name, columns, rows),
       "\n".join(l for l in difflib_lines(want, got)))
    return st


def difflib_lines(a, b):
    import difflib
    return list(difflib.unified_diff(a, b, lineterm="", n=1))[:30]


LESSON = ["呢間 餐廳 嘅 牛舌 好 出名", "--lang", "zh_TW", "--explain",
          "--variant", "wrapper,fused,block", "--d-model", "8", "--d-out",
          "8", "--heads", "4"]


def one_step_per_screen():
    """--step: one step per screen, a tall step scrolled within itself,
    the keys of a keyboard and of a presentation remote."""
    for columns, rows in ((80, 24), (120, 30)):
        through([CLASSROOM], columns, rows, DOWN, name="the classroom example")
        st = through([CLASSROOM, "--explain"], columns, rows, PAGE_DOWN,
                     name="--explain")
        notes = [s for s in st.screens
                 if s["lines"][0].startswith("# The wrapper: ")]
        ok(notes, "%dx%d --explain: the note on the wrapper opens its step"
           % (columns, rows))
        through(LESSON, columns, rows, SS3_DOWN if columns == 80 else b" ",
                name="the zh_TW lesson")
    # --layout grid: the wrapper's six parameter tables side by side
    for columns, per_row in ((80, 2), (120, 3)):
        status, text = on_pty([CLASSROOM, "--variant", "wrapper", "--tables",
                               "heads.0.W_query.weight,heads.0.W_key.weight,"
                               "heads.0.W_value.weight,heads.1.W_query.weight,"
                               "heads.1.W_key.weight,heads.1.W_value.weight",
                               "--no-pager"], columns)
        lines = plain_lines(text)
        titles = [l for l in lines if l.lstrip().startswith("heads.")]
        ok(status == 0 and "[wrapper] heads.0.W_query.weight to "
           "heads.1.W_value.weight (2 x 3 each)" in lines and
           [l.count("heads.") for l in titles] == [per_row] * (6 // per_row)
           and max(map(cells, lines)) <= columns,
           "%d columns: the wrapper's six parameters side by side, %d a row"
           % (columns, per_row), "\n".join(lines))
    # the keys within a tall step and across steps, at 80x24 with --explain
    st = Stepper([CLASSROOM, "--explain"], 80, 24)
    st.key(b"n")
    while st.screen["of"] <= len(st.screen["lines"]):
        st.key(b"n")
    tall = st.screen
    k = tall["step"]
    moves = [("Down", DOWN, k, 2), ("j", b"j", k, 3), ("Up", UP, k, 2),
             ("k", b"k", k, 1)]
    for name, key, step, first in moves:
        s = st.key(key)
        ok(s is not None and (s["step"], s["first"]) == (step, first),
           "a tall step, %s: step %d from line %d" % (name, step, first),
           s and s["status"])
    s = st.key(PAGE_DOWN)
    page = s["first"] if s else 0
    ok(s is not None and s["step"] == k and page > 2,
       "PageDown: a screen further (line %d)" % page, s and s["status"])
    s = st.key(PAGE_UP)
    ok(s is not None and (s["step"], s["first"]) == (k, 1),
       "PageUp: back to the step's top", s and s["status"])
    s = st.key(b"b")
    ok(s is not None and s["step"] == k - 1 and s["first"] == 1,
       "b at the top: the step before, at its top", s and s["status"])
    st.key(b"n")
    s = st.key(b"G")
    ok(s is not None and s["step"] == k and s["last"] == s["of"],
       "End (G): the step's last lines", s and s["status"])
    s = st.key(b"\r")
    ok(s is not None and s["step"] == k + 1 and s["first"] == 1,
       "Enter at a step's end: the next step, at its top", s and s["status"])
    s = st.key(UP)
    ok(s is not None and s["step"] == k and s["first"] == 1,
       "Up at a step's top: the step before, opened at its top",
       s and s["status"])
    s = st.key(b"\x1b[1;2B")
    ok(s is not None and s["step"] == k and s["first"] == 2,
       "Shift+Down (ESC [ 1 ; 2 B): a line down, never back",
       s and s["status"])
    # a Down arrow whose bytes come apart is still one key
    st.term.write(b"\x1b")
    import time
    time.sleep(0.01)
    s = st.key(b"[B")
    ok(s is not None and s["step"] == k and s["first"] == 3,
       "ESC, then [B 10 ms later: still the Down arrow", s and s["status"])
    s = st.key(b"\x1bOA")
    ok(s is not None and s["step"] == k and s["first"] == 2,
       "ESC O A (cursor-key mode): Up", s and s["status"])
    s = st.key(b"x", 0.5)
    ok(s is None, "another key: nothing happens")
    st.term.write(b"q")
    status, restored = st.finish()
    ok(status == 0 and restored, "q: status 0, the terminal restored")
    # a new window size: the step drawn again for it
    st = Stepper([CLASSROOM, "--explain"], 80, 24)
    import fcntl
    import struct
    fcntl.ioctl(st.term.slave, termios.TIOCSWINSZ,
                struct.pack("HHHH", 12, 80, 0, 0))
    os.kill(st.term.pid, signal.SIGWINCH)
    ok(st.wait(10) and st.screen["rows"] == 12 and
       st.rows_used(st.screen) <= 11,
       "SIGWINCH: drawn again for 12 rows", st.screen["status"])
    st.term.write(b"q")
    st.finish()


def trained_steps():
    """--step through a trained run (--train --grad): the forward pass,
    then the backward pass (every .grad table, after its note), then the
    updates (the loss over the steps) last."""
    term = spawn([CLASSROOM, "--variant", "single", "--train", "3",
                  "--grad", "--explain", "--step"], 160, 200)
    text = lambda b: ESCAPE.sub("", b.decode("utf-8", "replace"))
    screens = [text(term.read_until(b"[step 1 of", 20))]
    n = int(re.search(r"\[step 1 of (\d+)", screens[0]).group(1))
    for k in range(2, n + 1):
        term.write(b" ")
        screens.append(text(term.read_until(b"[step %d of" % k, 10)))
    term.write(b"q")
    st, _ = term.finish(10)
    term.close()
    # each screen's own part: after the screen was cleared
    own = [sc.split("[H")[-1] for sc in screens]
    where = lambda needle: [i for i, sc in enumerate(own) if needle in sc]
    grads = where("embedding.weight.grad")
    loss = where("[single] loss")
    heads = where("[single] head 0: attn_weights")
    ok(st == 0 and len(grads) == 1 and len(loss) == 1 and
       loss == [n - 1] and grads == [n - 2] and heads and heads[0] < n - 2,
       "--step, trained: forward, then the backward pass, then the loss",
       "status %r, %d steps, grads %r, loss %r, weights %r" %
       (st, n, grads, loss, heads))
    # the backward pass's screens: from its first note to the loss's step
    # (a head's gradients are a step of their own, as its forward tables)
    start = where("# Gradients (--grad)")
    back = "".join(own[start[0]:loss[0]]) if start and loss else ""
    ok("# Gradients (--grad)" in back and "rowsum(P * dP)" in back and
       "W_query.weight.grad" in back and
       "lm_head.weight.grad" in back and "[single] loss" not in back and
       back.index("# Gradients") < back.index("embedding.weight.grad") and
       back.index("# Loss: d loss / d logits") <
       back.index("[single] logits.grad") <
       back.index("# A linear layer") <
       back.index("[single] W_query.weight.grad") <
       back.index("[single] lm_head.weight.grad"),
       "the backward step: each gradient after the note on its part of the "
       "backward pass", back[-800:])
    last = own[loss[0]] if loss else ""
    ok("# Loss: next-word cross-entropy" in last and "Adam" in last and
       ".grad" not in last, "the last step: the loss and the update's note",
       last[-800:])


def narrow_step():
    """--step at 60 columns: the brief status line, q on it, every
    language."""
    args = ["我 的 猫 🐱 坐 在 垫子 上 。", "--variant", "fused", "--step",
            "--explain"]
    quit_key = {"en": "q: quit]", "pt_BR": "q: sai]", "es": "q: sale]",
                "zh_CN": "q：退出]", "zh_TW": "q：離開]"}
    for lang, key in quit_key.items():
        term = spawn(args + ["--lang", lang], 60, 24)
        seen = term.read_until(key.encode(), 20)
        term.write(b"q")
        st, rest = term.finish(10)
        term.close()
        status = ESCAPE.sub("", (seen + rest).decode("utf-8", "replace"))
        status = status.split("\x1b[24;1H")[-1].split("\x1b")[0]
        status = status.split("\r")[0]
        ok(st == 0 and status.startswith("[1/") and status.endswith(key) and
           cells(status) < 60,
           "--step at 60 columns, %s: the status line whole, q on it" % lang,
           repr(status))


screens()
narrow_step()
not_a_terminal()
grid()
pager()
step()
trained_steps()
one_step_per_screen()
sys.exit(done())
