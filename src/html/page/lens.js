/* lens.js: the Logit lens view, in the page of a run with --logit-lens
 * (data.logitLens, html_lens.c); html.c writes it before the page's
 * script only there, as it writes maps.js in a page with maps.
 *
 * It defines mhaLens(p), which the page's script calls with the pieces
 * it draws with (page.js); its answer draws the view (draw).
 *
 * The grid: a row per layer, a column per position (its token); each
 * cell the likeliest next token were the model to stop after that layer
 * and its probability, coloured by the probability on the scale 0 to 1
 * (the model view's colours). The grid is one Tab stop, the arrow keys
 * move over it; a click, Enter or space opens the cell's layer in the
 * head view with every head. */
function mhaLens(p) {
  'use strict';
  var el = p.el, tr = p.tr;
  /* A lesson page's editor runs without the lens (the rows' PAGE_FAMILIES,
   * cli/page_run.c: only the families core of a --model page makes one):
   * the written run's lens shows until an edit, then this view says where
   * it went. Its words are the written page's (html_lens.c): a
   * recomputed run's data has none. */
  var r = document.getElementById('mha-run');
  r = r ? JSON.parse(r.textContent) : {};
  var dropped = r.live && r.editable && !r.checkpoint;
  var title = tr('Logit lens');
  var written = tr(
    'This lens is the run of the command line the page was written with, ' +
    'over its sentence: the page\'s core makes no logit lens, so a change ' +
    'in the editor starts a run without it.');
  var gone = tr(
    'The logit lens was the run of the command line the page was written ' +
    'with, over its sentence "{0}": the page\'s core makes none, so the ' +
    'run on view has no lens. mha-explain with --logit-lens on the ' +
    'command line makes it.', r.sentence);

  function open(layer) {
    var r = p.data().variants.map(function (v) {
      return v.name;
    }).indexOf(layer);
    if (r < 0) return;
    p.openHead(r, 0);
    p.soloHead(0); /* head 0 alone: every head again */
  }

  function has() {
    var lens = p.data().logitLens;
    return !!(lens && lens.layers.length);
  }

  function draw(view) {
    if (!has()) {
      view.appendChild(el('p', {'class': 'summary hint', id: 'lens-gone'},
                          gone));
      return;
    }
    if (dropped)
      view.appendChild(el('p', {'class': 'summary hint', id: 'lens-written'},
                          written));
    var lens = p.data().logitLens, m = p.decode(lens.p), cells = [];
    var lut = p.lutOf(p.colors().map), most = 0;
    for (var k = 0; k < m.rows * m.cols; k++)
      most = Math.max(most, m.value(Math.floor(k / m.cols), k % m.cols));
    /* the probabilities with digits enough for the largest */
    var decimals = p.scaleDecimals(0, most, 2);
    /* a model without a final norm (a trained lesson block's): the
       lm_head alone (html_lens.c's lmHeadAlone) */
    view.appendChild(el('p', {'class': 'summary hint'}, lens.lmHeadAlone ? tr(
      'What the model would say next if it stopped after each layer (its ' +
      'lm_head applied to the residual stream there: this model has no ' +
      'final norm): the likeliest next token at each position, and its ' +
      'probability. Click a cell, or move with the arrow keys and press ' +
      'Enter, to open its layer in the head view.') : tr(
      'What the model would say next if it stopped after each layer (the ' +
      'final norm and lm_head applied to the residual stream there): the ' +
      'likeliest next token at each position, and its probability. Click ' +
      'a cell, or move with the arrow keys and press Enter, to open its ' +
      'layer in the head view.')));
    var table = el('table', {'class': 'grid lens-grid', id: 'lens-grid'});
    table.appendChild(el('caption', {}, tr('layer') + ' \u2193, ' +
                                        tr('position') + ' \u2192'));
    var head = el('tr', {});
    head.appendChild(el('th', {}, ''));
    lens.tokens.forEach(function (t) {
      head.appendChild(el('th', {scope: 'col'}, t));
    });
    table.appendChild(head);
    for (var l = 0; l < m.rows; l++) {
      var row = el('tr', {});
      row.appendChild(el('th', {scope: 'row'}, lens.layers[l]));
      cells.push([]);
      for (var t = 0; t < m.cols; t++) {
        var x = m.value(l, t), text = m.text(l, t), c = lut[p.lutIndex(x)];
        var td = el('td', {'class': 'cell lens-cell', tabindex: -1,
                           'data-layer': lens.layers[l], 'data-position': t,
                           'data-next': lens.next[l][t], 'data-p': text,
                           'data-grid-row': l, 'data-grid-col': t,
                           'aria-label': tr('{0}, after {1}: {2} with ' +
                                            'probability {3}; open the layer',
                                            lens.layers[l], lens.tokens[t],
                                            lens.next[l][t], text)});
        td.style.background = 'rgb(' + c.join(',') + ')';
        td.style.color = p.darkTextOn(c) ? '#000' : '#fff';
        td.style.whiteSpace = 'pre';
        td.style.cursor = 'pointer';
        td.appendChild(el('span', {'class': 'lens-next'}, lens.next[l][t]));
        td.appendChild(el('br', {}));
        td.appendChild(el('small', {}, x.toFixed(decimals)));
        var go = open.bind(null, lens.layers[l]);
        td.addEventListener('click', go);
        td.addEventListener('keydown', function (go, e) {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            go();
          }
        }.bind(null, go));
        ['mouseenter', 'focus'].forEach(function (ev) {
          td.addEventListener(ev, function (e) {
            p.readout().textContent = e.target.getAttribute('aria-label');
          });
        });
        cells[l].push(td);
        row.appendChild(td);
      }
      table.appendChild(row);
    }
    p.arrowGrid(table, m.rows, m.cols, function (a, b) {
      return cells[a] ? cells[a][b] || null : null;
    });
    /* a grid wider than the view scrolls in its own box (page.css) */
    var box = el('div', {'class': 'lens-box'});
    box.appendChild(table);
    view.appendChild(box);
  }

  return {
    draw: draw,
    title: function () { return title; },
    /* a lesson page's lens, once gone, leaves its note */
    has: function () { return has() || dropped; }
  };
}
