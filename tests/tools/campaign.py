#!/usr/bin/env python3
"""The hostile-input campaign: a table of inputs meant to break the
program, each run in a fresh folder with a --csv-dir and a --plot it must
not leave behind. For every case that must fail: the expected status,
one line on stderr starting 'mha-explain: ' (plus the --help hint for a
command-line mistake), nothing on stdout, and nothing left on disk (no
output folder, no hidden temporary file, nothing in $TMPDIR). Cases that
must succeed check their own property. Then signals in the middle of
writing (SIGINT, SIGTERM, SIGHUP, and SIGPIPE with the output a pipe) and
a full disk (a 64 KiB tmpfs, where this test may mount one).

CI runs it against the normal build and the ASan/UBSan build (meson
test in both, see .ci/run).

Usage: campaign.py MHA_EXPLAIN        Prints TAP and the counts.
"""
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# taplib.py and ptylib.py live with the command-line tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
from taplib import Program, done, ok  # noqa: E402

MHA = Program(sys.argv[1])
S = "O gato sobe no tapete"
HINT = "Try 'mha-explain --help' for more information."
WORDS = " ".join("w%d" % i for i in range(8001))
BIG = "x" * (70 * 1024)


def files(tmp):
    """The input files of the table, made in tmp."""
    made = {
        "unterminated.csv": 's\n"O gato\n',
        "quote_inside.csv": 's\nO "gato"x\n',
        "quoted_newline_label.csv": 'token,a,b,c\n"' + "a\n" * 40000 + '",1,2,3\n',
        "quoted_delims.csv": 'token;a;b;c\n"' + "a;" * 40000 + '";1;2;3\n',
        "huge_cell.csv": "s\n" + BIG + "\n",
        "quoted_64k.csv": 's\n"' + "x" * 65535 + '"""\n',
        "quoted_64k_1.csv": 's\n"' + "x" * 65537 + '"\n',
        "huge_header.csv": BIG + "\nO gato\n",
        "too_wide.csv": "token," + ",".join("c%d" % i for i in range(8193))
        + "\nx," + ",".join(["0"] * 8193) + "\n",
        "bom_header.csv": "\ufeffs\nO gato\n",
        "bom_only.csv": "\ufeff",
        "empty.csv": "",
        "header_only.csv": "s\n",
        "blank_rows.csv": "s\n\n\n",
        "ragged.csv": "s,t\nO gato\n",
        "nan.csv": "token,a,b,c\nx,nan,1,2\n",
        "inf.csv": "token,a,b,c\nx,inf,1,2\n",
        "hex.csv": "token,a,b,c\nx,0x1p3,1,2\n",
        "arabic_digit.csv": "token,a,b,c\nx,\u0661,1,2\n",
        "too_big.csv": "token,a,b,c\nx,1e39,1,2\n",
        "tiny.csv": "token,a,b,c\nx,1e-50,1,2\n",
        "spaces.csv": "token,a,b,c\nx, 1,1,2\n",
        "empty_number.csv": "token,a,b,c\nx,,1,2\n",
        "width_mismatch.csv": "token,a,b,c\nx,1,2,3\ny,1,2\n",
        "nul.csv": "s\nO\x00gato\n",
        "bad_utf8.csv": b"s\nO \xff gato\n",
        "many_rows.csv": "s\n" + "x\n" * 10001,
        "many_tokens.csv": "s\n" + WORDS + "\n",
        "work.csv": "s\n" + (" ".join("w%d" % (j % 100) for j in range(8000))
                            + "\n") * 14,
        "later_bad.csv": "s\nO gato\n\n" + "x " * 8001 + "\n",
        "bidi.csv": "s\nO ga\u202eto\n",
        "spaced_numbers.csv": 'token,a,b,c\nx," 1.5 ",\t2 ,\u00a03\u3000\n',
        "blank_number.csv": 'token,a,b,c\nx," \t",1,2\n',
        "inner_space.csv": 'token,a,b,c\nx,"1 5",1,2\n',
        "format_only.csv": "s\nO gato\n\u200b \u2060\n",
    }
    for name, text in made.items():
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(os.path.join(tmp, name), mode,
                  **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(text)
    with open(os.path.join(tmp, "utf16.csv"), "wb") as f:
        f.write("s\nO gato\n".encode("utf-16"))
    os.mkfifo(os.path.join(tmp, "fifo.html"))
    # over 64 MiB without writing it: a sparse file
    with open(os.path.join(tmp, "sparse.csv"), "wb") as f:
        f.truncate(65 << 20)
    # --weights folders with hostile entries
    def weights(name, make):
        d = os.path.join(tmp, name)
        os.mkdir(d)
        make(d)
    os.symlink("loop", os.path.join(tmp, "loop"))
    os.symlink("nowhere/else", os.path.join(tmp, "dangling"))
    weights("w_zero", lambda d: os.symlink(
        "/dev/zero", os.path.join(d, "fused.W_query.weight.csv")))
    weights("w_dir", lambda d: os.symlink(
        tmp, os.path.join(d, "fused.W_key.weight.csv")))
    weights("w_loop", lambda d: os.symlink(
        "fused.W_value.weight.csv", os.path.join(d, "fused.W_value.weight.csv")))
    weights("w_dangling", lambda d: os.symlink(
        os.path.join(d, "gone"), os.path.join(d, "fused.out_proj.weight.csv")))
    weights("w_fifo", lambda d: os.mkfifo(
        os.path.join(d, "fused.out_proj.bias.csv")))
    weights("w_upper", lambda d: open(
        os.path.join(d, "fused.W_query.weight.CSV"), "w").close())
    weights("w_zero_head", lambda d: open(
        os.path.join(d, "wrapper.heads.00.W_query.weight.csv"), "w").close())
    weights("w_huge", lambda d: open(
        os.path.join(d, "fused.W_query.weight.csv"), "w").write(
            "token," + ",".join("in%d" % i for i in range(3)) + "\n" +
            "out0,1e39,0,0\n" + "out%d,0,0,0\n" * 3 % (1, 2, 3)))
    weights("w_sorted", lambda d: open(
        os.path.join(d, "fused.W_query.weight.csv"), "w").write(
            "token,in0,in1,in2\nout1,1,2,3\nout0,4,5,6\nout2,0,0,0\n"
            "out3,0,0,0\n"))
    weights("w_typo", lambda d: open(
        os.path.join(d, "fusde.W_query.weight.csv"), "w").close())
    weights("w_shape", lambda d: open(
        os.path.join(d, "fused.W_query.weight.csv"), "w").write(
            "token,in0\nout0,1\n"))


# (name, arguments, stdin, status, fragment of the first stderr line,
#  whether the --help hint follows)
FAILING = [
    # quoting and huge cells
    ("unterminated quote", ["--input", "unterminated.csv", "--column", "s"],
     b"", 2, "never closed", False),
    ("quote inside a field", ["--input", "quote_inside.csv", "--column", "s"],
     b"", 2, "quote_inside.csv:2", False),
    ("quoted line breaks past 64 KiB", ["--embeddings",
     "quoted_newline_label.csv"], b"", 2, "longer than 64 KiB", False),
    ("quoted delimiters past 64 KiB", ["--embeddings", "quoted_delims.csv",
     "--csv-delimiter", ";"], b"", 2, "longer than 64 KiB", False),
    ("a 70 KiB cell", ["--input", "huge_cell.csv", "--column", "s"], b"", 2,
     "longer than 64 KiB", False),
    ("a quoted cell of 64 KiB and 1 byte", ["--input", "quoted_64k_1.csv",
     "--column", "s"], b"", 2, "quoted_64k_1.csv:2:1: a field longer than 64",
     False),
    ("a 70 KiB header", ["--input", "huge_header.csv", "--column", "s"], b"",
     2, "longer than 64 KiB", False),
    ("a file over 64 MiB", ["--input", "sparse.csv", "--column", "s"], b"", 2,
     "sparse.csv", False),
    ("8193 value columns", ["--embeddings", "too_wide.csv"], b"", 2,
     "too_wide.csv:1:48049: more than 8192 columns after the label: an "
     "embedding is at most 8192 wide", False),
    # a token has a CSV cell's limit, from any source
    ("a 1 MiB word on standard input", ["-"], b"x" * (1 << 20), 2,
     "token 0 (counting from 0) is 1048576 bytes long, longer than the limit "
     "of a token, 64 KiB", False),
    ("four 120 KB words with --html", ["-", "--html", "page.html"],
     b" ".join(bytes([c]) * 120000 for c in b"abcd"), 2,
     "token 0 (counting from 0) is 120000 bytes", False),
    ("a word of 64 KiB and 1 byte", ["a " + "y" * 65537], b"", 2,
     "token 1 (counting from 0) is 65537 bytes", False),
    ("a --kv word of 64 KiB and 1 byte", ["a b", "--kv", "c " + "y" * 65537],
     b"", 2, "--kv: token 1 (counting from 0) is 65537 bytes", False),
    ("a --focus word of 64 KiB and 1 byte", ["a b", "--focus", "y" * 65537],
     b"", 2, "--focus: the word is longer than the limit of a token", True),
    # empty and odd shapes
    ("an empty file", ["--input", "empty.csv", "--column", "s"], b"", 2,
     "empty.csv", False),
    ("a byte-order mark alone", ["--input", "bom_only.csv", "--column", "s"],
     b"", 2, "bom_only.csv", False),
    ("a header and no rows", ["--input", "header_only.csv", "--column", "s"],
     b"", 2, "header_only.csv", False),
    ("only blank rows", ["--input", "blank_rows.csv", "--column", "s"], b"",
     2, "blank_rows.csv", False),
    ("a missing column", ["--input", "bom_header.csv", "--column", "nope"],
     b"", 2, "nope", False),
    ("a row shorter than the header", ["--input", "ragged.csv", "--column",
     "s"], b"", 2, "ragged.csv:2", False),
    ("rows of different widths", ["--embeddings", "width_mismatch.csv"], b"",
     2, "width_mismatch.csv:3", False),
    ("a NUL byte in a file", ["--input", "nul.csv", "--column", "s"], b"", 2,
     "nul.csv", False),
    ("invalid UTF-8 in a file", ["--input", "bad_utf8.csv", "--column", "s"],
     b"", 2, "bad_utf8.csv", False),
    # bad numbers
    ("nan in embeddings", ["--embeddings", "nan.csv"], b"", 2, "nan.csv:2:3",
     False),
    ("inf in embeddings", ["--embeddings", "inf.csv"], b"", 2, "inf.csv:2:3",
     False),
    ("a hexadecimal float", ["--embeddings", "hex.csv"], b"", 2, "hex.csv:2:3",
     False),
    ("an Arabic-Indic digit", ["--embeddings", "arabic_digit.csv"], b"", 2,
     "arabic_digit.csv:2:3", False),
    ("1e39, past float32", ["--embeddings", "too_big.csv"], b"", 2,
     "too large for float32", False),
    ("an empty number", ["--embeddings", "empty_number.csv"], b"", 2,
     "empty_number.csv:2:3", False),
    ("--seed 1e3", [S, "--seed", "1e3"], b"", 2, "--seed", True),
    ("--heads 0x2", [S, "--heads", "0x2"], b"", 2, "--heads", True),
    ("--precision ' 4'", [S, "--precision", " 4"], b"", 2, "--precision",
     True),
    ("--d-model 1e400", [S, "--d-model", "1" + "0" * 400], b"", 2,
     "--d-model", True),
    ("--width -0", [S, "--width", "-0"], b"", 2, "--width", True),
    ("--seed with a full-width digit", [S, "--seed", "\uff14\uff12"], b"", 2,
     "--seed", True),
    ("--focus at 2^64", [S, "--focus", "gato@18446744073709551616"], b"", 2,
     "past the end", True),
    # limits
    ("8001 tokens", [WORDS], b"", 2, "more than 8000 tokens", False),
    ("8001 tokens in a row", ["--input", "many_tokens.csv", "--column", "s"],
     b"", 2, "more than 8000 tokens", False),
    ("a later row too long", ["--input", "later_bad.csv", "--column", "s"],
     b"", 2, "later_bad.csv:4", False),
    ("10001 rows", ["--input", "many_rows.csv", "--column", "s"], b"", 2,
     "more than 10000 rows", False),
    ("the work of an --input file", ["--input", "work.csv", "--column", "s",
     "--d-model", "8", "--d-out", "8"], b"", 2, "million values", False),
    ("a trace too large", ["--d-model", "8192", "--d-out", "8192", "--heads",
     "1", " ".join("w%d" % i for i in range(600))], b"", 2, "million values",
     False),
    ("stdin over 1 MiB", ["-"], b"x " * (1 << 19) + b"y", 2,
     "longer than 1048576 bytes", False),
    ("stdin: 1 MiB after a byte-order mark is within the byte limit",
     ["-"], b"\xef\xbb\xbf" + b"x " * (1 << 19), 2, "tokens", False),
    ("stdin: invalid UTF-8", ["-"], b"a \xc3\x28", 2, "not valid UTF-8",
     False),
    ("stdin: a byte-order mark alone", ["-"], b"\xef\xbb\xbf", 2,
     "the sentence is empty", False),
    # --weights folders
    ("--weights: a symlink to /dev/zero", [S, "--weights", "w_zero"], b"", 2,
     "not a regular file", False),
    ("--weights: a symlink to a folder", [S, "--weights", "w_dir"], b"", 2,
     "not a regular file", False),
    ("--weights: a symlink loop", [S, "--weights", "w_loop"], b"", 2,
     "fused.W_value.weight.csv: cannot open: Too many levels of symbolic",
     False),
    ("--weights: a dangling symlink", [S, "--weights", "w_dangling"], b"", 2,
     "fused.out_proj.weight.csv", False),
    ("--weights: a FIFO", [S, "--weights", "w_fifo"], b"", 2,
     "fused.out_proj.bias.csv", False),
    ("--weights: .CSV", [S, "--weights", "w_upper"], b"", 2,
     "fused.W_query.weight.CSV", False),
    ("--weights: heads.00", [S, "--weights", "w_zero_head"], b"", 2,
     "wrapper.heads.00", False),
    ("--weights: 1e39", [S, "--weights", "w_huge"], b"", 2,
     "too large for float32", False),
    ("--weights: rows out of order", [S, "--weights", "w_sorted"], b"", 2,
     "fused.W_query.weight.csv:2:1: the row labelled 'out1' is row 0",
     False),
    ("--weights: a name that starts with no module", [S, "--weights",
     "w_typo"], b"", 2, "fusde.W_query.weight.csv: a parameter file's name",
     False),
    ("--weights: the wrong shape", [S, "--weights", "w_shape"], b"", 2,
     "fused.W_query.weight.csv", False),
    ("--weights: a file, not a folder", [S, "--weights", "nan.csv"], b"", 2,
     "--weights", False),
    # option misuse
    ("--format=", [S, "--format="], b"", 2, "--format", True),
    ("--csv-dir ''", [S, "--csv-dir", ""], b"", 2, "--csv-dir", True),
    ("--column without --input", ["--column", "s", S], b"", 2, "--column",
     True),
    ("--input without --column", ["--input", "bom_header.csv"], b"", 2,
     "--column", True),
    ("--plot x.gif", [S, "--plot", "x.gif"], b"", 2, "--plot", True),
    ("--help=1", ["--help=1"], b"", 2, "takes no value", True),
    ("an ambiguous prefix", ["--d", "3", S], b"", 2, "ambiguous", True),
    ("--tables ,", [S, "--tables", ","], b"", 2, "--tables", True),
    ("--variant with an empty name", [S, "--variant", "fused,"], b"", 2,
     "--variant", True),
    ("--heads without a value", [S, "--heads"], b"", 2, "needs a value",
     True),
    ("--kv empty", [S, "--kv", ""], b"", 2, "--kv", False),
    ("--focus '' ", [S, "--focus", ""], b"", 2, "--focus", True),
    ("--csv-delimiter a quote", [S, "--csv-delimiter", '"'], b"", 2,
     "--csv-delimiter", True),
    ("--csv-delimiter a line break", [S, "--csv-delimiter", "\n"], b"", 2,
     "--csv-delimiter", True),
    ("--csv-delimiter n, a letter of -inf", [S, "--format", "csv",
     "--csv-delimiter", "n"], b"", 2, "'n' cannot separate fields", True),
    ("--csv-delimiter I", [S, "--csv-delimiter", "I"], b"", 2,
     "'I' cannot separate fields", True),
    ("--csv-dir under a file", [S, "--csv-dir", "nan.csv/out"], b"", 2,
     "--csv-dir", False),
    # repeats, invisible sentences, spaces around numbers
    ("--variant fused,fused", [S, "--variant", "fused,fused"], b"", 2,
     "'fused' is listed twice", True),
    ("--tables out,inputs,out", [S, "--tables", "out,inputs,out"], b"", 2,
     "'out' is listed twice", True),
    ("a sentence of bidirectional controls", ["\u202e\u202d"], b"", 2,
     "only invisible format characters (such as U+202E)", False),
    ("a zero-width space alone", ["\u200b"], b"", 2,
     "only invisible format characters (such as U+200B)", False),
    ("stdin: word joiners and spaces", ["-"], "\u2060 \u2060\n".encode(),
     2, "only invisible format characters (such as U+2060)", False),
    ("--kv of a soft hyphen", [S, "--kv", "\u00ad"], b"", 2,
     "--kv: the sentence is empty", False),
    ("an --input row of format characters", ["--input", "format_only.csv",
     "--column", "s"], b"", 2, "format_only.csv:3", False),
    ("a number cell of only whitespace", ["--embeddings",
     "blank_number.csv"], b"", 2, "blank_number.csv:2:3: an empty cell",
     False),
    ("a space inside a number", ["--embeddings", "inner_space.csv"], b"", 2,
     "inner_space.csv:2:3: not a number", False),
    ("--csv-dir a symlink loop", [S, "--csv-dir", "loop"], b"", 2,
     "cannot create loop: Too many levels of symbolic links", False),
    ("--csv-dir a dangling symlink", [S, "--csv-dir", "dangling"], b"", 2,
     "dangling is a symbolic link to a folder that does not exist", False),
]


# Outputs and the environment: (name, arguments, stdin, status, fragment
# of the first stderr line, whether the --help hint follows, environment)
LONG_PATH = "/".join(["c" * 200] * 25)
TARGETS = [
    ("--csv-dir /dev/full", [S, "--csv-dir", "/dev/full"], b"", 2,
     "/dev/full is not a directory", False, {}),
    ("--html /dev/null", [S, "--html", "/dev/null"], b"", 2,
     "--html: /dev/null exists and is not a regular file", False, {}),
    ("--html a FIFO", [S, "--html", "fifo.html"], b"", 2,
     "--html: fifo.html exists and is not a regular file", False, {}),
    ("--csv-dir through a FIFO", [S, "--csv-dir", "fifo.html/x"], b"", 2,
     "fifo.html is not a directory", False, {}),
    ("--csv-dir past PATH_MAX", [S, "--csv-dir", LONG_PATH], b"", 2,
     "File name too long", False, {}),
    ("--plot past PATH_MAX", [S, "--plot", LONG_PATH + ".png"], b"", 2,
     "File name too long", False, {}),
    ("--plot in a missing folder", [S, "--plot", "no/such/p.png"], b"", 2,
     "no/such/p.png: No such file or directory", False, {}),
    ("--plot in /proc", [S, "--plot", "/proc/x.png"], b"", 2,
     "--plot: cannot write /proc/x.png: ", False, {}),
    ("--html in /proc", [S, "--html", "/proc/x.html"], b"", 2,
     "--html: cannot write /proc/x.html: ", False, {}),
    ("$TMPDIR missing", [S], b"", 1, "the output's temporary file in "
     "/nonexistent/mha-explain ($TMPDIR): No such", False,
     {"TMPDIR": "/nonexistent/mha-explain"}),
    ("$TMPDIR a file", [S], b"", 1, "the output's temporary file in "
     "/etc/passwd ($TMPDIR): Not a directory", False,
     {"TMPDIR": "/etc/passwd"}),
    ("--input a folder", ["--input", ".", "--column", "s"], b"", 2,
     "Is a directory", False, {}),
    # the first bad byte may come after a newline: any line of the file
    ("--input /dev/urandom", ["--input", "/dev/urandom", "--column", "s"],
     b"", 2, "/dev/urandom:", False, {}),
    ("--weights /dev/null", [S, "--weights", "/dev/null"], b"", 2,
     "Not a directory", False, {}),
    ("--input UTF-16", ["--input", "utf16.csv", "--column", "s"], b"", 2,
     "utf16.csv:1:1", False, {}),
    ("--kv with --input", ["--input", "bom_header.csv", "--column", "s",
     "--kv", "a b"], b"", 2, "--kv", True, {}),
    ("--ff 32768 at d_model 8192", [S, "--variant", "block", "--d-model",
     "8192", "--heads", "1", "--ff", "32768"], b"", 2, "million values",
     False, {}),
    ("--csv-delimiter '\\t' (two characters)", [S, "--csv-delimiter",
     "\\t"], b"", 2, "--csv-delimiter", True, {}),
]


def leftovers(work, tmpdir):
    """Names in the run's folder and $TMPDIR that the run made."""
    found = []
    for top in (work, tmpdir):
        for root, dirs, names in os.walk(top):
            for n in dirs + names:
                found.append(os.path.relpath(os.path.join(root, n), top))
    return sorted(found)


def run_case(tmp, number, args, stdin, env_extra=None):
    work = os.path.join(tmp, "run%d" % number)
    tmpdir = os.path.join(work, "tmp")
    os.makedirs(tmpdir)
    before = set(leftovers(work, tmpdir))
    extra = ["--csv-dir", os.path.join(work, "out")]
    if "--plot" not in args and "--html" not in args:
        extra += ["--plot", os.path.join(work, "picture.png")]
    args = extra + args
    env = {"TMPDIR": tmpdir}
    if env_extra:
        env.update(env_extra)
    r = MHA.run(args, stdin, cwd=tmp, env=env)
    left = sorted(set(leftovers(work, tmpdir)) - before)
    return r, left


def judge_failure(r, left, name, status, fragment, hint):
    """A failed run: the status, one line naming the problem (and the
    --help hint for command-line mistakes), nothing printed or left."""
    lines = r.stderr.decode("utf-8", "replace").splitlines()
    good = (r.returncode == status and r.stdout == b"" and lines and
            lines[0].startswith("mha-explain: ") and
            fragment in lines[0] and
            len(lines) == (2 if hint else 1) and
            (not hint or lines[1] == HINT) and left == [])
    ok(good, "%s: status %d, one line, nothing printed or left" %
       (name, status), "status %d stdout %r stderr %r left %r" %
       (r.returncode, r.stdout[:80], r.stderr[:300], left))


def failing(tmp):
    for number, (name, args, stdin, status, fragment, hint) in \
            enumerate(FAILING):
        r, left = run_case(tmp, number, args, stdin)
        judge_failure(r, left, name, status, fragment, hint)


def targets(tmp):
    base = len(FAILING) + 20
    for number, (name, args, stdin, status, fragment, hint, env) in \
            enumerate(TARGETS):
        r, left = run_case(tmp, base + number, args, stdin, env)
        judge_failure(r, left, name, status, fragment, hint)


def closed_streams(tmp):
    """Standard output closed (prog >&-) or read-only: the run fails
    before any file is put in place, with status 1 and nothing left; a
    closed standard input is a read error for '-'."""
    top = os.path.join(tmp, "closed")
    os.mkdir(top)
    for name, redirect, args, status, fragment in [
            ("standard output closed, with --csv-dir and --plot", ">&-",
             [S, "--csv-dir", "out", "--plot", "p.png"], 1,
             "cannot write the output: Bad file descriptor"),
            ("standard output read-only, with --html", "1</dev/null",
             [S, "--html", "p.html"], 1,
             "cannot write the output: Bad file descriptor"),
            ("standard input closed for '-'", "<&-", ["-"], 2,
             "cannot read standard input: Bad file descriptor")]:
        r = subprocess.run(["sh", "-c", 'exec "$@" %s' % redirect, "sh"] +
                           MHA.command(args), cwd=top, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, TMPDIR=top), timeout=600)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == status and len(lines) == 1 and
           fragment in lines[0] and os.listdir(top) == [],
           "%s: status %d, one line, nothing left" % (name, status),
           (r.returncode, r.stderr[:300], os.listdir(top)))


