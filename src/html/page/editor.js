/* editor.js: the live page's editor (docs/html.md, "The live page").
 *
 * The page carries the program's core compiled to WebAssembly
 * (<script id="mha-core">, src/wasm) and the command line of its run
 * (<script id="mha-run">). The editor shows that command line's sentence
 * and settings; any change builds the new command line, the core runs it
 * (the program's own option checks, model and page writer) and every view
 * is drawn again from the data it returns (page.js, mhaPage.reload). A
 * command line the program refuses shows the program's message, in the
 * page's language (the core speaks the catalogue of <script
 * id="mha-messages">). The URL's fragment holds the settings, so a link
 * or a bookmark opens the same run.
 *
 * The page of a trained model (a run trained on a corpus, or read with
 * --weights) carries the model (<script id="mha-model">, html_model.c):
 * its editor edits the sentence only, runs it over that model as
 * `--weights DIR` runs it (the core reads the model as the folder), and
 * lists the words the model knows. A model trained on a corpus carries
 * its sentences too: the class keeps training it on them (`--weights DIR
 * --train K --corpus FILE`, the core reading the carried sentences as
 * the file's), and the sentence field marks the words the model does not
 * know, as the program refuses them.
 */
(function () {
  'use strict';

  var page = window.mhaPage;
  var runScript = document.getElementById('mha-run');
  if (!page || !runScript) return;
  /* the core's bytes and its WASI imports (core_bytes.js), also for
   * model_open.js's core of its own */
  var unpack = window.mhaCoreBytes.unpack;
  var wasiImports = window.mhaCoreBytes.wasiImports;
  page.coreParts = {unpack: unpack, wasiImports: wasiImports};
  var run = JSON.parse(runScript.textContent);
  var tr = page.tr;
  var app = document.getElementById('app');
  /* --ablate's heads ("L.H"), which the head and model views mark as
   * switched off (head_view.js); all-heads marks none; a --model page's
   * too (its switches: model_switches.js) */
  function headList(text) {
    return !text || text === 'all-heads' ? [] :
      text.split(',').filter(function (w) { return w !== ''; });
  }
  page.ablated = run.model ? [] : headList(run.ablate);

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      e.setAttribute(k, attrs[k]);
    });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* The editor, above the views: a disclosure that opens on a click (or
   * Enter), closed at the start (a link's settings are run, the views
   * keep the screen; it opens on a refused run); a note
   * instead when the page cannot recompute. */
  var box = el('details', {id: 'editor'});
  var summary = el('summary', {}, tr('Edit the run'));
  box.appendChild(summary);
  app.parentNode.insertBefore(box, app);

  function note(text) {
    var p = el('p', {'class': 'editor-note', id: 'editor-note'}, text);
    box.parentNode.replaceChild(p, box);
  }

  /* The digits of the core's base 85 (src/wasm/embed_core.py): the
   * printable ASCII characters but < > & ' " \ ` ( and :. Set before
   * the page may stop here: model_open.js unpacks its core with them on
   * a page its editor does not edit. */
  var BASE85 = '!#$%)*+,-./0123456789;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_' +
    'abcdefghijklmnopqrstuvwxyz{|}~';

  if (!run.live) {
    note(tr('This page cannot recompute: the program that wrote it was ' +
            'built without its WebAssembly core. Run mha-explain again to ' +
            'change the run.'));
    return;
  }
  if (!run.editable && run.checkpoint) {
    /* a --model run: its folder is opened, and the run changed, in
     * "Open a model" (model_open.js, model_switches.js), which says
     * what it changes (mha-run's changedIn, html.c) */
    note(run.changedIn);
    return;
  }
  if (!run.editable) {
    note(tr('This run cannot be edited on the page (it reads files, or ' +
            'uses --draw or --tables).'));
    return;
  }
  if (typeof WebAssembly !== 'object' ||
      typeof DecompressionStream !== 'function') {
    note(tr('This browser cannot run the page\'s WebAssembly core; the ' +
            'page shows the run it was written with.'));
    return;
  }

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

  /* ---- the settings ---- */

  /* The variants the editor offers: the program's rows, in run order (as
   * run.variantStacks, those --layers stacks, and run.defaults). */
  var VARIANTS = run.variantChoices;

  /* The settings as the URL fragment holds them, and back. */
  function toFragment(s) {
    var q = new URLSearchParams();
    q.set('sentence', s.sentence);
    if (s.kv !== null) q.set('kv', s.kv);
    q.set('seed', s.seed);
    q.set('d-model', s.dModel);
    q.set('d-out', s.dOut);
    q.set('heads', s.heads);
    q.set('variant', s.variants.join(','));
    q.set('causal', s.causal ? 'on' : 'off');
    q.set('scale', s.scale ? 'on' : 'off');
    q.set('qkv-bias', s.qkvBias ? 'on' : 'off');
    q.set('tokens', s.tokens);
    q.set('train', s.train);
    if (s.lr !== '') q.set('lr', s.lr);
    q.set('optimizer', s.optimizer);
    q.set('grad', s.grad ? 'on' : 'off');
    q.set('positions', s.positions ? 'on' : 'off');
    if (s.layers !== '') q.set('layers', s.layers);
    if (s.ablate.length > 0) q.set('ablate', s.ablate.join(','));
    q.set('ablate-mode', s.ablateMode);
    /* the presentation mode (look.js) stays on in the link */
    if (document.documentElement.classList.contains('present'))
      q.set('present', '');
    return q.toString();
  }

  function fromFragment(text, s) {
    var q = new URLSearchParams(text);
    if (!q.has('sentence')) return null;
    var t = JSON.parse(JSON.stringify(s));
    t.sentence = q.get('sentence');
    t.kv = q.has('kv') ? q.get('kv') : null;
    if (q.has('seed')) t.seed = q.get('seed');
    if (q.has('d-model')) t.dModel = q.get('d-model');
    if (q.has('d-out')) t.dOut = q.get('d-out');
    if (q.has('heads')) t.heads = q.get('heads');
    if (q.has('variant')) t.variants = q.get('variant').split(',');
    if (q.has('causal')) t.causal = q.get('causal') !== 'off';
    if (q.has('scale')) t.scale = q.get('scale') !== 'off';
    if (q.has('qkv-bias')) t.qkvBias = q.get('qkv-bias') === 'on';
    if (q.has('tokens')) t.tokens = q.get('tokens');
    if (q.has('train')) t.train = q.get('train');
    t.lr = q.has('lr') ? q.get('lr') : '';
    if (q.has('optimizer')) t.optimizer = q.get('optimizer');
    if (q.has('grad')) t.grad = q.get('grad') === 'on';
    if (q.has('positions')) t.positions = q.get('positions') === 'on';
    t.layers = q.has('layers') ? q.get('layers') : '';
    t.ablate = headList(q.get('ablate'));
    if (q.has('ablate-mode')) t.ablateMode = q.get('ablate-mode');
    return t;
  }

  /* Whether settings s train (--train N: steps given, and not 0), and
   * run a variant --layers N stacks (its row says so: the block). */
  function trains(s) {
    return (!model || !!model.corpus) && s.train !== '' && s.train !== '0';
  }

  function stacks(s) {
    return s.variants.some(function (v) {
      return run.variantStacks.indexOf(v) >= 0;
    });
  }

  /* Whether settings s switch heads off in the modules' own pass
   * (--ablate L.H on an untrained lesson run): the head view's switches
   * (head_view.js) add and take away heads. */
  function ablates(s) {
    return !model && !run.checkpoint && !trains(s) && s.ablate.length > 0;
  }

  /* The folder of the model on the command line. */
  var MODEL_DIR = model && model.dir !== null ? model.dir : 'MODEL';

  /* The command line of settings s, after the program's name. */
  function argsOf(s) {
    var gen = GEN ? GEN.args() : [];
    /* a trained model's page: the sentence over the model, as --weights
     * runs it, with the options the run kept */
    if (model)
      return ['--weights', MODEL_DIR].concat(keepTraining(s), run.fixed, gen,
                                             ['--', s.sentence]);
    var a = ['--seed', String(s.seed), '--d-model', String(s.dModel),
             '--d-out', String(s.dOut), '--heads', String(s.heads),
             '--variant', s.variants.join(','), '--tokens', s.tokens];
    if (!s.causal) a.push('--no-causal');
    if (!s.scale) a.push('--no-scale');
    if (s.qkvBias) a.push('--qkv-bias');
    if (s.kv !== null) a.push('--kv', s.kv);
    if (s.positions) a.push('--positions');
    if (s.layers !== '' && stacks(s)) a.push('--layers', s.layers);
    if (ablates(s)) {
      a.push('--ablate', s.ablate.join(','));
      if (s.ablateMode !== run.defaults['ablate-mode'])
        a.push('--ablate-mode', s.ablateMode);
    }
    if (trains(s)) {
      a.push('--train', s.train, '--optimizer', s.optimizer);
      if (s.lr !== '') a.push('--lr', s.lr);
      if (s.grad) a.push('--grad');
      // the class's order of projections: the run's, kept
      if (run.qkvOrder !== run.defaults['qkv-order'])
        a.push('--qkv-order', run.qkvOrder);
    }
    return a.concat(run.fixed, gen, ['--', s.sentence]);
  }

  /* A trained model's page with its corpus: the further training on it,
   * with the run's other training options (none when s trains not). */
  function keepTraining(s) {
    if (!trains(s)) return [];
    var a = ['--train', s.train, '--corpus', model.corpus.file, '--column',
             model.corpus.column, '--optimizer', s.optimizer];
    if (s.lr !== '') a.push('--lr', s.lr);
    if (s.grad) a.push('--grad');
    if (run.qkvOrder !== run.defaults['qkv-order'])
      a.push('--qkv-order', run.qkvOrder);
    if (run.seed !== run.defaults.seed) a.push('--seed', run.seed);
    return a;
  }

  /* The command line as a shell would take it. */
  function shellWord(w) {
    return /^[A-Za-z0-9_.,=:+-]+$/.test(w) ? w :
      '\'' + w.split('\'').join('\'\\\'\'') + '\'';
  }

  function commandOf(s) {
    var a = argsOf(s);
    var sentence = a.pop();
    a.pop(); /* the -- before it */
    /* a sentence that looks like an option goes after -- */
    var words = sentence.charAt(0) === '-' ?
      ['mha-explain'].concat(a, ['--', sentence]) :
      ['mha-explain', sentence].concat(a);
    return words.map(shellWord).join(' ');
  }

  /* ---- the form ---- */

  var form = el('form', {id: 'editor-form', novalidate: ''});
  var fields = {};

  function field(name, label, attrs) {
    var id = 'edit-' + name;
    var wrap = el('div', {'class': 'edit-field edit-' + name});
    wrap.appendChild(el('label', {'for': id}, label));
    attrs.id = id;
    attrs['data-edit'] = name;
    var input = el('input', attrs);
    wrap.appendChild(input);
    fields[name] = input;
    return wrap;
  }

  function check(name, label) {
    var id = 'edit-' + name;
    var wrap = el('div', {'class': 'edit-check'});
    var input = el('input', {type: 'checkbox', id: id, 'data-edit': name});
    wrap.appendChild(input);
    wrap.appendChild(el('label', {'for': id}, label));
    fields[name] = input;
    return wrap;
  }

  /* The seed and the sizes of the module, in a row. */
  function numberFields() {
    var numbers = el('div', {'class': 'edit-row'});
    numbers.appendChild(field('seed', tr('Seed (--seed)'),
      {type: 'text', inputmode: 'numeric', size: '8', autocomplete: 'off'}));
    numbers.appendChild(field('d-model',
      tr('Width of the embeddings (--d-model)'),
      {type: 'number', min: '1', step: '1'}));
    numbers.appendChild(field('d-out', tr('Width of the output (--d-out)'),
      {type: 'number', min: '1', step: '1'}));
    numbers.appendChild(field('heads', tr('Number of heads (--heads)'),
      {type: 'number', min: '1', step: '1'}));
    return numbers;
  }

  /* One box per variant the run's rows list, and --layers. */
  function variantFields() {
    var variants = el('fieldset', {'class': 'edit-variants'});
    variants.appendChild(el('legend', {}, tr('Variants (--variant)')));
    VARIANTS.forEach(function (v) {
      variants.appendChild(check('variant-' + v, v));
      fields['variant-' + v].setAttribute('data-edit', 'variant');
      fields['variant-' + v].value = v;
    });
    variants.appendChild(field('layers',
      tr('Blocks stacked (--layers, with block; empty: one)'),
      {type: 'number', min: '1', step: '1', autocomplete: 'off'}));
    return variants;
  }

  /* The attention's switches: the mask, the scale, the biases, the
   * tokens and the positions. */
  function switchFields() {
    var switches = el('fieldset', {'class': 'edit-switches'});
    switches.appendChild(el('legend', {}, tr('Attention')));
    switches.appendChild(check('causal', tr('Causal mask (off: --no-causal)')));
    switches.appendChild(check('scale',
      tr('Scores scaled by 1/\u221ahead_dim (off: --no-scale)')));
    switches.appendChild(check('qkv-bias',
      tr('Biases in W_query, W_key, W_value (--qkv-bias)')));
    var tokens = el('div', {'class': 'edit-field edit-tokens'});
    tokens.appendChild(el('label', {'for': 'edit-tokens'},
                          tr('Tokens (--tokens)')));
    var select = el('select', {id: 'edit-tokens', 'data-edit': 'tokens'});
    select.appendChild(el('option', {value: 'words'}, tr('words')));
    select.appendChild(el('option', {value: 'chars'}, tr('characters')));
    tokens.appendChild(select);
    fields.tokens = select;
    switches.appendChild(tokens);
    switches.appendChild(check('positions',
      tr('Learned positions added to the embeddings (--positions)')));
    /* how the head view's switched-off heads are replaced: zero or mean */
    var modes = el('div', {'class': 'edit-field edit-ablate-mode'});
    modes.appendChild(el('label', {'for': 'edit-ablate-mode'},
                         tr('Ablated heads (--ablate-mode)')));
    fields['ablate-mode'] = el('select', {id: 'edit-ablate-mode',
                                          'data-edit': 'ablate-mode'});
    ['zero', 'mean'].forEach(function (m) {
      fields['ablate-mode'].appendChild(el('option', {value: m}, m));
    });
    modes.appendChild(fields['ablate-mode']);
    switches.appendChild(modes);
    return switches;
  }

  /* The training's settings: its steps, optimizer, learning rate and
   * --grad. */
  function trainingFields() {
    var training = el('fieldset', {'class': 'edit-training'});
    training.appendChild(el('legend', {}, tr('Training (--train)')));
    training.appendChild(field('train', tr('Steps (0: no training)'),
      {type: 'number', min: '0', step: '1', autocomplete: 'off'}));
    var optimizer = el('div', {'class': 'edit-field edit-optimizer'});
    optimizer.appendChild(el('label', {'for': 'edit-optimizer'},
                             tr('Optimizer (--optimizer)')));
    var optimizers = el('select', {id: 'edit-optimizer',
                                   'data-edit': 'optimizer'});
    optimizers.appendChild(el('option', {value: 'adam'}, 'adam'));
    optimizers.appendChild(el('option', {value: 'sgd'}, 'sgd'));
    optimizer.appendChild(optimizers);
    fields.optimizer = optimizers;
    training.appendChild(optimizer);
    training.appendChild(field('lr',
      tr('Learning rate (--lr; empty: the optimizer\'s default)'),
      {type: 'text', inputmode: 'decimal', size: '8', autocomplete: 'off',
       spellcheck: 'false'}));
    training.appendChild(check('grad',
      tr('Gradients at the final parameters (--grad)')));
    return training;
  }

  box.appendChild(el('p', {'class': 'editor-hint'},
    tr('Any change recomputes every table here, in the browser, with the ' +
       'program\'s own code.')));
  form.appendChild(field('sentence', tr('Sentence'),
                         {type: 'text', 'class': 'wide', spellcheck: 'false',
                          autocomplete: 'off'}));
  form.appendChild(field('kv',
    tr('Keys and values from another sentence (--kv; empty: none)'),
    {type: 'text', 'class': 'wide', spellcheck: 'false', autocomplete: 'off'}));
  var numbers = numberFields();
  form.appendChild(numbers);
  var variants = variantFields();
  form.appendChild(variants);
  var switches = switchFields();
  form.appendChild(switches);
  var training = trainingFields();
  form.appendChild(training);
  /* the generation's settings (generation.js, in a generation run's
   * page): a trained model's page has no seed field of its own */
  var GEN = typeof mhaGenerationFields === 'function' && run.generate ?
    mhaGenerationFields({el: el, tr: tr, prefix: 'edit-', seed: !!model,
                         initial: run.generate, seedValue: run.seed}) : null;
  if (GEN) form.appendChild(GEN.box);
  box.appendChild(form);

  /* A trained model's page: only the sentence is edited (the model fixes
   * the rest), and the page says which words the model knows. */
  function modelFields() {
    [form.querySelector('.edit-kv'), numbers, variants, switches,
     training].forEach(function (part) { part.hidden = true; });
    /* its corpus: the class keeps training the model on it */
    if (model.corpus) {
      training.hidden = false;
      training.querySelector('legend').textContent =
        tr('Keep training (--train, on --corpus)');
      training.insertBefore(el('p', {'class': 'editor-hint',
                                     id: 'model-corpus'}, tr(
        'The page carries the {0} sentences of {1} (column {2}): more ' +
        'steps of training on them start from this trained model, as ' +
        '--weights DIR --train N --corpus FILE does.',
        model.corpus.sentences, model.corpus.file, model.corpus.column)),
        training.children[1]);
    }
    var rules = [];
    if (model.lower) rules.push('--lower');
    if (model.punct !== 'keep') rules.push('--punct ' + model.punct);
    if (model.unk) rules.push('--unk');
    var known = el('p', {'class': 'model-words', id: 'model-words'});
    known.appendChild(el('span', {}, tr(
      'This trained model knows {0} words; a sentence of them runs over ' +
      'it, as --weights runs it:', model.words.length) + ' '));
    model.words.forEach(function (w, i) {
      if (i > 0) known.appendChild(document.createTextNode(' '));
      known.appendChild(el('code', {'class': 'model-word'}, w));
    });
    /* under the sentence, before the training's fields */
    form.insertBefore(known, training);
    if (rules.length > 0)
      form.insertBefore(el('p', {'class': 'editor-hint'}, tr(
        'Words are made by {0}, as the training made them.',
        rules.join(' '))), training);
    /* the sentence's words under its field, those the model does not
     * know marked (as the program refuses them, or reads them as <unk>) */
    var marks = el('p', {'class': 'sentence-words', id: 'sentence-words',
                         'aria-live': 'polite'});
    var sentenceField = form.querySelector('.edit-sentence');
    sentenceField.appendChild(marks);
    fields.sentence.addEventListener('input', markWords);
    if (model.dir === null)
      box.appendChild(el('p', {'class': 'editor-hint'}, tr(
        'The model is in this page only: --csv-dir DIR saves it as a ' +
        'folder for --weights.')));
  }

  if (model) modelFields();

  /* Marks the sentence's words the carried model does not know. */
  function markWords() {
    var marks = document.getElementById('sentence-words');
    if (!marks || !ready) return;
    var words = null;
    try {
      words = wordsCore(fields.sentence.value);
    } catch (e) {
      /* a core that stopped: no marks; the next run loads a fresh one */
    }
    while (marks.firstChild) marks.removeChild(marks.firstChild);
    if (!words) return;
    var unknown = 0;
    words.forEach(function (w, i) {
      if (i > 0) marks.appendChild(document.createTextNode(' '));
      if (w.known) {
        marks.appendChild(el('span', {'class': 'known-word'}, w.word));
        return;
      }
      unknown++;
      var why = model.unk ?
        tr('Not in the trained vocabulary: read as <unk>.') :
        tr('Not in the trained vocabulary: the program refuses the ' +
           'sentence.');
      marks.appendChild(el('mark', {'class': 'unknown-word', title: why,
                                    'aria-label': w.word + ': ' + why},
                           w.word));
    });
    marks.setAttribute('data-unknown', String(unknown));
    /* all known: nothing to mark, the line is not shown */
    marks.hidden = unknown === 0;
  }

  var error = el('p', {id: 'editor-error', role: 'alert',
                       'aria-live': 'assertive', hidden: ''});
  var status = el('p', {id: 'editor-status', role: 'status',
                        'aria-live': 'polite'});
  var command = el('p', {'class': 'editor-command'});
  command.appendChild(el('span', {}, tr('The same run on the command line:') +
                                     ' '));
  var code = el('code', {id: 'editor-command'});
  command.appendChild(code);
  box.appendChild(error);
  box.appendChild(status);
  box.appendChild(command);

  function show(s) {
    fields.sentence.value = s.sentence;
    fields.kv.value = s.kv === null ? '' : s.kv;
    fields.seed.value = s.seed;
    fields['d-model'].value = s.dModel;
    fields['d-out'].value = s.dOut;
    fields.heads.value = s.heads;
    VARIANTS.forEach(function (v) {
      fields['variant-' + v].checked = s.variants.indexOf(v) >= 0;
    });
    fields.causal.checked = s.causal;
    fields.scale.checked = s.scale;
    fields['qkv-bias'].checked = s.qkvBias;
    fields.tokens.value = s.tokens;
    fields.positions.checked = s.positions;
    fields.layers.value = s.layers;
    fields.train.value = s.train;
    fields.optimizer.value = s.optimizer;
    fields.lr.value = s.lr;
    fields.grad.checked = s.grad;
    ablated = s.ablate.slice();
    fields['ablate-mode'].value = s.ablateMode;
    follow();
  }

  /* The fields that go with another follow it: --layers the block
   * variant, the training's settings a number of steps (the program
   * refuses them alone); the learning rate's placeholder is the chosen
   * optimizer's default. */
  function follow() {
    if (!ready) return;
    var s = read();
    fields.layers.disabled = !stacks(s);
    [fields.optimizer, fields.lr, fields.grad].forEach(function (f) {
      f.disabled = !trains(s);
    });
    fields.lr.placeholder = run.defaults.lr[s.optimizer];
    if (GEN) GEN.follow();
  }

  /* The settings on the form; numbers stay as typed, for the program to
   * check. */
  function read() {
    return {
      sentence: fields.sentence.value,
      kv: fields.kv.value === '' ? null : fields.kv.value,
      seed: fields.seed.value.trim(),
      dModel: fields['d-model'].value.trim(),
      dOut: fields['d-out'].value.trim(),
      heads: fields.heads.value.trim(),
      variants: VARIANTS.filter(function (v) {
        return fields['variant-' + v].checked;
      }),
      causal: fields.causal.checked,
      scale: fields.scale.checked,
      qkvBias: fields['qkv-bias'].checked,
      tokens: fields.tokens.value,
      positions: fields.positions.checked,
      layers: fields.layers.value.trim(),
      train: fields.train.value.trim(),
      optimizer: fields.optimizer.value,
      lr: fields.lr.value.trim(),
      grad: fields.grad.checked,
      ablate: ablated.slice(),
      ablateMode: fields['ablate-mode'].value
    };
  }

  var written = {
    sentence: run.sentence, kv: run.kv, seed: run.seed,
    dModel: String(run.dModel), dOut: String(run.dOut),
    heads: String(run.heads), variants: run.variants, causal: run.causal,
    scale: run.scale, qkvBias: run.qkvBias, tokens: run.tokens,
    positions: run.positions,
    layers: run.layers === null ? '' : String(run.layers),
    /* a trained model's page starts from the model: no further step */
    train: run.train === null || model ? '0' : String(run.train),
    optimizer: run.optimizer, lr: run.lr === null ? '' : run.lr,
    grad: run.grad, ablate: page.ablated.slice(),
    ablateMode: run.ablateMode || run.defaults['ablate-mode']
  };

  /* A refused run: its message (the editor opens to show it, a link's
   * settings refused too), and the views below, still the last run that
   * was made, greyed (page.css). */
  function setError(text) {
    error.textContent = text;
    error.hidden = text === '';
    if (text !== '') box.open = true;
    form.setAttribute('aria-invalid', text === '' ? 'false' : 'true');
    app.classList.toggle('stale', text !== '');
  }

  /* Recomputes the run of settings s and draws it; returns the time the
   * core and the drawing took, in ms, or -1 for a refused run. */
  function recompute(s) {
    var t0 = performance.now();
    code.textContent = commandOf(s);
    if (s.variants.length === 0) {
      /* the program's own message for an empty --variant */
      s = JSON.parse(JSON.stringify(s));
      s.variants = [''];
    }
    var r;
    try {
      r = runCore(argsOf(s));
    } catch (e) {
      /* the core stopped (a trap): its memory is not to be trusted, so a
       * fresh one is loaded for the next change */
      r = {status: 1, text: tr('The page\'s core stopped ({0}); change ' +
                               'a setting to try again.', e.message)};
      ready = false;
      loadCore().then(function () { ready = true; });
    }
    if (r.status !== 0) {
      setError(r.text);
      status.textContent = '';
      return -1;
    }
    setError('');
    page.ablated = ablates(s) ? s.ablate.slice() : [];
    page.modelOnView = false;
    page.reload(JSON.parse(r.text));
    var ms = performance.now() - t0;
    status.textContent = tr('Recomputed in {0} ms.', Math.round(ms));
    return ms;
  }

  /* A run that trains may take seconds: the status says so, and the views
   * are greyed, before the page stops for it (after the next painted
   * frame); a change made meanwhile replaces the run waiting. */
  var waiting = 0;

  function changed() {
    if (!ready) return;
    follow();
    var s = read();
    var mine = ++waiting;
    var generates = GEN && GEN.steps();
    if (!trains(s) && !generates) {
      finish(s);
      return;
    }
    code.textContent = commandOf(s);
    status.textContent = ((trains(s) ? tr('Training {0} steps\u2026', s.train)
                           : '') + (generates ? ' ' + GEN.busy() : '')).trim();
    box.setAttribute('data-recomputed', 'busy');
    app.classList.add('stale');
    var go = function () {
      if (mine === waiting) finish(s);
    };
    if (document.hidden) setTimeout(go, 0);
    else requestAnimationFrame(function () { setTimeout(go, 0); });
  }

  function finish(s) {
    var ms = recompute(s);
    var fragment = toFragment(s);
    if (window.history && history.replaceState)
      history.replaceState(null, '', '#' + fragment);
    else
      location.hash = fragment;
    box.setAttribute('data-recomputed', ms >= 0 ? 'ok' : 'error');
    document.dispatchEvent(new CustomEvent('mha-recomputed',
                                           {detail: {ms: ms}}));
  }

  form.addEventListener('change', changed);

  /* The head view's switch of head name ("L.H"): the head added to
   * --ablate, or taken away, and the run recomputed; the focus stays on
   * the switch, drawn again. Offered on a lesson run that does not
   * train (page.canSwitch), not on a model opened in the page
   * (model_open.js: page.modelOnView), whose run is not the editor's. */
  var ablated = [];
  page.canSwitch = function () {
    return ready && !model && !run.checkpoint && !page.modelOnView &&
      !trains(read());
  };
  page.toggleHead = function (name) {
    if (!page.canSwitch()) return;
    var i = ablated.indexOf(name);
    if (i < 0) ablated.push(name);
    else ablated.splice(i, 1);
    changed();
    var b = document.querySelector('[data-head-off="' + name + '"]');
    if (b) b.focus();
  };

  /* On paper, the run's command line heads the handout (page.css): the
   * disclosure is opened for the printing, and closed again after. */
  var wasOpen = false;
  window.addEventListener('beforeprint', function () {
    wasOpen = box.open;
    box.open = true;
  });
  window.addEventListener('afterprint', function () {
    box.open = wasOpen;
  });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    changed();
  });

  show(written);
  code.textContent = commandOf(written);
  fields.sentence.disabled = true;
  status.textContent = tr('Loading the page\'s core\u2026');
  Array.prototype.forEach.call(form.elements, function (e) {
    e.disabled = true;
  });
  loadCore().then(function () {
    ready = true;
    Array.prototype.forEach.call(form.elements, function (e) {
      e.disabled = false;
    });
    follow();
    if (model) markWords();
    box.setAttribute('data-ready', 'true');
    status.textContent = '';
    var linked = location.hash.length > 1 ?
      fromFragment(location.hash.slice(1), written) : null;
    if (linked) {
      show(linked);
      if (model) markWords();
      changed();
    }
  }, function () {
    status.textContent = tr('This browser cannot run the page\'s ' +
                            'WebAssembly core; the page shows the run it ' +
                            'was written with.');
  });
})();
