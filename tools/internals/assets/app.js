// netstack internals: the page's entry point. Tabs with hash routing (#sockets, #http2, ...),
// the periodic refresh (the current view, /api/info, the event stream), and start-up.
//
// SAFETY RULE: every string from the server (or from a loaded NetLog file) is rendered with
// textContent / createTextNode, or setAttribute on safe attributes only (see dom.js). Never
// innerHTML, outerHTML, insertAdjacentHTML or document.write with data. No inline script or
// style: the Content-Security-Policy (default-src 'self') refuses them.
(() => {
'use strict';

const VIEW_ORDER = ['fetches', 'sockets', 'http2', 'dns', 'predictor', 'cache', 'events',
                    'histograms', 'memory'];
const REFRESH_MS = 1500;
const EVENTS_POLL_MS = 1000;

const app = {timers: [], refreshing: false, stopped: false};

NS.currentView = null;

function viewFromHash() {
  const id = location.hash.replace(/^#/, '');
  return VIEW_ORDER.includes(id) ? id : 'fetches';
}

function showView(id) {
  NS.currentView = id;
  for (const name of VIEW_ORDER) {
    document.getElementById('view-' + name).hidden = name !== id;
    document.getElementById('tab-' + name).classList.toggle('active', name === id);
  }
  NS.views[id].refresh();
}

// Refreshes /api/info and the current view; concurrent calls collapse into one.
NS.refreshAll = async function refreshAll() {
  if (app.refreshing || app.stopped) return;
  app.refreshing = true;
  try {
    try {
      NS.showInfo(await NS.get('/api/info'));
    } catch (e) {
      NS.fill('info-line', 'the server does not answer: ' + e.message);
    }
    if (NS.currentView) await NS.views[NS.currentView].refresh();
  } finally {
    app.refreshing = false;
  }
};

NS.stopRefreshing = function stopRefreshing() {
  app.stopped = true;
  for (const t of app.timers) clearInterval(t);
};

function start() {
  const nav = document.getElementById('tabs');
  for (const id of VIEW_ORDER) {
    const view = NS.views[id];
    const tab = NS.el('a', {id: 'tab-' + id, class: 'tab'}, view.title);
    tab.setAttribute('href', '#' + id);
    nav.appendChild(tab);
    view.build(document.getElementById('view-' + id));
  }
  NS.setupTopBar();
  window.addEventListener('hashchange', () => showView(viewFromHash()));
  showView(viewFromHash());
  NS.refreshAll();
  NS.views.events.poll();
  app.timers.push(setInterval(NS.refreshAll, REFRESH_MS));
  app.timers.push(setInterval(() => { if (!app.stopped) NS.views.events.poll(); },
                              EVENTS_POLL_MS));
}

document.addEventListener('DOMContentLoaded', start);
})();
