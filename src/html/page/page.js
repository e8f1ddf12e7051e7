/* page.js: the views of an mha-explain --html page, drawn from the JSON in
 * <script id="mha-data"> (src/html_data.c). Each matrix there holds the
 * program's float32 values exactly (base64 of their bytes); every number
 * shown is written by mhaFloatText (floattext.js) as the program's CSV
 * writes it. Arithmetic done here is float32 arithmetic that gives the
 * program's bits: a product or quotient of two floats computed in double
 * and rounded once (Math.fround) is the float32 product or quotient.
 *
 * Head view: queries left, keys right, a line per unmasked pair and head
 * (when there are very many, only a followed token's). Matrix view: each head's weights (or scores) as a
 * heat map in the colours of --plot (a canvas for big heads). Neuron view: one score from q and k,
 * then its softmax row. Steps: the computation step by step, with the
 * --explain notes and the text tables. The DOM contract the tests rely on
 * is in docs/html.md.
 */
(function () {
  'use strict';

  /* performance marks, for measuring how fast the page opens */
  var mark = window.performance && performance.mark ?
    function (name) { performance.mark(name); } : function () {};
  mark('mha-start');
  var data = JSON.parse(document.getElementById('mha-data').textContent);
  mark('mha-parsed');
  var SVG_NS = 'http://www.w3.org/2000/svg';

  /* Above this many lines (heads x pairs) the head view draws only a
   * followed token's lines; above this many cells a head's heat map is a
   * canvas. */
  var LINE_LIMIT = 4000, CELL_LIMIT = 1600;

  var LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

  /* A matrix of the data, {rows, cols, f32}, decoded once: its floats,
   * their bits, and their text as the CSV writes it. */
  function decode(m) {
    if (!m) return null;
    if (m.decoded) return m.decoded;
    var bin = atob(m.f32), n = bin.length;
    var bytes = new Uint8Array(n);
    for (var i = 0; i < n; i++) bytes[i] = bin.charCodeAt(i);
    if (!LITTLE_ENDIAN) {
      for (var k = 0; k < n; k += 4) {
        var b0 = bytes[k], b1 = bytes[k + 1];
        bytes[k] = bytes[k + 3]; bytes[k + 1] = bytes[k + 2];
        bytes[k + 2] = b1; bytes[k + 3] = b0;
      }
    }
    m.decoded = floats(m.rows, m.cols, new Float32Array(bytes.buffer));
    return m.decoded;
  }

  /* rows x cols floats f: their values, their text as the CSV writes it,
   * a row */
  function floats(rows, cols, f) {
    var u = new Uint32Array(f.buffer);
    return {
      rows: rows,
      cols: cols,
      value: function (i, j) { return f[i * cols + j]; },
      text: function (i, j) {
        return mhaFloatText(f[i * cols + j], u[i * cols + j]);
      },
      row: function (i) { return f.subarray(i * cols, (i + 1) * cols); }
    };
  }

  /* head.weights etc., decoded. The weights, unless the data holds them,
   * are exps x (1 / rowSum) in float32, as the program's softmax makes
   * them (html_data.c): a float32 quotient and product, each computed in
   * double and rounded once, which gives the float32 result exactly. */
  function mat(head, name) {
    if (name === 'weights' && !head.weights) {
      if (!head.derivedWeights) {
        var e = decode(head.exps), sums = decode(head.rowSum);
        var f = new Float32Array(e.rows * e.cols);
        for (var i = 0; i < e.rows; i++) {
          var inverse = Math.fround(1 / sums.value(0, i)), row = e.row(i);
          for (var j = 0; j < e.cols; j++)
            f[i * e.cols + j] = Math.fround(row[j] * inverse);
        }
        head.derivedWeights = floats(e.rows, e.cols, f);
      }
      return head.derivedWeights;
    }
    return decode(head[name]);
  }

  /* The float32 x as the CSV writes it. */
  function f32Text(x) {
    var a = new Float32Array([x]);
    return mhaFloatText(a[0], new Uint32Array(a.buffer)[0]);
  }

  /* Heads 0 to 7: Okabe and Ito's colours, safe for colour-blind readers
   * (headColour gives the others). */
  var HEAD_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7',
                      '#E69F00', '#56B4E9', '#000000', '#B8A000'];

  /* The matrix view's colours, as --plot draws them (data.colors,
   * docs/html.md): each head's own range (scale "table"), each row's
   * ("row"), or weights from 0 to 1 ("fixed"); a map of 256 colours for
   * values of one sign and one for both signs (centred on 0 unless the
   * map is not a diverging one); the numbers in the cells and their
   * decimals. */
  var COLORS = data.colors || {scale: 'fixed', numbers: true, decimals: 2,
                               centred: true};

  /* A map of 256 colours from base64 of their red, green and blue
   * bytes (grey without one). */
  function lutOf(b64) {
    var bin = b64 ? atob(b64) : '', out = [];
    for (var k = 0; k < 256; k++) {
      out.push(bin.length === 768 ? [bin.charCodeAt(3 * k),
                                     bin.charCodeAt(3 * k + 1),
                                     bin.charCodeAt(3 * k + 2)] : [k, k, k]);
    }
    return out;
  }

  var state = {
    variant: 0,          /* index into data.variants */
    view: 'head',        /* 'head', 'matrix', 'neuron' or 'steps' */
    step: 0,             /* the step on view in 'steps' */
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

  /* Head h's colour as #RRGGBB. Past the eight fixed ones, hues a golden
   * angle (137.508 degrees) apart, so that each head's hue falls in the
   * widest gap the ones before it left, with three lightnesses and
   * saturations taking turns (all dark enough to see on white): the
   * colours of 24 heads stay at least 14 CIELAB units apart, every
   * head's differs from the others' up to hundreds of heads. */
  function headColour(h) {
    if (h < HEAD_COLOURS.length) return HEAD_COLOURS[h];
    var k = h - HEAD_COLOURS.length;
    return hslColour((35 + k * 137.508) % 360, [0.9, 0.6, 0.75][k % 3],
                     [0.38, 0.5, 0.28][k % 3]);
  }

  /* hue in degrees, saturation and lightness in [0, 1], as #RRGGBB */
  function hslColour(hue, sat, light) {
    var c = (1 - Math.abs(2 * light - 1)) * sat;
    var x = c * (1 - Math.abs((hue / 60) % 2 - 1));
    var m = light - c / 2;
    var rgb = [[c, x, 0], [x, c, 0], [0, c, x], [0, x, c], [x, 0, c],
               [c, 0, x]][Math.floor(hue / 60) % 6];
    return '#' + rgb.map(function (v) {
      return ('0' + Math.round((v + m) * 255).toString(16)).slice(-2);
    }).join('').toUpperCase();
  }

  function hexToRgb(hex) {
    var n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }

  var MAP_ONE = lutOf(COLORS.map), MAP_BOTH = lutOf(COLORS.mapBoth);

  /* The entry of a 256-colour map for t in [0, 1], as matplotlib takes
   * it: floor(256 t), 255 at 1. */
  function lutIndex(t) {
    if (!(t > 0)) return 0;
    return t >= 1 ? 255 : Math.min(255, Math.floor(t * 256));
  }

  /* Whether black text reads better than white on [r, g, b] (as the
   * pictures choose, from the colour's luminance). */
  function darkTextOn(c) {
    return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255 > 0.408;
  }

  /* The page's words in the run's language: data.labels, when present,
   * maps an English text to its translation; missing ones stay English.
   * "{0}", "{1}" in a text stand for the numbers put in. The attributes
   * of the DOM contract (docs/html.md) are never translated. */
  var LABELS = data.labels || {};

  function tr(text) {
    var t = Object.prototype.hasOwnProperty.call(LABELS, text) ?
      LABELS[text] : text;
    var args = Array.prototype.slice.call(arguments, 1);
    return t.replace(/\{(\d)\}/g, function (m, k) {
      return args[Number(k)] !== undefined ? String(args[Number(k)]) : m;
    });
  }

  /* "head 2" in the page's language (a name drawNeuronView can call: its
   * table row variable hides tr there) */
  function headName(h) {
    return tr('head {0}', h);
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
    g.appendChild(el('span', {'class': 'group-name'}, tr(name)));
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
      {value: 'steps', label: 'Step through'}
    ], state.view, function (v) { state.view = v; draw(); }));
    controls.appendChild(buttonGroup('Variant',
      data.variants.map(function (v, i) {
        return {value: i, label: v.name, translate: false};
      }),
      state.variant, function (i) { state.variant = i; draw(); }));
    var heads = el('div', {'class': 'group', id: 'head-toggles',
                           role: 'group', 'aria-label': 'Heads'});
    heads.appendChild(el('span', {'class': 'group-name'}, tr('Heads')));
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
    views.steps = el('section', {id: 'step-view',
                                 'aria-label': 'Step through'});
    app.appendChild(views.head);
    app.appendChild(views.matrix);
    app.appendChild(views.neuron);
    app.appendChild(views.steps);
    views.print = el('section', {id: 'print-view', 'aria-hidden': 'true'});
    app.appendChild(views.print);
    document.addEventListener('keydown', stepKey);
    window.addEventListener('beforeprint', buildPrint);
    window.addEventListener('afterprint', function () {
      clear(views.print);
    });
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
    return label;
  }

  /* ---- head view ---- */

  var TOP = 44;
  var X_QUERY = 330, X_KEY = 620;

  /* rows of 30 pixels; 22 for long sentences */
  function rowHeight() {
    return Math.max(data.queries.length, data.keys.length) > 40 ? 22 : 30;
  }

  function rowY(i) { return TOP + i * rowHeight(); }

  /* The lines of every shown head of v: how many the head view draws. */
  function lineCount(v) {
    var pairs = 0;
    for (var i = 0; i < data.queries.length; i++)
      pairs += data.masked ? Math.min(i + 1, data.keys.length)
                           : data.keys.length;
    var heads = v.heads.filter(function (x, h) { return state.shown[h]; });
    return pairs * heads.length;
  }

  /* heads side by side, 3 px apart (closer when there are many, to stay
   * within a row), so that their lines do not mix */
  function headOffset(v, h) {
    var gap = Math.min(3, (rowHeight() - 6) / Math.max(1, v.heads.length - 1));
    return Math.round(gap * (h - (v.heads.length - 1) / 2));
  }

  function lineElement(v, h, i, j, w) {
    var dy = headOffset(v, h);
    return svgEl('line', {
      x1: X_QUERY + 10, y1: rowY(i) - 5 + dy,
      x2: X_KEY - 10, y2: rowY(j) - 5 + dy,
      stroke: headColour(h), 'stroke-width': 3,
      'stroke-opacity': Math.min(1, Math.max(0, parseFloat(w) || 0)),
      'data-variant': v.name, 'data-head': h,
      'data-query': i, 'data-key': j, 'data-weight': w
    });
  }

  function drawHeadView() {
    var v = variant();
    var rows = Math.max(data.queries.length, data.keys.length);
    var width = 1220, height = TOP + rows * rowHeight() + 10;
    /* too many lines to draw at once: only a followed token's */
    var many = lineCount(v) > LINE_LIMIT;
    var box = el('div', {'class': 'heads-box'});
    var s = svgEl('svg', {'class': 'heads', width: width, height: height,
                          viewBox: '0 0 ' + width + ' ' + height,
                          role: 'img',
                          'aria-label': 'attention lines of ' + v.name});
    box.appendChild(s);
    s.appendChild(svgEl('text', {'class': 'column-title', x: X_QUERY,
                                 y: 18, 'text-anchor': 'end'},
                        tr('queries')));
    s.appendChild(svgEl('text', {'class': 'column-title', x: X_KEY, y: 18},
                        data.cross ? tr('keys (--kv)') : tr('keys')));
    var lines = svgEl('g', {'class': 'lines'});
    s.appendChild(lines);
    if (!many) {
      v.heads.forEach(function (head, h) {
        var weights = mat(head, 'weights');
        for (var i = 0; i < data.queries.length; i++)
          for (var j = 0; j < data.keys.length; j++)
            if (unmasked(i, j))
              lines.appendChild(lineElement(v, h, i, j, weights.text(i, j)));
      });
    }
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
    if (many) {
      views.head.appendChild(el('p', {'class': 'notice', id: 'head-notice'},
        tr('This run has {0} lines, more than {1} can be drawn at once: ' +
           'hover or focus (Tab) a token to draw its lines.', lineCount(v),
           LINE_LIMIT)));
    }
    views.head.appendChild(box);
    views.head.appendChild(el('p', {'class': 'summary hint'},
      tr('Hover or focus (Tab) a token to follow its lines; its weights ' +
         'appear beside the other column, one per shown head.')));

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
      var n = side === 'query' ? data.keys.length : data.queries.length;
      if (many) {
        clear(lines);
        v.heads.forEach(function (head, h) {
          if (!state.shown[h]) return;
          var weights = mat(head, 'weights');
          for (var j = 0; j < n; j++) {
            var q = side === 'query' ? i : j, k = side === 'query' ? j : i;
            if (unmasked(q, k))
              lines.appendChild(lineElement(v, h, q, k, weights.text(q, k)));
          }
        });
      } else {
        showLines(function (ln) {
          return Number(ln.getAttribute('data-' + side)) === i;
        });
      }
      s.querySelectorAll('.token').forEach(function (t) {
        t.classList.toggle('active',
          t.getAttribute('data-side') === side &&
          Number(t.getAttribute('data-token')) === i);
      });
      var words = side === 'query' ? data.queries : data.keys;
      var texts = [];
      weightTexts[other].forEach(function (wt, j) {
        clear(wt);
        var q = side === 'query' ? i : j, k = side === 'query' ? j : i;
        var parts = [];
        v.heads.forEach(function (head, h) {
          if (!state.shown[h] || !unmasked(q, k)) return;
          var w = mat(head, 'weights').text(q, k);
          wt.appendChild(svgEl('tspan', {fill: headColour(h), dx: 8}, w));
          parts.push(headName(h) + ' ' + w);
        });
        if (parts.length)
          texts.push((side === 'query' ? data.keys : data.queries)[j] +
                     ': ' + parts.join(', '));
      });
      readout.textContent = side === 'query'
        ? tr('query {0} "{1}" \u2192 {2}', i, words[i], texts.join('; '))
        : tr('key {0} "{1}" \u2192 {2}', i, words[i], texts.join('; '));
    }

    function unfollow() {
      if (many) {
        clear(lines);
      } else {
        showLines(function () { return true; });
      }
      s.querySelectorAll('.token.active').forEach(function (t) {
        t.classList.remove('active');
      });
      weightTexts.query.concat(weightTexts.key).forEach(clear);
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

  /* The smallest and largest unmasked finite values of rows [r0, r1),
   * or null. */
  function valueRange(m, r0, r1) {
    var lo = Infinity, hi = -Infinity;
    for (var i = r0; i < r1; i++) {
      var row = m.row(i);
      for (var j = 0; j < m.cols; j++) {
        var x = row[j];
        if (unmasked(i, j) && isFinite(x)) {
          if (x < lo) lo = x;
          if (x > hi) hi = x;
        }
      }
    }
    return lo <= hi ? [lo, hi] : null;
  }

  /* The ends for a range (or null): centred on 0 for both signs on a
   * diverging map; a single value at the top of the scale. */
  function ends(r, both) {
    if (!r) return [0, 1];
    var lo = r[0], hi = r[1];
    if (both && COLORS.centred) {
      var top = Math.max(-lo, hi);
      lo = -top;
      hi = top;
    }
    if (hi === lo) lo = hi - (Math.abs(hi) > 0 ? Math.abs(hi) : 1);
    return [lo, hi];
  }

  /* A head's colour scale (COLORS): scale.at(i, x) is the map's entry for
   * value x of row i, scale.lut the map. */
  function range(m, kind) {
    var whole = valueRange(m, 0, m.rows);
    if (kind === 'weights' && COLORS.scale === 'fixed') whole = [0, 1];
    var both = !!whole && whole[0] < 0 && whole[1] > 0;
    var rows = [];
    for (var i = 0; i < m.rows; i++) {
      rows.push(COLORS.scale === 'row' ? ends(valueRange(m, i, i + 1), both)
                                       : ends(whole, both));
    }
    return {
      lut: both ? MAP_BOTH : MAP_ONE,
      at: function (i, x) {
        var lo = rows[i][0], hi = rows[i][1];
        return lutIndex(hi > lo ? (x - lo) / (hi - lo) : 1);
      }
    };
  }

  function cellText(v, h, i, j, kind, value) {
    return tr('{0} head {1}, query {2} "{3}", key {4} "{5}": {6} = {7}',
              v.name, h, i, data.queries[i], j, data.keys[j], 'attn_' + kind,
              value);
  }

  /* A small head: a table, a focusable cell per value. */
  function matrixTable(v, h, m, kind, r) {
    var table = el('table', {'class': 'grid'});
    var thead = el('thead'), hr = el('tr');
    hr.appendChild(el('th', {}, tr('query \\ key')));
    data.keys.forEach(function (k) {
      hr.appendChild(el('th', {scope: 'col'}, k));
    });
    thead.appendChild(hr);
    table.appendChild(thead);
    var tbody = el('tbody');
    for (var i = 0; i < m.rows; i++) {
      var row = el('tr');
      row.appendChild(el('th', {scope: 'row'}, data.queries[i]));
      for (var j = 0; j < m.cols; j++)
        row.appendChild(matrixCell(v, h, m, kind, r, i, j));
      tbody.appendChild(row);
    }
    table.appendChild(tbody);
    return table;
  }

  function matrixCell(v, h, m, kind, r, i, j) {
    var value = m.text(i, j), x = m.value(i, j);
    var td = el('td', {'class': 'cell', tabindex: 0,
                       'data-variant': v.name, 'data-head': h,
                       'data-query': i, 'data-key': j,
                       'data-value': value});
    var text = cellText(v, h, i, j, kind, value);
    td.setAttribute('aria-label', text);
    if (!unmasked(i, j)) {
      td.classList.add('masked');
      td.textContent = '\u2013';
    } else {
      var c = r.lut[r.at(i, x)];
      td.style.background = 'rgb(' + c.join(',') + ')';
      td.style.color = darkTextOn(c) ? '#000' : '#fff';
      td.textContent = !COLORS.numbers ? '' :
        isFinite(x) ? x.toFixed(COLORS.decimals) : value;
    }
    function show() { readout.textContent = text; }
    td.addEventListener('mouseenter', show);
    td.addEventListener('focus', show);
    return td;
  }

  /* [r, g, b] as one opaque pixel of a Uint32Array over ImageData. */
  function rgbaWord(c) {
    var b = new Uint8Array([c[0], c[1], c[2], 255]);
    return new Uint32Array(b.buffer)[0];
  }


  /* A big head: a canvas, a few pixels per value; the pointer or the
   * arrow keys pick a value, whose exact text goes to the readout. */
  function matrixCanvas(v, h, m, kind, r) {
    var px = Math.max(1, Math.min(12, Math.floor(560 / Math.max(m.rows,
                                                                m.cols))));
    var wrap = el('div', {'class': 'heat-wrap'});
    var canvas = el('canvas', {'class': 'heat', tabindex: 0,
                               width: m.cols * px, height: m.rows * px,
                               'data-variant': v.name, 'data-head': h,
                               'data-kind': kind,
                               role: 'img',
                               'aria-label': tr('{0} head {1}: {2}, {3} x ' +
                                 '{4}; arrow keys move a cursor whose ' +
                                 'value is written above', v.name, h,
                                 'attn_' + kind, m.rows, m.cols)});
    var ctx = canvas.getContext('2d');
    var image = ctx.createImageData(canvas.width, canvas.height);
    var pixels = new Uint32Array(image.data.buffer), width = canvas.width;
    var lut = r.lut.map(rgbaWord), grey = rgbaWord([221, 221, 221]);
    for (var i = 0; i < m.rows; i++) {
      var row = m.row(i);
      for (var j = 0; j < m.cols; j++) {
        var c = !unmasked(i, j) ? grey : lut[r.at(i, row[j])];
        for (var y = i * px; y < (i + 1) * px; y++)
          for (var x = j * px; x < (j + 1) * px; x++)
            pixels[y * width + x] = c;
      }
    }
    ctx.putImageData(image, 0, 0);
    var cursor = el('div', {'class': 'heat-cursor', hidden: ''});
    var at = {i: 0, j: 0};
    function pick(i, j) {
      at.i = Math.max(0, Math.min(m.rows - 1, i));
      at.j = Math.max(0, Math.min(m.cols - 1, j));
      cursor.hidden = false;
      cursor.style.left = (at.j * px - 2) + 'px';
      cursor.style.top = (at.i * px - 2) + 'px';
      cursor.style.width = (px + 4) + 'px';
      cursor.style.height = (px + 4) + 'px';
      canvas.setAttribute('data-query', at.i);
      canvas.setAttribute('data-key', at.j);
      canvas.setAttribute('data-value', m.text(at.i, at.j));
      readout.textContent = cellText(v, h, at.i, at.j, kind,
                                     m.text(at.i, at.j));
    }
    canvas.addEventListener('mousemove', function (e) {
      var box = canvas.getBoundingClientRect();
      var scale = canvas.width / box.width;
      pick(Math.floor((e.clientY - box.top) * scale / px),
           Math.floor((e.clientX - box.left) * scale / px));
    });
    canvas.addEventListener('focus', function () { pick(at.i, at.j); });
    canvas.addEventListener('blur', function () { cursor.hidden = true; });
    canvas.addEventListener('keydown', function (e) {
      var moves = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1],
                   ArrowRight: [0, 1]};
      var mv = moves[e.key];
      if (!mv) return;
      e.preventDefault();
      pick(at.i + mv[0], at.j + mv[1]);
    });
    wrap.appendChild(canvas);
    wrap.appendChild(cursor);
    return wrap;
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
    var big = false;
    v.heads.forEach(function (head, h) {
      if (!state.shown[h]) return;
      var m = mat(head, kind);
      if (!m) return;
      var r = range(m, kind);
      var fig = el('figure', {'class': 'matrix', 'data-head': h});
      var cap = el('figcaption', {}, '');
      cap.appendChild(el('span', {'class': 'swatch',
                                  style: 'background:' + headColour(h)}));
      cap.appendChild(document.createTextNode(' ' + v.name + ', ' +
                                              headName(h) + ': attn_' + kind));
      fig.appendChild(cap);
      if (m.rows * m.cols <= CELL_LIMIT) {
        fig.appendChild(matrixTable(v, h, m, kind, r));
      } else {
        big = true;
        fig.appendChild(matrixCanvas(v, h, m, kind, r));
      }
      box.appendChild(fig);
    });
    views.matrix.appendChild(box);
    var legend = el('div', {'class': 'legend'});
    var stops = VIRIDIS.map(function (c, i) {
      return c + ' ' + (i * 10) + '%';
    });
    legend.appendChild(el('span', {}, kind === 'weights' ? '0' :
                                      tr('lowest score of the head')));
    legend.appendChild(el('span', {'class': 'bar', style:
      'background:linear-gradient(to right,' + stops.join(',') + ')'}));
    legend.appendChild(el('span', {}, kind === 'weights' ? '1' :
                                      tr('highest')));
    views.matrix.appendChild(legend);
    views.matrix.appendChild(el('p', {'class': 'summary hint'}, big ?
      tr('Queries down, keys across; grey: masked. Point at a value, or ' +
         'focus a map (Tab) and move with the arrow keys, for its exact ' +
         'value.')
      : tr('Cells show two decimals; hover or focus a cell for its exact ' +
           'value.')));
  }

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
  function drawNeuronView() {
    var v = variant();
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
    for (var d = 0; d < Q.cols; d++) {
      var row = el('tr');
      row.appendChild(el('th', {scope: 'row'}, 'dim' + d));
      var product = Math.fround(Q.value(i, d) * K.value(j, d));
      [Q.text(i, d), K.text(j, d), f32Text(product)].forEach(function (t, c) {
        row.appendChild(el('td', {'class': 'num', 'data-col':
                                  ['q', 'k', 'product'][c], 'data-dim': d},
                           t));
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

    /* the whole softmax row, the chosen key marked */
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

  /* ---- step through ---- */

  var STEP_TITLES = {
    tokens: 'Tokens', embeddings: 'Embeddings',
    parameters: 'The module and its parameters',
    qkv: 'Queries, keys and values', scores: 'Scores',
    weights: 'Attention weights', context: 'Context',
    concat: 'Concatenation', output: 'Output',
    norm1: 'Add and norm', ffn: 'Feed-forward', norm2: 'Add and norm again'
  };

  function stepTitle(step) {
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

  /* Left and right arrows step while the steps are on view (not while a
   * control that uses the arrows has the focus). */
  function stepKey(e) {
    if (state.view !== 'steps' || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target && e.target.tagName;
    if (t === 'SELECT' || t === 'INPUT' || t === 'TEXTAREA') return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      var refocus = document.activeElement &&
                    document.activeElement.getAttribute('data-step');
      goStep(state.step + (e.key === 'ArrowRight' ? 1 : -1));
      if (refocus) {
        var b = views.steps.querySelector('[data-step=' + refocus + ']');
        if (b && !b.disabled) b.focus();
      }
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
                       'step ' + (state.step + 1) + ' of ' + all.length +
                       ' (\u2190 and \u2192 keys)'));
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
    views.steps.appendChild(el('pre', {'class': 'step-text', id: 'step-text',
                                       tabindex: 0}, step.text));
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
                 neuron: 'Neuron view', steps: 'Step through'};
    var which = state.view === 'matrix' ? ' (attn_' + state.matrix + ')'
      : state.view === 'neuron' ? tr(' (head {0}, query {1}, key {2})',
                                     state.neuron.head, state.neuron.query,
                                     state.neuron.key)
      : '';
    views.print.appendChild(el('p', {'class': 'print-what'},
      tr('Above: the {0} of {1}{2}. Below: every step of {1}.',
         tr(names[state.view]).toLowerCase(), variant().name, which)));
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

  /* ---- drawing ---- */

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function draw() {
    clear(views.head);
    clear(views.matrix);
    clear(views.neuron);
    clear(views.steps);
    readout.textContent = '';
    views.head.hidden = state.view !== 'head';
    views.matrix.hidden = state.view !== 'matrix';
    views.neuron.hidden = state.view !== 'neuron';
    views.steps.hidden = state.view !== 'steps';
    document.querySelectorAll('#head-toggles input').forEach(function (b) {
      var h = Number(b.getAttribute('data-head'));
      b.disabled = h >= variant().heads.length;
    });
    if (state.view === 'head') drawHeadView();
    else if (state.view === 'matrix') drawMatrixView();
    else if (state.view === 'neuron') drawNeuronView();
    else drawStepView();
  }

  if (buildFrame()) draw();
  mark('mha-drawn');
})();
