/* model_switches.js: the head view's switches on the page of a --model
 * run (docs/html.md, "Switching a head off"), whose families core runs a
 * checkpoint's --ablate as the program does (model/intervene/).
 *
 * mhaModelSwitches(page, ui) gives "Open a model" (model_open.js) the
 * editor's part of the lesson page's switches: the heads switched off
 * (first the page's own --ablate, as it was written), an *Ablated heads
 * (--ablate-mode)* field, and the options they add to the command line.
 * Once a folder is open (ui.ready()), head_view.js draws a switch on
 * each head (page.canSwitch); a switch adds its head ("L.H") to --ablate
 * or takes it away and runs the text again (ui.rerun()); when the answer
 * is drawn, the model view dims the heads of the run on view
 * (page.ablated) and the focus is back on the switch pressed; the box
 * shows the run's command line. ui: {el, run (the page's mha-run), box
 * and before (the box, and its part the field goes before), ready(),
 * rerun()}. */
window.mhaModelSwitches = function (page, ui) {
  'use strict';
  var tr = page.tr, el = ui.el;
  /* --ablate's heads as the page was written ("all-heads": none) */
  var given = ui.run.ablate;
  var chosen = !given || given === 'all-heads' ? [] :
    given.split(',').filter(function (w) { return w !== ''; });
  var sent = chosen.slice();   /* the heads of the latest run asked for */
  var pressed = null;          /* the switch to focus once it is drawn */
  page.ablated = chosen.slice();

  var field = el('div', {'class': 'edit-field edit-ablate-mode'});
  field.appendChild(el('label', {'for': 'model-open-ablate-mode'},
                       tr('Ablated heads (--ablate-mode)')));
  var mode = el('select', {id: 'model-open-ablate-mode',
                           'data-edit': 'ablate-mode'});
  ['zero', 'mean'].forEach(function (m) {
    mode.appendChild(el('option', {value: m}, m));
  });
  /* the run's mode, else its row's default (mha-run's "defaults") */
  var byDefault = ui.run.defaults['ablate-mode'];
  mode.value = ui.run.ablateMode !== null ? ui.run.ablateMode : byDefault;
  field.appendChild(mode);
  mode.addEventListener('change', ui.rerun);
  /* (--patch and --head-scores switch no head: no field) */
  if (!ui.run.runs || given === 'all-heads')
    ui.box.insertBefore(field, ui.before);
  /* the command line of the run on view, once a folder is open */
  var command = el('p', {'class': 'editor-command', hidden: ''});
  command.appendChild(el('span', {}, tr('The same run on the command line:') +
                                     ' '));
  var code = el('code', {id: 'model-open-command'});
  command.appendChild(code);
  ui.box.appendChild(command);

  /* A word of the command line as a shell would take it. */
  function shellWord(w) {
    return /^[A-Za-z0-9_.,=:+\/-]+$/.test(w) ? w :
      '\'' + w.split('\'').join('\'\\\'\'') + '\'';
  }

  /* the run's intervention as given (--patch, --head-scores: mha-run's
   * runs), which each run of the folder repeats; the program runs one
   * intervention at a time: a page that has one switches no head */
  var runs = [];
  (ui.run.runs || []).forEach(function (r) {
    runs = runs.concat(r[1] === null ? ['--' + r[0]] : ['--' + r[0], r[1]]);
  });
  var fixedRun = runs.length > 0;
  page.canSwitch = function () { return ui.ready() && !fixedRun; };
  page.toggleHead = function (name) {
    if (!page.canSwitch()) return;
    var i = chosen.indexOf(name);
    if (i < 0) chosen.push(name);
    else chosen.splice(i, 1);
    pressed = name;
    ui.rerun();
  };

  return {
    /* The run's command line (its arguments after the program's name)
     * shown. */
    command: function (args) {
      code.textContent = ['mha-explain'].concat(args).map(shellWord)
        .join(' ');
      command.hidden = false;
    },
    /* The options of the heads switched off, for the next run; with
     * none, a page written with --ablate all-heads runs it again, with
     * what its map measures as given (--metric, --answer, --wrong), and
     * one with --patch or --head-scores its intervention (runs). */
    args: function () {
      sent = chosen.slice();
      var all = sent.length === 0;
      if (all && given !== 'all-heads')
        return runs.length > 0 ? runs.concat(ui.run.mapArgs) : [];
      var a = ['--ablate', all ? given : sent.join(',')];
      if (mode.value !== byDefault) a.push('--ablate-mode', mode.value);
      return all ? a.concat(ui.run.mapArgs) : a;
    },
    /* Before a run's answer is drawn: its heads are the ones on view. */
    drawing: function () { page.ablated = sent.slice(); },
    /* After it is drawn: the focus on the switch pressed, drawn again;
     * a refused run puts the heads back as they are on view. */
    drawn: function (status) {
      if (status !== 0) chosen = page.ablated.slice();
      var b = pressed === null ? null :
        document.querySelector('[data-head-off="' + pressed + '"]');
      pressed = null;
      if (b) b.focus();
    }
  };
};
