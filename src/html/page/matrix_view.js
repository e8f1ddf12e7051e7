/* matrix_view.js: the matrix view (part of the page's script,
 * page_data.js says how): each shown head's weights or scores as a heat
 * map in the colours of --plot, a table (or a canvas for a big head). */

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

/* The masked cells' pixel on a canvas: the theme's --masked-b (page.css),
 * the colour of the hatched cells' darker stripe, so that a masked value
 * is as dark as the theme's masked cells (light grey on white, dark grey
 * on black); the views are drawn again when the theme changes. */
function maskedWord() {
  var css = getComputedStyle(document.documentElement)
    .getPropertyValue('--masked-b').trim();
  if (/^#[0-9a-f]{3}$/i.test(css))
    css = '#' + css.charAt(1) + css.charAt(1) + css.charAt(2) +
      css.charAt(2) + css.charAt(3) + css.charAt(3);
  var hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css);
  return rgbaWord(hex ? [parseInt(hex[1], 16), parseInt(hex[2], 16),
                         parseInt(hex[3], 16)] : [221, 221, 221]);
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
  var lut = r.lut.map(rgbaWord), grey = maskedWord();
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

/* The smallest matrix numbers the presentation mode shows, in CSS
 * pixels: smaller ones are not read from the back of a room. */
var PRESENT_LEAST_FONT = 12;

/* The cells' size so that every shown head's table fits the window
 * under the view's top (8 heads of a short sentence on one 1280 x 720
 * screen): the number of columns of tables that draws the cells
 * largest, from 14 to 120 pixels wide, the numbers in them from 8 to
 * 30 pixels (at least 14 on a 1280 x 720 screen for a few heads of a
 * short sentence), the tokens beside them from 14 to 26. In CSS pixels:
 * the browser's zoom makes them larger. Sets the box's CSS variables.
 * least (a fraction of the window's height, or none) is the least height
 * the tables take, when more of the view is above them (the training
 * view's loss curve and slider): the page scrolls to them rather than
 * draw them too small to read. */
function fitMatrices(box, n, rows, cols, least) {
  var top = box.getBoundingClientRect().top + window.scrollY;
  /* room for a scrollbar that the page's height may yet bring, so that
   * it cannot push a map down a line */
  var bar = window.innerWidth === document.documentElement.clientWidth ?
    18 : 0;
  var W = Math.max(320, document.documentElement.clientWidth - 44 - bar);
  var H = Math.max(240, (least || 0) * window.innerHeight,
                   window.innerHeight - top - (presenting() ? 16 : 8));
  var cw = matrixCells(n, rows, cols, W, H, 14);
  var labelFont = cw < 30 ? 12 : Math.max(14, Math.min(26,
                                                       Math.floor(cw / 4)));
  if (labelFont > 14) cw = matrixCells(n, rows, cols, W, H, labelFont);
  box.style.setProperty('--cell-w', cw + 'px');
  box.style.setProperty('--cell-h', Math.max(12, Math.floor(cw * 0.74)) +
                        'px');
  var cellFont = Math.max(8, Math.min(30,
    Math.floor(cw / (3.2 + 0.5 * COLORS.decimals))));
  box.style.setProperty('--cell-font', cellFont + 'px');
  box.style.setProperty('--label-font', labelFont + 'px');
  box.classList.toggle('compact', cw < 30);
  /* on a projector, numbers too small to read from the room are left
   * out, the colours kept (the readout still says a cell's value) */
  box.classList.toggle('numberless', presenting() &&
                       cellFont < PRESENT_LEAST_FONT);
}

/* The width of the cells (14 to 120 pixels) of n tables of rows x cols
 * in W x H pixels, the tokens labelling them in type of labelFont
 * pixels: the number of columns of tables that draws them largest. */
function matrixCells(n, rows, cols, W, H, labelFont) {
  var label = Math.max(textWidth(data.queries, labelFont),
                       textWidth([tr('query \\ key')], labelFont)) + 12;
  var best = null;
  for (var c = 1; c <= n; c++) {
    var lines = Math.ceil(n / c);
    var w = ((W - (c - 1) * 20) / c - label) / cols;
    var h = ((H - (lines - 1) * 10) / lines - 2.8 * labelFont - 14) / rows;
    var cell = Math.min(w, h / 0.74);
    if (!best || cell > best.cell) best = {cell: cell, cols: c};
  }
  return Math.max(14, Math.min(120, Math.floor(best.cell)));
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
