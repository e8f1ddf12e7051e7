/* editor_core.js: the live page's editor (editor.js): the page's
 * WebAssembly core, loaded from <script id="mha-core">, and the calls
 * that run a command line in it (mx_run) and cut a sentence into the
 * carried model's words (mx_words). */

/* ---- the core ---- */

var core = null;
var ready = false; /* a core is loaded and may run */
var model = run.model; /* the trained model the page carries, or null */
var modelBytes = null, modelAt = 0; /* its bytes, in the core's memory */
var encoder = new TextEncoder(), decoder = new TextDecoder();

function putBytes(bytes) {
  var p = core.mx_alloc(bytes.length);
  if (!p) return 0;
  new Uint8Array(core.memory.buffer, p, bytes.length).set(bytes);
  return p;
}

/* Runs mha-explain with args in the core: {status, text} (status 0:
 * text is the page's data; otherwise the program's message). */
function runCore(args) {
  var bytes = encoder.encode(args.map(function (a) {
    return a + '\u0000';
  }).join(''));
  var p = putBytes(bytes);
  var r = p ? core.mx_run(p, bytes.length, 0, modelAt,
                          modelBytes ? modelBytes.length : 0) : 0;
  if (p) core.mx_free(p);
  if (!r) return {status: 2, text: 'out of memory'};
  var words = new Uint32Array(core.memory.buffer, r, 3);
  var out = {
    status: words[0] | 0,
    text: decoder.decode(new Uint8Array(core.memory.buffer, words[1],
                                        words[2]))
  };
  core.mx_result_free(r);
  return out;
}

/* The words of a sentence as the carried model reads them (core.h,
 * mx_words): [{word, known}], or null when the core cannot say. */
function wordsCore(sentence) {
  var bytes = encoder.encode(sentence);
  var p = putBytes(bytes);
  var r = p ? core.mx_words(p, bytes.length, modelAt,
                            modelBytes ? modelBytes.length : 0) : 0;
  if (p) core.mx_free(p);
  if (!r) return null;
  var words = new Uint32Array(core.memory.buffer, r, 3);
  var status = words[0] | 0;
  var text = decoder.decode(new Uint8Array(core.memory.buffer, words[1],
                                           words[2]));
  core.mx_result_free(r);
  return status === 0 ? JSON.parse(text) : null;
}

function loadCore() {
  var memory = function () { return core.memory; };
  return unpack('mha-core').then(function (wasm) {
    return WebAssembly.instantiate(wasm, wasiImports(memory));
  }).then(function (made) {
    core = made.instance.exports;
    core._initialize();
    /* the model, in the core's memory for as long as the core lives */
    modelAt = 0;
    if (model) {
      if (!modelBytes) {
        var bin = atob(document.getElementById('mha-model')
                       .textContent.trim());
        modelBytes = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++)
          modelBytes[i] = bin.charCodeAt(i);
      }
      modelAt = putBytes(modelBytes);
    }
    if (!document.getElementById('mha-messages')) return null;
    return unpack('mha-messages').then(function (mo) {
      var p = putBytes(new Uint8Array(mo));
      if (p) core.mx_catalogue(p, mo.byteLength);
    });
  });
}
