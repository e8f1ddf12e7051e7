/* generation.js: the Generation view, in the page of a run that
 * generated (--generate N: data.generation, html_generation.c); html.c
 * writes it before the page's script only there, as it writes maps.js
 * in a page with maps.
 *
 * It defines mhaGeneration(p), which the page's script calls with the
 * pieces it draws with (page.js); its answer draws the view (draw).
 *
 * The text appears token by token: a slider over the steps (the arrow
 * keys move it) shows the prompt and the tokens picked up to the step,
 * the token picked at the step marked; then the distribution that token
 * was picked from (its likeliest tokens as bars, generated_top, the one
 * picked marked, and below them the one picked when it is not among
 * them), and every layer's and head's attention row of the last token
 * over the tokens so far (the keys of the cache): the row from which the
 * next token was predicted, coloured on the fixed scale 0 to 1 as the
 * model view colours the weights. Every number is the program's float32,
 * written as the CSV writes it in the cells' data-* attributes. */
/* The words of the Generation view and settings in the page's language:
 * the editor's command line carries them (mha-run's "generate", html.c),
 * not the data's labels, which the page's core writes again. say(text,
 * ...) is tr(text, ...) with them. */
function mhaGenerationSay(tr) {
  'use strict';
  var run = document.getElementById('mha-run');
  var g = run ? JSON.parse(run.textContent).generate : null;
  var words = g && g.words || {};
  return function (text) {
    return tr.apply(null, [words[text] || text].concat(
      Array.prototype.slice.call(arguments, 1)));
  };
}

