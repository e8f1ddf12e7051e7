/* head_view.js: the head view (part of the page's script, page_data.js
 * says how): queries left, keys right, a line per unmasked pair and shown
 * head; a followed token shows its lines and weights. */

/* ---- head view ---- */

/* The view's geometry in CSS pixels (headGeometry sets it for each
 * drawing): the SVG's width, the columns' titles' height (top), a row's
 * height, the query column's right end and the key column's left, and the
 * tokens' type size. */
var HV = {width: 1220, top: 44, row: 30, xq: 330, xk: 620, font: 17};

/* The geometry that fills the room the window leaves the view (its
 * width, and its height under the view's top, less the hint's): rows of
 * at least 30 pixels (22 for long sentences), taller and in larger type
 * when they fit: the tokens' type from 17 pixels up to a 52nd of the
 * width (at most 30; a 40th, at most 44, in the presentation mode). In
 * CSS pixels, so that the browser's zoom makes the type larger: the
 * most it takes is a share of the width in the screen's pixels, the
 * least grows with the zoom. */
function headGeometry() {
  var rows = Math.max(data.queries.length, data.keys.length);
  var width = Math.max(600, views.head.clientWidth ||
                       document.documentElement.clientWidth - 40);
  var big = presenting() ? Math.min(44, width / 40)
                         : Math.min(30, width / 52);
  var top = views.head.getBoundingClientRect().top;
  var room = window.innerHeight - top - (presenting() ? 16 : 64);
  var row = Math.floor((room - 10) / Math.max(1, rows + 1.5));
  row = Math.max(rows > 40 ? 22 : 30, Math.min(Math.round(big * 3.2), row));
  var font = Math.max(17, Math.min(Math.floor(big), Math.round(row * 0.55)));
  HV = {width: width, top: Math.max(44, Math.round(font * 2.4)), row: row,
        xq: Math.round(width * 0.36), xk: Math.round(width * 0.64),
        font: font};
}

function rowHeight() { return HV.row; }

function rowY(i) { return HV.top + i * HV.row; }

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
    x1: HV.xq + 10, y1: rowY(i) - HV.font * 0.3 + dy,
    x2: HV.xk - 10, y2: rowY(j) - HV.font * 0.3 + dy,
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

/* The head view on screen (hv): variant v, whether it draws only a
 * followed token's lines (many), its SVG s, its group of lines, and each
 * column's tokens and weight texts ({query: [...], key: [...]}). */
