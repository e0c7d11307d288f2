// netstack internals: the Events view. The live NetLog stream (polled from /api/events), one
// source's events as a timeline, the export link, and a NetLog file loaded from disk (parsed
// here, never sent anywhere) shown in the same list and timeline.
// Safety rule (dom.js): server and file strings only through textContent / NS.el / NS.link.
(() => {
'use strict';

const MAX_KEPT_EVENTS = 5000;  // the list keeps the newest; older ones are dropped
const MAX_SHOWN_EVENTS = 500;  // rows drawn (newest first)
const PHASES = {0: '', 1: 'BEGIN', 2: 'END'};

const events = {
  live: [],          // events from /api/events
  after: 0,          // the last seq seen: the next poll asks for what follows it
  dropped: 0,
  paused: false,
  file: null,        // {name, events} when a NetLog file is shown instead of the live stream
  filter: '',
  selectedSource: null,
  polling: false,
};

function phaseName(phase) {
  return Object.prototype.hasOwnProperty.call(PHASES, phase) ? PHASES[phase] : NS.text(phase);
}

function shownEvents() { return events.file ? events.file.events : events.live; }

function eventMatches(e, filter) {
  if (!filter) return true;
  const f = filter.toLowerCase();
  const source = e.source || {};
  return NS.text(e.type_name).toLowerCase().includes(f) ||
         NS.text(e.source_type_name).toLowerCase().includes(f) ||
         ('id:' + source.id) === f ||
         (e.params !== undefined && JSON.stringify(e.params).toLowerCase().includes(f));
}

function message(text, isError) {
  const node = document.getElementById('events-message');
  if (!node) return;
  node.textContent = text;
  node.classList.toggle('error', !!isError);
}

// ---- the timeline of one source

// Pairs each BEGIN with its END (same type, innermost first) so a span is drawn as a bar.
function timelineRows(list) {
  const rows = list.map((e) => ({e, offset: Number(e.offset_ms) || 0, duration: null}));
  const open = [];
  for (const row of rows) {
    if (row.e.phase === 1) open.push(row);
    if (row.e.phase === 2) {
      for (let i = open.length - 1; i >= 0; --i) {
        if (open[i].e.type === row.e.type) {
          open[i].duration = row.offset - open[i].offset;
          open.splice(i, 1);
          break;
        }
      }
    }
  }
  return rows;
}

function drawTimeline(sourceId, list) {
  const panel = document.getElementById('event-timeline');
  if (!panel) return;
  const rows = timelineRows(list);
  const span = rows.reduce((m, r) => Math.max(m, r.offset + (r.duration || 0)), 0) || 1;
  const barFor = (r) => {
    const track = NS.el('span', {class: 'timeline-track'});
    const mark = NS.el('span', {class: r.duration !== null ? 'timeline-span' : 'timeline-point'});
    mark.style.left = ((r.offset / span) * 100).toFixed(2) + '%';
    if (r.duration !== null) mark.style.width = Math.max(0.5, (r.duration / span) * 100) + '%';
    track.appendChild(mark);
    return track;
  };
  NS.fill(panel, [
    NS.el('h3', null, 'Source ' + sourceId + ' (' + rows.length + ' events, ' +
                      NS.ms(span) + ')'),
    NS.table([
      {label: 'offset', class: 'num', get: (r) => '+' + NS.ms(r.offset)},
      {label: 'event', get: (r) => NS.text(r.e.type_name)},
      {label: 'phase', get: (r) => phaseName(r.e.phase)},
      {label: '', class: 'bar-cell wide', get: barFor},
      {label: 'duration', class: 'num', get: (r) => (r.duration !== null ? NS.ms(r.duration)
                                                                          : '')},
      {label: 'params', class: 'params', get: (r) => (r.e.params === undefined ? ''
                                                           : JSON.stringify(r.e.params))},
    ], rows, {id: 'timeline-table', empty: 'no events kept for this source'}),
  ]);
}

async function showSource(sourceId) {
  events.selectedSource = sourceId;
  if (events.file) {
    // A loaded file: the timeline is computed here from the file's events.
    const list = events.file.events.filter((e) => e.source && e.source.id === sourceId);
    const t0 = list.length ? Number(list[0].time) || 0 : 0;
    drawTimeline(sourceId, list.map((e) => Object.assign({offset_ms: (Number(e.time) || 0) - t0},
                                                         e)));
    return;
  }
  try {
    const answer = await NS.get('/api/events/source?id=' + encodeURIComponent(sourceId));
    drawTimeline(sourceId, Array.isArray(answer.events) ? answer.events : []);
  } catch (e) {
    message(e.message, true);
  }
}

// ---- the list

function drawList() {
  const container = document.getElementById('event-list');
  if (!container) return;
  const matching = shownEvents().filter((e) => eventMatches(e, events.filter));
  const rows = matching.slice(-MAX_SHOWN_EVENTS).reverse();
  const sourceLink = (e) => {
    const id = e.source ? e.source.id : undefined;
    const b = NS.button(NS.text(id), () => showSource(id), {class: 'source-link'});
    return b;
  };
  const header = events.file
    ? 'File ' + events.file.name + ': ' + matching.length + ' of ' + events.file.events.length +
      ' events match'
    : (events.paused ? 'Paused. ' : 'Live. ') + matching.length + ' of ' + events.live.length +
      ' kept events match' + (events.dropped ? ' (' + events.dropped + ' dropped by the server)'
                                             : '');
  NS.fill(container, [
    NS.el('p', {id: 'events-count', class: 'summary'},
          header + (rows.length < matching.length ? '; showing the newest ' + rows.length : '')),
    NS.table([
      {label: 'seq', class: 'num', get: (e) => NS.text(e.seq)},
      {label: 'time', class: 'num', get: (e) => NS.text(e.time)},
      {label: 'source', get: sourceLink},
      {label: 'source type', get: (e) => NS.text(e.source_type_name)},
      {label: 'event', field: 'event', get: (e) => NS.text(e.type_name)},
      {label: 'phase', get: (e) => phaseName(e.phase)},
      {label: 'params', class: 'params', get: (e) => (e.params === undefined ? ''
                                                           : JSON.stringify(e.params))},
    ], rows, {id: 'events-table', empty: 'no events'}),
  ]);
}

async function poll() {
  if (events.paused || events.polling) return;
  events.polling = true;
  try {
    const answer = await NS.get('/api/events?after=' + events.after + '&limit=1000');
    const list = Array.isArray(answer.events) ? answer.events : [];
    for (const e of list) events.live.push(e);
    if (events.live.length > MAX_KEPT_EVENTS) {
      events.live.splice(0, events.live.length - MAX_KEPT_EVENTS);
    }
    // EventsAfter answers seq > after; next_seq is the next to come (or, when the limit cut the
    // answer short, the first not returned), so the next poll asks after next_seq - 1.
    if (list.length && typeof list[list.length - 1].seq === 'number') {
      events.after = list[list.length - 1].seq;
    } else if (typeof answer.next_seq === 'number' && answer.next_seq > 0) {
      events.after = Math.max(events.after, answer.next_seq - 1);
    }
    if (typeof answer.dropped === 'number') events.dropped = answer.dropped;
    if (list.length && !events.file && NS.currentView === 'events') drawList();
  } catch (e) {
    // The server may be gone (Quit) or have no stack; the next poll tries again.
  } finally {
    events.polling = false;
  }
}

// ---- a NetLog file

// Chrome's NetLog JSON: {"constants": {"logEventTypes": {name: id}, "logSourceType": {...},
// "logEventPhase": {...}}, "events": [{time, type, source: {id, type}, phase, params}]}. A file
// Chrome was still writing ends without "]}": that tail is repaired as chrome://net-export does.
NS.parseNetLog = function parseNetLog(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (first) {
    try {
      data = JSON.parse(text.trim().replace(/,?\s*$/, '') + ']}');
    } catch (second) {
      throw new Error('not JSON (' + first.message + ')');
    }
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new Error('not a NetLog file: the top level is not an object');
  }
  if (!Array.isArray(data.events)) throw new Error('not a NetLog file: no "events" array');
  const constants = data.constants && typeof data.constants === 'object' ? data.constants : {};
  const invert = (table) => {
    const out = {};
    if (table && typeof table === 'object') {
      for (const [name, id] of Object.entries(table)) out[id] = name;
    }
    return out;
  };
  const typeNames = invert(constants.logEventTypes);
  const sourceNames = invert(constants.logSourceType);
  const list = [];
  data.events.forEach((e, i) => {
    if (!e || typeof e !== 'object' || !e.source || typeof e.source !== 'object') {
      throw new Error('not a NetLog file: event ' + i + ' has no source');
    }
    list.push({
      seq: i,
      time: e.time,
      type: e.type,
      type_name: typeNames[e.type] !== undefined ? typeNames[e.type] : NS.text(e.type),
      source: e.source,
      source_type_name: sourceNames[e.source.type] !== undefined ? sourceNames[e.source.type]
                                                                   : NS.text(e.source.type),
      phase: e.phase,
      params: e.params,
    });
  });
  return list;
};

function loadFile(input) {
  const file = input.files && input.files[0];
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => {
    try {
      const list = NS.parseNetLog(String(reader.result));
      events.file = {name: file.name, events: list};
      message('Showing ' + list.length + ' events from ' + file.name + '.', false);
      document.getElementById('events-live').hidden = false;
    } catch (e) {
      message('Cannot load ' + file.name + ': ' + e.message, true);
    }
    drawList();
  };
  reader.onerror = () => message('Cannot read ' + file.name, true);
  reader.readAsText(file);
  input.value = '';
}

// Opens the Events view on one live source (another view's link to a session or socket):
// the list filtered to "id:N" and the source's timeline, as net-internals' #events&q=id:N.
NS.showSource = function openSource(sourceId) {
  const id = Number(sourceId);
  if (!Number.isInteger(id) || id <= 0) return;
  if (events.file) {
    events.file = null;
    const live = document.getElementById('events-live');
    if (live) live.hidden = true;
    message('', false);
  }
  events.filter = 'id:' + id;
  const input = document.getElementById('events-filter');
  if (input) input.value = events.filter;
  if (location.hash !== '#events') location.hash = '#events';
  drawList();
  showSource(id);
};

// ---- the view

NS.views.events = {
  id: 'events',
  title: 'Events',
  build(section) {
    const filter = NS.el('input', {id: 'events-filter', type: 'search', autocomplete: 'off',
                                   spellcheck: 'false',
                                   placeholder: 'filter: event or source type, id:N, params'});
    filter.addEventListener('input', () => { events.filter = filter.value.trim(); drawList(); });
    const pause = NS.button('Pause', () => {
      events.paused = !events.paused;
      pause.textContent = events.paused ? 'Resume' : 'Pause';
      drawList();
      if (!events.paused) poll();
    }, {id: 'events-pause'});
    const exportLink = NS.el('a', {id: 'events-export', class: 'button-link',
                                   download: 'netstack-netlog.json'}, 'Export NetLog');
    exportLink.setAttribute('href', '/api/netlog');
    const fileInput = NS.el('input', {id: 'netlog-file', type: 'file',
                                      accept: '.json,application/json'});
    fileInput.addEventListener('change', () => loadFile(fileInput));
    const live = NS.button('Back to the live stream', () => {
      events.file = null;
      live.hidden = true;
      message('', false);
      drawList();
    }, {id: 'events-live', hidden: true});
    NS.fill(section, [
      NS.el('h2', null, 'Events'),
      NS.el('div', {class: 'toolbar'}, [filter, pause, exportLink,
                                         NS.el('label', {class: 'file-label'},
                                               ['Load NetLog file ', fileInput]),
                                         live]),
      NS.el('p', {id: 'events-message'}),
      NS.el('div', {class: 'split'}, [NS.el('div', {id: 'event-list', class: 'split-main'}),
                                      NS.el('div', {id: 'event-timeline', class: 'detail'},
                                            'Click a source id to see its timeline.')]),
    ]);
  },
  async refresh() { drawList(); },
  poll,
};
})();
