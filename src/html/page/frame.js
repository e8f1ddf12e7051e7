/* frame.js: the page's frame (part of the page's script, page_data.js
 * says how): its title, summary, the View, Variant and Heads controls,
 * the readout and a section per view; the arrow keys over a grid. */

/* ---- page frame ---- */

var app = document.getElementById('app');
var readout;
var views = {};
var listening = false; /* the document's listeners are added */

function pressed(button, on) {
  button.setAttribute('aria-pressed', on ? 'true' : 'false');
}

function buttonGroup(name, items, current, onPick) {
  /* named in the page's language (aria-labelledby) where the contract's
   * aria-label keeps the English name */
  var g = el('div', {'class': 'group', role: 'group', 'aria-label': name,
                     'aria-labelledby': 'group-' + name});
  g.appendChild(el('span', {'class': 'group-name', id: 'group-' + name},
                   tr(name)));
  var buttons = items.map(function (item) {
    var b = el('button', {type: 'button', 'data-value': item.value},
               item.translate === false ? item.label : tr(item.label));
    pressed(b, item.value === current);
    b.addEventListener('click', function () {
      buttons.forEach(function (o) { pressed(o, o === b); });
      onPick(item.value);
    });
    g.appendChild(b);
    return b;
  });
  return g;
}

/* The group of data.variants' buttons: a checkpoint's layers or a
 * stack's blocks (the program then writes the word "Layer"), or the
 * lesson's variants. */
function variantGroup() {
  return LABELS.Layer !== undefined ? 'Layer' : 'Variant';
}

function summary() {
  var v = data.variants[0];
  var heads = Math.max.apply(null, data.variants.map(function (x) {
    return x.heads.length;
  }).concat([0]));
  /* the program writes these three in the plural form of this run's
   * counts */
  var parts = [tr('{0} tokens', data.queries.length)];
  if (data.cross)
    parts.push(tr('{0} key/value tokens (--kv)', data.keys.length));
  var counts = data.variants.map(function (x) {
    return x.name + ' ' + x.heads.length;
  });
  var same = data.variants.every(function (x) {
    return x.heads.length === heads;
  });
  parts.push(same ? tr('{0} heads', heads)
                  : tr('heads: {0}', counts.join(', ')));
  parts.push(data.masked ? tr('causal mask') : tr('no mask'));
  parts.push(data.scaled ? tr('scores scaled by 1/\u221ahead_dim')
                         : tr('scores not scaled'));
  return parts.join(tr(', '));
}

function buildFrame() {
  /* a long sentence: its first twelve tokens (the summary counts all) */
  var shown = data.queries.slice(0, 12).join(' ');
  if (data.queries.length > 12) shown += ' \u2026';
  app.appendChild(el('h1', {title: data.queries.join(' ')},
                     'mha-explain: ' + shown));
  app.appendChild(el('p', {'class': 'summary'}, summary()));
  if (data.variants.length === 0) {
    app.appendChild(el('p', {}, tr('This run has no attention weights.')));
    return false;
  }
  var controls = el('div', {'class': 'controls'});
  controls.appendChild(buttonGroup('View', [
    {value: 'head', label: 'Head view'},
    {value: 'matrix', label: 'Matrix view'},
    {value: 'neuron', label: 'Neuron view'},
    {value: 'steps', label: 'Step through'},
    {value: 'model', label: 'Model view'}
  ].concat(hasTraining() ? [{value: 'training', label: 'Training'}] : [])
   .concat(hasMaps() ? [{value: 'maps', label: 'Interventions'}] : [])
   .concat(extraViews().map(function (v) {
     return {value: v, label: EXTRA[v].title(), translate: false};
   })),
  state.view, function (v) { state.view = v; draw(); }));
  controls.appendChild(buttonGroup(variantGroup(),
    data.variants.map(function (v, i) {
      return {value: i, label: v.name, translate: false};
    }),
    state.variant, function (i) { state.variant = i; draw(); }));
  var heads = el('div', {'class': 'group', id: 'head-toggles',
                         role: 'group', 'aria-label': 'Heads',
                         'aria-labelledby': 'group-Heads'});
  heads.appendChild(el('span', {'class': 'group-name', id: 'group-Heads'},
                       tr('Heads')));
  var nHeads = Math.max.apply(null, data.variants.map(function (v) {
    return v.heads.length;
  }));
  for (var h = 0; h < nHeads; h++) {
    state.shown.push(true);
    heads.appendChild(headToggle(h));
  }
  controls.appendChild(heads);
  controls.appendChild(lookControls());
  app.appendChild(controls);
  readout = el('p', {'class': 'readout', id: 'readout',
                     'aria-live': 'polite'});
  app.appendChild(readout);
  views.head = el('section', {id: 'head-view',
                              'aria-label': tr('Head view')});
  views.matrix = el('section', {id: 'matrix-view',
                                'aria-label': tr('Matrix view')});
  views.neuron = el('section', {id: 'neuron-view',
                                'aria-label': tr('Neuron view')});
  views.steps = el('section', {id: 'step-view',
                               'aria-label': tr('Step through')});
  app.appendChild(views.head);
  app.appendChild(views.matrix);
  app.appendChild(views.neuron);
  app.appendChild(views.steps);
  views.model = el('section', {id: 'model-view',
                               'aria-label': tr('Model view')});
  app.appendChild(views.model);
  views.training = el('section', {id: 'training-view',
                                  'aria-label': tr('Training')});
  app.appendChild(views.training);
  views.maps = el('section', {id: 'maps-view',
                              'aria-label': tr('Interventions')});
  app.appendChild(views.maps);
  Object.keys(EXTRA).forEach(function (v) {
    views[v] = el('section', {id: v + '-view'});
    app.appendChild(views[v]);
  });
  views.print = el('section', {id: 'print-view', 'aria-hidden': 'true'});
  app.appendChild(views.print);
  if (!listening) {
    listening = true;
    document.addEventListener('keydown', stepKey);
    document.addEventListener('keydown', lookKey);
    window.addEventListener('beforeprint', buildPrint);
    window.addEventListener('afterprint', function () {
      clear(views.print);
    });
  }
  return true;
}

