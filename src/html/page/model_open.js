/* model_open.js: "Open a model" (docs/html.md, "A model on the page").
 *
 * A reader chooses a checkpoint folder on the computer (a folder picker,
 * or the folder dropped on the box); its files are read by the browser
 * and copied once into the memory of a core of their own (the page's
 * WebAssembly core, src/wasm: io/page_files.c serves them where the program
 * reads its disk). Nothing is sent anywhere and nothing is kept in the
 * page. The typed text then runs as `mha-explain --model DIR TEXT` runs,
 * with the program's own code: every view is drawn from the data the
 * core returns (page.js, mhaPage.reload), and a folder or a text the
 * program refuses shows the program's message, in the page's language,
 * while the views keep the last run. A page written by `--model DIR`
 * names the folder it was made from.
 */
(function () {
  'use strict';

  var page = window.mhaPage;
  var runScript = document.getElementById('mha-run');
  var editor = document.getElementById('editor') ||
    document.getElementById('editor-note');
  if (!page || !runScript || !page.coreParts || !editor) return;
  var run = JSON.parse(runScript.textContent);
  if (!run.live || typeof WebAssembly !== 'object' ||
      typeof DecompressionStream !== 'function') return;
  var tr = page.tr, el = page.el;
  var app = document.getElementById('app');
  /* A wasm32 memory holds 4 GB; a file is copied whole into it, and
   * the program's sizes are 32-bit there: 2 GB is the most one file may
   * be. */
  var MAX_FILE = 2147483647;
  /* The files of a folder the program reads (model/gpt2: config.json,
   * model.safetensors, and vocab.json with merges.txt or tokenizer.json). */
  var WANTED = ['config.json', 'model.safetensors', 'vocab.json',
                'merges.txt', 'tokenizer.json', 'tokenizer_config.json',
                'model.safetensors.index.json'];
  var PICKLES = ['pytorch_model.bin', 'pytorch_model.bin.index.json'];

  var named = run.checkpoint ? run.checkpoint.replace(/\/+$/, '')
    .split('/').pop() : null;
  var box = el('details', {id: 'model-open'});
  box.appendChild(el('summary', {}, tr('Open a model')));
  box.appendChild(el('p', {'class': 'editor-hint'}, tr(
    'Choose a checkpoint folder on this computer, or drop it here ' +
    '(config.json, model.safetensors, vocab.json and merges.txt). It is ' +
    'read here; nothing is sent anywhere.')));
  /* the hint goes once a folder's model runs here (show, below) */
  var namedHint = named ? el('p', {id: 'model-open-named'}, tr(
    'This page was made from the folder {0}: choose it to run the model ' +
    'here.', named)) : null;
  if (namedHint) {
    box.open = true;
    box.appendChild(namedHint);
  }
  /* the browser's own button and its count of files speak the
   * browser's language: the input is drawn by its label, a button in
   * the page's words (page.css), and the folder chosen is named */
  var picker = el('input', {type: 'file', id: 'model-open-folder',
                            'class': 'folder-input', webkitdirectory: '',
                            multiple: ''});
  var pick = el('div', {'class': 'edit-field'});
  pick.appendChild(picker);
  pick.appendChild(el('label', {'for': 'model-open-folder',
                                'class': 'folder-button'},
                      tr('Open a model')));
  var chosen = el('span', {id: 'model-open-chosen'});
  pick.appendChild(chosen);
  box.appendChild(pick);
  var textField = el('div', {'class': 'edit-field'});
  textField.appendChild(el('label', {'for': 'model-open-text'}, tr('Text')));
  var text = el('input', {type: 'text', id: 'model-open-text', 'class': 'wide',
                          spellcheck: 'false', autocomplete: 'off'});
  text.value = run.sentence;
  textField.appendChild(text);
  box.appendChild(textField);
  /* the generation's settings (generation.js, in a generation run's
   * page), with a seed of their own */
  var GEN = typeof mhaGenerationFields === 'function' && run.generate ?
    mhaGenerationFields({el: el, tr: tr, prefix: 'model-open-', seed: true,
                         initial: run.generate, seedValue: run.seed}) : null;
  if (GEN) box.appendChild(GEN.box);
  var error = el('p', {id: 'model-open-error', role: 'alert', hidden: ''});
  var status = el('p', {id: 'model-open-status', role: 'status',
                        'aria-live': 'polite'});
  box.appendChild(error);
  box.appendChild(status);
  /* beside the editor, on its line while both are closed (page.css): the
   * views keep the window's height */
  var row = el('div', {'class': 'run-boxes'});
  editor.parentNode.insertBefore(row, editor);
  row.appendChild(editor);
  row.appendChild(box);

  var core = null, dir = null;
  /* the folder whose first run is still to come: that run reads its
   * model (and finds what is wrong with it), which its status says */
  var fresh = null;

  function loading() {
    return tr('Loading the model in {0}\u2026', fresh);
  }

  function setError(message) {
    error.textContent = message;
    error.hidden = message === '';
    if (message !== '') box.open = true;
    app.classList.toggle('stale', message !== '');
    box.setAttribute('data-state', message === '' ? 'ok' : 'error');
  }

  /* A fresh core, with the page's catalogue. */
  function loadCore() {
    var parts = page.coreParts, made = null;
    return parts.unpack('mha-core').then(function (wasm) {
      return WebAssembly.instantiate(wasm, parts.wasiImports(function () {
        return made.memory;
      }));
    }).then(function (m) {
      made = m.instance.exports;
      made._initialize();
      if (!document.getElementById('mha-messages')) return made;
      return parts.unpack('mha-messages').then(function (mo) {
        var p = made.mx_alloc(mo.byteLength);
        new Uint8Array(made.memory.buffer, p, mo.byteLength)
          .set(new Uint8Array(mo));
        made.mx_catalogue(p, mo.byteLength);
        return made;
      });
    });
  }

  function put(bytes) {
    var p = core.mx_alloc(bytes.length);
    if (!p) throw new Error('out of memory');
    new Uint8Array(core.memory.buffer, p, bytes.length).set(bytes);
    return p;
  }

  /* A run's answer on the page: the model's heads switched off in it
   * (SW, below; none without the switches) are the ones on view. */
  function show(out, t0) {
    fresh = null;
    if (out.status !== 0) {
      setError(out.text);
      status.textContent = '';
    } else {
      setError('');
      if (namedHint) namedHint.hidden = true;
      /* a --model page (named) has a note in the editor's place
       * (changedIn, html.c) on its own run: it goes while another
       * folder's run is on view */
      if (named) editor.hidden = dir !== named;
      if (SW) SW.drawing();
      else page.ablated = [];
      /* the model's run on view, not the lesson editor's (editor.js) */
      page.modelOnView = true;
      page.reload(JSON.parse(out.text));
      status.textContent = tr('Recomputed in {0} ms.',
                              Math.round(performance.now() - t0));
    }
    if (SW) SW.drawn(out.status);
    document.dispatchEvent(new CustomEvent('mha-model-ran',
                                           {detail: {status: out.status}}));
  }

  /* The pages of --model runs run the model in a worker, which reads
   * Llama-style and BERT folders too (model_runner.js); null elsewhere. */
  var runner = window.mhaModelRunner ? window.mhaModelRunner(page, {
    box: box, status: status, setError: setError, show: show,
    busy: function () {
      return fresh !== null ? loading() :
        GEN && GEN.steps() ? GEN.busy() : null;
    }
  }) : null;
  /* for tests/tools/live_timing.py: command lines of its own */
  page.modelRunner = runner;
  /* the head view's switches, where the families core runs --ablate
   * (model_switches.js, in the pages of --model runs) */
  var SW = runner && window.mhaModelSwitches ? window.mhaModelSwitches(page, {
    el: el, run: run, box: box, before: error, rerun: runSoon,
    ready: function () { return dir !== null; }
  }) : null;

  /* Runs the text over the folder in the core and draws it. */
  function runText() {
    /* a --model run's page: the options it keeps as given (mha-run's
     * fixed: --show-heads, --logit-lens, --precision, --cmap, ...) */
    var args = ['--model', dir].concat(run.checkpoint ? run.fixed : [],
                                       GEN ? GEN.args() : [],
                                       SW ? SW.args() : [],
                                       /* with --patch, --clean TEXT */
                                       [run.textAs ? '--' + run.textAs :
                                        '--', text.value]);
    if (runner && dir !== null) {
      if (SW) SW.command(args);
      return runner.run(args);
    }
    if (!core || dir === null) return;
    var t0 = performance.now();
    var bytes = new TextEncoder().encode(args.map(function (a) {
      return a + '\u0000';
    }).join(''));
    var r, out;
    try {
      var p = put(bytes);
      r = core.mx_run(p, bytes.length, 0, 0, 0);
      core.mx_free(p);
      var words = new Uint32Array(core.memory.buffer, r, 3);
      out = {status: words[0] | 0, text: new TextDecoder().decode(
        new Uint8Array(core.memory.buffer, words[1], words[2]))};
      core.mx_result_free(r);
    } catch (e) {
      /* a trap: the core's memory is not to be trusted */
      core = null;
      dir = null;
      out = {status: 1, text: tr('The page\'s core stopped ({0}); change ' +
                                 'a setting to try again.', e.message)};
    }
    show(out, t0);
  }

  /* The folder's files (File objects with their folder's path): the ones
   * the program reads are copied into a fresh core, then the text runs. */
  function open(files) {
    var folder = files.length > 0 && files[0].path.indexOf('/') > 0 ?
      files[0].path.split('/')[0] : 'MODEL';
    chosen.textContent = folder;
    /* the folder's own files (not those of a folder inside it) */
    var top = files.filter(function (f) {
      return (WANTED.indexOf(f.name) >= 0 ||
              /^model.*\.safetensors$/.test(f.name)) &&
        (f.path === f.name || f.path === folder + '/' + f.name);
    });
    /* PyTorch's pickle, which the program does not read, goes in as its
     * name alone (no bytes): the program's message says to convert it */
    files.forEach(function (f) {
      if (PICKLES.indexOf(f.name) >= 0 &&
          (f.path === f.name || f.path === folder + '/' + f.name))
        top.push({name: f.name, path: f.path, file: new Blob([])});
    });
    var large = top.filter(function (f) { return f.file.size > MAX_FILE; });
    if (large.length > 0) {
      setError(tr('{0}: {1} bytes, more than the {2} bytes the page can ' +
                  'hold', folder + '/' + large[0].name, large[0].file.size,
                  MAX_FILE));
      return Promise.resolve();
    }
    dir = null;
    fresh = folder;
    box.setAttribute('data-state', 'busy');
    if (runner)
      return runner.open(folder, top).then(function (ready) {
        dir = ready ? folder : null;
        return runText();
      });
    return loadCore().then(function (made) {
      core = made;
      var table = core.mx_alloc(12 * top.length);
      return top.reduce(function (done, f, i) {
        return done.then(function () {
          status.textContent = tr('Reading {0} ({1} of {2})\u2026', f.name,
                                  i + 1, top.length);
          return f.file.arrayBuffer();
        }).then(function (buf) {
          var path = put(new TextEncoder().encode(
            folder + '/' + f.name + '\u0000'));
          var bytes = put(new Uint8Array(buf));
          /* after the memory grew: a view of it made now */
          var at = new Uint32Array(core.memory.buffer, table + 12 * i, 3);
          at[0] = path;
          at[1] = bytes;
          at[2] = buf.byteLength;
        });
      }, Promise.resolve()).then(function () {
        core.mx_folder(table, top.length);
        dir = folder;
        runSoon();
      });
    }).catch(function (e) {
      core = null;
      setError(tr('The page\'s core stopped ({0}); change a setting to ' +
                  'try again.', e.message));
      status.textContent = '';
    });
  }

  picker.addEventListener('change', function () {
    var files = Array.prototype.map.call(picker.files, function (f) {
      return {name: f.name, path: f.webkitRelativePath || f.name, file: f};
    });
    open(files);
  });

  /* A folder dropped on the box: its entries, read as the picker gives
   * them. */
  function entries(entry, prefix, into) {
    if (entry.isFile)
      return new Promise(function (done) {
        entry.file(function (f) {
          into.push({name: f.name, path: prefix + f.name, file: f});
          done();
        }, function () { done(); });
      });
    var reader = entry.createReader();
    return new Promise(function (done) {
      reader.readEntries(function (list) {
        Promise.all(list.filter(function (e) { return e.isFile; })
          .map(function (e) {
            return entries(e, prefix + entry.name + '/', into);
          })).then(done);
      }, function () { done(); });
    });
  }
  box.addEventListener('dragover', function (e) {
    e.preventDefault();
    box.classList.add('drop');
  });
  box.addEventListener('dragleave', function () {
    box.classList.remove('drop');
  });
  box.addEventListener('drop', function (e) {
    e.preventDefault();
    box.classList.remove('drop');
    var items = Array.prototype.slice.call(e.dataTransfer.items || []);
    var into = [];
    Promise.all(items.map(function (item) {
      var entry = item.webkitGetAsEntry && item.webkitGetAsEntry();
      return entry ? entries(entry, '', into) : null;
    })).then(function () { open(into); });
  });
  /* A run that generates, or the first run of a folder, may take
   * seconds: the status says so before the page stops for it (after the
   * next painted frame). */
  function runSoon() {
    var busy = fresh !== null ? loading() : GEN && GEN.steps() ? GEN.busy() :
      null;
    if (busy === null || !core || dir === null) {
      runText();
      return;
    }
    status.textContent = busy;
    requestAnimationFrame(function () { setTimeout(runText, 0); });
  }
  text.addEventListener('change', runSoon);
  if (GEN) GEN.box.addEventListener('change', runSoon);
})();
