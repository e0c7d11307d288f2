// netstack internals: the Cache, Histograms and Memory views.
// Safety rule (dom.js): server strings only through textContent / NS.el / NS.link.
(() => {
'use strict';

// ---- Cache

const cacheState = {query: '', selected: null, timer: null, sequence: 0};

function cacheSearchBox() {
  const box = NS.el('input', {id: 'cache-search', type: 'search', placeholder: 'search keys',
                              autocomplete: 'off', spellcheck: 'false'});
  box.addEventListener('input', () => {
    cacheState.query = box.value;
    clearTimeout(cacheState.timer);
    cacheState.timer = setTimeout(() => NS.views.cache.refresh(), 200);
  });
  return box;
}

async function showCacheEntry(key) {
  cacheState.selected = key;
  const sequence = ++cacheState.sequence;
  const panel = document.getElementById('cache-entry');
  if (!panel) return;
  NS.fill(panel, NS.el('p', null, 'Loading ' + key));
  let entry;
  try {
    entry = await NS.get('/api/cache/entry?key=' + encodeURIComponent(key) + '&max_bytes=65536');
  } catch (e) {
    if (sequence === cacheState.sequence) NS.fill(panel, NS.el('p', {class: 'error'}, e.message));
    return;
  }
  if (sequence !== cacheState.sequence) return;  // another entry was clicked since
  const response = entry.response || {};
  const headers = Array.isArray(response.headers) ? response.headers : [];
  const body = entry.body || {};
  const otherResponseFields = Object.assign({}, response);
  delete otherResponseFields.headers;
  NS.fill(panel, [
    NS.el('h3', null, ['Entry ', NS.el('span', {id: 'cache-entry-key'}, NS.text(entry.key))]),
    NS.keyValueTable(entry.info || {}),
    NS.el('h4', null, 'Response'),
    NS.keyValueTable(otherResponseFields),
    NS.table([
      {label: 'header', get: (h) => NS.text(h[0])},
      {label: 'value', field: 'header-value', get: (h) => NS.text(h[1])},
    ], headers, {id: 'cache-entry-headers', empty: 'no headers'}),
    NS.el('h4', null, 'Body: ' + NS.bytes(body.size) + ', showing ' + NS.bytes(body.shown) +
                      ' as ' + NS.text(body.encoding) + (body.truncated ? ' (truncated)' : '')),
    NS.el('pre', {id: 'cache-entry-body', class: 'body ' + NS.text(body.encoding)},
          NS.text(body.data)),
  ]);
}

NS.makeView('cache', 'Cache', () => [cacheSearchBox()], async () => {
  const q = cacheState.query;
  const answer = await NS.get('/api/cache?limit=500&q=' + encodeURIComponent(q));
  if (answer.stats === null || answer.stats === undefined) {
    return NS.el('p', {class: 'unavailable'}, 'No HTTP cache.');
  }
  const entries = Array.isArray(answer.entries) ? answer.entries : [];
  // The entry panel survives refreshes: it is kept across the list's redraws.
  let panel = document.getElementById('cache-entry');
  if (!panel) panel = NS.el('div', {id: 'cache-entry', class: 'detail'},
                            NS.el('p', null, 'Click an entry to see its headers and body.'));
  return [
    NS.el('p', {class: 'summary'}, NS.text(answer.matched) + ' of ' + NS.text(answer.total) +
                                   ' entries match' + (q ? ' "' + q + '"' : '')),
    NS.el('div', {class: 'split'}, [
      NS.el('div', {class: 'split-main'}, NS.table([
        {label: 'key', field: 'key', class: 'key', get: (e) => NS.text(e.key)},
        {label: 'headers', class: 'num', get: (e) => NS.bytes(e.headers_size)},
        {label: 'body', class: 'num', get: (e) => NS.bytes(e.body_size)},
        {label: 'created', get: (e) => NS.date(e.created)},
        {label: 'last used', get: (e) => NS.date(e.last_used)},
        {label: 'uses', class: 'num', get: (e) => NS.text(e.use_count)},
      ], entries, {id: 'cache-table', empty: 'no entries', onClick: (e) => showCacheEntry(e.key),
                   rowClass: (e) => (e.key === cacheState.selected ? 'selected' : null)})),
      panel,
    ]),
    NS.el('h3', null, 'Statistics'),
    NS.keyValueTable(answer.stats, {id: 'cache-stats'}),
  ];
});

// ---- Histograms

function histogramBlock(h) {
  const buckets = Array.isArray(h.buckets) ? h.buckets : [];
  const most = buckets.reduce((m, b) => Math.max(m, b.count || 0), 0);
  const unit = h.unit ? ' ' + h.unit : '';
  const stat = (v) => (typeof v === 'number' ? v.toFixed(1) : NS.text(v));
  return NS.el('div', {class: 'histogram', data: {name: NS.text(h.name)}}, [
    NS.el('h3', null, [NS.text(h.name), NS.el('span', {class: 'muted'},
                                               ' ' + NS.text(h.description))]),
    NS.el('p', {class: 'summary'},
          'count ' + NS.text(h.count) + ', mean ' + stat(h.mean) + unit + ', p50 ' +
          stat(h.p50) + unit + ', p95 ' + stat(h.p95) + unit + ', min ' + stat(h.min) + unit +
          ', max ' + stat(h.max) + unit + ', sum ' + stat(h.sum) + unit),
    NS.table([
      {label: 'bucket' + unit, class: 'num',
       get: (b) => NS.text(b.low) + ' – ' + (b.high === null ? '∞' : NS.text(b.high))},
      {label: '', class: 'bar-cell', get: (b) => NS.bar(most ? b.count / most : 0, 'hist')},
      {label: 'count', class: 'num', field: 'count', get: (b) => NS.text(b.count)},
    ], buckets, {class: 'histogram-table', empty: 'no samples'}),
  ]);
}

NS.makeView('histograms', 'Histograms', () => [
  NS.button('Reset', () => NS.action('/api/histograms/reset', {}, () => 'histograms reset'),
            {id: 'reset-histograms'}),
], async () => {
  const answer = await NS.get('/api/histograms');
  const list = Array.isArray(answer.histograms) ? answer.histograms : [];
  if (!list.length) return NS.el('p', {class: 'unavailable'}, 'No histograms.');
  return list.map(histogramBlock);
});

// ---- Memory

NS.makeView('memory', 'Memory', () => [], async () => {
  const m = await NS.get('/api/memory');
  const parts = Array.isArray(m.parts) ? m.parts : [];
  const most = parts.reduce((x, p) => Math.max(x, p.bytes || 0), 0);
  return [
    NS.table([
      {label: 'accounted', class: 'num', field: 'accounted', get: () => NS.bytes(m.accounted_bytes)},
      {label: 'heap in use', class: 'num', get: () => NS.bytes(m.heap_in_use_bytes)},
      {label: 'resident', class: 'num', get: () => NS.bytes(m.resident_bytes)},
      {label: 'unaccounted', class: 'num', get: () => NS.bytes(m.unaccounted_bytes)},
      {label: 'library counters', get: () => NS.yesNo(m.library_counters_installed)},
    ], [m], {id: 'memory-totals'}),
    NS.table([
      {label: 'part', field: 'part', get: (p) => NS.text(p.name)},
      {label: 'kind', get: (p) => NS.text(p.kind)},
      {label: 'bytes', class: 'num', get: (p) => NS.bytes(p.bytes)},
      {label: '', class: 'bar-cell', get: (p) => NS.bar(most ? p.bytes / most : 0, 'memory')},
      {label: 'detail', get: (p) => NS.text(p.detail)},
    ], parts, {id: 'memory-parts', empty: 'no parts'}),
  ];
});
})();