function headToggle(h) {
  var label = el('label', {'class': 'head-toggle'});
  var box = el('input', {type: 'checkbox', 'data-head': h});
  box.checked = true;
  box.addEventListener('change', function () {
    state.shown[h] = box.checked;
    draw();
  });
  label.appendChild(box);
  label.appendChild(el('span', {'class': 'swatch',
                                style: 'background:' + headColour(h)}));
  label.appendChild(document.createTextNode(headName(h)));
  /* a double-click shows only this head (again: every head); its two
   * clicks have ticked the box off and on */
  label.addEventListener('dblclick', function (e) {
    e.preventDefault();
    soloHead(h);
  });
  return label;
}

/* Only head h shown, or every head again when h is already alone (a
 * double-click on a head's line, map or toggle). */
function soloHead(h) {
  var alone = state.shown.every(function (on, k) { return on === (k === h); });
  for (var k = 0; k < state.shown.length; k++)
    state.shown[k] = alone || k === h;
  document.querySelectorAll('#head-toggles input').forEach(function (b) {
    b.checked = state.shown[Number(b.getAttribute('data-head'))];
  });
  draw();
}

/* Arrow keys over a grid of elements: items(r, c) gives the element at
 * row r, column c, or null; the one focused keeps the grid's only Tab
 * stop (tabindex 0, the others -1), so Tab goes past the grid in one
 * step and the arrows move within it. */
function arrowGrid(container, rows, cols, items, start) {
  var at = {r: start ? start.r : 0, c: start ? start.c : 0};
  for (var r = 0; r < rows; r++)
    for (var c = 0; c < cols; c++) {
      var e = items(r, c);
      if (e) e.setAttribute('tabindex', r === at.r && c === at.c ? 0 : -1);
    }
  container.addEventListener('keydown', function (ev) {
    var moves = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1],
                 ArrowRight: [0, 1], Home: [0, -cols], End: [0, cols]};
    var mv = moves[ev.key];
    if (!mv || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var from = ev.target;
    var r0 = Number(from.getAttribute('data-grid-row'));
    var c0 = Number(from.getAttribute('data-grid-col'));
    if (isNaN(r0) || isNaN(c0)) return;
    ev.preventDefault();
    ev.stopPropagation();
    var r1 = Math.max(0, Math.min(rows - 1, r0 + mv[0]));
    var c1 = Math.max(0, Math.min(cols - 1, c0 + mv[1]));
    var to = items(r1, c1);
    if (!to) return;
    from.setAttribute('tabindex', -1);
    to.setAttribute('tabindex', 0);
    to.focus();
  });
}