def succeeding(tmp):
    """Hostile inputs the program accepts: what it must do with them."""
    base = len(FAILING)
    r, left = run_case(tmp, base, ["-"], b"\xef\xbb\xbfO gato",)
    ok(r.returncode == 0 and b"\xef\xbb\xbf" not in r.stdout and
       b"Q:O " in r.stdout, "a byte-order mark on stdin is not a token",
       r.stderr)
    r, _ = run_case(tmp, base + 1, ["O ga\u202eto", "--tables", "inputs"],
                    b"")
    ok(r.returncode == 0 and "\u202e".encode() not in r.stdout and
       b"\\u202e" in r.stdout.lower(),
       "U+202E inside a word is shown escaped, never raw", r.stdout[:300])
    r, _ = run_case(tmp, base + 2, ["--input", "bidi.csv", "--column", "s",
                                    "--tables", "inputs"], b"")
    ok(r.returncode == 0 and "\u202e".encode() not in r.stdout,
       "U+202E in an --input heading is escaped", r.stdout[:300])
    r, _ = run_case(tmp, base + 3, ["--input", "bom_header.csv", "--column",
                                    "s", "--tables", "out"], b"")
    ok(r.returncode == 0 and b"sentence 0: O gato" in r.stdout,
       "a byte-order mark before the header names the column", r.stderr)
    r, _ = run_case(tmp, base + 4, ["--", "--heads"], b"")
    ok(r.returncode == 0 and b"--heads" in r.stdout,
       "after --, an option's name is a sentence", r.stderr)
    r, _ = run_case(tmp, base + 5, ["\x1b[31mred\x07"], b"")
    ok(r.returncode == 0 and b"\x1b[31m" not in r.stdout and
       b"\x07" not in r.stdout, "terminal escapes in a word are escaped")
    r, _ = run_case(tmp, base + 6, ["O \u200b gato", "--tables", "inputs"],
                    b"")
    ok(r.returncode == 0 and b"\n\\u200b " in r.stdout and
       "\u200b".encode() not in r.stdout,
       "a zero-width space between words is a token, as str.split() "
       "keeps it, shown as \\u200b", r.stdout[:300])
    r, _ = run_case(tmp, base + 7, ["\U0001F468\u200d\U0001F469",
                                    "--tables", "inputs"], b"")
    ok(r.returncode == 0 and "\U0001F468\u200d\U0001F469".encode() in
       r.stdout, "a joiner inside an emoji stays as it is", r.stdout[:300])
    r, left = run_case(tmp, base + 10, [S, "--plot", "p.png", "--plot-size",
                                        "0" * 200 + "32x00040"], b"")
    ok(r.returncode == 0, "--plot-size takes leading zeros as the other "
       "numbers do", r.stderr[:300])
    # the CSV output, whose labels are whole (a text table cuts a label
    # wider than the screen in its middle)
    r, _ = run_case(tmp, base + 9, ["--input", "quoted_64k.csv", "--column",
                                    "s", "--tables", "inputs", "--format",
                                    "csv"], b"")
    ok(r.returncode == 0 and b"x" * 1000 in r.stdout,
       "a quoted cell of exactly 64 KiB (a doubled quote last) is within "
       "the limit, as an unquoted one is", r.stderr[:300])
    r, _ = run_case(tmp, base + 8, ["--embeddings", "spaced_numbers.csv",
                                    "--format", "csv", "--tables", "inputs"],
                    b"")
    ok(r.returncode == 0 and r.stdout.decode().splitlines()[1:] == [
        "input,,inputs,0,x,0,dim0,1.5", "input,,inputs,0,x,1,dim1,2",
        "input,,inputs,0,x,2,dim2,3"],
       "whitespace around numbers, quoted or not, is ignored as float() "
       "ignores it", (r.stdout[:300], r.stderr[:300]))


