/* The course's patch for jupyterlab-rise 0.43.1's speaker view (key T), a prebuilt JupyterLab extension: plain
   JavaScript in the module-federation shape JupyterLab loads (window._JUPYTERLAB[name].init/get), no build step.
   `make present` serves it with --LabServerApp.extra_labextensions_path=tools/labextensions; it acts only on RISE's
   slideshow page (/rise/...), and tests/browser/test_speaker_view.py presses T in chromium to check it.

   What it patches (reveal.js 5's notes plugin as jupyterlab-rise bundles it):
   1. T sent the projected deck back to the title slide. The speaker window shows the deck in an iframe, which is a
      whole RISE app; RISE starts it on slide 0 (it ignores the iframe's #/h/v), the iframe reports "slidechanged",
      and the speaker window forwards that state to the deck ({method: 'setState'}), ~0.5 s after the iframe said
      it was ready ({namespace: 'reveal-notes', type: 'connected'}). The deck now ignores a setState from the
      speaker window for GUARD_MS after each "connected"; later ones (the lecturer moving in the speaker window) pass.
   2. Each note was shown twice: a note is the innerHTML of RISE's <aside class="notes">, a whole Markdown cell whose
      raw source JupyterLab's CSS hides and the speaker window (without that CSS) shows above the rendered text.
      The deck gives the speaker window a style sheet that hides the cell's editor and prompt.
   3. The previews (this slide, the next) cut their slides off under large "?" icons: each preview is a RISE page
      (?receiver) laid out at its small frame's size with the projector's 24 px text. A preview now lays its slide
      out at 1280x720 and shrinks it to the frame, so it shows the slide whole, as the room sees it.
   And it adds one thing: the lecturer's pace, for the lecturer. The speaker window shows each slide's notes, which
   open with its place in the lecture (tools/lecture_edition.py: "(minute 14 to 16 of 90)" on every slide of the
   condensed lecture, "(lecture path, from minute 8 of 90)" where a live section starts). On the projected deck the
   key M (outside a cell's editor) toggles "minute 14 of 90" in the bottom-left corner, small and grey; it starts off,
   so the room sees only the slide; a slide without a place shows nothing. */
(function () {
  var GUARD_MS = 4000;
  var HIDE_RAW_NOTES =
    '#speaker-controls .jp-InputArea-editor, #speaker-controls .jp-InputPrompt, #speaker-controls .jp-Collapser,' +
    ' #speaker-controls .jp-cell-toolbar, #speaker-controls .jp-CellFooter { display: none !important; }' +
    ' #speaker-controls .jp-RenderedMarkdown { font-size: 20px; line-height: 1.4; }';

  function parse(data) {
    if (typeof data !== 'string' || data.charAt(0) !== '{') return null;
    try { return JSON.parse(data); } catch (error) { return null; }
  }

  function patchSpeakerView() {
    var connectedAt = -Infinity;
    window.addEventListener('message', function (event) {
      if (event.source === window) return;
      var data = parse(event.data);
      if (!data) return;
      if (data.namespace === 'reveal-notes' && data.type === 'connected') {
        connectedAt = Date.now();
        try {
          var doc = event.source.document;
          if (!doc.getElementById('amlab-speaker-notes')) {
            var style = doc.createElement('style');
            style.id = 'amlab-speaker-notes';
            style.textContent = HIDE_RAW_NOTES;
            doc.head.appendChild(style);
          }
        } catch (error) { console.warn('amlab-rise-speaker: cannot style the speaker window', error); }
      } else if (data.method === 'setState' && Date.now() - connectedAt < GUARD_MS) {
        event.stopImmediatePropagation();  // reveal.js's own listener, registered later, does not see it
        console.info('amlab-rise-speaker: kept the deck on its slide (the speaker view was starting)');
      }
    }, true);
  }

  var PACE = /minute (\d+)(?: to \d+)? of (\d+)/;

  function showPace() {
    var badge = document.getElementById('amlab-pace');
    if (!badge) {
      badge = document.createElement('div');
      badge.id = 'amlab-pace';
      badge.style.cssText = 'position: fixed; left: 12px; bottom: 8px; z-index: 40; font: 18px sans-serif;' +
        ' color: #767676; pointer-events: none; display: none;';
      document.body.appendChild(badge);
    }
    var slide = document.querySelector('.reveal .slides > section.present > section.present');
    var notes = slide ? slide.querySelectorAll('aside.notes') : [];
    var found = null;
    for (var i = 0; i < notes.length && !found; i++) found = PACE.exec(notes[i].textContent);
    badge.textContent = found ? 'minute ' + found[1] + ' of ' + found[2] : '';
  }

  function togglePace(event) {  // key M, outside an editor: before JupyterLab's M (a cell to Markdown) sees it
    var editing = event.target.closest && event.target.closest('.cm-editor, input, textarea, [contenteditable]');
    if (event.key !== 'm' || event.ctrlKey || event.metaKey || event.altKey || editing) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    showPace();
    var badge = document.getElementById('amlab-pace');
    badge.style.display = badge.style.display === 'none' ? '' : 'none';
  }

  function showPaceOnEverySlide() {
    document.addEventListener('ready', showPace, true);  // reveal.js's events bubble from its .reveal element
    document.addEventListener('slidechanged', showPace, true);
    window.addEventListener('keydown', togglePace, true);
  }

  // The speaker window's previews are the deck in small frames. RISE lays a slide out at the frame's own size, so a
  // preview showed the projector's 24 px text in a frame a third as wide: a code cell ran off its bottom. A preview
  // lays the slide out at the projector's size (tools/rise.css is sized for 1280x720) and shrinks it to its frame.
  var PROJECTOR = { width: 1280, height: 720 };

  function fitPreview() {
    var scale = Math.min(window.innerWidth / PROJECTOR.width, window.innerHeight / PROJECTOR.height, 1);
    var style = document.body.style;
    style.width = scale < 1 ? PROJECTOR.width + 'px' : '';
    style.height = scale < 1 ? PROJECTOR.height + 'px' : '';
    style.transformOrigin = '0 0';
    style.transform = scale < 1 ? 'scale(' + scale + ')' : '';
  }

  function fitEveryPreview() {
    window.addEventListener('resize', fitPreview, true);  // before reveal.js's and JupyterLab's own layout
    fitPreview();
  }

  var plugin = {
    id: 'amlab-rise-speaker:plugin',
    description: "RISE's speaker view without resetting the deck or doubling the notes; the lecture's minute on each slide",
    autoStart: true,
    activate: function () {
      var onRise = /\/rise\//.test(window.location.pathname);
      if (onRise && !/receiver/.test(window.location.search)) {
        patchSpeakerView();
        showPaceOnEverySlide();
      } else if (onRise) {
        fitEveryPreview();
      }
    }
  };

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB['amlab-rise-speaker'] = {
    init: function () { return Promise.resolve(); },
    get: function (module) {
      if (module !== './extension') return Promise.reject(new Error('amlab-rise-speaker has no module ' + module));
      return Promise.resolve(function () { return { __esModule: true, default: [plugin] }; });
    }
  };
})();
