/* editor_run.js: the live page's editor (editor.js): the settings on
 * the form, the run of a change in the core, its message or its views,
 * and the start of the page. */

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
/* the longest sentence recomputed, for the tests and the curious */
box.setAttribute('data-most-tokens', String(MOST_TOKENS));

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

/* A run that trains, generates or has a long sentence may take
 * seconds: the status says so, and the views are greyed, before the
 * page stops for it (after the next painted frame); a change made
 * meanwhile replaces the run waiting. A sentence longer than the page
 * recomputes (MOST_TOKENS) is refused before the core runs. */
var waiting = 0;

function changed() {
  if (!ready) return;
  follow();
  var s = read();
  var mine = ++waiting;
  var generates = GEN && GEN.steps();
  var tokens = longest(s);
  if (tokens > MOST_TOKENS) {
    refuse(s, tr('A sentence of {0} tokens is longer than the {1} this ' +
                 'page recomputes; run it on the command line (below).',
                 tokens, MOST_TOKENS));
    return;
  }
  var longRun = tokens >= BUSY_TOKENS;
  if (!trains(s) && !generates && !longRun) {
    finish(s);
    return;
  }
  code.textContent = commandOf(s);
  var doing = trains(s) ? tr('Training {0} steps\u2026', s.train) :
    longRun ? tr('Recomputing {0} tokens\u2026', tokens) : '';
  status.textContent = (doing + (generates ? ' ' + GEN.busy() : '')).trim();
  box.setAttribute('data-recomputed', 'busy');
  app.classList.add('stale');
  var go = function () {
    if (mine === waiting) finish(s);
  };
  if (document.hidden) setTimeout(go, 0);
  else requestAnimationFrame(function () { setTimeout(go, 0); });
}

/* A run the page does not make: its message, the views left as they
 * are (greyed), the command line that makes it. */
function refuse(s, text) {
  code.textContent = commandOf(s);
  setError(text);
  status.textContent = '';
  box.setAttribute('data-recomputed', 'error');
  document.dispatchEvent(new CustomEvent('mha-recomputed',
                                         {detail: {ms: -1}}));
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
  } else if (page.canSwitch()) {
    page.redraw();
  }
}, function () {
  status.textContent = tr('This browser cannot run the page\'s ' +
                          'WebAssembly core; the page shows the run it ' +
                          'was written with.');
});