def snapshot(top):
    """Every name under top with its content (None for a folder)."""
    seen = {}
    for root, dirs, names in os.walk(top):
        for n in dirs:
            seen[os.path.relpath(os.path.join(root, n), top)] = None
        for n in names:
            path = os.path.join(root, n)
            if os.path.islink(path):
                seen[os.path.relpath(path, top)] = "-> " + os.readlink(path)
            else:
                with open(path, "rb") as f:
                    seen[os.path.relpath(path, top)] = f.read()
    return seen


# The first lines of a page an earlier run wrote: its generator line
# marks it as one --html may replace.
OLD_PAGE = (b'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">'
            b'\n<meta name="generator" content="mha-explain 0.0.9">\nold page')


def html_replaces_pages(tmp):
    """--html replaces a page mha-explain wrote, or an empty file; any
    other file of that name is the user's: refused with one line and
    status 2, before anything moves (the run's other outputs not made,
    the file untouched)."""
    top = os.path.join(tmp, "pages")
    os.mkdir(top)
    small = [S, "--d-model", "4", "--d-out", "4", "--heads", "2"]
    # the generator line past the first kilobyte is not the mark
    late = b"x" * 1024 + OLD_PAGE
    for name, data in [("notes.txt", b"my notes\n"),
                       ("main.c", b"int main(void) { return 0; }\n"),
                       ("late.html", late),
                       ("nul.html", b"\0" + OLD_PAGE)]:
        path = os.path.join(top, name)
        with open(path, "wb") as f:
            f.write(data)
        before = snapshot(top)
        r = MHA.run(small + ["--html", name, "--plot", "p.png"], cwd=top)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 1 and
           ("--html: %s exists and was not written by mha-explain" % name)
           in lines[0] and snapshot(top) == before,
           "--html over a user's %s: refused, one line, nothing changed" %
           name, (r.returncode, r.stderr[:300]))
        os.remove(path)
    for name, data in [("old.html", OLD_PAGE), ("empty.html", b"")]:
        path = os.path.join(top, name)
        with open(path, "wb") as f:
            f.write(data)
        r = MHA.run(small + ["--html", name], cwd=top)
        with open(path, "rb") as f:
            page = f.read()
        ok(r.returncode == 0 and page.startswith(b"<!DOCTYPE html>") and
           page != data and b"mha-explain 0.0.9" not in page,
           "--html over %s: replaced by the new page" % name,
           (r.returncode, r.stderr[:300]))
        # and the page it wrote is one it replaces again
        r = MHA.run(small + ["--html", name], cwd=top)
        ok(r.returncode == 0, "--html over its own page %s: replaced" % name,
           r.stderr[:300])
        os.remove(path)


