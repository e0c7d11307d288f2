// netstack internals: the HTTP/2 view, like net-internals' #http2. GET /api/http2: the session
// pool's status (HTTP/2 enabled, the ALPN offer, the servers known to speak h2) and one row per
// session in Chrome's spdySessionInfo fields; a session's id opens its NetLog events, its socket
// id shows the socket in the Sockets view.
// Safety rule (dom.js): server strings only through textContent / NS.el / NS.link.
(() => {
'use strict';

// The session another view asked to see (NS.showHttp2Session): its row is highlighted.
const http2 = {focused: null};

NS.showHttp2Session = async function showHttp2Session(id) {
  http2.focused = Number(id);
  if (location.hash !== '#http2') location.hash = '#http2';
  await NS.views.http2.refresh();
  const row = document.querySelector('#http2-sessions tr[data-session-id="' +
                                     CSS.escape(String(http2.focused)) + '"]');
  if (row) row.scrollIntoView({block: 'center'});
};

// A list field; Chrome writes alpn_protos as one comma-separated string, netstack as an array.
function list(v) {
  if (typeof v === 'string') return v ? v.split(',') : [];
  return Array.isArray(v) ? v.map(NS.text) : [];
}

function hostCell(s) {
  const aliases = list(s.aliases);
  return [NS.el('span', {class: 'url'}, NS.text(s.host_port_pair)),
          aliases.length ? NS.el('span', {class: 'muted aliases'}, ' also ' + aliases.join(', '))
                         : null];
}

function goawayCell(s) {
  const g = s.goaway;
  if (!g || typeof g !== 'object') return '';
  return NS.el('span', {class: 'error'},
               'last stream ' + NS.text(g.last_stream_id) + ', ' + NS.text(g.error_code));
}

function errorCell(s) {
  if (!s.error) return '';
  return NS.el('span', {class: 'error'}, NS.text(s.error_name || s.error));
}

function stateCell(s) {
  if (s.available) return 'available';
  return NS.el('span', {class: 'muted'}, s.goaway ? 'going away' : 'closing');
}

NS.makeView('http2', 'HTTP/2', () => [], async () => {
  const answer = await NS.get('/api/http2');
  if (answer.stack === false) return NS.noStack();
  const status = answer.status || {};
  const sessions = Array.isArray(answer.sessions) ? answer.sessions : [];
  const alpn = list(status.alpn_protos);
  const known = list(status.known_http2_servers);
  const num = (key) => (s) => NS.text(s[key]);
  return [
    NS.el('p', {id: 'http2-summary', class: 'summary'},
          'HTTP/2 ' + (status.enable_http2 ? 'enabled' : 'disabled') + '; ALPN offers ' +
          (alpn.length ? alpn.join(', ') : 'nothing') + '; ' + sessions.length + ' session' +
          (sessions.length === 1 ? '' : 's')),
    NS.el('h3', null, 'Sessions'),
    NS.table([
      {label: 'id', field: 'session', get: (s) => NS.sourceButton(s.source_id)},
      {label: 'host', field: 'host', get: hostCell},
      {label: 'socket', field: 'socket',
       get: (s) => (s.socket_id ? NS.button(NS.text(s.socket_id), () => NS.showSocket(s.socket_id),
                                            {class: 'source-link'})
                                : '-')},
      {label: 'protocol', get: (s) => NS.text(s.negotiated_protocol) +
                                      (s.is_secure ? ' (TLS)' : ' (cleartext)')},
      {label: 'state', field: 'state', get: stateCell},
      {label: 'active', class: 'num', field: 'active_streams', get: num('active_streams')},
      {label: 'queued', class: 'num', field: 'queued_streams', get: num('queued_streams')},
      // The server's MAX_CONCURRENT_STREAMS; nghttp2 reports 2^32 - 1 when it sent none.
      {label: 'max', class: 'num', field: 'max_concurrent_streams',
       get: (s) => (s.max_concurrent_streams >= 0xffffffff ? 'unlimited'
                                                           : NS.text(s.max_concurrent_streams))},
      {label: 'initiated', class: 'num', field: 'streams_initiated_count',
       get: num('streams_initiated_count')},
      {label: 'ever queued', class: 'num', get: num('streams_queued_count')},
      {label: 'send window', class: 'num', field: 'send_window_size',
       get: (s) => NS.bytes(s.send_window_size)},
      {label: 'recv window', class: 'num', field: 'recv_window_size',
       get: (s) => NS.bytes(s.recv_window_size)},
      {label: 'frames sent', class: 'num', field: 'frames_sent', get: num('frames_sent')},
      {label: 'frames received', class: 'num', field: 'frames_received',
       get: num('frames_received')},
      {label: 'GOAWAY', field: 'goaway', get: goawayCell},
      {label: 'error', field: 'error', get: errorCell},
      {label: 'age', class: 'num', get: (s) => NS.ms(s.age_ms)},
    ], sessions, {id: 'http2-sessions', empty: 'no HTTP/2 session',
                  rowData: (s) => ({sessionId: NS.text(s.source_id)}),
                  rowClass: (s) => (s.source_id === http2.focused ? 'selected'
                                    : s.available ? null : 'stale')}),
    NS.el('h3', null, 'Servers known to speak HTTP/2 (' + known.length + ')'),
    NS.table([{label: 'origin', get: (k) => k}], known,
             {id: 'http2-known-servers', empty: 'none yet'}),
    NS.el('h3', null, 'Status'),
    NS.keyValueTable({enable_http2: status.enable_http2, alpn_protos: alpn.join(','),
                      sessions: status.sessions}, {id: 'http2-status'}),
  ];
});
})();
