// netstack internals: the omnibox-like fetch box (each keystroke is an omnibox hint, Enter
// fetches), the Fetches view (history with waterfalls; hovering a link is a mouse-over hint),
// the replay controls and the Quit button.
// Safety rule (dom.js): server strings only through textContent / NS.el / NS.link.
(() => {
'use strict';

const box = {sequence: 0, pollTimer: null, waitingFor: null, lastHistory: '', lastHover: null};

// What the predictor started for a hint: one line per action.
function describeActions(actions) {
  if (!Array.isArray(actions) || !actions.length) return ['no speculative action'];
  return actions.map((a) => NS.el('li', {class: 'action'}, [
    NS.el('span', {class: 'action-kind'}, NS.text(a.action)), ' ',
    NS.text(a.url || a.origin), ' ',
    NS.el('span', {class: 'muted'}, '(' + NS.text(a.motivation) + ')'),
  ]));
}

function showHintAnswer(label, answer) {
  NS.fill('hint-actions', [NS.el('span', {class: 'muted'}, label + ': '),
                           NS.el('ul', {id: 'hint-action-list'},
                                 describeActions(answer.actions))]);
}

async function onInput(input) {
  const text = input.value;
  const sequence = ++box.sequence;
  if (!text.trim()) {
    NS.fill('suggestion', '');
    return;
  }
  try {
    const answer = await NS.post('/api/omnibox', {text});
    if (sequence !== box.sequence) return;  // a later keystroke already answered
    NS.fill('suggestion', answer.suggestion ? ['→ ', NS.el('span', {id: 'suggestion-url'},
                                                             NS.text(answer.suggestion))]
                                            : 'no suggestion');
    showHintAnswer('omnibox', answer);
  } catch (e) {
    if (sequence === box.sequence) NS.status(e.message, true);
  }
}

// Starts a page load and polls /api/fetches until it is done (at most ~2 minutes).
NS.startFetch = async function startFetch(url) {
  let answer;
  try {
    answer = await NS.post('/api/fetch', {url});
  } catch (e) {
    NS.status(e.message, true);
    return;
  }
  NS.status('fetching ' + url + ' (load ' + answer.id + ')');
  box.waitingFor = answer.id;
  if (location.hash !== '#fetches') location.hash = '#fetches';
  let polls = 0;
  clearInterval(box.pollTimer);
  box.pollTimer = setInterval(async () => {
    ++polls;
    const loads = await NS.views.fetches.refresh();
    const load = (loads || []).find((l) => l.id === box.waitingFor);
    if ((load && load.state === 'done') || polls > 240) {
      clearInterval(box.pollTimer);
      if (load && load.state === 'done') NS.status('loaded ' + url);
      if (NS.refreshAll) NS.refreshAll();
    }
  }, 500);
};

// ---- the waterfall

const PHASE_CLASSES = [
  ['queued_ms', 'queued'], ['dns_ms', 'dns'], ['connect_ms', 'connect'], ['tls_ms', 'ssl'],
  ['send_ms', 'send'], ['ttfb_ms', 'wait'], ['receive_ms', 'receive'],
];

function waterfallBar(request, scale) {
  const timing = request.timing || {};
  const track = NS.el('span', {class: 'waterfall-track'});
  let at = Number(request.start_ms) || 0;
  for (const [field, name] of PHASE_CLASSES) {
    const ms = Number(timing[field]) || 0;
    if (ms <= 0) continue;
    const seg = NS.el('span', {class: 'phase phase-' + name,
                               title: name + ' ' + NS.ms(ms)});
    seg.style.left = (at * scale).toFixed(3) + '%';
    seg.style.width = Math.max(0.3, ms * scale).toFixed(3) + '%';
    track.appendChild(seg);
    at += ms;
  }
  const start = NS.el('span', {class: 'phase-start'});
  start.style.left = ((Number(request.start_ms) || 0) * scale).toFixed(3) + '%';
  track.appendChild(start);
  return track;
}

function requestEnd(r) {
  const t = r.timing || {};
  return (Number(r.start_ms) || 0) + (Number(t.queued_ms) || 0) + (Number(t.total_ms) || 0);
}

function loadBlock(load) {
  const requests = Array.isArray(load.requests) ? load.requests : [];
  const page = load.page || {};
  const span = Math.max(Number(page.load_ms) || 0, ...requests.map(requestEnd), 1);
  const scale = 100 / span;
  const link = NS.link(load.url, 'fetch-link');
  link.addEventListener('mouseenter', async () => {
    // One hint per link the pointer enters, not one per redraw under a resting pointer.
    if (box.lastHover === load.url) return;
    box.lastHover = load.url;
    try {
      showHintAnswer('hover ' + load.url, await NS.post('/api/hover', {url: load.url}));
    } catch (e) {
      NS.status(e.message, true);
    }
  });
  link.addEventListener('mouseleave', () => { box.lastHover = null; });
  link.addEventListener('click', (event) => {
    event.preventDefault();  // "navigating" is fetching it again through the stack
    NS.startFetch(load.url);
  });
  const summary = load.state === 'done'
    ? NS.text(page.requests) + ' requests, ' + NS.text(page.failed) + ' failed, loaded in ' +
      NS.ms(page.load_ms)
    : 'loading…';
  return NS.el('div', {class: 'load', data: {id: NS.text(load.id), state: NS.text(load.state)}}, [
    NS.el('h3', null, ['#' + NS.text(load.id) + ' ', link, ' ',
                       NS.el('span', {class: 'muted load-state'}, summary)]),
    NS.table([
      {label: 'url', class: 'url', get: (r) => NS.text(r.url)},
      {label: 'status', class: 'num', get: (r) => (r.error ? NS.el('span', {class: 'error'},
                                                                   NS.text(r.error))
                                                            : NS.text(r.status))},
      {label: 'cache', get: (r) => NS.text(r.cache)},
      // HTTP/2: the session (a click shows it in the HTTP/2 view) and the stream.
      {label: 'protocol', field: 'protocol', get: (r) => (r.h2_session_id
        ? [NS.text(r.protocol) + ' ', NS.button('session ' + NS.text(r.h2_session_id),
                                                () => NS.showHttp2Session(r.h2_session_id),
                                                {class: 'source-link'}),
           ' stream ' + NS.text(r.h2_stream_id)]
        : NS.text(r.protocol))},
      {label: 'socket', get: (r) => {
        const s = r.socket || {};
        if (!s.id) return '-';
        return s.id + ' ' + (s.source || '');
      }},
      {label: 'total', class: 'num', get: (r) => NS.ms((r.timing || {}).total_ms)},
      {label: 'waterfall', class: 'bar-cell waterfall', get: (r) => waterfallBar(r, scale)},
    ], requests, {class: 'waterfall-table', empty: load.state === 'done' ? 'no requests'
                                                                          : 'loading…'}),
  ]);
}

NS.views.fetches = {
  id: 'fetches',
  title: 'Fetches',
  build(section) {
    this.body = NS.el('div', {id: 'fetch-history', class: 'view-body'});
    const legend = PHASE_CLASSES.map(([, name]) => NS.el('span', {class: 'legend'}, [
      NS.el('span', {class: 'phase-swatch phase-' + name}), name]));
    NS.fill(section, [NS.el('h2', null, 'Fetches'),
                      NS.el('p', {class: 'muted'},
                            'Type a URL in the box above; Enter fetches it (the page and its ' +
                            'subresources). Hovering a link below sends a mouse-over hint.'),
                      NS.el('div', {class: 'legend-row'}, legend), this.body]);
  },
  // Redraws the history; resolves to the loads (for startFetch's polling).
  async refresh() {
    let answer;
    try {
      answer = await NS.get('/api/fetches');
    } catch (e) {
      box.lastHistory = '';
      NS.fill(this.body, NS.el('p', {class: 'unavailable'}, 'Not available: ' + e.message));
      return [];
    }
    const loads = Array.isArray(answer.loads) ? answer.loads : [];
    // Redrawn only when it changed: a redraw under the pointer would re-enter the link.
    const text = JSON.stringify(loads);
    if (text === box.lastHistory && this.body.firstChild) return loads;
    box.lastHistory = text;
    NS.fill(this.body, loads.length ? loads.map(loadBlock)
                                    : NS.el('p', {class: 'muted'}, 'No fetches yet.'));
    return loads;
  },
};

// ---- replay controls and Quit (shown from /api/info)

NS.showInfo = function showInfo(info) {
  const replay = info.mode === 'replay';
  document.getElementById('replay-controls').hidden = !replay;
  if (replay && info.replay) NS.showReplayState(info.replay);
  const input = document.getElementById('fetch-box');
  input.disabled = info.can_fetch === false;
  input.placeholder = info.can_fetch === false ? 'fetching is not available in this mode'
                                               : 'Type a URL (omnibox hints); Enter fetches it';
  NS.fill('info-line', NS.text(info.mode) + ' · pid ' + NS.text(info.pid) + ' · up ' +
                       NS.ms(info.uptime_ms) + ' · predictor ' +
                       NS.text(info.predictor_policy) + (info.stack === false ? ' · no stack'
                                                                                : ''));
};

NS.showReplayState = function showReplayState(r) {
  NS.fill('replay-state', NS.text(r.state) + ': ' + NS.text(r.events_done) + ' events, ' +
                          NS.text(r.pages_done) + ' pages, ' + NS.text(r.requests_done) +
                          ' requests, virtual ' + NS.ms(r.virtual_ms) +
                          (r.pass !== undefined ? ', pass ' + NS.text(r.pass) : ''));
};

NS.setupTopBar = function setupTopBar() {
  const input = document.getElementById('fetch-box');
  input.addEventListener('input', () => onInput(input));
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const url = input.value.trim();
    if (url) NS.startFetch(url);
  });
  for (const action of ['run', 'pause', 'step', 'step_page']) {
    document.getElementById('replay-' + action).addEventListener('click', async () => {
      try {
        NS.showReplayState(await NS.post('/api/replay', {action}));
      } catch (e) {
        NS.status(e.message, true);
      }
      if (NS.refreshAll) NS.refreshAll();
    });
  }
  document.getElementById('quit').addEventListener('click', async () => {
    try {
      await NS.post('/api/quit', {});
      NS.stopRefreshing();
      NS.status('netstack is quitting: this page no longer updates.');
    } catch (e) {
      NS.status(e.message, true);
    }
  });
};
})();