def together(tmp):
    """A run's --plot, --html and --csv-dir files go in place together:
    when any of them cannot, none does, and the user's files of the same
    names are left exactly as they were, whichever kind fails."""
    top = os.path.join(tmp, "together")
    os.mkdir(top)
    small = [S, "--d-model", "4", "--d-out", "4", "--heads", "2"]
    r = MHA.run(small + ["--csv-dir", "d"], cwd=top)
    assert r.returncode == 0, r.stderr
    for name in os.listdir(os.path.join(top, "d")):
        with open(os.path.join(top, "d", name), "w") as f:
            f.write("old " + name)
    two = os.path.join(top, "two.csv")
    with open(two, "w") as f:
        f.write("s\nO gato\nthe cat\n")

    def blocked(block):
        os.mkdir(os.path.join(top, block))
    cases = [
        # (name, extra arguments, the name made a folder, files made first)
        ("--csv-dir fails: no picture, the old one untouched",
         ["--plot", "out.png", "--csv-dir", "d"], "d/fused.out.csv",
         {"out.png": b"old picture"}),
        ("--csv-dir fails: no picture made",
         ["--plot", "new.png", "--csv-dir", "d"], "d/fused.out.csv", {}),
        ("--csv-dir fails: no page, no picture",
         ["--plot", "out.svg", "--html", "p.html", "--csv-dir", "d"],
         "d/fused.out.csv", {"p.html": OLD_PAGE}),
        ("--plot fails: the --csv-dir files untouched",
         ["--plot", "out.png", "--csv-dir", "d"], "out.png", {}),
        ("--html fails: the picture and files untouched",
         ["--plot", "out.png", "--html", "p.html", "--csv-dir", "d"],
         "p.html", {"out.png": b"old picture"}),
        ("--html's second page fails: no first page, no pictures",
         ["--input", two, "--column", "s", "--plot", "q.png", "--html",
          "q.html"], "q.sentence1.html",
         {"q.sentence0.html": OLD_PAGE, "q.sentence1.png": b"old png"}),
        ("--plot's second page fails: no first page, no files",
         ["--input", two, "--column", "s", "--plot", "q.png", "--csv-dir",
          "d"], "q.sentence1.png", {"q.sentence0.png": b"old png"}),
    ]
    for name, extra, block, made in cases:
        for path, data in made.items():
            with open(os.path.join(top, path), "wb") as f:
                f.write(data)
        if block.startswith("d/"):
            os.remove(os.path.join(top, block))
        blocked(block)
        before = snapshot(top)
        args = (small[1:] if "--input" in extra else small) + extra
        r = MHA.run(args, cwd=top)
        after = snapshot(top)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 1 and
           block in lines[0] and after == before, name,
           (r.returncode, r.stderr[:300],
            sorted(set(after) ^ set(before)),
            [k for k in after if k in before and after[k] != before[k]]))
        os.rmdir(os.path.join(top, block))
        if block.startswith("d/"):
            with open(os.path.join(top, block), "w") as f:
                f.write("old " + os.path.basename(block))
        for path in made:
            os.remove(os.path.join(top, path))
    # two outputs of one name: refused, whatever the spelling, and the
    # user's file of that name is left as it was
    with open(os.path.join(top, "x.svg"), "wb") as f:
        f.write(b"old svg")
    with open(os.path.join(top, "d", "fused.out.csv"), "w") as f:
        f.write("old fused.out.csv")
    for name, extra, target in [
            ("--plot and --html name one file", ["--plot", "x.svg", "--html",
                                                 "./x.svg"], "x.svg"),
            ("--html names a file of --csv-dir", ["--csv-dir", "d", "--html",
                                                  "d/../d/fused.out.csv"],
             "fused.out.csv"),
            ("--html names a file of a new --csv-dir folder",
             ["--csv-dir", "new/deeper", "--html",
              "new/deeper/fused.out.csv"], "fused.out.csv")]:
        before = snapshot(top)
        r = MHA.run(small + extra, cwd=top)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == 2 and r.stdout == b"" and len(lines) == 2 and
           target in lines[0] and "two outputs of this run" in lines[0] and
           snapshot(top) == before, name + ": a usage error, nothing changed",
           (r.returncode, r.stderr[:300]))
    os.remove(os.path.join(top, "x.svg"))
    # a name near the 255-byte limit still has its temporary name
    long_png, long_html = "p" * 251 + ".png", "h" * 250 + ".html"
    r = MHA.run(small + ["--plot", long_png, "--html", long_html], cwd=top)
    ok(r.returncode == 0 and os.path.exists(os.path.join(top, long_png)) and
       os.path.exists(os.path.join(top, long_html)),
       "--plot and --html with 255-byte names", r.stderr[:300])
    os.remove(os.path.join(top, long_png))
    os.remove(os.path.join(top, long_html))
    # and when nothing is in the way, every kind is replaced, a private
    # file staying private
    with open(os.path.join(top, "out.png"), "wb") as f:
        f.write(b"old picture")
    os.chmod(os.path.join(top, "out.png"), 0o600)
    os.chmod(os.path.join(top, "d", "fused.out.csv"), 0o640)
    r = MHA.run(small + ["--plot", "out.png", "--csv-dir", "d"], cwd=top)
    modes = [os.stat(os.path.join(top, p)).st_mode & 0o777
             for p in ("out.png", "d/fused.out.csv")]
    ok(r.returncode == 0 and modes == [0o600, 0o640],
       "a replaced file's permission bits are kept", [oct(m) for m in modes])
    with open(os.path.join(top, "out.png"), "rb") as f:
        png = f.read(8)
    with open(os.path.join(top, "d", "fused.out.csv"), "rb") as f:
        csv = f.read(6)
    ok(r.returncode == 0 and png == b"\x89PNG\r\n\x1a\n" and
       csv == b"token," and sorted(os.listdir(top)) ==
       ["d", "out.png", "two.csv"],
       "a run that succeeds replaces every kind and leaves no kept file",
       (r.returncode, r.stderr[:300], sorted(os.listdir(top))))


