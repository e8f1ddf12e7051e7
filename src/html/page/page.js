/* page.js: the views of an mha-explain --html page, drawn from the JSON in
 * <script id="mha-data"> (src/html/html_data.c). Each matrix there holds the
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
    view: 'head',        /* 'head', 'matrix', 'neuron', 'steps',
                            'model' or 'training' (a trained run) */
    step: 0,             /* the step on view in 'steps' */
    matrix: 'weights',   /* 'weights' or 'scores' */
    neuron: null,        /* {head, query, key}; null: an informative
                            pair, chosen when the view first opens */
    pinned: null,        /* {side, i}: the head view's clicked token */
    shown: [],           /* shown[h]: head h is drawn */
    kept: null           /* the training view's kept step (an index into
                            training.steps); null: the last */
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
  var listening = false; /* the document's listeners are added */

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
    ].concat(hasTraining() ? [{value: 'training', label: 'Training'}] : []),
    state.view, function (v) { state.view = v; draw(); }));
    controls.appendChild(buttonGroup(variantGroup(),
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
    views.model = el('section', {id: 'model-view', 'aria-label': 'Model view'});
    app.appendChild(views.model);
    views.training = el('section', {id: 'training-view',
                                    'aria-label': 'Training'});
    app.appendChild(views.training);
    views.print = el('section', {id: 'print-view', 'aria-hidden': 'true'});
    app.appendChild(views.print);
    if (!listening) {
      listening = true;
      document.addEventListener('keydown', stepKey);
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

  /* Double-clicking a line shows only its head (again: every head). */
  function soloOnDoubleClick(box) {
    box.addEventListener('dblclick', function (e) {
      var h = e.target.getAttribute && e.target.getAttribute('data-head');
      if (h === null || h === undefined) return;
      e.preventDefault();
      soloHead(Number(h));
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
    var tokens = {query: [], key: []};
    function tokenColumn(side, words, x, anchor, weightX) {
      words.forEach(function (word, i) {
        var t = svgEl('text', {'class': 'token', x: x, y: rowY(i),
                               'text-anchor': anchor, tabindex: -1,
                               'data-side': side, 'data-token': i,
                               'data-grid-row': i,
                               'data-grid-col': side === 'query' ? 0 : 1,
                               'aria-label': side + ' ' + i + ': ' + word},
                      word);
        t.addEventListener('mouseenter', function () { follow(side, i); });
        t.addEventListener('focus', function () { follow(side, i); });
        t.addEventListener('mouseleave', leave);
        t.addEventListener('blur', leave);
        /* a click (or Enter) keeps the token's lines shown until the
         * token is clicked again or another one is */
        t.addEventListener('click', function () { pin(side, i); });
        t.addEventListener('keydown', function (e) {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            pin(side, i);
          }
        });
        tokens[side].push(t);
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
    /* one Tab stop for the tokens; the arrow keys move among them, up and
     * down a column, left and right across */
    arrowGrid(s, Math.max(data.queries.length, data.keys.length), 2,
              function (r, c) {
                var col = tokens[c === 0 ? 'query' : 'key'];
                return col[Math.min(r, col.length - 1)] || null;
              });
    soloOnDoubleClick(lines);
    if (many) {
      views.head.appendChild(el('p', {'class': 'notice', id: 'head-notice'},
        tr('This run has {0} lines, more than {1} can be drawn at once: ' +
           'hover or focus (Tab) a token to draw its lines.', lineCount(v),
           LINE_LIMIT)));
    }
    views.head.appendChild(box);
    views.head.appendChild(el('p', {'class': 'summary hint'},
      tr('Hover or focus (Tab) a token to follow its lines; its weights ' +
         'appear beside the other column, one per shown head.') + ' ' +
      tr('A click keeps its lines shown; the arrow keys move from token ' +
         'to token; a double-click on a line shows only its head (again: ' +
         'every head).')));

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

    /* Leaving a token: back to the clicked token's lines, or every line. */
    function leave() {
      var p = state.pinned;
      if (p && tokens[p.side][p.i]) follow(p.side, p.i);
      else unfollow();
    }

    /* A click on a token keeps its lines shown (data-pinned); a click on
     * it again lets them go. */
    function pin(side, i) {
      var p = state.pinned;
      state.pinned = p && p.side === side && p.i === i ? null
                                                      : {side: side, i: i};
      markPinned();
      if (state.pinned) follow(side, i);
      else unfollow();
    }

    function markPinned() {
      var p = state.pinned;
      tokens.query.concat(tokens.key).forEach(function (t) {
        var on = !!p && t.getAttribute('data-side') === p.side &&
                 Number(t.getAttribute('data-token')) === p.i;
        t.classList.toggle('pinned', on);
        if (on) t.setAttribute('data-pinned', 'true');
        else t.removeAttribute('data-pinned');
      });
    }

    markPinned();
    leave();
  }

  function maxLength(words) {
    return Math.min(12, Math.max.apply(null, words.map(function (w) {
      return w.length;
    })));
  }

  /* ---- matrix view ---- */

  /* The smallest and largest unmasked finite values of rows [r0, r1),
   * or null. */
  function valueRange(m, r0, r1, masked) {
    var lo = Infinity, hi = -Infinity;
    for (var i = r0; i < r1; i++) {
      var row = m.row(i);
      for (var j = 0; j < m.cols; j++) {
        var x = row[j];
        if (!(masked ? masked(i, j) : !unmasked(i, j)) && isFinite(x)) {
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
    return textRange(m, kind, null);
  }

  /* range, with masked(i, j) saying which cells are masked (null: the
   * causal mask) */
  function textRange(m, kind, masked) {
    var whole = valueRange(m, 0, m.rows, masked);
    if (kind === 'weights' && COLORS.scale === 'fixed') whole = [0, 1];
    var both = !!whole && whole[0] < 0 && whole[1] > 0;
    var rows = [];
    for (var i = 0; i < m.rows; i++) {
      rows.push(COLORS.scale === 'row' ? ends(valueRange(m, i, i + 1, masked),
                                              both)
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
    var tbody = el('tbody'), cells = [];
    for (var i = 0; i < m.rows; i++) {
      var row = el('tr');
      row.appendChild(el('th', {scope: 'row'}, data.queries[i]));
      cells.push([]);
      for (var j = 0; j < m.cols; j++) {
        var td = matrixCell(v, h, m, kind, r, i, j);
        cells[i].push(td);
        row.appendChild(td);
      }
      tbody.appendChild(row);
    }
    table.appendChild(tbody);
    /* one Tab stop per map; the arrow keys move over its cells */
    arrowGrid(table, m.rows, m.cols, function (a, b) {
      return cells[a] ? cells[a][b] || null : null;
    });
    return table;
  }

  function matrixCell(v, h, m, kind, r, i, j) {
    var value = m.text(i, j), x = m.value(i, j);
    var td = el('td', {'class': 'cell', tabindex: -1,
                       'data-variant': v.name, 'data-head': h,
                       'data-query': i, 'data-key': j,
                       'data-grid-row': i, 'data-grid-col': j,
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

  /* The widest of the texts in the page's font at px pixels. */
  var MEASURE = null;
  function textWidth(texts, px) {
    if (!MEASURE) MEASURE = document.createElement('canvas').getContext('2d');
    MEASURE.font = px + 'px system-ui, "Noto Sans", "DejaVu Sans", sans-serif';
    return Math.max.apply(null, texts.map(function (t) {
      return MEASURE.measureText(t).width;
    }).concat([0]));
  }

  /* The cells' size so that every shown head's table fits the window
   * under the view's top (8 heads of a short sentence on one 1280 x 720
   * screen): the number of columns of tables that draws the cells
   * largest, within 14 to 46 pixels wide. Sets the box's CSS
   * variables. */
  function fitMatrices(box, n, rows, cols) {
    var top = box.getBoundingClientRect().top + window.scrollY;
    var W = Math.max(320, document.documentElement.clientWidth - 44);
    var H = Math.max(240, window.innerHeight - top - 8);
    var label = Math.max(textWidth(data.queries, 13),
                         textWidth([tr('query \\ key')], 13)) + 12;
    var best = null;
    for (var c = 1; c <= n; c++) {
      var lines = Math.ceil(n / c);
      var w = ((W - (c - 1) * 20) / c - label) / cols;
      var h = ((H - (lines - 1) * 10) / lines - 48) / rows;
      var cell = Math.min(w, h / 0.74);
      if (!best || cell > best.cell) best = {cell: cell, cols: c};
    }
    var cw = Math.max(14, Math.min(46, Math.floor(best.cell)));
    box.style.setProperty('--cell-w', cw + 'px');
    box.style.setProperty('--cell-h', Math.max(12, Math.floor(cw * 0.74)) +
                          'px');
    box.style.setProperty('--cell-font', Math.max(8, Math.min(12,
      Math.floor(cw / (3.2 + 0.5 * COLORS.decimals)))) + 'px');
    box.style.setProperty('--label-font', (cw < 30 ? 12 : 14) + 'px');
    box.classList.toggle('compact', cw < 30);
  }

  /* The legend of the colours: the map and what its ends are. */
  function matrixLegend(kind, r) {
    var legend = el('div', {'class': 'legend'});
    var stops = [];
    for (var k = 0; k <= 10; k++) {
      var c = r.lut[Math.min(255, Math.floor(k * 25.6))];
      stops.push('rgb(' + c.join(',') + ') ' + (k * 10) + '%');
    }
    var fixed = kind === 'weights' && COLORS.scale === 'fixed';
    var low = fixed ? '0'
      : COLORS.scale === 'row' ? tr('lowest of its row')
      : kind === 'weights' ? tr('lowest weight of the head')
      : tr('lowest score of the head');
    legend.appendChild(el('span', {}, low));
    legend.appendChild(el('span', {'class': 'bar', style:
      'background:linear-gradient(to right,' + stops.join(',') + ')'}));
    legend.appendChild(el('span', {}, fixed ? '1' : tr('highest')));
    return legend;
  }

  function drawMatrixView() {
    var v = variant();
    var kind = state.matrix;
    var bar = buttonGroup('Show', [
      {value: 'weights', label: 'attn_weights'},
      {value: 'scores', label: 'attn_scores'}
    ], kind, function (k) { state.matrix = k; draw(); });
    var top = el('div', {'class': 'controls matrix-top'});
    top.appendChild(bar);
    views.matrix.appendChild(top);
    var box = el('div', {'class': 'matrices'});
    views.matrix.appendChild(box);
    var big = false, shown = 0, legendRange = null;
    v.heads.forEach(function (head, h) {
      if (state.shown[h] && mat(head, kind)) shown++;
    });
    var m0 = v.heads.length ? mat(v.heads[0], kind) : null;
    if (m0 && m0.rows * m0.cols <= CELL_LIMIT)
      fitMatrices(box, Math.max(1, shown), m0.rows, m0.cols);
    v.heads.forEach(function (head, h) {
      if (!state.shown[h]) return;
      var m = mat(head, kind);
      if (!m) return;
      var r = range(m, kind);
      legendRange = legendRange || r;
      var fig = el('figure', {'class': 'matrix', 'data-head': h});
      var cap = el('figcaption', {}, '');
      cap.appendChild(el('span', {'class': 'swatch',
                                  style: 'background:' + headColour(h)}));
      cap.appendChild(document.createTextNode(' ' + v.name + ', ' +
                                              headName(h) + ': attn_' + kind));
      fig.appendChild(cap);
      /* a double-click on a map shows only its head (again: every head) */
      fig.addEventListener('dblclick', function (e) {
        e.preventDefault();
        soloHead(h);
      });
      if (m.rows * m.cols <= CELL_LIMIT) {
        fig.appendChild(matrixTable(v, h, m, kind, r));
      } else {
        big = true;
        fig.appendChild(matrixCanvas(v, h, m, kind, r));
      }
      box.appendChild(fig);
    });
    if (legendRange) top.appendChild(matrixLegend(kind, legendRange));
    views.matrix.appendChild(el('p', {'class': 'summary hint'}, (big ?
      tr('Queries down, keys across; grey: masked. Point at a value, or ' +
         'focus a map (Tab) and move with the arrow keys, for its exact ' +
         'value.')
      : COLORS.numbers && COLORS.decimals === 2 ?
        tr('Cells show two decimals; hover or focus a cell for its exact ' +
           'value.')
      : tr('Hover or focus a cell for its exact value.')) + ' ' +
      tr('A double-click on a map shows only its head (again: every ' +
         'head).')));
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
    norm1: 'Add and norm', ffn: 'Feed-forward', norm2: 'Add and norm again',
    backward: 'Backward pass', update: 'Training: the loss at each step'
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

  /* The keys of --step while the steps are on view (not while a control
   * that uses them has the focus): Down, j, Enter, PageDown, Space and
   * Right scroll a step taller than the window (a line, or a window for
   * PageDown, Space and Right), then go on to the next step; Up, k,
   * PageUp, b and Left scroll back, then go back; n and p step at once.
   * A step opens at its own top. */
  var STEP_KEYS = {
    ArrowDown: 'line', j: 'line', Enter: 'line', PageDown: 'page',
    ' ': 'page', ArrowRight: 'page', n: 'next',
    ArrowUp: '-line', k: '-line', PageUp: '-page', b: '-page',
    ArrowLeft: '-page', p: '-next'
  };

  function stepKey(e) {
    if (state.view !== 'steps' || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target && e.target.tagName;
    if (t === 'SELECT' || t === 'INPUT' || t === 'TEXTAREA') return;
    var move = STEP_KEYS[e.key];
    if (!move || (t === 'BUTTON' && (e.key === 'Enter' || e.key === ' ')))
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
                       tr('step {0} of {1} (\u2190 and \u2192 keys)',
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

  /* ---- model view ---- */

  /* BertViz's model view: every head of every layer as a thumbnail of its
   * weights, a row per entry of data.variants (a checkpoint's layers
   * h.0, h.1, ..., a stack's blocks block.0, ..., or the lessons'
   * modules) and a column per head, on the fixed scale 0 to 1 in the
   * matrix view's colours. A click on a thumbnail, or Enter or space on
   * the focused one (the arrow keys move over the grid, which is one Tab
   * stop), opens that layer and head alone in the head view; the matrix
   * view then shows it too. */
  var THUMB = 64;

  /* A head's weights m as a canvas THUMB pixels wide, grey where masked. */
  function thumbCanvas(m) {
    var px = Math.max(1, Math.floor(THUMB / Math.max(m.rows, m.cols)));
    var canvas = el('canvas', {'class': 'thumb', width: m.cols * px,
                               height: m.rows * px, 'aria-hidden': 'true'});
    var ctx = canvas.getContext('2d');
    var image = ctx.createImageData(canvas.width, canvas.height);
    var pixels = new Uint32Array(image.data.buffer), width = canvas.width;
    var lut = lutOf(COLORS.map).map(rgbaWord);
    var grey = rgbaWord([221, 221, 221]);
    for (var i = 0; i < m.rows; i++) {
      var row = m.row(i);
      for (var j = 0; j < m.cols; j++) {
        var c = !unmasked(i, j) ? grey : lut[lutIndex(row[j])];
        for (var y = i * px; y < (i + 1) * px; y++)
          for (var x = j * px; x < (j + 1) * px; x++)
            pixels[y * width + x] = c;
      }
    }
    ctx.putImageData(image, 0, 0);
    return canvas;
  }

  /* The buttons of group name (the frame's View or Variant) pressed as
   * value is. */
  function pressValue(name, value) {
    var g = app.querySelector('.controls > .group[aria-label="' + name +
                              '"]');
    if (!g) return;
    g.querySelectorAll('button').forEach(function (b) {
      pressed(b, b.getAttribute('data-value') === String(value));
    });
  }

  /* Layer (data.variants entry) r and head h alone, in the head view. */
  function openHead(r, h) {
    state.variant = r;
    state.view = 'head';
    for (var k = 0; k < state.shown.length; k++) state.shown[k] = k === h;
    document.querySelectorAll('#head-toggles input').forEach(function (b) {
      b.checked = state.shown[Number(b.getAttribute('data-head'))];
    });
    pressValue('View', 'head');
    pressValue(variantGroup(), r);
    draw();
  }

  function drawModelView() {
    var cols = Math.max.apply(null, data.variants.map(function (v) {
      return v.heads.length;
    }));
    var grid = el('table', {'class': 'model-grid'});
    var head = el('tr', {});
    head.appendChild(el('th', {}, ''));
    for (var h = 0; h < cols; h++)
      head.appendChild(el('th', {scope: 'col'}, headName(h)));
    grid.appendChild(head);
    var buttons = [];
    data.variants.forEach(function (v, r) {
      var line = el('tr', {});
      line.appendChild(el('th', {scope: 'row'}, v.name));
      buttons.push([]);
      for (var h = 0; h < cols; h++) {
        var td = el('td', {});
        var m = v.heads[h] ? mat(v.heads[h], 'weights') : null;
        if (m) {
          var b = el('button', {type: 'button', 'class': 'thumb',
                                'data-variant': v.name, 'data-head': h,
                                'data-grid-row': r, 'data-grid-col': h,
                                'aria-label': tr('{0} head {1}: open it in ' +
                                  'the head and matrix views', v.name, h)});
          b.appendChild(thumbCanvas(m));
          b.addEventListener('click', openHead.bind(null, r, h));
          td.appendChild(b);
          buttons[r].push(b);
        } else {
          buttons[r].push(null);
        }
        line.appendChild(td);
      }
      grid.appendChild(line);
    });
    views.model.appendChild(grid);
    arrowGrid(grid, data.variants.length, cols, function (r, c) {
      return buttons[r] && buttons[r][c] ? buttons[r][c] : null;
    }, {r: state.variant, c: 0});
    views.model.appendChild(el('p', {'class': 'summary hint'},
      tr('Every layer\'s heads, weights from 0 to 1. Click a head, or ' +
         'move with the arrow keys and press Enter, to open it in the head ' +
         'and matrix views.')));
  }

  /* ---- training (--train): the heads over the training's steps ---- */

  /* A trained run's page, and every live page (its editor trains),
   * also holds training.js, which defines
   * mhaTrainingView (docs/html.md); it draws with these pieces of the
   * page. */
  function hasTraining() {
    return typeof mhaTrainingView === 'function' &&
      data.variants.some(function (v) { return !!v.training; });
  }

  function drawTrainingView() {
    mhaTrainingView(views.training, variant(), {
      el: el, svgEl: svgEl, setAttrs: setAttrs, tr: tr, decode: decode,
      floats: floats, matrixTable: matrixTable, matrixCanvas: matrixCanvas,
      lutIndex: lutIndex, mapOne: MAP_ONE, cellLimit: CELL_LIMIT,
      headName: headName, state: state
    });
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function draw() {
    clear(views.head);
    clear(views.matrix);
    clear(views.neuron);
    clear(views.steps);
    clear(views.model);
    clear(views.training);
    readout.textContent = '';
    views.head.hidden = state.view !== 'head';
    views.matrix.hidden = state.view !== 'matrix';
    views.neuron.hidden = state.view !== 'neuron';
    views.steps.hidden = state.view !== 'steps';
    views.model.hidden = state.view !== 'model';
    views.training.hidden = state.view !== 'training';
    document.querySelectorAll('#head-toggles input').forEach(function (b) {
      var h = Number(b.getAttribute('data-head'));
      b.disabled = h >= variant().heads.length;
    });
    if (state.view === 'head') drawHeadView();
    else if (state.view === 'matrix') drawMatrixView();
    else if (state.view === 'neuron') drawNeuronView();
    else if (state.view === 'model') drawModelView();
    else if (state.view === 'training') drawTrainingView();
    else drawStepView();
  }

  if (buildFrame()) draw();
  mark('mha-drawn');

  /* ---- the live page (editor.js) ---- */

  /* Draws every view again from the data of a recomputed run: the view,
   * variant and step on view stay where they still exist. */
  function reload(newData) {
    data = newData;
    LABELS = data.labels || {};
    if (state.variant >= data.variants.length) state.variant = 0;
    state.neuron = null;
    state.pinned = null;
    state.shown = [];
    state.kept = null;
    /* a run no longer trained has no training view */
    if (state.view === 'training' && !hasTraining()) state.view = 'head';
    clear(app);
    if (buildFrame()) {
      if (state.step >= steps().length) state.step = 0;
      draw();
    }
  }
  window.mhaPage = {
    reload: reload,
    tr: function () { return tr.apply(null, arguments); },
    data: function () { return data; }
  };
})();
