/* floattext.js: a float32 written as mha-explain's CSV writes it
 * (src/numerics/floatfmt.h): the first of printf's "%.1g", "%.2g", ... "%.9g"
 * that reads back (as a double, then rounded to float32) as the same
 * float, whole numbers below 1e9 as integers ("12", "-0"); "nan",
 * "inf", "-inf". x is the float's value, bits its 32
 * bits (for the sign of zero and the exact test of a tie).
 *
 * toExponential rounds a tie (a value exactly halfway between two
 * p-digit decimals) away from zero where printf rounds it to the even
 * digit; the two differ only there, so a tie, tested exactly with
 * BigInt, takes the even digit. tests/cli/html_browser_test.py compares this
 * function with the program's float_text on edge cases, ties and random
 * bit patterns. */
function mhaFloatText(x, bits) {
  'use strict';
  if (x !== x) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  var a = Math.abs(x), sign = (bits >>> 31) ? '-' : '';
  /* whole numbers below 1e9 (ids, zeros) as printf's "%.0f" */
  if (a < 1e9 && a === Math.trunc(a)) return sign + a.toFixed(0);

  /* 2 a 10^s is an odd integer: a lies halfway between two decimals of
   * unit 10^-s */
  function tie(s) {
    var e = (bits >>> 23) & 255, f = bits & 0x7fffff;
    var m = BigInt(e === 0 ? f : f + 0x800000), k = e === 0 ? -149 : e - 150;
    var num = 2n * m, den = 1n;
    if (k >= 0) num *= 2n ** BigInt(k); else den *= 2n ** BigInt(-k);
    if (s >= 0) num *= 10n ** BigInt(s); else den *= 10n ** BigInt(-s);
    return num % den === 0n && (num / den) % 2n === 1n;
  }

  var e0 = Number(a.toExponential(16).split('e')[1]);
  for (var p = 1; p <= 9; p++) {
    var parts = a.toExponential(p - 1).split('e');
    var digits = parts[0].replace('.', ''), exp = Number(parts[1]);
    var last = digits.charCodeAt(p - 1) - 48;
    if (last % 2 === 1 && a.toExponential(p).split('e')[0].slice(-1) === '5'
        && tie(p - 1 - e0))
      digits = digits.slice(0, p - 1) + String(last - 1);
    var text;
    if (exp < -4 || exp >= p) {
      var rest = digits.slice(1).replace(/0+$/, '');
      text = digits[0] + (rest ? '.' + rest : '') + 'e' +
             (exp < 0 ? '-' : '+') + (Math.abs(exp) < 10 ? '0' : '') +
             Math.abs(exp);
    } else {
      var whole = exp >= 0 ? digits.slice(0, exp + 1) : '0';
      var frac = (exp >= 0 ? digits.slice(exp + 1)
                           : '0'.repeat(-exp - 1) + digits).replace(/0+$/, '');
      text = whole + (frac ? '.' + frac : '');
    }
    if (Math.fround(Number(text)) === a) return sign + text;
  }
  return sign + String(a); /* not reached: nine digits always read back */
}
