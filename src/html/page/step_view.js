/* step_view.js: the step-through (part of the page's script,
 * page_data.js says how): the computation step by step with the
 * --explain notes and the text tables, the keys of --step, and the
 * printed page. */

/* ---- step through ---- */

var STEP_TITLES = {
  tokens: 'Tokens', embeddings: 'Embeddings',
  parameters: 'The module and its parameters',
  qkv: 'Queries, keys and values', scores: 'Scores',
  weights: 'Attention weights', context: 'Context',
  concat: 'Concatenation', output: 'Output',
  norm1: 'Add and norm', ffn: 'Feed-forward', norm2: 'Add and norm again',
  backward: 'Backward pass', update: 'Training: the loss at each step'
};

/* A step's title: its own (a pre-norm block's normalisations,
 * html_steps.c), else its id's. */
function stepTitle(step) {
  if (step.title) return tr(step.title);
  return STEP_TITLES[step.step] ? tr(STEP_TITLES[step.step]) : step.step;
}

function steps() {
  return data.steps.concat(variant().steps);
}

function goStep(k) {
  var all = steps();
  state.step = Math.max(0, Math.min(all.length - 1, k));
  draw();
}

/* The keys of --step while the steps are on view, wherever the focus is
 * (but in a field, or on a button or disclosure whose own key Enter or
 * Space is): Down, j, Enter, PageDown, Space and Right scroll a step
 * taller than the window (a line, or a window for PageDown, Space and
 * Right), then go on to the next step; Up, k, PageUp, b and Left scroll
 * back, then go back; n and p step at once. A step opens at its own
 * top. */
var STEP_KEYS = {
  ArrowDown: 'line', j: 'line', Enter: 'line', PageDown: 'page',
  ' ': 'page', ArrowRight: 'page', n: 'next',
  ArrowUp: '-line', k: '-line', PageUp: '-page', b: '-page',
  ArrowLeft: '-page', p: '-next'
};

/* Whether Enter and Space are target's own keys: a button (but the Next
 * button and the pressed Step through button, which go on to the next
 * step), a link or the editor's disclosure. */
function ownsEnter(target) {
  var t = target && target.tagName;
  if (t === 'SUMMARY' || t === 'A') return true;
  if (t !== 'BUTTON') return false;
  return !(target.getAttribute('data-step') === 'next' ||
           (target.getAttribute('data-value') === 'steps' &&
            target.getAttribute('aria-pressed') === 'true'));
}

function stepKey(e) {
  if (state.view !== 'steps' || e.altKey || e.ctrlKey || e.metaKey) return;
  var t = e.target && e.target.tagName;
  if (t === 'SELECT' || t === 'INPUT' || t === 'TEXTAREA') return;
  var move = STEP_KEYS[e.key];
  if (!move || ((e.key === 'Enter' || e.key === ' ') && ownsEnter(e.target)))
    return;
  e.preventDefault();
  var back = move.charAt(0) === '-';
  var box = views.steps.getBoundingClientRect();
  var room = window.innerHeight;
  var by = move.indexOf('line') >= 0 ? 40 : Math.max(40, room - 40);
  if (move.indexOf('next') < 0) {
    if (!back && box.bottom > room + 1) {
      window.scrollBy(0, Math.min(by, box.bottom - room));
      return;
    }
    if (back && box.top < -1) {
      window.scrollBy(0, Math.max(-by, box.top));
      return;
    }
  }
  var before = state.step;
  var refocus = document.activeElement &&
                document.activeElement.getAttribute('data-step');
  goStep(state.step + (back ? -1 : 1));
  if (state.step !== before &&
      views.steps.getBoundingClientRect().top < 0)
    views.steps.scrollIntoView();
  if (refocus) {
    var b = views.steps.querySelector('[data-step=' + refocus + ']');
    if (b && !b.disabled) b.focus();
  }
}

function drawStepView() {
  var all = steps();
  if (state.step >= all.length) state.step = all.length - 1;
  var step = all[state.step];
  var nav = el('div', {'class': 'controls step-nav'});
  var prev = el('button', {type: 'button', 'data-step': 'prev'},
                '\u2190 ' + tr('Previous'));
  var next = el('button', {type: 'button', 'data-step': 'next'},
                tr('Next') + ' \u2192');
  prev.disabled = state.step === 0;
  next.disabled = state.step === all.length - 1;
  prev.addEventListener('click', function () {
    goStep(state.step - 1);
    focusStep('prev');
  });
  next.addEventListener('click', function () {
    goStep(state.step + 1);
    focusStep('next');
  });
  nav.appendChild(prev);
  nav.appendChild(next);
  nav.appendChild(el('span', {'class': 'step-count', id: 'step-count'},
                     tr('step {0} of {1} (\u2192, Space, Enter or ' +
                        'PageDown: next; \u2190: back)',
                        state.step + 1, all.length)));
  views.steps.appendChild(nav);
  views.steps.appendChild(el('h2', {id: 'step-title',
                                    'data-step-id': step.step},
    (state.step + 1) + '. ' + stepTitle(step) +
    (state.step >= data.steps.length ? ' (' + variant().name + ')' : '')));
  var note = el('div', {'class': 'step-note', id: 'step-note'});
  step.note.forEach(function (sentence) {
    note.appendChild(el('p', {}, sentence));
  });
  views.steps.appendChild(note);
  var text = stepTables(step);
  text.id = 'step-text';
  text.setAttribute('tabindex', 0);
  views.steps.appendChild(text);
}

