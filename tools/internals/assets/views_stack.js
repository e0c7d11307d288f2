// netstack internals: the Sockets, DNS and Predictor views.
// Safety rule (dom.js): server strings only through textContent / NS.el / NS.link.
(() => {
'use strict';

// A view's frame: a toolbar (buttons) and a body refilled by each refresh. An API error or a
// missing stack shows a message in place of the body instead of breaking the page.
NS.makeView = function makeView(id, title, toolbar, load) {
  const view = {id, title};
  view.build = function build(section) {
    view.body = NS.el('div', {class: 'view-body'});
    NS.fill(section, [NS.el('h2', null, title), NS.el('div', {class: 'toolbar'}, toolbar()),
                      view.body]);
  };
  view.refresh = async function refresh() {
    let children;
    try {
      children = await load();
    } catch (e) {
      children = NS.el('p', {class: 'unavailable'}, 'Not available: ' + e.message);
    }
    NS.fill(view.body, children);
  };
  NS.views[id] = view;
  return view;
};

// Runs a POST action from a button, reports its answer, and refreshes every view.
NS.action = async function action(path, body, describe) {
  try {
    const answer = await NS.post(path, body);
    NS.status(describe ? describe(answer) : path + ' done');
    return answer;
  } catch (e) {
    NS.status(e.message, true);
    return null;
  } finally {
    if (NS.refreshAll) NS.refreshAll();
  }
};

NS.noStack = function noStack() {
  return NS.el('p', {class: 'unavailable'}, 'No stack right now (a replay between passes?).');
};

// ---- Sockets

// The socket another view asked to see (NS.showSocket): its row is highlighted.
const sockets = {focused: null};

// Shows the Sockets view with socket `id`'s row highlighted and in sight.
NS.showSocket = async function showSocket(id) {
  sockets.focused = Number(id);
  if (location.hash !== '#sockets') location.hash = '#sockets';
  await NS.views.sockets.refresh();
  const row = document.querySelector('#socket-table tr[data-socket-id="' +
                                     CSS.escape(String(sockets.focused)) + '"]');
  if (row) row.scrollIntoView({block: 'center'});
};

// A button naming a NetLog source; a click opens its timeline in the Events view.
NS.sourceButton = function sourceButton(id, label) {
  if (!id) return '-';
  return NS.button(label || NS.text(id), () => NS.showSource(id), {class: 'source-link'});
};

// Every socket the pool can name: those carrying HTTP/2 sessions (handed out for the session's
// life) and the idle ones. Other handed-out sockets serve one HTTP/1.1 request each; the pool
// counts them but does not list them.
function socketRows(pool, groups) {
  const rows = [];
  const h2 = Array.isArray(pool.http2_sockets) ? pool.http2_sockets : [];
  for (const s of h2) {
    const group = groups.find((g) => (g.http2_sessions || []).some(
        (x) => x.session_id === s.session_id));
    rows.push(Object.assign({id: s.socket_id, group: group ? group.name : '', state: 'h2'}, s));
  }
  for (const g of groups) {
    for (const id of Array.isArray(g.idle_sockets) ? g.idle_sockets : []) {
      rows.push({id, group: g.name, state: 'idle'});
    }
  }
  return rows;
}

function socketState(r) {
  if (r.state !== 'h2') return 'idle';
  const note = r.goaway ? 'going away' : r.available ? 'available' : 'closing';
  return [NS.el('span', {class: 'badge h2'}, 'h2'), ' HTTP/2 session (' + note + ')'];
}

NS.makeView('sockets', 'Sockets', () => [
  NS.button('Close idle sockets', () => NS.action('/api/sockets/close-idle', {},
                                                 (a) => 'closed ' + a.closed + ' idle sockets, ' +
                                                        a.http2_sessions_closed +
                                                        ' idle HTTP/2 sessions'),
            {id: 'close-idle'}),
  NS.button('Flush socket pools', () => NS.action('/api/sockets/flush', {},
                                                 (a) => 'flushed; pool generation ' +
                                                        a.pool_generation_number + '; ' +
                                                        a.http2_sessions_going_away +
                                                        ' HTTP/2 sessions going away'),
            {id: 'flush-pools'}),
], async () => {
  const info = await NS.get('/api/sockets');
  if (info.stack === false) return NS.noStack();
  const pools = Array.isArray(info) ? info : [info];
  const out = [];
  for (const pool of pools) {
    const fields = [
      ['name', 'name'], ['handed out', 'handed_out_socket_count'],
      ['idle', 'idle_socket_count'], ['connecting', 'connecting_socket_count'],
      ['max sockets', 'max_socket_count'], ['max per group', 'max_sockets_per_group'],
      ['generation', 'pool_generation_number'],
    ];
    out.push(NS.el('h3', null, 'Pool ' + NS.text(pool.name)));
    out.push(NS.table(fields.map(([label, key]) => ({
      label, field: key, class: key === 'name' ? null : 'num', get: () => NS.text(pool[key]),
    })), [pool], {id: 'pool-table'}));
    const groups = Object.entries(pool.groups || {}).map(([name, g]) => Object.assign({name}, g));
    const count = (v) => (Array.isArray(v) ? String(v.length) : NS.text(v));
    out.push(NS.el('h3', null, 'Groups (' + groups.length + ')'));
    out.push(NS.table([
      {label: 'group', field: 'group', get: (g) => g.name},
      {label: 'pending', class: 'num', get: (g) => NS.text(g.pending_request_count)},
      {label: 'top priority', get: (g) => NS.text(g.top_pending_priority)},
      {label: 'active', class: 'num', field: 'active', get: (g) => NS.text(g.active_socket_count)},
      {label: 'idle', class: 'num', field: 'idle', get: (g) => count(g.idle_sockets)},
      {label: 'connect jobs', class: 'num', field: 'connect_jobs',
       get: (g) => count(g.connect_jobs)},
      {label: 'HTTP/2 sessions', field: 'http2', get: (g) => (g.http2_sessions || []).map(
          (x) => NS.text('session ' + x.session_id + ' on socket ' + x.socket_id)).join(', ')},
      {label: 'backup job', get: (g) => NS.yesNo(g.backup_job_timer_is_running)},
      {label: 'stalled', get: (g) => NS.yesNo(g.is_stalled)},
    ], groups, {id: 'group-table', empty: 'no groups'}));
    const rows = socketRows(pool, groups);
    const h2Count = rows.filter((r) => r.state === 'h2').length;
    const handedOut = Number(pool.handed_out_socket_count) || 0;
    out.push(NS.el('h3', null, 'Sockets (' + rows.length + ')'));
    out.push(NS.el('p', {id: 'socket-summary', class: 'summary'},
                   handedOut + ' handed out: ' + h2Count + ' carry HTTP/2 sessions, ' +
                   Math.max(0, handedOut - h2Count) + ' serve HTTP/1.1 requests (not listed); ' +
                   NS.text(pool.idle_socket_count) + ' idle'));
    out.push(NS.table([
      {label: 'socket', field: 'socket', get: (r) => NS.sourceButton(r.id)},
      {label: 'group', get: (r) => NS.text(r.group)},
      {label: 'state', field: 'state', get: socketState},
      {label: 'session', field: 'session',
       get: (r) => (r.state === 'h2'
                      ? NS.button(NS.text(r.session_id), () => NS.showHttp2Session(r.session_id),
                                  {class: 'source-link'})
                      : '')},
      {label: 'host', field: 'host', get: (r) => (r.state === 'h2'
                                                    ? [NS.text(r.host_port_pair)].concat(
                                                          r.aliases || []).join(' ')
                                                    : '')},
      {label: 'streams', class: 'num', get: (r) => (r.state === 'h2'
                                                       ? NS.text(r.active_streams) + ' active, ' +
                                                         NS.text(r.queued_streams) + ' queued'
                                                       : '')},
    ], rows, {id: 'socket-table', empty: 'no idle socket and no HTTP/2 session',
              rowData: (r) => ({socketId: NS.text(r.id)}),
              rowClass: (r) => [r.state === 'h2' ? 'h2-socket' : '',
                                r.id === sockets.focused ? 'selected' : ''].join(' ').trim() ||
                               null}));
  }
  return out;
});

// ---- DNS

const FAMILIES = {0: 'unspecified', 1: 'IPv4', 2: 'IPv6'};

// The lookup box (chrome://net-internals/#dns "Lookup a hostname"): POST /api/dns/resolve
// {"host"} and show the answer. It lives in the toolbar, outside the body, so the periodic
// refresh does not wipe what was typed or the last answer. The host comes back from the server
// and may hold anything (markup included): it is shown with textContent like every other string.
const lookup = {seq: 0};

function lookupAnswer(a) {
  const ok = a.result === 'OK';
  const addresses = Array.isArray(a.addresses) ? a.addresses.map(NS.text) : [];
  const rows = [
    ['host', NS.text(a.host)],
    ['result', NS.text(a.result)],
    ['addresses', addresses.length ? addresses.join(', ') : 'none'],
    ['from cache', NS.yesNo(a.from_cache)],
    ['detail', NS.text(a.detail)],
  ];
  return [
    NS.el('p', {id: 'dns-lookup-summary', class: ok ? 'summary' : 'error'},
          ok ? 'Resolved ' + NS.text(a.host) + ': ' + addresses.join(', ')
             : 'Could not resolve ' + NS.text(a.host) + ': ' + NS.text(a.result)),
    NS.el('table', {id: 'dns-lookup-answer', class: 'grid kv'}, NS.el('tbody', null, rows.map(
        ([field, value]) => NS.el('tr', {data: {field}}, [
          NS.el('th', null, field),
          NS.el('td', {class: 'value'}, value),
        ])))),
  ];
}

async function resolveHost(input) {
  const host = input.value.trim();
  const seq = ++lookup.seq;
  if (!host) {
    NS.fill('dns-lookup-result', NS.el('p', {class: 'error'}, 'Type a host name to resolve.'));
    return;
  }
  NS.fill('dns-lookup-result', NS.el('p', {class: 'summary'}, 'Resolving ' + host + ' ...'));
  let answer = null;
  let error = null;
  try {
    answer = await NS.post('/api/dns/resolve', {host});
  } catch (e) {
    error = e;
  }
  if (seq !== lookup.seq) return;  // a newer lookup was started: its answer is the one shown
  if (answer) {
    NS.fill('dns-lookup-result', lookupAnswer(answer));
    NS.status('lookup of ' + NS.text(answer.host) + ': ' + NS.text(answer.result));
  } else {
    NS.fill('dns-lookup-result', NS.el('p', {class: 'error'}, error.message));
    NS.status(error.message, true);
  }
  // The lookup may have added a host cache entry: show it now, not at the next refresh.
  if (NS.currentView === 'dns') NS.views.dns.refresh();
}

function lookupBox() {
  const input = NS.el('input', {id: 'dns-lookup-host', type: 'text', autocomplete: 'off',
                                spellcheck: 'false', placeholder: 'host name, e.g. example.com'});
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      resolveHost(input);
    }
  });
  return NS.el('div', {id: 'dns-lookup', class: 'lookup'}, [
    NS.el('h3', null, 'Lookup a hostname'),
    NS.el('div', {class: 'lookup-row'}, [
      input, NS.button('Resolve', () => resolveHost(input), {id: 'dns-lookup-resolve'})]),
    NS.el('div', {id: 'dns-lookup-result'}),
  ]);
}

