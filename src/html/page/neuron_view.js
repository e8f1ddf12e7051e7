/* neuron_view.js: the neuron view (part of the page's script,
 * page_data.js says how): one score from a query and a key vector, then
 * its softmax row. */

/* ---- neuron view ---- */

function picker(name, options, current, onPick) {
  var label = el('label', {'class': 'group'});
  label.appendChild(el('span', {'class': 'group-name'}, tr(name)));
  var select = el('select', {'data-pick': name});
  options.forEach(function (text, i) {
    var o = el('option', {value: i}, text);
    if (i === current) o.selected = true;
    select.appendChild(o);
  });
  select.addEventListener('change', function () {
    onPick(Number(select.value));
  });
  label.appendChild(select);
  return label;
}

/* One score made from a query and a key vector, then its place in the
 * softmax of its row. The products are float32 products (Math.fround
 * of the double product, which is exact), as the program multiplies;
 * the score is the program's own (it sums in its own order). The
 * softmax values are the program's: exp(scaled - max) and the row's
 * sum come from its softmax (html_data.c); scaled = score / divisor
 * and 1 / sum are float32 quotients (Math.fround of the double
 * quotient, which is the correctly rounded float32 quotient, since a
 * double has more than twice a float's 24 bits plus two), and the
 * weight is exp x (1 / sum) rounded to float32: the program's weight. */
/* The pair the neuron view opens on: head 0's last query (which sees
 * every key) and the key it attends to most, not query 0 against key 0,
 * whose weight under the causal mask is always 1. */
function informativePair(v) {
  var q = data.queries.length - 1, best = 0;
  var w = v.heads.length ? mat(v.heads[0], 'weights') : null;
  for (var j = 0; w && j < data.keys.length; j++)
    if (unmasked(q, j) && w.value(q, j) > w.value(q, best)) best = j;
  return {head: 0, query: Math.max(0, q), key: best};
}

/* The background of a number in the neuron view: the map for both
 * signs, centred on 0 over the column's largest magnitude. */
function signedColour(x, top) {
  var t = top > 0 ? 0.5 + x / (2 * top) : 0.5;
  if (!COLORS.centred) t = top > 0 ? (x + top) / (2 * top) : 0.5;
  return MAP_BOTH[lutIndex(t)];
}

/* The whole softmax row of query i, key j marked. */
function softmaxRow(scores, divisor, exps, weights, i, j) {
  var rowTable = el('table', {'class': 'grid neuron softmax-row'});
  var head2 = el('tr');
  [tr('key'), tr('score'), tr('scaled'), tr('exp(scaled \u2212 max)'),
   tr('weight')]
    .forEach(function (t) { head2.appendChild(el('th', {scope: 'col'}, t)); });
  var rthead = el('thead');
  rthead.appendChild(head2);
  rowTable.appendChild(rthead);
  var rbody = el('tbody');
  for (var k = 0; k < data.keys.length; k++) {
    var r = el('tr', k === j ? {'class': 'chosen'} : {});
    r.appendChild(el('th', {scope: 'row'}, k + ': ' + data.keys[k]));
    [scores.text(i, k),
     f32Text(Math.fround(scores.value(i, k) / divisor.value(0, 0))),
     exps.text(i, k), weights.text(i, k)].forEach(function (t) {
      r.appendChild(el('td', {'class': 'num'}, t));
    });
    rbody.appendChild(r);
  }
  rowTable.appendChild(rbody);
  return rowTable;
}

