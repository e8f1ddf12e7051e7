/* training.js: the training view of a trained run's --html page (--train;
 * docs/html.md), in that page and in every live page. page.js calls
 * mhaTrainingView(box, v, p) to draw variant v's view into box; p holds
 * the pieces of the page it draws with (its elements, words, matrices and
 * the matrix view's maps).
 *
 * A trained variant has v.training: its heads' weights at the steps the
 * program kept (at most 11, the first before training and the last after
 * it) and its loss at every step (with --corpus, t.lossShown: the last
 * point is the shown sentence's loss, no step's, drawn apart from the
 * curve), and, when the program took them
 * (head_scores_steps), each head's induction score at up to 101 steps
 * (with flat, the note that says why every score is 0).
 * The view draws the loss curve with a dot at the chosen step, the
 * scores' lines with a mark at that step, a slider over the kept steps,
 * and each shown head's weights there; on a live page whose editor runs
 * --ablate, the head view's switches (head_view.js). */
var mhaTrainingView = (function () {
  'use strict';

  var PAD = 40, LEFT = 80;

  /* A chart's frame, drawn at least 520 wide (width: the view's) and
   * shrunk to a narrower view (its viewBox), a fifth of that high (150
   * to 300): its box, title, values' axis from bottom to top and steps'
   * axis from 0 to last. Returns the SVG, the box's size (w, h) and
   * text(x, y, anchor, words), which adds a text and returns it. */
  function chart(p, cls, width, title, top, bottom, last) {
    var W = Math.max(520, Math.floor(width));
    var H = Math.max(150, Math.min(300, Math.round(W / 5)));
    var c = {w: W - LEFT - PAD, h: H - 2 * PAD,
             svg: p.svgEl('svg', {'class': cls, width: W, height: H,
                                  viewBox: '0 0 ' + W + ' ' + H,
                                  role: 'img', 'aria-label': title})};
    c.text = function (x, y, anchor, words) {
      return c.svg.appendChild(p.svgEl('text', {x: x, y: y,
                                                'text-anchor': anchor},
                                       words));
    };
    c.svg.appendChild(p.svgEl('rect', {x: LEFT, y: PAD, width: c.w,
                                       height: c.h, fill: 'none',
                                       stroke: '#888'}));
    c.text(LEFT, PAD - 10, 'start', title);
    c.text(LEFT - 6, PAD + 5, 'end', top);
    c.text(LEFT - 6, PAD + c.h, 'end', bottom);
    c.text(LEFT, PAD + c.h + 22, 'start', '0');
    c.text(LEFT + c.w, PAD + c.h + 22, 'end', String(last));
    c.text(LEFT + c.w / 2, PAD + c.h + 22, 'middle', p.tr('training step'));
    return c;
  }

  /* The loss curve: a polyline over the steps in a chart as wide as the
   * view; with shown (t.lossShown) the last point, the shown sentence's
   * loss, is a ring off the line, named. Returns the SVG and a function
   * that puts the dot at a step. */
  function lossCurve(loss, shown, p, width) {
    var n = loss.rows, lo = Infinity, hi = -Infinity;
    for (var i = 0; i < n; i++) {
      var x = loss.value(i, 0);
      if (isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    }
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    if (hi === lo) { lo -= 0.5; hi += 0.5; }
    var c = chart(p, 'loss-curve', width, p.tr('loss at each training step'),
                  hi.toPrecision(3), lo.toPrecision(3), n - 1);
    var svg = c.svg, w = c.w, h = c.h;
    function px(s) { return LEFT + (n > 1 ? w * s / (n - 1) : w / 2); }
    function py(x) { return PAD + h * (hi - x) / (hi - lo); }
    var points = [], steps = shown ? n - 1 : n;
    for (var s = 0; s < steps; s++)
      if (isFinite(loss.value(s, 0)))
        points.push(px(s).toFixed(1) + ',' + py(loss.value(s, 0)).toFixed(1));
    svg.appendChild(p.svgEl('polyline', {points: points.join(' '),
                                         fill: 'none', stroke: '#1f77b4',
                                         'stroke-width': 2}));
    if (shown && isFinite(loss.value(n - 1, 0))) {
      var sy = py(loss.value(n - 1, 0));
      svg.appendChild(p.svgEl('circle', {cx: px(n - 1), cy: sy, r: 9,
                                         fill: 'none', stroke: '#ff7f0e',
                                         'stroke-width': 3,
                                         'class': 'loss-shown',
                                         'data-loss': loss.text(n - 1, 0)}));
      c.text(px(n - 1) - 14, sy - 12, 'end',
             p.tr('loss on the shown sentence'))
        .setAttribute('class', 'loss-shown-label');
    }
    var dot = p.svgEl('circle', {r: 5, fill: '#d62728', 'class': 'loss-dot'});
    svg.appendChild(dot);
    return {svg: svg, at: function (s) {
      var x = loss.value(s, 0);
      p.setAttrs(dot, {cx: px(s), cy: isFinite(x) ? py(x) : PAD,
                       'data-step': s, 'data-loss': loss.text(s, 0)});
    }};
  }

  /* Each head's induction score over the steps (s: t.scores), as lines
   * on a 0 to 1 scale, a chart as wide as the loss curve; returns the SVG
   * and a function that puts the mark at a step. */
  var HEAD_COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
                      '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  function scoresChart(s, p, width) {
    var v = p.decode(s.values), n = s.steps.length;
    var last = s.steps[n - 1] || 0;
    var c = chart(p, 'score-curve', width,
                  p.tr('each head\'s induction score'), '1', '0', last);
    var svg = c.svg, w = c.w, h = c.h;
    function px(step) { return LEFT + (last > 0 ? w * step / last : w / 2); }
    function py(x) { return PAD + h * (1 - Math.min(1, Math.max(0, x))); }
    for (var k = 0; k < s.heads.length; k++) {
      var points = [];
      for (var r = 0; r < n; r++)
        if (isFinite(v.value(r, k)))
          points.push(px(s.steps[r]).toFixed(1) + ',' +
                      py(v.value(r, k)).toFixed(1));
      var colour = HEAD_COLOURS[k % HEAD_COLOURS.length];
      svg.appendChild(p.svgEl('polyline', {points: points.join(' '),
                                           fill: 'none', stroke: colour,
                                           'stroke-width': 2,
                                           'data-head': s.heads[k]}));
      if (k < 12) {
        var lx = LEFT + 8 + 110 * (k % 4);
        var ly = PAD + 14 + 14 * Math.floor(k / 4);
        svg.appendChild(p.svgEl('line', {x1: lx, y1: ly - 4, x2: lx + 14,
                                         y2: ly - 4, stroke: colour,
                                         'stroke-width': 2}));
        c.text(lx + 18, ly, 'start', s.heads[k]);
      }
    }
    var mark = p.svgEl('line', {y1: PAD, y2: PAD + h, stroke: '#d62728',
                                'stroke-dasharray': '4 3',
                                'class': 'score-mark'});
    svg.appendChild(mark);
    return {svg: svg, at: function (step) {
      p.setAttrs(mark, {x1: px(step), x2: px(step), 'data-step': step});
    }};
  }

  /* Head h's weights at kept step k, as the matrix view draws a head (a
   * table of cells, a canvas for a big head), on the weights' fixed
   * scale, 0 to 1, whatever the page's scale: the steps compare. */
  function headMap(p, v, h, w, k, heads, rows, cols) {
    var f = new Float32Array(rows * cols), base = (k * heads + h) * rows;
    for (var i = 0; i < rows; i++) f.set(w.row(base + i), i * cols);
    var m = p.floats(rows, cols, f);
    var fixed = {lut: p.mapOne, at: function (i, x) { return p.lutIndex(x); }};
    return rows * cols <= p.cellLimit ?
      p.matrixTable(v, h, m, 'weights', fixed) :
      p.matrixCanvas(v, h, m, 'weights', fixed);
  }

  return function (box, v, p) {
    var t = v.training;
    if (!t) return;
    var w = p.decode(t.weights), loss = p.decode(t.loss);
    var kept = t.steps.length, heads = t.heads;
    var rows = w.rows / (kept * heads), cols = w.cols;
    if (p.state.kept === null || p.state.kept >= kept)
      p.state.kept = kept - 1;
    var curve = lossCurve(loss, t.lossShown, p, box.clientWidth - 4);
    box.appendChild(p.el('p', {'class': 'hint'},
      p.tr('Move the slider to see the heads change as the model learns; ' +
           'the dot marks the step on the loss curve.')));
    box.appendChild(curve.svg);
    var scores = t.scores ? scoresChart(t.scores, p, box.clientWidth - 4)
                          : null;
    if (scores && t.scores.flat) {
      /* every score 0 (the sentence repeats no word): the program's note,
       * the chart greyed */
      box.appendChild(p.el('p', {'class': 'notice score-note'},
                            t.scores.flat));
      scores.svg.classList.add('score-empty');
    }
    if (scores) box.appendChild(scores.svg);
    var label = p.el('label', {'for': 'training-step',
                               'class': 'training-label'});
    var slider = p.el('input', {type: 'range', id: 'training-step', min: 0,
                                max: kept - 1, step: 1, value: p.state.kept});
    var grid = p.el('div', {'class': 'training-heads matrices'});
    var figures = [];
    for (var h = 0; h < heads; h++) {
      if (!p.state.shown[h]) continue;
      var figure = p.el('figure', {'class': 'matrix training-head',
                                   'data-head': h});
      figure.appendChild(p.el('figcaption', {}, v.name + ', ' +
                              p.headName(h) + ': attn_weights'));
      figure.appendChild(p.el('div'));
      grid.appendChild(figure);
      figures.push({h: h, figure: figure});
    }
    function show(k) {
      p.state.kept = k;
      var step = t.steps[k], last = t.steps[kept - 1];
      label.textContent = step === 0 ? p.tr('before training') :
        p.tr('after {0} of {1} training steps', step, last);
      slider.setAttribute('aria-valuetext', label.textContent);
      grid.setAttribute('data-step', step);
      figures.forEach(function (f) {
        f.figure.replaceChild(headMap(p, v, f.h, w, k, heads, rows, cols),
                              f.figure.lastChild);
      });
      curve.at(step);
      if (scores) scores.at(step);
    }
    slider.addEventListener('input', function () {
      show(Number(slider.value));
    });
    box.appendChild(label);
    box.appendChild(slider);
    /* where the editor runs --ablate (editor_switches.js): a switch per
     * head, which runs the trained model with the head off */
    var switches = p.headSwitches(v);
    if (switches) {
      box.appendChild(switches);
      box.appendChild(p.el('p', {'class': 'hint'}, p.tr(
        'A head switched off changes the run of the trained model (its ' +
        'ablation_effect and ablation_loss in the steps), not its ' +
        'training.')));
    }
    box.appendChild(grid);
    /* the maps as large as the window leaves them, as the matrix
     * view's, and at least 60% of its height: below the loss curve they
     * would be too small to read on a projector */
    if (rows * cols <= p.cellLimit)
      p.fitMatrices(grid, Math.max(1, figures.length), rows, cols, 0.6);
    show(p.state.kept);
  };
})();