def narrow_header(tmp):
    """A header too narrow for --embeddings, then 20 MB of empty fields:
    refused at the header, without keeping the rows (the memory of the
    run stays small)."""
    path = os.path.join(tmp, "narrow.csv")
    with open(path, "w") as f:
        f.write("token\n" + ("," * 2500 + "\n") * 8000)
    p = subprocess.Popen(MHA.command(["--embeddings", path]),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = p.stdout.read(), p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    lines = stderr.decode("utf-8", "replace").splitlines()
    ok(p.returncode == 2 and stdout == b"" and len(lines) == 1 and
       "narrow.csv:1:1: the header has 1 column, at least 2" in lines[0] and
       usage.ru_maxrss < 300 * 1024,
       "a one-column header before 20 MB of empty fields: refused at the "
       "header, in %d MB" % (usage.ru_maxrss // 1024),
       (p.returncode, stderr[:300]))


def wait_for_files(p, folder, timeout=300):
    """Until the run's unfinished folder holds a file (or it ended)."""
    deadline = time.time() + timeout
    while time.time() < deadline and p.poll() is None:
        try:
            hidden = [n for n in os.listdir(folder) if n.startswith(".")]
            if hidden and os.listdir(os.path.join(folder, hidden[0])):
                return True
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    return False


def default_action(sig):
    """For the child: sig as a user's shell leaves it (a test harness may
    ignore SIGQUIT, and an ignored signal stays ignored), and no core
    file (SIGQUIT and SIGXCPU dump core by default)."""
    def reset():
        signal.signal(sig, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return reset


def file_size_limit(tmp):
    """Past ulimit -f, a write fails as on a full disk (SIGXFSZ is
    ignored): status 1, "File too large", nothing left."""
    top = os.path.join(tmp, "fsize")
    os.mkdir(top)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 10, 16 << 10))
    for name, extra in [("--csv-dir", ["--csv-dir", "out"]),
                        ("--plot", ["--plot", "p.png"]),
                        ("--html", ["--html", "p.html"])]:
        p = subprocess.run(MHA.command([S, "--d-model", "64", "--d-out", "64"]
                                       + extra), cwd=top, preexec_fn=limit,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, TMPDIR=top), timeout=600)
        lines = p.stderr.decode("utf-8", "replace").splitlines()
        ok(p.returncode == 1 and len(lines) == 1 and
           "File too large" in lines[0] and p.stdout == b"" and
           os.listdir(top) == [],
           "past ulimit -f under %s: status 1, one line, nothing left" % name,
           (p.returncode, p.stderr[:300], os.listdir(top)))


def signals(tmp):
    """A signal while files are unfinished removes them all (--csv-dir's
    folder and the picture's temporary files), and the program ends by
    that signal with nothing printed."""
    sentences = os.path.join(tmp, "slow.csv")
    with open(sentences, "w") as f:
        f.write("s\n" + "".join(
            " ".join("w%d" % j for j in range(i, i + 100)) + "\n"
            for i in range(20)))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE,
                signal.SIGQUIT, signal.SIGUSR1, signal.SIGXCPU):
        top = os.path.join(tmp, "signal%d" % sig)
        os.mkdir(top)
        out = os.path.join(top, "new", "deeper")
        p = subprocess.Popen(
            MHA.command(["--input", sentences, "--column", "s",
                         "--d-model", "512", "--d-out", "512", "--heads", "1",
                         "--variant", "fused", "--tables", "attn_weights",
                         "--plot", os.path.join(top, "p.svg"),
                         "--csv-dir", out]),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(os.environ, TMPDIR=top), preexec_fn=default_action(sig))
        seen = wait_for_files(p, out)
        p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=600)
        ok(seen and p.returncode == -sig and stdout == b"" and
           stderr == b"" and os.listdir(top) == [],
           "signal %d in the middle of writing: ends the run, leaves nothing"
           % sig, (seen, p.returncode, stderr[:200], os.listdir(top)))


def child_of(p, timeout=60):
    """The pid of the run's child (cli/supervise.h: a run that writes
    files runs in one), or None."""
    deadline = time.time() + timeout
    while time.time() < deadline and p.poll() is None:
        try:
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                pids = f.read().split()
            if pids:
                return int(pids[0])
        except OSError:
            pass
        time.sleep(0.01)
    return None


def crashes(tmp):
    """A crash (a picture library aborting) or SIGKILL of the run's child
    in the middle of writing: the parent removes every unfinished file,
    says so in one line (not for SIGKILL) and ends by the same signal;
    SIGKILL of the parent: the child removes its files and ends."""
    sentences = os.path.join(tmp, "slow.csv")
    cases = [("child", signal.SIGABRT), ("child", signal.SIGTRAP),
             ("child", signal.SIGKILL), ("parent", signal.SIGKILL)]
    for who, sig in cases:
        top = os.path.join(tmp, "crash-%s-%d" % (who, sig))
        os.mkdir(top)
        out = os.path.join(top, "new", "deeper")
        p = subprocess.Popen(
            MHA.command(["--input", sentences, "--column", "s",
                         "--d-model", "512", "--d-out", "512", "--heads", "1",
                         "--variant", "fused", "--tables", "attn_weights",
                         "--plot", os.path.join(top, "p.svg"),
                         "--csv-dir", out]),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(os.environ, TMPDIR=top),
            preexec_fn=default_action(signal.SIGABRT))
        child = child_of(p)
        seen = wait_for_files(p, out)
        if who == "child" and child is not None:
            os.kill(child, sig)
        else:
            p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=600)
        if who == "parent" and child is not None:
            wait_until(lambda: not os.path.exists("/proc/%d" % child), 60)
        lines = stderr.decode("utf-8", "replace").splitlines()
        said = lines == [] if sig == signal.SIGKILL or who == "parent" else \
            len(lines) == 1 and lines[0].startswith(
                "mha-explain: the run ended on signal %d" % sig)
        ok(seen and child is not None and p.returncode == -sig and
           stdout == b"" and said and os.listdir(top) == [],
           "signal %d to the run's %s in the middle of writing: nothing "
           "left" % (sig, who),
           (seen, child, p.returncode, stderr[:300], os.listdir(top)))


