/* page.js: the views of an mha-explain --html page, drawn from the JSON in
 * <script id="mha-data">. Every number shown is the string the program
 * wrote (the same text as its CSV output); numbers are parsed only to
 * draw (line opacity, cell colour).
 *
 * Head view: queries left, keys right, a line per unmasked pair and head.
 * Matrix view: each head's weights (or scores) as a viridis heat map.
 * The DOM contract the tests rely on is in docs/html.md.
 */
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('mha-data').textContent);
  var SVG_NS = 'http://www.w3.org/2000/svg';

  /* Okabe-Ito colours, safe for colour-blind readers; cycled past 8. */
  var HEAD_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7',
                      '#E69F00', '#56B4E9', '#000000', '#B8A000'];

  /* viridis at 0, 0.1, ..., 1 */
  var VIRIDIS = ['#440154', '#482475', '#414487', '#355f8d', '#2a788e',
                 '#21918c', '#22a884', '#44bf70', '#7ad151', '#bddf26',
                 '#fde725'];

  var state = {
    variant: 0,          /* index into data.variants */
    view: 'head',        /* 'head' or 'matrix' */
    matrix: 'weights',   /* 'weights' or 'scores' */
    neuron: {head: 0, query: 0, key: 0},
    shown: []            /* shown[h]: head h is drawn */
  };

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svgEl(tag, attrs, text) {
    var e = document.createElementNS(SVG_NS, tag);
    setAttrs(e, attrs);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function setAttrs(e, attrs) {
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k))
        e.setAttribute(k, attrs[k]);
    }
  }

  function headColour(h) {
    return HEAD_COLOURS[h % HEAD_COLOURS.length];
  }

  function hexToRgb(hex) {
    var n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }

  /* The viridis colour of t in [0, 1], and whether text on it is dark. */
  function viridis(t) {
    t = Math.min(1, Math.max(0, t));
    var x = t * (VIRIDIS.length - 1);
    var i = Math.min(VIRIDIS.length - 2, Math.floor(x));
    var f = x - i;
    var a = hexToRgb(VIRIDIS[i]), b = hexToRgb(VIRIDIS[i + 1]);
    var c = [0, 1, 2].map(function (k) {
      return Math.round(a[k] + (b[k] - a[k]) * f);
    });
    return {css: 'rgb(' + c.join(',') + ')', darkText: t > 0.55};
  }

  /* A query may see key j: always, unless the causal mask hides j > i. */
  function unmasked(i, j) {
    return !data.masked || j <= i;
  }

  function variant() {
    return data.variants[state.variant];
  }

  /* ---- page frame ---- */

  var app = document.getElementById('app');
  var readout;
  var views = {};

  function pressed(button, on) {
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
  }

  function buttonGroup(name, items, current, onPick) {
    var g = el('div', {'class': 'group', role: 'group', 'aria-label': name});
    g.appendChild(el('span', {'class': 'group-name'}, name));
    var buttons = items.map(function (item) {
      var b = el('button', {type: 'button', 'data-value': item.value},
                 item.label);
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

  function summary() {
    var v = data.variants[0];
    var heads = Math.max.apply(null, data.variants.map(function (x) {
      return x.heads.length;
    }).concat([0]));
    var parts = [data.queries.length + ' tokens'];
    if (data.cross) parts.push(data.keys.length + ' key/value tokens (--kv)');
    var counts = data.variants.map(function (x) {
      return x.name + ' ' + x.heads.length;
    });
    var same = data.variants.every(function (x) {
      return x.heads.length === heads;
    });
    parts.push(same ? heads + (heads === 1 ? ' head' : ' heads')
                    : 'heads: ' + counts.join(', '));
    parts.push(data.masked ? 'causal mask' : 'no mask');
    parts.push(data.scaled ? 'scores scaled by 1/\u221ahead_dim'
                           : 'scores not scaled');
    return parts.join(', ');
  }

  function buildFrame() {
    app.appendChild(el('h1', {}, 'mha-explain: ' + data.queries.join(' ')));
    app.appendChild(el('p', {'class': 'summary'}, summary()));
    if (data.variants.length === 0) {
      app.appendChild(el('p', {}, 'This run has no attention weights.'));
      return false;
    }
    var controls = el('div', {'class': 'controls'});
    controls.appendChild(buttonGroup('View', [
      {value: 'head', label: 'Head view'},
      {value: 'matrix', label: 'Matrix view'},
      {value: 'neuron', label: 'Neuron view'}
    ], state.view, function (v) { state.view = v; draw(); }));
    controls.appendChild(buttonGroup('Variant',
      data.variants.map(function (v, i) { return {value: i, label: v.name}; }),
      state.variant, function (i) { state.variant = i; draw(); }));
    var heads = el('div', {'class': 'group', id: 'head-toggles',
                           role: 'group', 'aria-label': 'Heads'});
    heads.appendChild(el('span', {'class': 'group-name'}, 'Heads'));
    var nHeads = Math.max.apply(null, data.variants.map(function (v) {
      return v.heads.length;
    }));
    for (var h = 0; h < nHeads; h++) {
      state.shown.push(true);
      heads.appendChild(headToggle(h));
    }
    controls.appendChild(heads);
    app.appendChild(controls);
    readout = el('p', {'class': 'readout', id: 'readout',
                       'aria-live': 'polite'});
    app.appendChild(readout);
    views.head = el('section', {id: 'head-view', 'aria-label': 'Head view'});
    views.matrix = el('section', {id: 'matrix-view',
                                  'aria-label': 'Matrix view'});
    views.neuron = el('section', {id: 'neuron-view',
                                  'aria-label': 'Neuron view'});
    app.appendChild(views.head);
    app.appendChild(views.matrix);
    app.appendChild(views.neuron);
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
    label.appendChild(document.createTextNode('head ' + h));
    return label;
  }

  /* ---- head view ---- */

  var ROW = 30, TOP = 44;
  var X_QUERY = 330, X_KEY = 620, X_LEFT_WEIGHTS = 10, X_RIGHT_WEIGHTS = 760;

  function rowY(i) { return TOP + i * ROW; }

  function drawHeadView() {
    var v = variant();
    var rows = Math.max(data.queries.length, data.keys.length);
    var width = 1220, height = TOP + rows * ROW + 10;
    var s = svgEl('svg', {'class': 'heads', width: width, height: height,
                          viewBox: '0 0 ' + width + ' ' + height,
                          role: 'img',
                          'aria-label': 'attention lines of ' + v.name});
    s.appendChild(svgEl('text', {'class': 'column-title', x: X_QUERY,
                                 y: 18, 'text-anchor': 'end'}, 'queries'));
    s.appendChild(svgEl('text', {'class': 'column-title', x: X_KEY, y: 18},
                        data.cross ? 'keys (--kv)' : 'keys'));
    var lines = svgEl('g', {'class': 'lines'});
    s.appendChild(lines);
    v.heads.forEach(function (head, h) {
      /* heads side by side, 3 px apart, so that their lines do not mix */
      var dy = Math.round(3 * (h - (v.heads.length - 1) / 2));
      for (var i = 0; i < data.queries.length; i++) {
        for (var j = 0; j < data.keys.length; j++) {
          if (!unmasked(i, j)) continue;
          var w = head.weights[i][j];
          var line = svgEl('line', {
            x1: X_QUERY + 10, y1: rowY(i) - 5 + dy,
            x2: X_KEY - 10, y2: rowY(j) - 5 + dy,
            stroke: headColour(h), 'stroke-width': 3,
            'stroke-opacity': Math.min(1, Math.max(0, parseFloat(w) || 0)),
            'data-variant': v.name, 'data-head': h,
            'data-query': i, 'data-key': j, 'data-weight': w
          });
          lines.appendChild(line);
        }
      }
    });
    var weightTexts = {query: [], key: []};
    function tokenColumn(side, words, x, anchor, weightX) {
      words.forEach(function (word, i) {
        var t = svgEl('text', {'class': 'token', x: x, y: rowY(i),
                               'text-anchor': anchor, tabindex: 0,
                               'data-side': side, 'data-token': i,
                               'aria-label': side + ' ' + i + ': ' + word},
                      word);
        t.addEventListener('mouseenter', function () { follow(side, i); });
        t.addEventListener('focus', function () { follow(side, i); });
        t.addEventListener('mouseleave', unfollow);
        t.addEventListener('blur', unfollow);
        s.appendChild(t);
        var wt = svgEl('text', {'class': 'weights', x: weightX, y: rowY(i),
                                'text-anchor': anchor,
                                'data-weights-of': side});
        weightTexts[side].push(wt);
        s.appendChild(wt);
      });
    }
    tokenColumn('query', data.queries, X_QUERY, 'end',
                X_QUERY - 10 - 13 * maxLength(data.queries));
    tokenColumn('key', data.keys, X_KEY, 'start',
                X_KEY + 10 + 13 * maxLength(data.keys));
    views.head.appendChild(s);
    views.head.appendChild(el('p', {'class': 'summary'},
      'Hover or focus (Tab) a token to follow its lines; its weights ' +
      'appear beside the other column, one per shown head.'));

    function showLines(test) {
      var all = lines.childNodes;
      for (var k = 0; k < all.length; k++) {
        var ln = all[k];
        var h = Number(ln.getAttribute('data-head'));
        var on = state.shown[h] && test(ln);
        ln.style.display = on ? '' : 'none';
      }
    }

    /* Token i of side: only its lines; its weights beside the others. */
    function follow(side, i) {
      var other = side === 'query' ? 'key' : 'query';
      showLines(function (ln) {
        return Number(ln.getAttribute('data-' + side)) === i;
      });
      s.querySelectorAll('.token').forEach(function (t) {
        t.classList.toggle('active',
          t.getAttribute('data-side') === side &&
          Number(t.getAttribute('data-token')) === i);
      });
      var words = side === 'query' ? data.queries : data.keys;
      var lines = [];
      weightTexts[other].forEach(function (wt, j) {
        while (wt.firstChild) wt.removeChild(wt.firstChild);
        var q = side === 'query' ? i : j, k = side === 'query' ? j : i;
        var parts = [];
        v.heads.forEach(function (head, h) {
          if (!state.shown[h] || !unmasked(q, k)) return;
          var w = head.weights[q][k];
          wt.appendChild(svgEl('tspan', {fill: headColour(h), dx: 8}, w));
          parts.push('head ' + h + ' ' + w);
        });
        if (parts.length)
          lines.push((side === 'query' ? data.keys : data.queries)[j] +
                     ': ' + parts.join(', '));
      });
      readout.textContent = side + ' ' + i + ' "' + words[i] + '" \u2192 ' +
                            lines.join('; ');
    }

    function unfollow() {
      showLines(function () { return true; });
      s.querySelectorAll('.token.active').forEach(function (t) {
        t.classList.remove('active');
      });
      weightTexts.query.concat(weightTexts.key).forEach(function (wt) {
        while (wt.firstChild) wt.removeChild(wt.firstChild);
      });
      readout.textContent = '';
    }

    unfollow();
  }

  function maxLength(words) {
    return Math.min(12, Math.max.apply(null, words.map(function (w) {
      return w.length;
    })));
  }

  /* ---- matrix view ---- */

  /* The range the colours span: weights 0..1; scores a head's finite
   * minimum..maximum. */
  function range(m, kind) {
    if (kind === 'weights') return [0, 1];
    var lo = Infinity, hi = -Infinity;
    m.forEach(function (row) {
      row.forEach(function (s) {
        var x = parseFloat(s);
        if (isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
      });
    });
    if (!(lo < hi)) return [lo - 1, lo + 1];
    return [lo, hi];
  }

  function drawMatrixView() {
    var v = variant();
    var kind = state.matrix;
    var bar = buttonGroup('Show', [
      {value: 'weights', label: 'attn_weights'},
      {value: 'scores', label: 'attn_scores'}
    ], kind, function (k) { state.matrix = k; draw(); });
    views.matrix.appendChild(bar);
    var box = el('div', {'class': 'matrices'});
    v.heads.forEach(function (head, h) {
      if (!state.shown[h]) return;
      var m = kind === 'weights' ? head.weights : head.scores;
      if (!m) return;
      var r = range(m, kind);
      var fig = el('figure', {'class': 'matrix', 'data-head': h});
      var cap = el('figcaption', {}, '');
      cap.appendChild(el('span', {'class': 'swatch',
                                  style: 'background:' + headColour(h)}));
      cap.appendChild(document.createTextNode(' ' + v.name + ', head ' + h +
                                              ': ' + 'attn_' + kind));
      fig.appendChild(cap);
      var table = el('table', {'class': 'grid'});
      var thead = el('thead'), tr = el('tr');
      tr.appendChild(el('th', {}, 'query \\ key'));
      data.keys.forEach(function (k) {
        tr.appendChild(el('th', {scope: 'col'}, k));
      });
      thead.appendChild(tr);
      table.appendChild(thead);
      var tbody = el('tbody');
      m.forEach(function (row, i) {
        var tr = el('tr');
        tr.appendChild(el('th', {scope: 'row'}, data.queries[i]));
        row.forEach(function (value, j) {
          var x = parseFloat(value);
          var td = el('td', {'class': 'cell', tabindex: 0,
                             'data-variant': v.name, 'data-head': h,
                             'data-query': i, 'data-key': j,
                             'data-value': value});
          var text = v.name + ' head ' + h + ', query ' + i + ' "' +
                     data.queries[i] + '", key ' + j + ' "' + data.keys[j] +
                     '": attn_' + kind + ' = ' + value;
          td.setAttribute('aria-label', text);
          if (!unmasked(i, j)) {
            td.classList.add('masked');
            td.textContent = '\u2013';
          } else {
            var c = viridis((x - r[0]) / (r[1] - r[0]));
            td.style.background = c.css;
            td.style.color = c.darkText ? '#000' : '#fff';
            td.textContent = isFinite(x) ? x.toFixed(2) : value;
          }
          function show() { readout.textContent = text; }
          td.addEventListener('mouseenter', show);
          td.addEventListener('focus', show);
          tr.appendChild(td);
        });
        tbody.appendChild(tr);
      });
      table.appendChild(tbody);
      fig.appendChild(table);
      box.appendChild(fig);
    });
    views.matrix.appendChild(box);
    var legend = el('div', {'class': 'legend'});
    var stops = VIRIDIS.map(function (c, i) {
      return c + ' ' + (i * 10) + '%';
    });
    legend.appendChild(el('span', {}, kind === 'weights' ? '0' :
                                      'lowest score of the head'));
    legend.appendChild(el('span', {'class': 'bar', style:
      'background:linear-gradient(to right,' + stops.join(',') + ')'}));
    legend.appendChild(el('span', {}, kind === 'weights' ? '1' :
                                      'highest'));
    views.matrix.appendChild(legend);
    views.matrix.appendChild(el('p', {'class': 'summary'},
      'Cells show two decimals; hover or focus a cell for its exact value.'));
  }

  /* ---- neuron view ---- */

  function picker(name, options, current, onPick) {
    var label = el('label', {'class': 'group'});
    label.appendChild(el('span', {'class': 'group-name'}, name));
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

  /* The shortest decimal that reads back as the float32 x. */
  function float32Text(x) {
    if (!isFinite(x) || x === Math.trunc(x)) return String(x);
    for (var d = 1; d < 9; d++) {
      var t = x.toPrecision(d);
      if (Math.fround(Number(t)) === x) return String(Number(t));
    }
    return String(Number(x.toPrecision(9)));
  }

  /* One score made from a query and a key vector: the products are
   * float32 products (Math.fround), as the program multiplies; the sum
   * and the weight are the program's own values. */
  function drawNeuronView() {
    var v = variant();
    var n = state.neuron;
    if (n.head >= v.heads.length) n.head = 0;
    if (!data.queries[n.query]) n.query = 0;
    if (!data.keys[n.key]) n.key = 0;
    var controls = el('div', {'class': 'controls'});
    controls.appendChild(picker('Head', v.heads.map(function (h, i) {
      return 'head ' + i;
    }), n.head, function (h) { n.head = h; draw(); }));
    controls.appendChild(picker('Query', data.queries.map(function (w, i) {
      return i + ': ' + w;
    }), n.query, function (i) { n.query = i; draw(); }));
    controls.appendChild(picker('Key', data.keys.map(function (w, i) {
      return i + ': ' + w;
    }), n.key, function (j) { n.key = j; draw(); }));
    views.neuron.appendChild(controls);
    var head = v.heads[n.head];
    if (!head.queries || !head.keys) return;
    var q = head.queries[n.query], k = head.keys[n.key];
    var table = el('table', {'class': 'grid neuron'});
    var thead = el('thead'), tr = el('tr');
    ['', 'query q', 'key k', 'q \u00d7 k'].forEach(function (t) {
      tr.appendChild(el('th', {scope: 'col'}, t));
    });
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = el('tbody');
    q.forEach(function (qd, d) {
      var row = el('tr');
      row.appendChild(el('th', {scope: 'row'}, 'dim' + d));
      var product = Math.fround(Math.fround(parseFloat(qd)) *
                                Math.fround(parseFloat(k[d])));
      [qd, k[d], float32Text(product)].forEach(function (t, c) {
        row.appendChild(el('td', {'class': 'num', 'data-col':
                                  ['q', 'k', 'product'][c], 'data-dim': d},
                           t));
      });
      tbody.appendChild(row);
    });
    table.appendChild(tbody);
    views.neuron.appendChild(table);
    var masked = !unmasked(n.query, n.key);
    var dk = q.length;
    var facts = el('dl', {'class': 'facts'});
    function fact(term, value, attrs) {
      facts.appendChild(el('dt', {}, term));
      facts.appendChild(el('dd', attrs || {}, value));
    }
    fact('sum of the products = the raw score (attn_scores)',
         head.scores[n.query][n.key], {id: 'neuron-score'});
    fact(data.scaled ? 'scaled: score / \u221a' + dk + ' (head_dim ' + dk +
                       '), then softmax over the row'
                     : 'not scaled (--no-scale); softmax over the row',
         masked ? 'masked: the causal mask sets it to -inf before softmax'
                : 'its place in the row, below');
    fact('attention weight (attn_weights)', head.weights[n.query][n.key],
         {id: 'neuron-weight'});
    views.neuron.appendChild(facts);
    var rowText = data.keys.map(function (w, j) {
      return (j === n.key ? '[' : '') + w + ' ' + head.weights[n.query][j] +
             (j === n.key ? ']' : '');
    });
    views.neuron.appendChild(el('p', {'class': 'readout-row'},
      'Weights of query ' + n.query + ' "' + data.queries[n.query] +
      '" (they sum to 1): ' + rowText.join(', ')));
    views.neuron.appendChild(el('p', {'class': 'summary'},
      'The products are float32 products, written as the shortest ' +
      'decimal that reads back as the same float32; ' +
      'the score and the weight are the program\'s own values, exactly as ' +
      'the CSV writes them. The score is summed by the program, in its own ' +
      'order.'));
  }

  /* ---- drawing ---- */

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function draw() {
    clear(views.head);
    clear(views.matrix);
    clear(views.neuron);
    readout.textContent = '';
    views.head.hidden = state.view !== 'head';
    views.matrix.hidden = state.view !== 'matrix';
    views.neuron.hidden = state.view !== 'neuron';
    document.querySelectorAll('#head-toggles input').forEach(function (b) {
      var h = Number(b.getAttribute('data-head'));
      b.disabled = h >= variant().heads.length;
    });
    if (state.view === 'head') drawHeadView();
    else if (state.view === 'matrix') drawMatrixView();
    else drawNeuronView();
  }

  if (buildFrame()) draw();
})();
