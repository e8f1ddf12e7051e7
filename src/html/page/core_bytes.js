/* core_bytes.js: the page's WebAssembly core and catalogue as the page
 * carries them, gzip'd in base 85 script elements (src/wasm/embed_core.py),
 * made bytes again, and the WASI imports the core reaches. The editor
 * (editor.js) and "Open a model" (model_open.js, through
 * page.coreParts) load the core with them. */
(function () {
  'use strict';

  /* The bytes of base 85 text: each 5 digits 4 bytes, big-endian; a
   * last group of n + 1 digits n bytes (the missing digits the largest). */
  function base85(text) {
    /* The digits of the core's base 85 (src/wasm/embed_core.py): the
     * printable ASCII characters but < > & ' " \ ` ( and :. */
    var BASE85 = '!#$%)*+,-./0123456789;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_' +
      'abcdefghijklmnopqrstuvwxyz{|}~';
    var digit = new Uint8Array(128);
    for (var d = 0; d < 85; d++) digit[BASE85.charCodeAt(d)] = d;
    var n = text.length, rest = n % 5;
    var bytes = new Uint8Array((n - rest) / 5 * 4 + (rest > 0 ? rest - 1 : 0));
    for (var i = 0, o = 0; i < n; i += 5) {
      var v = 0;
      for (var j = 0; j < 5; j++)
        v = v * 85 + (i + j < n ? digit[text.charCodeAt(i + j)] : 84);
      for (j = 0; j < 4 && o < bytes.length; j++)
        bytes[o++] = Math.floor(v / Math.pow(256, 3 - j)) % 256;
    }
    return bytes;
  }

  /* The bytes of a gzip'd base 85 script element. */
  function unpack(id) {
    var bytes = base85(document.getElementById(id).textContent.trim());
    var stream = new Blob([bytes]).stream()
      .pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).arrayBuffer();
  }

  /* WASI, as far as the core reaches it: it writes no file and never
   * exits (its messages come back in its results). */
  function wasiImports(memory) {
    var EBADF = 8;
    return {
      wasi_snapshot_preview1: {
        fd_close: function () { return EBADF; },
        fd_seek: function () { return EBADF; },
        fd_write: function (fd, iovs, n, written) {
          new DataView(memory().buffer).setUint32(written, 0, true);
          return EBADF;
        }
      }
    };
  }

  window.mhaCoreBytes = {base85: base85, unpack: unpack,
                         wasiImports: wasiImports};
})();