NS.makeView('dns', 'DNS', () => [
  NS.button('Clear host cache', () => NS.action('/api/dns/clear', {},
                                               (a) => 'cleared ' + a.cleared + ' entries'),
            {id: 'clear-host-cache'}),
  lookupBox(),
], async () => {
  const dns = await NS.get('/api/dns');
  if (dns.stack === false) return NS.noStack();
  const cache = dns.cache || {};
  const entries = Array.isArray(cache.entries) ? cache.entries : [];
  return [
    NS.el('p', {class: 'summary'},
          'Host cache: ' + NS.text(cache.size) + ' of ' + NS.text(cache.capacity) +
          ' entries, ' + NS.text(cache.evictions) + ' evictions, network changes ' +
          NS.text(cache.network_changes)),
    NS.table([
      {label: 'host', field: 'hostname', get: (e) => NS.text(e.hostname)},
      {label: 'family', get: (e) => FAMILIES[e.address_family] || NS.text(e.address_family)},
      {label: 'addresses or error', field: 'addresses',
       get: (e) => (Array.isArray(e.addresses) ? e.addresses.join(', ')
                                               : NS.el('span', {class: 'error'},
                                                       NS.text(e.error)))},
      {label: 'TTL', class: 'num', get: (e) => NS.ms(e.ttl)},
      // expired_by_ms is negative while the entry is fresh: the time left.
      {label: 'expires', class: 'num', get: (e) => (typeof e.expired_by_ms !== 'number'
                                                      ? NS.text(e.expiration)
                                                      : e.expired_by_ms > 0
                                                      ? 'expired ' + NS.ms(e.expired_by_ms) + ' ago'
                                                      : 'in ' + NS.ms(-e.expired_by_ms))},
      {label: 'stale', get: (e) => NS.yesNo(e.stale)},
      {label: 'stale hits', class: 'num', get: (e) => NS.text(e.stale_hits)},
    ], entries, {id: 'host-cache-table', empty: 'the host cache is empty',
                 rowClass: (e) => (e.stale ? 'stale' : null)}),
    NS.el('h3', null, 'Resolver jobs'),
    NS.keyValueTable(dns.jobs || {}),
    NS.el('h3', null, 'Startup list'),
    NS.objectTable(dns.startup_list, ['host', 'count'], {id: 'startup-table', empty: 'empty'}),
    NS.el('h3', null, 'DNS configuration'),
    NS.keyValueTable(dns.dns_config || {}),
  ];
});