function mhaGeneration(p) {
  'use strict';
  var el = p.el, tr = mhaGenerationSay(p.tr), decode = p.decode;
  var at = 0; /* the step on view */

  function gen() { return p.data().generation; }

  /* The k likeliest tokens at step s: {id, token, p (value), text};
   * fewer where the warpers left fewer (rows of id -1). */
  function topAt(g, s) {
    var m = decode(g.top), out = [];
    for (var r = s * g.k; r < (s + 1) * g.k; r++)
      if (m.value(r, 0) >= 0) out.push({id: m.value(r, 0), token: g.topTokens[r],
                value: m.value(r, 1), text: m.text(r, 1)});
    return out;
  }

  /* The text so far: the prompt's tokens, then the new ones up to step
   * s, the one picked at s marked. */
  function textLine(g, s) {
    var line = el('p', {'class': 'gen-text', id: 'generation-text'});
    p.data().queries.slice(0, g.prompt).forEach(function (w) {
      line.appendChild(el('span', {'class': 'gen-token gen-prompt'}, w));
    });
    for (var i = 0; i <= s; i++) {
      var span = el('span', {'class': 'gen-token gen-new' +
                                      (i === s ? ' gen-now' : ''),
                             'data-step': i}, g.tokens[i]);
      if (i === s) span.setAttribute('aria-current', 'step');
      line.appendChild(span);
    }
    return line;
  }

  /* One bar of the distribution: a token, its probability as a bar's
   * length and as the CSV writes it. */
  function bar(t, rank, chosen, most) {
    var row = el('li', {'class': 'gen-bar' + (chosen ? ' chosen' : ''),
                        'data-rank': rank, 'data-id': t.id,
                        'data-token': t.token, 'data-p': t.text});
    row.appendChild(el('span', {'class': 'gen-label'}, t.token));
    var box = el('span', {'class': 'gen-barbox', 'aria-hidden': 'true'});
    var fill = el('span', {'class': 'gen-fill'});
    fill.style.width = (most > 0 ? 100 * t.value / most : 0).toFixed(1) + '%';
    box.appendChild(fill);
    row.appendChild(box);
    row.appendChild(el('span', {'class': 'gen-p'}, t.value.toFixed(4)));
    row.appendChild(el('strong', {'class': 'gen-mark'},
                       chosen ? tr('picked') : ''));
    return row;
  }

  function distribution(g, s) {
    var box = el('div', {'class': 'gen-dist'});
    box.appendChild(el('p', {'class': 'gen-caption'}, tr(
      'The next token\'s likeliest choices at this step (the one picked ' +
      'is marked):')));
    var list = el('ol', {'class': 'gen-bars', id: 'generation-bars'});
    var chosen = decode(g.generated), id = chosen.value(s, 0);
    var top = topAt(g, s), most = top.length ? top[0].value : 0, found = false;
    top.forEach(function (t, k) {
      found = found || t.id === id;
      list.appendChild(bar(t, k + 1, t.id === id, most));
    });
    box.appendChild(list);
    if (!found) {
      /* sampled from outside the likeliest: its own bar, no rank */
      var other = el('ol', {'class': 'gen-bars gen-other'});
      other.appendChild(bar({id: id, token: g.tokens[s],
                             value: chosen.value(s, 1),
                             text: chosen.text(s, 1)}, 0, true, most));
      box.appendChild(other);
    }
    box.querySelectorAll('.gen-bar').forEach(function (b) {
      var r = b.getAttribute('data-rank');
      b.title = tr('{0}: probability {1}, rank {2}', b.getAttribute(
        'data-token'), b.getAttribute('data-p'), r === '0' ? '>' + g.k : r);
    });
    return box;
  }

  /* Every layer's and head's row at step s: a table, a row per layer and
   * head, a column per key; one Tab stop, the arrow keys move. */
  function headRows(g, s, width) {
    var box = el('div', {'class': 'gen-heads'});
    var all = g.weights || [];
    var step = all.length > s ? s : -1;
    if (step < 0) {
      box.appendChild(el('p', {'class': 'summary hint'}, g.cached ? tr(
        'This model keeps a cache, but this run kept its heads\' rows for ' +
        'the prompt only (--kv-steps keeps every step\'s): they are shown ' +
        'at step 1 only.') : tr(
        'This model keeps no cache: its heads are shown for the prompt\'s ' +
        'last token only (step 1).')));
      return box;
    }
    box.appendChild(el('p', {'class': 'gen-caption'}, g.cached ? tr(
      'Each head\'s attention row of the last token over the tokens so far ' +
      '(the keys its cache holds), from which the next token was ' +
      'predicted:') : tr(
      'Each head\'s attention row of the last token over the tokens so far, ' +
      'from which the next token was predicted. This model keeps no cache: ' +
      'at each step it ran every token again, and this is the last row of ' +
      'that pass:')));
    var m = decode(all[step]), keys = p.data().queries.slice(0, g.prompt)
      .concat(g.tokens.slice(0, step));
    var lut = p.lutOf(p.colors().map), cells = [];
    var cell = Math.max(6, Math.min(64, Math.floor((width - 180) / m.cols)));
    var tall = Math.max(10, Math.min(cell >= 44 ? 32 : 22, cell));
    var table = el('table', {'class': 'gen-weights grid'});
    if (cell >= 18) {
      var head = el('tr', {});
      head.appendChild(el('th', {}, ''));
      keys.forEach(function (k) {
        head.appendChild(el('th', {scope: 'col', 'class': 'gen-key'}, k));
      });
      table.appendChild(head);
    }
    for (var r = 0; r < m.rows; r++) {
      /* the heads shown (--show-heads), in each layer */
      var H = g.heads.length, h = g.heads[r % H];
      var layer = g.layers[Math.floor(r / H)];
      var line = el('tr', {});
      line.appendChild(el('th', {scope: 'row'},
                          layer + ' \u00b7 ' + p.headName(r % H)));
      cells.push([]);
      for (var j = 0; j < m.cols; j++) {
        var text = m.text(r, j), c = lut[p.lutIndex(m.value(r, j))];
        var label = tr('{0}, head {1}, key {2}: {3}', layer, h, keys[j], text);
        var td = el('td', {'class': 'gen-weight', tabindex: -1,
                           'data-layer': layer, 'data-head': h,
                           'data-key': j, 'data-weight': text,
                           'data-grid-row': r, 'data-grid-col': j,
                           'aria-label': label});
        td.style.background = 'rgb(' + c.join(',') + ')';
        td.style.width = cell + 'px';
        td.style.height = tall + 'px';
        /* wide enough: the weight to two decimals */
        if (cell >= 44) {
          td.textContent = m.value(r, j).toFixed(2);
          td.style.color = p.darkTextOn(c) ? '#000' : '#fff';
        }
        ['mouseenter', 'focus'].forEach(function (ev) {
          td.addEventListener(ev, function (e) {
            p.readout().textContent = e.target.getAttribute('aria-label');
          });
        });
        cells[r].push(td);
        line.appendChild(td);
      }
      table.appendChild(line);
    }
    p.arrowGrid(table, m.rows, m.cols, function (a, b) {
      return cells[a] ? cells[a][b] || null : null;
    });
    box.appendChild(table);
    return box;
  }

  /* The part that changes with the step, into box. */
  function drawStep(box, g, width) {
    p.clear(box);
    var s = at, picked = decode(g.generated);
    box.setAttribute('data-step', s);
    box.appendChild(textLine(g, s));
    box.appendChild(el('p', {'class': 'gen-picked', id: 'generation-picked'},
      tr('The model picked {0} with probability {1}.',
         '\u201c' + g.tokens[s] + '\u201d', picked.text(s, 1))));
    var columns = el('div', {'class': 'gen-columns'});
    var dist = distribution(g, s);
    columns.appendChild(dist);
    columns.appendChild(headRows(g, s, width - 30 * parseFloat(
      getComputedStyle(box).fontSize || '16')));
    box.appendChild(columns);
  }

  /* With --ablate: what the clean model (no head switched off) wrote from
   * the same prompt, and where the two new texts part, as the text
   * output says it (g.clean, html_generation.c). */
  function cleanText(g) {
    var c = g.clean, box = el('div', {'class': 'gen-clean'});
    box.appendChild(el('p', {'class': 'gen-caption'},
                       tr('The clean model (no head switched off) ' +
                          'continued:')));
    box.appendChild(el('p', {'class': 'gen-clean-text',
                             id: 'generation-clean',
                             'data-common': c.common}, c.text));
    /* (one token: the singular's own words) */
    box.appendChild(el('p', {'class': 'gen-caption', id: 'generation-part'},
      c.same ? tr('The same new text as with the heads switched off.') :
      c.common === 0 ? tr('The two new texts part at their first token.') :
      c.common === 1 ? tr('The two new texts share their first token, ' +
                          'then part.') :
      tr('The two new texts share their first {0} tokens, then part.',
         c.common)));
    return box;
  }

  function draw(view) {
    var g = gen(), n = g.tokens.length;
    /* a run of fewer steps (stopped at the model's limit) keeps the view
     * at its last step, the nearest */
    if (at >= n) at = n - 1;
    var width = view.clientWidth || window.innerWidth;
    var top = el('div', {'class': 'gen-slider'});
    var label = el('label', {'for': 'generation-step', id: 'generation-count'},
                   tr('Step {0} of {1}', at + 1, n));
    var slider = el('input', {type: 'range', id: 'generation-step', min: 0,
                              max: n - 1, step: 1, value: at,
                              'aria-valuetext': tr('Step {0} of {1}', at + 1,
                                                   n) + ': ' + g.tokens[at]});
    top.appendChild(label);
    top.appendChild(slider);
    view.appendChild(top);
    /* stopped at the model's context (g.stopped, its positions): said */
    if (g.stopped)
      view.appendChild(el('p', {'class': 'notice', id: 'generation-stopped',
                                role: 'status'}, tr(
        'Generation stopped at the model\'s limit of {0} positions, with ' +
        'the tokens so far.', g.stopped)));
    view.appendChild(el('p', {'class': 'summary hint'}, tr(
      'Move the slider, or focus it and use the arrow keys, to go through ' +
      'the steps.')));
    if (g.clean) view.appendChild(cleanText(g));
    var box = el('div', {'class': 'gen-step', id: 'generation-at'});
    view.appendChild(box);
    slider.addEventListener('input', function () {
      at = Number(slider.value);
      label.textContent = tr('Step {0} of {1}', at + 1, n);
      slider.setAttribute('aria-valuetext', tr('Step {0} of {1}', at + 1, n) +
                          ': ' + g.tokens[at]);
      drawStep(box, g, width);
    });
    /* the step-through's keys are the document's: not while the slider
     * has the focus */
    slider.addEventListener('keydown', function (e) { e.stopPropagation(); });
    drawStep(box, g, width);
  }

  return {
    draw: draw,
    title: function () { return tr('Generation'); },
    has: function () {
      return !!(gen() && gen().tokens.length);
    }
  };
}