function drawHeadView() {
  var v = variant();
  var rows = Math.max(data.queries.length, data.keys.length);
  headGeometry();
  var width = HV.width, height = HV.top + rows * rowHeight() + 10;
  var box = el('div', {'class': 'heads-box'});
  var hv = {
    v: v,
    /* too many lines to draw at once: only a followed token's */
    many: lineCount(v) > LINE_LIMIT,
    s: svgEl('svg', {'class': 'heads', width: width, height: height,
                     viewBox: '0 0 ' + width + ' ' + height,
                     role: 'img',
                     'aria-label': tr('attention lines of {0}', v.name)}),
    lines: svgEl('g', {'class': 'lines'}),
    weightTexts: {query: [], key: []},
    tokens: {query: [], key: []}
  };
  var s = hv.s;
  s.style.setProperty('--token-font', HV.font + 'px');
  s.style.setProperty('--weight-font', Math.round(HV.font * 0.76) + 'px');
  s.style.setProperty('--title-font', Math.round(HV.font * 0.82) + 'px');
  box.appendChild(s);
  var titleY = Math.round(HV.font * 1.05);
  s.appendChild(svgEl('text', {'class': 'column-title', x: HV.xq,
                               y: titleY, 'text-anchor': 'end'},
                      tr('queries')));
  s.appendChild(svgEl('text', {'class': 'column-title', x: HV.xk,
                               y: titleY},
                      data.cross ? tr('keys (--kv)') : tr('keys')));
  s.appendChild(hv.lines);
  if (!hv.many) {
    v.heads.forEach(function (head, h) {
      var weights = mat(head, 'weights');
      for (var i = 0; i < data.queries.length; i++)
        for (var j = 0; j < data.keys.length; j++)
          if (unmasked(i, j))
            hv.lines.appendChild(lineElement(v, h, i, j,
                                             weights.text(i, j)));
    });
  }
  /* a character of the tokens is about 0.76 of their type's size wide */
  var letter = HV.font * 0.76;
  tokenColumn(hv, 'query', data.queries, HV.xq, 'end',
              HV.xq - 10 - letter * maxLength(data.queries));
  tokenColumn(hv, 'key', data.keys, HV.xk, 'start',
              HV.xk + 10 + letter * maxLength(data.keys));
  /* one Tab stop for the tokens; the arrow keys move among them, up and
   * down a column, left and right across */
  arrowGrid(s, Math.max(data.queries.length, data.keys.length), 2,
            function (r, c) {
              var col = hv.tokens[c === 0 ? 'query' : 'key'];
              return col[Math.min(r, col.length - 1)] || null;
            });
  soloOnDoubleClick(hv.lines);
  if (hv.many) {
    views.head.appendChild(el('p', {'class': 'notice', id: 'head-notice'},
      tr('This run has {0} lines, more than {1} can be drawn at once: ' +
         'hover or focus (Tab) a token to draw its lines.', lineCount(v),
         LINE_LIMIT)));
  }
  views.head.appendChild(box);
  /* under the drawing, so that it keeps the top of the view */
  var switches = headSwitches(v);
  if (switches) views.head.appendChild(switches);
  views.head.appendChild(el('p', {'class': 'summary hint'},
    tr('Hover or focus (Tab) a token to follow its lines; its weights ' +
       'appear beside the other column, one per shown head.') + ' ' +
    tr('A click keeps its lines shown; the arrow keys move from token ' +
       'to token; a double-click on a line shows only its head (again: ' +
       'every head).')));
  markPinned(hv);
  leave(hv);
}

/* A column of tokens (side 'query' or 'key') and their weight texts. */
function tokenColumn(hv, side, words, x, anchor, weightX) {
  words.forEach(function (word, i) {
    var t = svgEl('text', {'class': 'token', x: x, y: rowY(i),
                           'text-anchor': anchor, tabindex: -1,
                           'data-side': side, 'data-token': i,
                           'data-grid-row': i,
                           'data-grid-col': side === 'query' ? 0 : 1,
                           'aria-label': tr(side === 'query' ?
                             'query {0}: {1}' : 'key {0}: {1}', i, word)},
                  word);
    t.addEventListener('mouseenter', function () { follow(hv, side, i); });
    t.addEventListener('focus', function () { follow(hv, side, i); });
    t.addEventListener('mouseleave', function () { leave(hv); });
    t.addEventListener('blur', function () { leave(hv); });
    /* a click (or Enter) keeps the token's lines shown until the
     * token is clicked again or another one is */
    t.addEventListener('click', function () { pin(hv, side, i); });
    t.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        pin(hv, side, i);
      }
    });
    hv.tokens[side].push(t);
    hv.s.appendChild(t);
    var wt = svgEl('text', {'class': 'weights', x: weightX, y: rowY(i),
                            'text-anchor': anchor,
                            'data-weights-of': side});
    hv.weightTexts[side].push(wt);
    hv.s.appendChild(wt);
  });
}

function showLines(hv, test) {
  var all = hv.lines.childNodes;
  for (var k = 0; k < all.length; k++) {
    var ln = all[k];
    var h = Number(ln.getAttribute('data-head'));
    var on = state.shown[h] && test(ln);
    ln.style.display = on ? '' : 'none';
  }
}