// ---- Predictor

NS.makeView('predictor', 'Predictor', () => [], async () => {
  const p = await NS.get('/api/predictor');
  if (!p.policy || p.policy === 'off') {
    return NS.el('p', {class: 'unavailable'}, 'No predictor (policy off).');
  }
  const tables = p.tables || {};
  const queue = p.queue || {};
  const recent = Array.isArray(p.recent) ? p.recent.slice().reverse() : [];
  const out = [
    NS.el('p', {class: 'summary'},
          'Policy ' + NS.text(p.policy) + '; queue: ' + NS.text(queue.queued) + ' queued, ' +
          NS.text(queue.in_flight) + ' in flight, budget ' + NS.text(queue.budget)),
    NS.el('h3', null, 'Recent speculative actions (newest first)'),
    NS.table([
      {label: 'time', class: 'num', get: (r) => NS.ms(r.time_ms)},
      {label: 'motivation', get: (r) => NS.text(r.motivation)},
      {label: 'action', field: 'action', get: (r) => NS.text(r.action)},
      {label: 'origin', field: 'origin', get: (r) => NS.text(r.origin)},
      {label: 'url', get: (r) => NS.text(r.url)},
      {label: 'likelihood', class: 'num',
       get: (r) => (typeof r.likelihood === 'number' ? r.likelihood.toFixed(2) : '')},
      {label: 'page', get: (r) => NS.text(r.page)},
      {label: 'outcome', field: 'outcome',
       get: (r) => NS.el('span', {class: 'outcome outcome-' + NS.text(r.outcome)},
                         NS.text(r.outcome) + (r.error ? ' (' + r.error + ')' : ''))},
      {label: 'sockets', get: (r) => (r.sockets ? 'taken ' + r.sockets.taken + ', used ' +
                                     r.sockets.used + ', late ' + r.sockets.late +
                                     ', wasted ' + r.sockets.wasted : '')},
    ], recent, {id: 'recent-actions', empty: 'no speculative action yet'}),
    NS.el('h3', null, 'Referrers (per-page origin table)'),
    NS.objectTable(tables.referrers, ['page', 'origin'], {id: 'referrer-table'}),
    NS.el('h3', null, 'Omnibox table'),
    NS.objectTable(tables.omnibox, ['text', 'url', 'hits', 'misses', 'confidence'],
                   {id: 'omnibox-table'}),
  ];
  // A policy's other tables (the learned policy has its own): arrays of rows as tables, objects
  // (the learned policy's budget, hover and outcome counters) as field/value tables.
  for (const [name, rows] of Object.entries(tables)) {
    if (name === 'referrers' || name === 'omnibox') continue;
    const id = 'predictor-table-' + name;
    if (Array.isArray(rows)) {
      out.push(NS.el('h3', null, 'Table: ' + name));
      out.push(NS.objectTable(rows, [], {id: id}));
    } else if (rows && typeof rows === 'object') {
      out.push(NS.el('h3', null, 'Table: ' + name));
      out.push(NS.keyValueTable(rows, {id: id}));
    }
  }
  out.push(NS.el('h3', null, 'Statistics'));
  out.push(NS.keyValueTable(p.stats || {}, {id: 'predictor-stats'}));
  out.push(NS.el('h3', null, 'Configuration'));
  out.push(NS.keyValueTable(p.config || {}));
  return out;
});
})();