/* The fields of a line of a text table: runs of non-spaces (labels
 * are tokens, which hold no spaces, and numbers). */
function fields(line) {
  return line.trim().split(/ +/);
}

/* A step's tables (the text output's, data.steps[].text) as HTML
 * tables: a heading, the column labels, then a row label and the values
 * of each row. Their columns line up whatever the script of the labels
 * (the text pads a Chinese character as two cells, a browser's font
 * does not), and attention weights and scores get the matrix view's
 * colours. A block that is not such a table (a legend, a summary)
 * stays text. */
function stepTables(step) {
  var box = el('div', {'class': 'step-text'});
  step.text.replace(/\n+$/, '').split('\n\n').forEach(function (block) {
    var lines = block.split('\n');
    /* the header: the first line whose next lines all have one field
     * more (the row label) */
    var h = -1;
    for (var k = 0; k + 1 < lines.length && h < 0; k++) {
      var n = fields(lines[k]).length, rows = 0;
      for (var q = k + 1; q < lines.length &&
           fields(lines[q]).length === n + 1; q++) rows++;
      if (rows > 0 && k + 1 + rows === lines.length) h = k;
    }
    if (h < 0) {
      box.appendChild(el('pre', {'class': 'step-block'}, block));
      return;
    }
    for (var t = 0; t < h; t++)
      box.appendChild(el('p', {'class': 'step-heading'}, lines[t]));
    box.appendChild(stepTable(lines[h - 1] || '', fields(lines[h]),
                              lines.slice(h + 1).map(fields)));
  });
  return box;
}

function stepTable(heading, cols, rows) {
  var table = el('table', {'class': 'step-table'});
  var hr = el('tr');
  hr.appendChild(el('th', {}, ''));
  cols.forEach(function (c) {
    hr.appendChild(el('th', {scope: 'col'}, c));
  });
  var thead = el('thead');
  thead.appendChild(hr);
  table.appendChild(thead);
  /* attention weights and scores: coloured as in the matrix view */
  var kind = /attn_weights/.test(heading) ? 'weights'
           : /attn_scores/.test(heading) ? 'scores' : null;
  var values = rows.map(function (r) {
    return r.slice(1).map(function (x) {
      return x === '-inf' ? -Infinity : parseFloat(x);
    });
  });
  var summarised = cols.indexOf('...') >= 0 ||
                   rows.some(function (r) { return r[0] === '...'; });
  function masked(i, j) {
    return !summarised && (values[i][j] === -Infinity ||
                           (kind === 'weights' && !unmasked(i, j)));
  }
  var m = {
    rows: values.length, cols: cols.length,
    row: function (i) { return values[i]; }
  };
  var r = kind ? textRange(m, kind, masked) : null;
  var tbody = el('tbody');
  rows.forEach(function (row, i) {
    var line = el('tr');
    line.appendChild(el('th', {scope: 'row'}, row[0]));
    row.slice(1).forEach(function (x, j) {
      var td = el('td', {}, x);
      var v = values[i][j];
      if (r && masked(i, j)) {
        td.className = 'masked';
      } else if (r && isFinite(v)) {
        var c = r.lut[r.at(i, v)];
        td.style.background = 'rgb(' + c.join(',') + ')';
        td.style.color = darkTextOn(c) ? '#000' : '#fff';
      }
      line.appendChild(td);
    });
    tbody.appendChild(line);
  });
  table.appendChild(tbody);
  return table;
}

function focusStep(which) {
  var b = views.steps.querySelector('[data-step=' + which + ']');
  if (b && !b.disabled) b.focus();
  else {
    b = views.steps.querySelector('[data-step]:not([disabled])');
    if (b) b.focus();
  }
}

/* ---- printing ---- */

/* On paper: the view on screen without its controls, then every step
 * of the variant on view, its notes and tables (built when the browser
 * is about to print, removed after). */
function buildPrint() {
  clear(views.print);
  var names = {head: 'Head view', matrix: 'Matrix view',
               neuron: 'Neuron view', steps: 'Step through',
               model: 'Model view', training: 'Training',
               maps: 'Interventions'};
  var which = state.view === 'matrix' ? ' (attn_' + state.matrix + ')'
    : state.view === 'neuron' ? tr(' (head {0}, query {1}, key {2})',
                                   state.neuron.head, state.neuron.query,
                                   state.neuron.key)
    : '';
  views.print.appendChild(el('p', {'class': 'print-what'},
    tr('Above: the {0} of {1}{2}. Below: every step of {1}.',
       (EXTRA[state.view] ? EXTRA[state.view].title()
                          : tr(names[state.view])).toLowerCase(),
       variant().name, which)));
  views.print.appendChild(el('h2', {}, tr('Step by step: {0}',
                                          variant().name)));
  steps().forEach(function (step, k) {
    var box = el('div', {'class': 'print-step'});
    box.appendChild(el('h3', {}, (k + 1) + '. ' + stepTitle(step)));
    step.note.forEach(function (sentence) {
      box.appendChild(el('p', {}, sentence));
    });
    box.appendChild(el('pre', {'class': 'step-text'}, step.text));
    views.print.appendChild(box);
  });
}
