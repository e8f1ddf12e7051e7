#!/usr/bin/python3
"""How PyTorch and numpy turn decimal text into float32, for the edge
cases of the CSV readers: tiny values (subnormals, underflow to 0), huge
ones (float32's largest, the rounding midpoint above it, past double's
range), signed zeros, many digits (the double-rounding cases), the forms
Python's float() accepts and the program refuses, and decimal-comma text.

Run with the Python that has torch (Debian's python3-torch):

    /usr/bin/python3 tests/reference/make_csv_numbers.py \
        > tests/reference/csv_numbers.json

Each case records:
  text           the cell, as a CSV file holds it
  decimal_comma  whether it is read with --decimal-comma
  python         float(text) as repr, or null when float() refuses it
                 (with --decimal-comma: float() of the text with its one
                 comma made a point)
  torch          the bits of torch.tensor(float(text)) (float32), as
                 8 hex digits, or null
  numpy          the bits of numpy.float32(text), or null
  expect         "same": the program reads it as PyTorch does (bits equal
                 to "torch"); otherwise the kind of error the program
                 gives, which docs/cli.md lists: "empty", "too large"
                 (PyTorch would store inf), "not a number" (text float()
                 takes but the CSV syntax leaves out: nan, inf,
                 underscores, digits of other scripts; or text neither
                 takes)

tests/cli/csv_numbers_test.py checks the program against the file; it needs
neither torch nor numpy.
"""
import json
import math
import re
import struct
import sys

import numpy
import torch

# float32's largest value, and the midpoint between it and 2^128, at and
# above which the nearest float32 is infinity
FLT_MAX = "3.4028234663852886e38"
MIDPOINT = "340282356779733661637539395458142568448"

TEXTS = [
    # zeros and signs
    "0", "-0", "+0", "0.0", "-0.0", "+0.0", "0e0", "-0e5", "00000", ".0",
    "0.", "-.0",
    # ordinary values and forms
    "1", "-1", "+1", "0.1", "-0.25", ".5", "5.", "-.5", "+.5", "1e2",
    "1E2", "1e+2", "1e-2", "1e0001", "00001.5", "123456789",
    "0.30000001192092896", "3.14159265358979323846264338327950288",
    "16777216", "16777217", "16777218", "16777219", "-16777217",
    # double rounding: the decimal to the nearest double, then to float32
    # (1 + 2^-24 is the midpoint between 1 and the next float32)
    "1.000000059604644775390625",
    "1.00000005960464477539062500000000000001",
    "1.0000000596046448",
    "1.00000005960464478",
    "0.1000000000000000055511151231257827021181583404541015625",
    # tiny: subnormals and underflow
    "1.17549435e-38", "1.1754942e-38", "1.1754943508222875e-38",
    "1.401298464324817e-45", "1.4e-45", "1e-45", "-1e-45", "7.1e-46",
    "7.006492321624086e-46", "7.006492321624085e-46", "7e-46", "-7e-46",
    "1e-46", "1e-50", "-1e-50", "1e-320", "4.9e-324", "1e-400", "-1e-400",
    "0." + "0" * 200 + "1", "-0." + "0" * 200 + "1",
    "0." + "0" * 44 + "1", "0." + "0" * 45 + "1",
    # huge: float32's range and past it
    FLT_MAX, "3.4028235e38", "3.40282350e+38", "-3.4028235e38",
    "340282346638528859811704183484516925440",
    "340282356779733661637539395458142568447",
    MIDPOINT, "-" + MIDPOINT, "3.4028236e38", "3.5e38", "1e39", "-1e39",
    "1" + "0" * 120, "1e308", "1.7976931348623157e308", "1e309", "-1e309",
    "1" + "0" * 400,
    # many digits
    "0." + "3" * 300, "1" * 50, "-" + "9" * 39, "9" * 38,
    "1." + "0" * 500 + "1",
    # whitespace float() strips
    " 1", "1 ", "\t-2.5\t", " \t 3 ", "\u00a01.5", "1.5\u3000",
    "\u20071", "\x1f2", "2\x1c", "\x0b3", "\x853", "\r\n4",
    # what float() takes and the CSV syntax leaves out
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "infinity", "1_000",
    "1_0.5", "\u0661", "\uff14\uff12", "\u0967.5",
    # what neither takes
    "", " ", "\t", "1e", "e5", ".", "-", "+", "1.2.3", "1 5", "1d5",
    "1.5f", "0x1p3", "0x10", "--1", "+-1", "1e5.5", "1,5", "1e--5", "\u2212" "1",
    "1\u200b",
]