def cpu_limit(tmp):
    """`ulimit -t 2` (hard and soft limit alike): SIGXCPU, one second
    before the hard limit's SIGKILL, ends the run with nothing left."""
    top = os.path.join(tmp, "cpu")
    os.mkdir(top)

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (2, 2))
        default_action(signal.SIGXCPU)()
    p = subprocess.run(
        MHA.command(["--input", os.path.join(tmp, "slow.csv"), "--column",
                     "s", "--d-model", "512", "--d-out", "512", "--heads",
                     "1", "--variant", "fused", "--threads", "1",
                     "--plot", "p.svg", "--csv-dir", "out"]),
        cwd=top, preexec_fn=limit, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=dict(os.environ, TMPDIR=top),
        timeout=600)
    ok(p.returncode == -signal.SIGXCPU and p.stdout == b"" and
       p.stderr == b"" and os.listdir(top) == [],
       "ulimit -t 2: SIGXCPU before SIGKILL, nothing left",
       (p.returncode, p.stderr[:300], os.listdir(top)))


def reachable_copy():
    """A folder of /tmp that every user may enter, holding a copy of the
    program: the checkout may sit in a folder the other user cannot enter
    (a fresh clone in a `mktemp -d` folder). The copy finds no picture
    module and no catalogues beside it: the case needs neither."""
    folder = tempfile.mkdtemp(prefix="mha-program-", dir="/tmp")
    os.chmod(folder, 0o755)
    copy = os.path.join(folder, "mha-explain")
    shutil.copy(MHA.path, copy)
    os.chmod(copy, 0o755)
    return folder, MHA.prefix + [copy]


def sticky_folder(tmp):
    """In a sticky world-writable folder (/tmp), another user's file that
    this user may not replace: status 2, the file kept, no kept link
    (.NAME.XXXXXX.old) left. Needs root, to run as two other users."""
    if os.geteuid() != 0:
        ok(True, "# SKIP sticky folder: needs root to act as other users")
        return
    top = tempfile.mkdtemp(prefix="mha-sticky-", dir="/tmp")
    program_dir, program = reachable_copy()
    try:
        os.chmod(top, 0o1777)
        target = os.path.join(top, "p.html")
        with open(target, "w") as f:
            f.write("KEEP\n")
        os.chown(target, 65533, 65533)
        os.chmod(target, 0o666)

        def other_user():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        p = subprocess.run(program + [S, "--html", target], cwd=top,
                           preexec_fn=other_user, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE,
                           env=dict(os.environ, TMPDIR=top), timeout=600)
        with open(target) as f:
            kept = f.read()
        ok(p.returncode == 2 and p.stdout == b"" and kept == "KEEP\n" and
           sorted(os.listdir(top)) == ["p.html"],
           "sticky folder, another user's file: status 2, kept, no .old "
           "link left", (p.returncode, p.stderr[:300], os.listdir(top)))
    finally:
        for n in os.listdir(top):
            os.remove(os.path.join(top, n))
        os.rmdir(top)
        shutil.rmtree(program_dir)


def limited(**limits):
    """A preexec_fn setting resource limits (soft and hard alike, as
    bash's ulimit does)."""
    def apply():
        for name, value in limits.items():
            resource.setrlimit(getattr(resource, name), (value, value))
    return apply


def messages_and_limits(tmp):
    """Text cut between characters, --lang scanned only where it is an
    option, one line for a failed run, and the limits of open files and
    of the stack."""
    top = os.path.join(tmp, "limits")
    os.mkdir(top)

    def run(args, **limits):
        return subprocess.run(MHA.command(args), cwd=top,
                              preexec_fn=limited(**limits),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=dict(os.environ, TMPDIR=top), timeout=600)

    def clean():
        for n in os.listdir(top):
            path = os.path.join(top, n)
            if os.path.isdir(path):
                for m in os.listdir(path):
                    os.remove(os.path.join(path, m))
                os.rmdir(path)
            else:
                os.remove(path)

    # a long CJK sentence: the heading cut between characters, and pango
    # given valid UTF-8 (no warning on a successful run)
    with open(os.path.join(top, "cjk.csv"), "w", encoding="utf-8") as f:
        f.write("s\n" + "\u6211\u4eec" * 70 + "\n" + "e\u0301" * 90 + "\n")
    r = run(["--input", "cjk.csv", "--column", "s", "--tokens", "chars",
             "--variant", "single", "--plot", "p.png"])
    headings = [l for l in r.stdout.split(b"\n") if l.startswith(b"===")]
    try:
        valid = all(h.decode("utf-8") for h in headings)
        accents = not any(h.decode("utf-8").endswith("e ===")
                          for h in headings)
    except UnicodeDecodeError:
        valid = accents = False
    ok(r.returncode == 0 and r.stderr == b"" and len(headings) == 2 and
       valid and accents,
       "--input: a long heading is cut between two characters (and never "
       "between a letter and its accent); no warning with --plot",
       (r.returncode, r.stderr[:300], headings))
    clean()
    # the --focus token list of an error, cut between whole tokens
    sentence = " ".join("\u5b57%d\u6211" % i for i in range(200))
    r = run([sentence, "--focus", "zzz"])
    line = r.stderr.split(b"\n")[0]
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    ok(r.returncode == 2 and text.endswith(", ...)"),
       "--focus: the list of tokens in the error is cut between tokens",
       line[-120:])
    # --lang inside another option's value is that option's value
    r = run(["--kv", "--lang", "xx", S, "--variant", "single", "--tables",
             "attn_weights"])
    ok(r.returncode == 0 and b"unknown language" not in r.stderr,
       "--kv --lang xx S: --lang is --kv's sentence, not the option",
       (r.returncode, r.stderr[:200]))
    # a failed run prints its error alone (no wrapper-width note)
    r = run(["--d-out", "2", "--heads", "2", ""])
    ok(r.returncode == 2 and r.stderr.count(b"\n") == 1,
       "--d-out 2 --heads 2 with an empty sentence: the error alone",
       r.stderr[:300])
    # more sentences than open files: each page's file is open only while
    # it is drawn
    with open(os.path.join(top, "rows.csv"), "w") as f:
        f.write("s\n" + "".join("w%d x y\n" % i for i in range(80)))
    r = run(["--input", "rows.csv", "--column", "s", "--variant", "single",
             "--plot", "p.svg"], RLIMIT_NOFILE=32)
    pages = [n for n in os.listdir(top) if n.startswith("p.sentence")]
    ok(r.returncode == 0 and len(pages) == 80,
       "--input of 80 rows with --plot under ulimit -n 32: every page",
       (r.returncode, r.stderr[:300], len(pages)))
    clean()
    # too few open files to draw at all: one clear line, status 1
    r = run([S, "--plot", "p.png"], RLIMIT_NOFILE=5)
    lines = r.stderr.decode("utf-8", "replace").splitlines()
    ok(r.returncode == 1 and len(lines) == 1 and "ulimit -n is 5" in lines[0]
       and os.listdir(top) == [],
       "--plot under ulimit -n 5: status 1, one line naming the limit",
       (r.returncode, r.stderr[:300], os.listdir(top)))
    clean()
    # a small stack (ulimit -s 64): no large buffer on it, and the
    # libraries' threads get stacks of their own size
    with open(os.path.join(top, "e.csv"), "w") as f:
        f.write("token,a,b,c\nx,1,2,3\ny,4,5,6\n")
    for args in (["--embeddings", "e.csv"],
                 [S, "--plot", "p.png", "--html", "p.html"]):
        r = run(args, RLIMIT_STACK=64 << 10)
        ok(r.returncode == 0 and r.stderr == b"",
           "ulimit -s 64: %s runs" % " ".join(args[-2:]),
           (r.returncode, r.stderr[:300]))
    clean()