function drawNeuronView() {
  var v = variant();
  if (!state.neuron) state.neuron = informativePair(v);
  var n = state.neuron;
  if (n.head >= v.heads.length) n.head = 0;
  if (!data.queries[n.query]) n.query = 0;
  if (!data.keys[n.key]) n.key = 0;
  var controls = el('div', {'class': 'controls'});
  controls.appendChild(picker('Head', v.heads.map(function (h, i) {
    return headName(i);
  }), n.head, function (h) { n.head = h; draw(); }));
  controls.appendChild(picker('Query', data.queries.map(function (w, i) {
    return i + ': ' + w;
  }), n.query, function (i) { n.query = i; draw(); }));
  controls.appendChild(picker('Key', data.keys.map(function (w, i) {
    return i + ': ' + w;
  }), n.key, function (j) { n.key = j; draw(); }));
  views.neuron.appendChild(controls);
  var head = v.heads[n.head];
  var Q = mat(head, 'queries'), K = mat(head, 'keys');
  if (!Q || !K) return;
  var i = n.query, j = n.key;
  var table = el('table', {'class': 'grid neuron'});
  var thead = el('thead'), hr = el('tr');
  ['', tr('query q'), tr('key k'), 'q \u00d7 k'].forEach(function (t) {
    hr.appendChild(el('th', {scope: 'col'}, t));
  });
  thead.appendChild(hr);
  table.appendChild(thead);
  var tbody = el('tbody');
  /* q, k and q x k coloured by sign and size, each column on its own
   * scale centred on 0 */
  var columns = [[], [], []], tops = [0, 0, 0];
  for (var d0 = 0; d0 < Q.cols; d0++) {
    var x3 = [Q.value(i, d0), K.value(j, d0),
              Math.fround(Q.value(i, d0) * K.value(j, d0))];
    for (var c0 = 0; c0 < 3; c0++) {
      columns[c0].push(x3[c0]);
      if (isFinite(x3[c0])) tops[c0] = Math.max(tops[c0], Math.abs(x3[c0]));
    }
  }
  for (var d = 0; d < Q.cols; d++) {
    var row = el('tr');
    row.appendChild(el('th', {scope: 'row'}, 'dim' + d));
    var product = Math.fround(Q.value(i, d) * K.value(j, d));
    [Q.text(i, d), K.text(j, d), f32Text(product)].forEach(function (t, c) {
      var td = el('td', {'class': 'num', 'data-col':
                         ['q', 'k', 'product'][c], 'data-dim': d}, t);
      var rgb = signedColour(columns[c][d], tops[c]);
      td.style.background = 'rgb(' + rgb.join(',') + ')';
      td.style.color = darkTextOn(rgb) ? '#000' : '#fff';
      row.appendChild(td);
    });
    tbody.appendChild(row);
  }
  table.appendChild(tbody);
  views.neuron.appendChild(table);

  var scores = mat(head, 'scores'), weights = mat(head, 'weights');
  var exps = mat(head, 'exps'), rowMax = mat(head, 'rowMax');
  var rowSum = mat(head, 'rowSum'), divisor = decode(v.divisor);
  var masked = !unmasked(i, j);
  var dk = Q.cols;
  var facts = el('dl', {'class': 'facts'});
  function fact(term, value, attrs) {
    facts.appendChild(el('dt', {}, term));
    facts.appendChild(el('dd', attrs || {}, value));
  }
  var scaled = Math.fround(scores.value(i, j) / divisor.value(0, 0));
  var inverse = Math.fround(1 / rowSum.value(0, i));
  var weight = Math.fround(exps.value(i, j) * inverse);
  fact(tr('sum of the products = the raw score (attn_scores)'),
       scores.text(i, j), {id: 'neuron-score'});
  if (masked) {
    fact(tr('causal mask'), tr('the key comes after the query: the ' +
         'score is -inf before softmax, its weight exactly 0'));
  }
  fact(data.scaled ? tr('scaled: score / \u221a{0} ({1})', dk,
                        divisor.text(0, 0))
                   : tr('not scaled (--no-scale): score / 1'),
       f32Text(scaled), {id: 'neuron-scaled'});
  fact(tr('the row\'s largest scaled score (max)'), rowMax.text(0, i),
       {id: 'neuron-max'});
  fact(tr('exp(scaled \u2212 max)'), exps.text(i, j), {id: 'neuron-exp'});
  fact(tr('sum of the row\'s exps'), rowSum.text(0, i), {id: 'neuron-sum'});
  fact(tr('1 / sum'), f32Text(inverse), {id: 'neuron-inverse'});
  fact(tr('exp \u00d7 (1 / sum)'), f32Text(weight),
       {id: 'neuron-product'});
  fact(tr('attention weight (attn_weights)'), weights.text(i, j),
       {id: 'neuron-weight'});
  views.neuron.appendChild(facts);

  var rowTable = softmaxRow(scores, divisor, exps, weights, i, j);
  var caption = el('h2', {}, tr('Softmax of query {0} "{1}": its weights ' +
                                'sum to 1', i, data.queries[i]));
  views.neuron.appendChild(caption);
  views.neuron.appendChild(rowTable);
  views.neuron.appendChild(el('p', {'class': 'summary'},
    tr('Every number is the program\'s float32 value, written as its CSV ' +
    'writes it (the shortest decimal that reads back as the same ' +
    'float). The products, the scaled scores, 1 / sum and ' +
    'exp \u00d7 (1 / sum) are float32 operations done here exactly as ' +
    'the program does them; the score, the exps, the sum and the weight ' +
    'are the program\'s own. The score is summed by the program, in its ' +
    'own order, so a sum done by hand may differ in the last bit.')));
}