/* The generation's settings in a live page (docs/html.md): the editor's
 * form (editor.js: a lesson model's page) or the "Open a model" box
 * (model_open.js: a checkpoint's page) holds them when the page holds
 * this script, a generation run's page. p: {el, tr, prefix (of the
 * fields' ids), seed (whether the settings have a --seed field of their
 * own: a page whose editor has none), initial (mha-run's "generate"),
 * seedValue}. Its answer: the fieldset (box), the arguments of the
 * settings (args; none without tokens to generate), the tokens asked
 * for (steps), and the status to show while they are generated (busy).
 * The program checks the values, as typed; --temperature, --top-k and
 * --top-p (and the seed of their own) are used with --sample only
 * (disabled without it), as the program refuses them alone. */
function mhaGenerationFields(p) {
  'use strict';
  var el = p.el, g = p.initial || {}, fields = {};
  var say = mhaGenerationSay(p.tr);
  /* the defaults of the settings, from the options' rows (mha-run's
   * "defaults", html.c): the fields' placeholders */
  var run = document.getElementById('mha-run');
  var defaults = run ? JSON.parse(run.textContent).defaults : {};
  var box = el('fieldset', {'class': 'edit-generation',
                            id: p.prefix + 'generation'});
  box.appendChild(el('legend', {}, say('Generation (--generate)')));
  /* the status's words, kept: a run without generation has none */
  var busyWords = say('Generating {0} tokens\u2026', '{0}');

  function add(name, label, attrs, value) {
    var id = p.prefix + name;
    var wrap = el('div', {'class': attrs.type === 'checkbox' ? 'edit-check'
                                   : 'edit-field edit-' + name});
    attrs.id = id;
    attrs['data-edit'] = name;
    var input = el('input', attrs);
    if (attrs.type === 'checkbox') {
      input.checked = !!value;
      wrap.appendChild(input);
      wrap.appendChild(el('label', {'for': id}, label));
    } else {
      input.value = value === null || value === undefined ? '' : value;
      wrap.appendChild(el('label', {'for': id}, label));
      wrap.appendChild(input);
    }
    fields[name] = input;
    box.appendChild(wrap);
  }

  add('generate', say('New tokens (--generate; 0: none)'),
      {type: 'number', min: '0', step: '1'}, g.n || 0);
  add('sample', say('Draw each token (--sample; else the likeliest)'),
      {type: 'checkbox'}, g.sample);
  add('temperature', say('Temperature (--temperature)'),
      {type: 'text', inputmode: 'decimal', size: '6', autocomplete: 'off',
       placeholder: defaults.temperature}, g.temperature);
  add('top-k', say('Top k (--top-k)'),
      {type: 'text', inputmode: 'numeric', size: '6', autocomplete: 'off',
       placeholder: defaults['top-k']}, g.topK);
  add('top-p', say('Top p (--top-p)'),
      {type: 'text', inputmode: 'decimal', size: '6', autocomplete: 'off',
       placeholder: defaults['top-p']}, g.topP);
  add('stop', say('Stop at (--stop; empty: none)'),
      {type: 'text', size: '12', autocomplete: 'off', spellcheck: 'false'},
      g.stop);
  if (p.seed)
    add('gen-seed', p.tr('Seed (--seed)'),
        {type: 'text', inputmode: 'numeric', size: '8', autocomplete: 'off'},
        p.seedValue);

  function steps() {
    var n = fields.generate.value.trim(), x = Number(n);
    return n === '' || x === 0 ? 0 : x || n;
  }

  /* the options that go with others disabled without them */
  function follow() {
    var on = steps() !== 0;
    fields.sample.disabled = fields.stop.disabled = !on;
    ['temperature', 'top-k', 'top-p', 'gen-seed'].forEach(function (name) {
      if (fields[name]) fields[name].disabled = !on || !fields.sample.checked;
    });
  }
  box.addEventListener('change', follow);
  follow();

  function args() {
    if (steps() === 0) return [];
    var a = ['--generate', fields.generate.value.trim()];
    if (fields.sample.checked) {
      a.push('--sample');
      [['temperature', '--temperature'], ['top-k', '--top-k'],
       ['top-p', '--top-p']].forEach(function (o) {
        var v = fields[o[0]].value.trim();
        if (v !== '') a.push(o[1], v);
      });
    }
    /* a seed of their own seeds the draws (the program refuses it
     * without them) */
    if (fields.sample.checked && fields['gen-seed'])
      a.push('--seed', fields['gen-seed'].value.trim());
    if (fields.stop.value !== '') a.push('--stop', fields.stop.value);
    return a;
  }

  return {
    box: box, args: args, steps: steps, follow: follow,
    busy: function () { return busyWords.split('{0}').join(steps()); }
  };
}
