/* core_imports.js: what the families core asks of the browser (module
 * "mha" of its imports; src/model/tokenizers/tok_regex_page.c and
 * src/base/page/utf8proc_forms.c):
 * tokenizer.json's patterns matched by the browser's RegExp with the
 * flags "gu", Unicode's normal forms and the upper case, as the
 * reference, @huggingface/tokenizers, has them. memory() is the core's
 * memory, read afresh at each call (it moves when it grows).
 *
 * The pages of --model runs hold it (page_core_families), and so does
 * their worker (model_worker.js); node's tests load the same file. */
function mhaCoreImports(memory) {
  'use strict';
  var FORMS = ['NFC', 'NFKC', 'NFD', 'NFKD'];
  var decoder = new TextDecoder('utf-8', {fatal: true});
  var encoder = new TextEncoder();
  var compiled = {};

  function bytes(at, n) {
    return new Uint8Array(memory().buffer, at, n);
  }

  /* The pattern as a RegExp with the flags "gu"; PCRE2's \x{...} is
   * JavaScript's \u{...}; a literal one escaped; null when the browser
   * cannot compile it. */
  function regex(source, literal) {
    var key = (literal ? 'L' : 'R') + source;
    if (!(key in compiled)) {
      var text = literal ? source.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&') :
        source.replace(/\\(x\{|.)/g, function (all, e) {
          return e === 'x{' ? '\\u{' : all;
        });
      try {
        compiled[key] = new RegExp(text, 'gu');
      } catch (e) {
        compiled[key] = null;
      }
    }
    return compiled[key];
  }

  return {
    regex_find: function (pattern, plen, literal, text, n, from, match) {
      var re = regex(decoder.decode(bytes(pattern, plen).slice()), literal);
      if (re === null) return -1;
      var b = bytes(text, n).slice();
      var s = decoder.decode(b);
      /* the byte of each UTF-16 index, and the index of each byte */
      var byteAt = new Uint32Array(s.length + 1), indexAt = new Int32Array(n + 1);
      for (var i = 0, at = 0; i < s.length; i++) {
        byteAt[i] = at;
        indexAt[at] = i;
        var c = s.charCodeAt(i);
        if (c >= 0xd800 && c < 0xdc00) {
          byteAt[++i] = at;
          at += 4;
        } else {
          at += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
      }
      byteAt[s.length] = n;
      indexAt[n] = s.length;
      re.lastIndex = indexAt[from];
      var m = re.exec(s);
      if (m === null) return 0;
      var out = new Uint32Array(memory().buffer, match, 2);
      out[0] = byteAt[m.index];
      out[1] = byteAt[m.index + m[0].length];
      return 1;
    },
    normalize: function (form, text, n, out, cap) {
      var s;
      try {
        s = decoder.decode(bytes(text, n).slice());
      } catch (e) {
        return -1;
      }
      var b = encoder.encode(s.normalize(FORMS[form]));
      if (b.length <= cap) bytes(out, b.length).set(b);
      return b.length;
    },
    toupper: function (c) {
      if (c < 0 || c > 0x10ffff || (c >= 0xd800 && c < 0xe000)) return c;
      var u = String.fromCodePoint(c).toUpperCase();
      return u.codePointAt(0) === undefined ||
        u.length !== String.fromCodePoint(u.codePointAt(0)).length ? c :
        u.codePointAt(0);
    }
  };
}