# decimal-comma text: these, read with --decimal-comma, are the
# decimal-point cases with the comma
COMMA_TEXTS = [
    "0,5", "-0,25", ",5", "5,", "1,5e2", "1,000000059604644775390625",
    "1,00000005960464477539062500000000000001", "1,4e-45", "7e-46",
    "0," + "0" * 200 + "1", "3,4028235e38", "3,4028236e38", "-0,0",
    " 1,5 ", "1.5", "1,2,3", "1,5,", "nan", "",
]


def bits(x):
    return "%08x" % struct.unpack("<I", struct.pack("<f", x))[0]


def as_python(text, decimal_comma):
    """The text float() is given: with --decimal-comma, its one comma
    made a point (None when it has a point or several commas)."""
    if not decimal_comma:
        return text
    if text.count(",") > 1 or "." in text:
        return None
    return text.replace(",", ".")


def python_float(text, decimal_comma):
    text = as_python(text, decimal_comma)
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def float_strip(text):
    """text without the whitespace float() ignores around a number: of
    ASCII, space and \\t \\n \\v \\f \\r (not 0x1c-0x1f, which
    str.isspace() names); beyond ASCII, what str.isspace() names."""
    def space(c):
        return c in " \t\n\v\f\r" or (ord(c) >= 0x80 and c.isspace())
    start, end = 0, len(text)
    while start < end and space(text[start]):
        start += 1
    while end > start and space(text[end - 1]):
        end -= 1
    return text[start:end]


# The CSV syntax (docs/cli.md): digits, one separator, an exponent, ASCII
# digits only, whitespace (str.isspace) around it.
SYNTAX = r"[+-]?([0-9]+(%s[0-9]*)?|%s[0-9]+)([eE][+-]?[0-9]+)?"


def expect(text, decimal_comma, torch_value):
    sep = "," if decimal_comma else r"\."
    core = float_strip(text)
    if core == "":
        return "empty"
    if not re.fullmatch(SYNTAX % (sep, sep), core, re.ASCII):
        return "not a number"
    if torch_value is None or not math.isfinite(torch_value):
        return "too large"
    return "same"


def case(text, decimal_comma):
    value = python_float(text, decimal_comma)
    t = None
    if value is not None:
        t = torch.tensor(value, dtype=torch.float32)
        assert t.dtype == torch.float32
    n_bits = None
    try:
        if as_python(text, decimal_comma) is None:
            raise ValueError("not a decimal-comma number")
        with numpy.errstate(over="ignore"):
            n = numpy.float32(as_python(text, decimal_comma))
        n_bits = bits(float(n)) if numpy.isfinite(n) else (
            "nan" if numpy.isnan(n) else "inf")
    except (ValueError, OverflowError, TypeError):
        pass
    torch_bits = None
    if t is not None:
        f = float(t)
        torch_bits = bits(f) if math.isfinite(f) else (
            "nan" if math.isnan(f) else "inf")
    return {
        "text": text,
        "decimal_comma": decimal_comma,
        "python": repr(value) if value is not None else None,
        "torch": torch_bits,
        "numpy": n_bits,
        "expect": expect(text, decimal_comma,
                         float(t) if t is not None else None),
    }


def main():
    cases = [case(t, False) for t in TEXTS] + \
        [case(t, True) for t in COMMA_TEXTS]
    json.dump({"torch": torch.__version__, "numpy": numpy.__version__,
               "cases": cases}, sys.stdout, indent=1, ensure_ascii=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
