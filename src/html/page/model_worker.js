/* model_worker.js: the families core in a Web Worker (docs/html.md, "A
 * model on the page"), for the pages of --model runs. The page's thread
 * hands it the core (the module's bytes), the page's catalogue and the
 * folder's files (File objects, read here: nothing leaves the computer);
 * it copies each file into the core's memory, a safetensors file tensor
 * by tensor, saying which layer it is loading, then runs command lines
 * as the page asks. The page's thread stays free: a new edit while a run
 * is under way ends this worker and starts another (model_runner.js).
 *
 * Messages in: {type: 'open', wasm, mo, folder, files: [{name, file}]},
 * {type: 'run', id, args}. Out: {type: 'reading', name, i, n},
 * {type: 'layer', k, n}, {type: 'opened'}, {type: 'ran', id, status,
 * text}, {type: 'failed', text} (a trap or no memory: the worker is
 * done). Written in the words of core_imports.js, which comes before it
 * in the worker's text. */
var core = null;

function wasi(memory) {
  var EBADF = 8;
  return {
    fd_close: function () { return EBADF; },
    fd_seek: function () { return EBADF; },
    fd_write: function (fd, iovs, n, written) {
      new DataView(memory().buffer).setUint32(written, 0, true);
      return EBADF;
    }
  };
}

function put(bytes) {
  var p = core.mx_alloc(bytes.length);
  if (!p) throw new Error('out of memory');
  new Uint8Array(core.memory.buffer, p, bytes.length).set(bytes);
  return p;
}

/* The layer of a tensor's name (GPT-2's h.K., Llama's layers.K., BERT's
 * layer.K.), or null. */
function layerOf(name) {
  var m = /(?:^|\.)(?:h|layers|layer)\.(\d+)\./.exec(name);
  return m ? m[1] : null;
}

/* The byte ranges to read of a safetensors file of `size` bytes, in
 * order, each with the layer it completes: its header first, then its
 * tensors in the order of their data, then what follows them (a file the
 * core will refuse is read whole all the same). Null when its header
 * cannot be read here: the file is then read in one piece and the core
 * says what is wrong with it. */
function plan(file) {
  return file.slice(0, 8).arrayBuffer().then(function (b) {
    if (b.byteLength < 8) return null;
    var v = new DataView(b);
    var len = v.getUint32(0, true) + v.getUint32(4, true) * 4294967296;
    if (len > file.size - 8 || len > 100000000) return null;
    return file.slice(8, 8 + len).arrayBuffer().then(function (h) {
      var header = JSON.parse(new TextDecoder().decode(h));
      var start = 8 + len, ranges = [{from: 0, to: start, layer: null}];
      Object.keys(header).forEach(function (k) {
        var o = header[k];
        if (k === '__metadata__' || !o || !o.data_offsets) return;
        ranges.push({from: start + o.data_offsets[0],
                     to: start + o.data_offsets[1], layer: layerOf(k)});
      });
      ranges.sort(function (a, b) { return a.from - b.from; });
      var at = 0, out = [];
      ranges.forEach(function (r) {
        if (r.from < at || r.to < r.from || r.to > file.size) throw 0;
        if (r.from > at) out.push({from: at, to: r.from, layer: null});
        out.push(r);
        at = r.to;
      });
      if (at < file.size) out.push({from: at, to: file.size, layer: null});
      return out;
    });
  }).catch(function () { return null; });
}

/* Copies the files into the core: each file's bytes where the core will
 * find them, and the table mx_folder takes. */
function copy(folder, files) {
  var plans = [];
  return files.reduce(function (done, f, i) {
    return done.then(function () {
      return /\.safetensors$/.test(f.name) ? plan(f.file) : null;
    }).then(function (p) { plans[i] = p; });
  }, Promise.resolve()).then(function () {
    /* how many tensors each layer has, over every file */
    var left = {}, layers = 0, loaded = 0;
    plans.forEach(function (p) {
      (p || []).forEach(function (r) {
        if (r.layer === null) return;
        if (!(r.layer in left)) { left[r.layer] = 0; layers++; }
        left[r.layer]++;
      });
    });
    var table = core.mx_alloc(12 * files.length);
    return files.reduce(function (done, f, i) {
      var at = 0;
      return done.then(function () {
        postMessage({type: 'reading', name: f.name, i: i + 1,
                     n: files.length});
        if (plans[i] && layers > 0 && loaded === 0)
          postMessage({type: 'layer', k: 1, n: layers});
        at = core.mx_alloc(f.file.size > 0 ? f.file.size : 1);
        if (!at) throw new Error('out of memory');
        var ranges = plans[i] || [{from: 0, to: f.file.size, layer: null}];
        return ranges.reduce(function (read, r) {
          return read.then(function () {
            return f.file.slice(r.from, r.to).arrayBuffer();
          }).then(function (b) {
            new Uint8Array(core.memory.buffer, at + r.from, b.byteLength)
              .set(new Uint8Array(b));
            if (r.layer !== null && --left[r.layer] === 0 &&
                ++loaded < layers)
              postMessage({type: 'layer', k: loaded + 1, n: layers});
          });
        }, Promise.resolve());
      }).then(function () {
        var path = put(new TextEncoder().encode(
          folder + '/' + f.name + '\u0000'));
        var v = new Uint32Array(core.memory.buffer, table + 12 * i, 3);
        v[0] = path;
        v[1] = at;
        v[2] = f.file.size;
      });
    }, Promise.resolve()).then(function () {
      core.mx_folder(table, files.length);
    });
  });
}

function open(m) {
  var made = null;
  return WebAssembly.instantiate(m.wasm, {
    wasi_snapshot_preview1: wasi(function () { return made.memory; }),
    mha: mhaCoreImports(function () { return made.memory; })
  }).then(function (r) {
    made = r.instance.exports;
    made._initialize();
    core = made;
    if (m.mo) core.mx_catalogue(put(new Uint8Array(m.mo)), m.mo.byteLength);
    return copy(m.folder, m.files);
  }).then(function () {
    postMessage({type: 'opened'});
  });
}

function run(m) {
  var bytes = new TextEncoder().encode(m.args.map(function (a) {
    return a + '\u0000';
  }).join(''));
  var p = put(bytes);
  var r = core.mx_run(p, bytes.length, 0, 0, 0);
  core.mx_free(p);
  var w = new Uint32Array(core.memory.buffer, r, 3);
  var text = new TextDecoder().decode(
    new Uint8Array(core.memory.buffer, w[1], w[2]));
  var status = w[0] | 0;
  core.mx_result_free(r);
  postMessage({type: 'ran', id: m.id, status: status, text: text});
}

onmessage = function (e) {
  var m = e.data;
  try {
    if (m.type === 'open')
      open(m).catch(function (x) {
        postMessage({type: 'failed', text: String(x && x.message || x)});
      });
    else if (m.type === 'run')
      run(m);
  } catch (x) {
    postMessage({type: 'failed', text: String(x && x.message || x)});
  }
};