def picture_module(tmp):
    """The picture libraries are loaded only by --plot (the module
    plot_load.c opens); a copy of the program without its module says it
    has no plotting, status 2, nothing left."""
    top = os.path.join(tmp, "module")
    os.mkdir(top)
    env = dict(os.environ, LD_DEBUG="libs", TMPDIR=top)
    r = subprocess.run(MHA.command([S]), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    ok(r.returncode == 0 and b"libcairo" not in r.stderr and
       b"libpango" not in r.stderr and b"libfontconfig" not in r.stderr,
       "a run without --plot loads no picture library")
    r = subprocess.run(MHA.command([S, "--plot", os.path.join(top, "p.png")]),
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    ok(r.returncode == 0 and b"libcairo" in r.stderr and
       os.path.exists(os.path.join(top, "p.png")),
       "--plot loads them", (r.returncode, r.stderr[-300:]))
    os.remove(os.path.join(top, "p.png"))
    if MHA.command([])[:-1] != [] or not os.path.isfile(sys.argv[1]):
        ok(True, "# SKIP a copy without its module: the program runs "
           "through a prefix")
        return
    alone = os.path.join(top, "mha-explain")
    shutil.copy(sys.argv[1], alone)
    r = subprocess.run([alone, S, "--plot", os.path.join(top, "p.png")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, TMPDIR=top), timeout=600)
    lines = r.stderr.decode("utf-8", "replace").splitlines()
    os.remove(alone)
    ok(r.returncode == 2 and len(lines) == 1 and "no plotting" in lines[0]
       and r.stdout == b"" and os.listdir(top) == [],
       "a copy of the program without its picture module: --plot says it "
       "has no plotting, status 2", (r.returncode, r.stderr[:300],
                                     os.listdir(top)))


def mount_tmpfs(path):
    """A 64 KiB tmpfs at path; the reason it cannot be had, or None."""
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                            path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if r.returncode != 0:
        return r.stderr.decode("utf-8", "replace").strip() or "mount failed"
    return None


def full_disk(tmp):
    """Every way out onto a full disk: status 1, one line, nothing left."""
    disk = os.path.join(tmp, "disk")
    os.mkdir(disk)
    why = mount_tmpfs(disk)
    if why is not None:
        print("# full-disk cases skipped: cannot mount a tmpfs (%s)" % why)
        return 0
    try:
        # fill it but for a little room
        with open(os.path.join(disk, "filler"), "wb") as f:
            f.write(b"\0" * (48 * 1024))
        before = sorted(os.listdir(disk))
        cases = [
            ("--csv-dir", [S, "--d-model", "64", "--d-out", "64", "--csv-dir",
                           os.path.join(disk, "out")], None, None),
            ("--plot", [S, "--plot", os.path.join(disk, "p.png")], None, None),
            ("--html", [S, "--html", os.path.join(disk, "p.html")], None,
             None),
            ("--input --csv-dir", ["--input", "bidi.csv", "--column", "s",
                                   "--d-model", "64", "--d-out", "64",
                                   "--csv-dir", os.path.join(disk, "out")],
             None, None),
            ("the spool in $TMPDIR", ["--input", "bidi.csv", "--column", "s",
                                      "--d-model", "64", "--d-out", "64",
                                      "--full"], {"TMPDIR": disk}, None),
            ("stdout", [S, "--d-model", "64", "--d-out", "64", "--full"],
             None, os.path.join(disk, "stdout.txt")),
        ]
        for name, args, env, stdout_path in cases:
            sink = open(stdout_path, "wb") if stdout_path else None
            r = MHA.run(args, b"", cwd=tmp, env=env, stdout=sink)
            if sink:
                sink.close()
                os.remove(stdout_path)
            lines = r.stderr.decode("utf-8", "replace").splitlines()
            ok(r.returncode == 1 and len(lines) == 1 and
               "No space left on device" in lines[0] and
               ("$TMPDIR" in name) == ("($TMPDIR)" in lines[0]) and
               (sink is not None or r.stdout == b"") and
               sorted(os.listdir(disk)) == before,
               "a full disk under %s: status 1, one line, nothing left" % name,
               (r.returncode, r.stderr[:300], sorted(os.listdir(disk))))
        return 1
    finally:
        subprocess.run(["umount", disk], timeout=60)


def no_inodes(tmp):
    """A tmpfs with room for a few files only: whichever file or folder
    the run cannot make (a temporary file, or a sentence folder while
    the files are being moved into place), a failed run is a write error
    (status 1) that leaves everything as it was."""
    disk = os.path.join(tmp, "inodes")
    os.mkdir(disk)
    two = os.path.join(tmp, "two_sentences.csv")
    with open(two, "w") as f:
        f.write("s\nO gato\nthe cat\n")
    args = ["--input", two, "--column", "s", "--d-model", "4", "--d-out",
            "4", "--heads", "2", "--variant", "fused", "--tables",
            "out,attn_weights", "--csv-dir", "out", "--plot", "p.png"]
    stages = set()
    for n in range(6, 17):
        r = subprocess.run(["mount", "-t", "tmpfs", "-o",
                            "size=4m,nr_inodes=%d" % n, "tmpfs", disk],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        if r.returncode != 0:
            print("# inode cases skipped: cannot mount a tmpfs (%s)" %
                  r.stderr.decode("utf-8", "replace").strip())
            return 0
        try:
            os.mkdir(os.path.join(disk, "out"))
            with open(os.path.join(disk, "out", "fused.out.csv"), "w") as f:
                f.write("old")
            with open(os.path.join(disk, "p.sentence0.png"), "w") as f:
                f.write("old picture")
            before = snapshot(disk)
            r = MHA.run(args, cwd=disk)
            lines = r.stderr.decode("utf-8", "replace").splitlines()
            if r.returncode == 0:
                good = (os.path.isdir(os.path.join(disk, "out", "sentence1"))
                        and r.stdout != b"")
            else:
                good = (r.returncode == 1 and len(lines) == 1 and
                        "No space left on device" in lines[0] and
                        r.stdout == b"" and snapshot(disk) == before)
                stages.add("place" if "cannot create" in lines[0] else
                           "write")
            ok(good, "room for %d files: %s" % (n, "every file in place"
                                               if r.returncode == 0 else
                                               "status 1, nothing changed"),
               (r.returncode, r.stderr[:300]))
        finally:
            subprocess.run(["umount", disk], timeout=60)
    ok(stages == {"place", "write"}, "the runs failed both while writing "
       "and while moving files into place", stages)
    return 1


def progress(tmp):
    """The progress line: on a terminal after a second, never on a pipe
    or with --quiet, erased at the end."""
    from ptylib import Terminal
    sentences = os.path.join(tmp, "long.csv")
    with open(sentences, "w") as f:
        # about 2 s on a fast machine: the line comes after 1 s
        f.write("s\n" + (" ".join("w%d" % j for j in range(3000)) + "\n") * 10)
    args = ["--input", sentences, "--column", "s", "--d-model", "8",
            "--d-out", "8", "--tables", "out"]
    for quiet in (False, True):
        term = Terminal(MHA.command(args + (["--quiet"] if quiet else [])),
                        stdin=None, stdout=subprocess.DEVNULL)
        status, seen = term.finish(600)
        term.close()
        if quiet:
            ok(status == 0 and seen == b"",
               "--quiet: no progress line on a terminal", seen[:200])
        else:
            ok(status == 0 and b"mha-explain: sentence " in seen and
               b" of 10" in seen and seen.endswith(b"\r\x1b[K"),
               "a long --input run shows its progress on a terminal and "
               "erases it", seen[:200])
    r = MHA.run(args)
    ok(r.returncode == 0 and r.stderr == b"",
       "no progress line when stderr is a pipe", r.stderr[:200])


def links_and_races(tmp):
    """An output name that is a symlink (to a device, or to a file) is
    refused, the link and what it points to untouched; a sentence<k>
    folder of --csv-dir that is a symlink is never written through; runs
    that make the same new --csv-dir at once all succeed."""
    top = os.path.join(tmp, "links")
    os.mkdir(top)
    with open(os.path.join(top, "mine.txt"), "w") as f:
        f.write("mine")
    os.symlink("/dev/null", os.path.join(top, "dn"))
    os.symlink("/dev/null", os.path.join(top, "dn.png"))
    os.symlink("mine.txt", os.path.join(top, "to_file"))
    os.mkdir(os.path.join(top, "userdir"))
    with open(os.path.join(top, "userdir", "fused.out.csv"), "w") as f:
        f.write("mine")
    with open(os.path.join(top, "in.csv"), "w") as f:
        f.write("s\nO gato\nsobe\n")
    os.mkdir(os.path.join(top, "d"))
    os.symlink("../mine.txt", os.path.join(top, "d", "fused.out.csv"))
    os.mkdir(os.path.join(top, "s"))
    os.symlink("../userdir", os.path.join(top, "s", "sentence0"))
    for name, args, status, fragment in [
            ("--html a symlink to a device", ["--html", "dn"], 2,
             "--html: dn is a symbolic link"),
            ("--plot a symlink to a device", ["--plot", "dn.png"], 2,
             "--plot: dn.png is a symbolic link"),
            ("--html a symlink to a file", ["--html", "to_file"], 2,
             "--html: to_file is a symbolic link"),
            ("--csv-dir with a file that is a symlink", ["--csv-dir", "d"], 2,
             "d/fused.out.csv: it is a symbolic link"),
            ("--input with a sentence0 folder that is a symlink",
             ["--input", "in.csv", "--column", "s", "--csv-dir", "s"], 2,
             "s/sentence0 is a symbolic link")]:
        before = snapshot(top)
        r = MHA.run(([] if "--input" in args else [S]) + args +
                    ["--tables", "out"], cwd=top)
        lines = r.stderr.decode("utf-8", "replace").splitlines()
        ok(r.returncode == status and len(lines) == 1 and
           fragment in lines[0] and r.stdout == b"" and
           snapshot(top) == before and os.readlink(
               os.path.join(top, "dn")) == "/dev/null",
           "%s: status %d, one line, the link and its target untouched" %
           (name, status), (r.returncode, r.stderr[:300]))
    for attempt in range(3):
        out = os.path.join(top, "race%d" % attempt, "a", "b")
        runs = [subprocess.Popen(
            MHA.command([S, "--d-model", "4", "--d-out", "4", "--heads", "2",
                         "--tables", "out", "--csv-dir", out]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(6)]
        errors = [p.communicate()[1] for p in runs]
        ok(all(p.returncode == 0 for p in runs) and
           os.listdir(out) == ["fused.out.csv"],
           "six runs making the same new --csv-dir at once all succeed "
           "(try %d)" % attempt, [e[:200] for e in errors if e])


def text_not_written(tmp):
    """The files a run replaces are kept until its text is written: a
    full standard output (status 1), a reader that stops early (SIGPIPE,
    status 141) or a signal during the copy leaves the user's files as
    they were and makes nothing new."""
    top = os.path.join(tmp, "unwritten")
    os.mkdir(top)
    long_sentence = " ".join("w%d" % i for i in range(200))  # > 64 KiB
    outputs = ["--csv-dir", "out", "--html", "p.html", "--plot", "q.png"]
    r = MHA.run([S] + outputs, cwd=top)
    assert r.returncode == 0, r.stderr
    for root, _, names in os.walk(top):
        for n in names:
            # the page stays one --html replaces: its generator line
            with open(os.path.join(root, n), "wb") as f:
                f.write(("old " + n).encode() +
                        (b"\n" + OLD_PAGE if n.endswith(".html") else b""))
    before = snapshot(top)
    with open("/dev/full", "w") as full:
        r = subprocess.run(MHA.command([S] + outputs + ["--csv-dir", "new"]),
                           cwd=top, stdout=full, stderr=subprocess.PIPE)
    ok(r.returncode == 1 and b"No space left" in r.stderr and
       snapshot(top) == before,
       "standard output full: status 1, every file as it was, nothing new",
       (r.returncode, r.stderr[:300]))
    p = subprocess.Popen(MHA.command([long_sentence] + outputs), cwd=top,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    p.wait(timeout=600)
    ok(p.returncode == -signal.SIGPIPE and snapshot(top) == before,
       "a reader that stops at once (SIGPIPE): status 141, every file as "
       "it was", p.returncode)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        p = subprocess.Popen(MHA.command([long_sentence] + outputs), cwd=top,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=default_action(sig))
        deadline = time.time() + 300
        placed = False
        while time.time() < deadline and not placed:
            with open(os.path.join(top, "p.html"), "rb") as f:
                placed = not f.read().startswith(b"old ")
            time.sleep(0.01)
        p.send_signal(sig)
        p.wait(timeout=600)
        p.stdout.close()
        p.stderr.close()
        ok(placed and p.returncode == -sig and snapshot(top) == before,
           "signal %d while the text is copied (the files in place): every "
           "file put back" % sig, (placed, p.returncode))


def wait_until(test, timeout=300):
    """Polls test() until it holds (True) or timeout seconds pass."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if test():
            return True
        time.sleep(0.01)
    return False


def overlapping(tmp):
    """Runs that overlap on one target (issue 27): two runs stopped by
    SIGPIPE while their files are in place leave the user's file, a run
    that succeeds keeps its output whatever an overlapping run that fails
    does, and a reader never finds a --csv-dir file missing while runs
    replace it."""
    top = os.path.join(tmp, "overlapping")
    os.mkdir(top)
    words = " ".join("w%d" % i for i in range(300))  # > 64 KiB of text

    def content(path):
        try:
            with open(os.path.join(top, path), "rb") as f:
                return f.read()
        except OSError:
            return None

    def start(args):
        """A run whose reader never reads: SIGPIPE once it is closed."""
        return subprocess.Popen(MHA.command(args), cwd=top,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)

    def stop(p):
        p.stdout.close()
        p.wait(timeout=600)
        return p.returncode

    for kind, args, target in [
            ("--html", ["--html", "d/f"], "d/f"),
            ("--plot", ["--plot", "d/f.png"], "d/f.png"),
            ("--csv-dir", ["--csv-dir", "d"], "d/fused.out.csv")]:
        os.makedirs(os.path.join(top, "d"), exist_ok=True)
        # the user's page: one --html replaces (its generator line)
        keep = b"KEEP\n" + (OLD_PAGE if kind == "--html" else b"")
        with open(os.path.join(top, target), "wb") as f:
            f.write(keep)
        before = snapshot(os.path.join(top, "d"))
        a = start([words] + args)
        placed = wait_until(lambda: content(target) != keep)
        b = start([words] + args)
        time.sleep(1)
        status_a = stop(a)
        time.sleep(1)
        status_b = stop(b)
        ok(placed and status_a == status_b == -signal.SIGPIPE and
           snapshot(os.path.join(top, "d")) == before,
           "%s: two overlapping runs both stopped by SIGPIPE leave the "
           "user's file" % kind,
           (placed, status_a, status_b, content(target)[:40]))
        for name in os.listdir(os.path.join(top, "d")):
            os.unlink(os.path.join(top, "d", name))

    small = [S, "--d-model", "4", "--d-out", "4", "--heads", "2"]
    for kind, args, target in [
            ("--html", ["--html", "d/f"], "d/f"),
            ("--csv-dir", ["--csv-dir", "d"], "d/fused.out.csv")]:
        keep = b"KEEP\n" + (OLD_PAGE if kind == "--html" else b"")
        with open(os.path.join(top, target), "wb") as f:
            f.write(keep)
        ref = os.path.join(top, "ref")
        os.mkdir(ref)
        r = MHA.run(small + [arg.replace("d", ref) if arg.startswith("d")
                             else arg for arg in args], cwd=top)
        assert r.returncode == 0, r.stderr
        expected = content(target.replace("d", ref, 1))
        failing_run = start([words] + args)
        placed = wait_until(lambda: content(target) != keep)
        succeeding_run = subprocess.Popen(
            MHA.command(small + args), cwd=top, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        time.sleep(1)
        status_fail = stop(failing_run)
        succeeding_run.wait(timeout=600)
        ok(placed and status_fail == -signal.SIGPIPE and
           succeeding_run.returncode == 0 and content(target) == expected,
           "%s: a run that succeeds keeps its output when an overlapping "
           "run fails" % kind,
           (placed, status_fail, succeeding_run.returncode,
            (content(target) or b"")[:40]))
        subprocess.run(["rm", "-rf", os.path.join(top, "d"), ref])
        os.mkdir(os.path.join(top, "d"))

    args = small + ["--csv-dir", "d"]
    r = MHA.run(args, cwd=top)
    assert r.returncode == 0, r.stderr
    name = os.path.join(top, "d", "fused.out.csv")
    looks = [0, 0]
    done_writing = []

    def reader():
        while not done_writing:
            looks[0] += 1
            if not os.path.exists(name):
                looks[1] += 1
    thread = threading.Thread(target=reader)
    thread.start()
    statuses = [MHA.run(args, cwd=top).returncode for _ in range(20)]
    done_writing.append(True)
    thread.join()
    ok(statuses == [0] * 20 and looks[1] == 0,
       "--csv-dir: a reader never finds a file missing while 20 runs "
       "replace it (%d looks)" % looks[0], (statuses, looks))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        files(tmp)
        failing(tmp)
        targets(tmp)
        closed_streams(tmp)
        succeeding(tmp)
        together(tmp)
        html_replaces_pages(tmp)
        links_and_races(tmp)
        text_not_written(tmp)
        overlapping(tmp)
        narrow_header(tmp)
        signals(tmp)
        crashes(tmp)
        cpu_limit(tmp)
        sticky_folder(tmp)
        messages_and_limits(tmp)
        picture_module(tmp)
        file_size_limit(tmp)
        mounted = full_disk(tmp)
        no_inodes(tmp)
        progress(tmp)
        print("# campaign: %d failing inputs, %d about outputs and the "
              "environment, 3 closed streams, 11 accepted ones, 12 runs of "
              "several kinds of files, 8 about --html over a file, "
              "6 about overlapping runs, 11 short of "
              "inodes, 7 signals, 4 crashes or SIGKILL, ulimit -t, a sticky "
              "folder, 8 about messages and limits, 3 about the picture module, "
              "3 past "
              "ulimit -f, "
              "%s" % (len(FAILING), len(TARGETS), "6 full-disk runs" if mounted else
                      "full disk skipped"))
    return done()


if __name__ == "__main__":
    sys.exit(main())