/* Token i of side: only its lines; its weights beside the others. */
function follow(hv, side, i) {
  var other = side === 'query' ? 'key' : 'query';
  var n = side === 'query' ? data.keys.length : data.queries.length;
  if (hv.many) {
    clear(hv.lines);
    hv.v.heads.forEach(function (head, h) {
      if (!state.shown[h]) return;
      var weights = mat(head, 'weights');
      for (var j = 0; j < n; j++) {
        var q = side === 'query' ? i : j, k = side === 'query' ? j : i;
        if (unmasked(q, k))
          hv.lines.appendChild(lineElement(hv.v, h, q, k, weights.text(q, k)));
      }
    });
  } else {
    showLines(hv, function (ln) {
      return Number(ln.getAttribute('data-' + side)) === i;
    });
  }
  hv.s.querySelectorAll('.token').forEach(function (t) {
    t.classList.toggle('active',
      t.getAttribute('data-side') === side &&
      Number(t.getAttribute('data-token')) === i);
  });
  var words = side === 'query' ? data.queries : data.keys;
  var texts = [];
  hv.weightTexts[other].forEach(function (wt, j) {
    clear(wt);
    var q = side === 'query' ? i : j, k = side === 'query' ? j : i;
    var parts = [];
    hv.v.heads.forEach(function (head, h) {
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

function unfollow(hv) {
  if (hv.many) {
    clear(hv.lines);
  } else {
    showLines(hv, function () { return true; });
  }
  hv.s.querySelectorAll('.token.active').forEach(function (t) {
    t.classList.remove('active');
  });
  hv.weightTexts.query.concat(hv.weightTexts.key).forEach(clear);
  readout.textContent = '';
}

/* Leaving a token: back to the clicked token's lines, or every line. */
function leave(hv) {
  var p = state.pinned;
  if (p && hv.tokens[p.side][p.i]) follow(hv, p.side, p.i);
  else unfollow(hv);
}

/* A click on a token keeps its lines shown (data-pinned); a click on
 * it again lets them go. */
function pin(hv, side, i) {
  var p = state.pinned;
  state.pinned = p && p.side === side && p.i === i ? null
                                                  : {side: side, i: i};
  markPinned(hv);
  if (state.pinned) follow(hv, side, i);
  else unfollow(hv);
}

function markPinned(hv) {
  var p = state.pinned;
  hv.tokens.query.concat(hv.tokens.key).forEach(function (t) {
    var on = !!p && t.getAttribute('data-side') === p.side &&
             Number(t.getAttribute('data-token')) === p.i;
    t.classList.toggle('pinned', on);
    if (on) t.setAttribute('data-pinned', 'true');
    else t.removeAttribute('data-pinned');
  });
}

function maxLength(words) {
  return Math.min(12, Math.max.apply(null, words.map(function (w) {
    return w.length;
  })));
}

/* ---- switching heads off (the live page, editor.js) ---- */

/* The layer of entry v of data.variants: N of a stack's block.N or a
 * checkpoint's h.N, else 0. */
function variantLayer(v) {
  var m = /\.(\d+)$/.exec(v.name);
  return m ? Number(m[1]) : 0;
}

/* Whether head h of v is switched off in the run on view (--ablate). */
function headIsOff(v, h) {
  var p = window.mhaPage;
  var off = p && p.ablated ? p.ablated : [];
  return off.indexOf(variantLayer(v) + '.' + headNumber(h)) >= 0;
}

/* A button per head of v that switches it off (adds L.H to the
 * editor's --ablate) or on again, the run recomputed by the page's core;
 * null where the page cannot recompute such a run (editor.js). */
function headSwitches(v) {
  var p = window.mhaPage;
  if (!p || !p.canSwitch || !p.canSwitch()) return null;
  var box = el('div', {'class': 'head-switches'});
  v.heads.forEach(function (head, h) {
    var name = variantLayer(v) + '.' + headNumber(h), off = headIsOff(v, h);
    var b = el('button', {type: 'button', 'class': 'head-switch',
                          'data-head-off': name,
                          'data-off': off ? 'true' : 'false'},
               headName(h) + ': ' + (off ? tr('Switch this head on')
                                         : tr('Switch this head off')));
    b.style.borderColor = headColour(h);
    b.addEventListener('click', function () { p.toggleHead(name); });
    box.appendChild(b);
  });
  return box;
}
