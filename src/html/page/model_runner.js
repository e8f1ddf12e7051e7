/* model_runner.js: the page's side of model_worker.js, for the pages of
 * --model runs (they carry the families core and the worker's text,
 * <script type="text/plain" id="mha-worker">). "Open a model"
 * (model_open.js) hands it the folder's files and the command lines to
 * run; the core runs in a Web Worker, so the page answers while it
 * loads and runs. A command line asked for while another is still
 * running ends that run: the worker is ended, a new one loads the same
 * files again, and runs the newest command line (the one before is
 * answered {cancelled: true}).
 *
 * mhaModelRunner(page, ui) is null where the page cannot make a worker;
 * ui is "Open a model"'s box, status line, setError(message) and
 * show(answer, t0), which draws a run's answer. */
window.mhaModelRunner = function (page, ui) {
  'use strict';
  var source = document.getElementById('mha-worker');
  if (!source || typeof Worker !== 'function' || !page.coreParts) return null;
  var tr = page.tr;
  ui.box.querySelector('.editor-hint').textContent = tr(
    'Choose a checkpoint folder on this computer, or drop it here ' +
    '(config.json, its .safetensors files, and tokenizer.json or ' +
    'vocab.json and merges.txt). It is read here; nothing is sent ' +
    'anywhere.');
  function stopped(text) {
    return tr('The page\'s core stopped ({0}); change a setting to try ' +
              'again.', text);
  }
  function progressLine(m) {
    ui.status.textContent = m.type === 'layer' ?
      tr('Loading layer {0} of {1}\u2026', m.k, m.n) :
      tr('Reading {0} ({1} of {2})\u2026', m.name, m.i, m.n);
  }
  var url = URL.createObjectURL(new Blob([source.textContent],
                                         {type: 'text/javascript'}));
  var worker = null, folder = null, files = null;
  var opened = null;       /* a promise: the worker holds the folder */
  var waiting = null;      /* the run under way: {id, done} */
  var count = 0;
  var broken = false;      /* the worker stopped: the next run makes one */

  function parts() {
    var p = page.coreParts;
    return Promise.all([
      p.unpack('mha-core'),
      document.getElementById('mha-messages') ?
        p.unpack('mha-messages') : null]);
  }

  /* A new worker reading the folder; progress(message) on the way. */
  function start() {
    if (worker) worker.terminate();
    broken = false;
    var w = worker = new Worker(url);
    opened = parts().then(function (got) {
      return new Promise(function (done, fail) {
        /* a trap or no memory: the run under way gets the message,
         * and the next run starts a new worker */
        function failed(text) {
          broken = true;
          fail(new Error(text));
          if (waiting) {
            var d = waiting.done;
            waiting = null;
            d({failed: text});
          }
        }
        w.onmessage = function (e) {
          var m = e.data;
          if (m.type === 'opened') done();
          else if (m.type === 'failed') failed(m.text);
          else if (m.type === 'ran' && waiting && waiting.id === m.id) {
            var d = waiting.done;
            waiting = null;
            d({status: m.status, text: m.text});
          } else {
            progressLine(m);
          }
        };
        w.onerror = function (e) {
          e.preventDefault();
          failed(e.message || 'worker');
        };
        w.postMessage({type: 'open', wasm: got[0], mo: got[1],
                       folder: folder, files: files}, [got[0]]);
      });
    });
    return opened;
  }

  /* args run in the worker: {status, text}, or {cancelled: true}
   * when a newer run came first. */
  function run(args) {
    if (waiting) {
      /* the run under way is ended with its worker */
      waiting.done({cancelled: true});
      waiting = null;
      start();
    } else if (broken) {
      start();
    }
    var id = ++count;
    return opened.then(function () {
      if (id !== count) return {cancelled: true};
      return new Promise(function (done) {
        waiting = {id: id, done: done};
        worker.postMessage({type: 'run', id: id, args: args});
      });
    });
  }

  return {
    /* The folder's files ([{name, file}]) read into a fresh worker:
     * true once it holds them, false (the message shown) if it stopped. */
    open: function (name, list) {
      folder = name;
      files = list;
      if (waiting) {
        waiting.done({cancelled: true});
        waiting = null;
      }
      return start().then(function () { return true; }, function (e) {
        ui.setError(stopped(e.message));
        ui.status.textContent = '';
        return false;
      });
    },
    /* The text's command line run in the worker and its answer drawn;
     * the page answers meanwhile, and a newer text ends this run. */
    run: function (args) {
      var t0 = performance.now();
      ui.box.setAttribute('data-state', 'busy');
      /* a run that generates says so (the settings' busy text) */
      ui.status.textContent = (ui.busy && ui.busy()) ||
        tr('Running the model\u2026');
      return run(args).then(function (out) {
        if (out.cancelled) return;
        ui.show(out.failed === undefined ? out :
                {status: 1, text: stopped(out.failed)}, t0);
      }, function (e) {
        ui.show({status: 1, text: stopped(e.message)}, t0);
      });
    }
  };
};
