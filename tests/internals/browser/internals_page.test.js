// The internals page in a real headless Chromium (Debian's), against a real `netstack internals`
// with a real dnsmasq, HTTP/1.1 server and HTTP/2 server on loopback (tests/internals/README.md).
//
//   node internals_page.test.js --netstack PATH --artifacts DIR
//
// Exit 0: every check passed; 1: a check failed (it says which); 77: skipped (no chromium, npm,
// or dnsmasq, and NETSTACK_REQUIRE_FIXTURES is not 1). Screenshots of every view go to DIR.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const fx = require('./fixtures.js');

function parseArgs(argv) {
  const out = {};
  for (let i = 2; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      console.error('usage: node internals_page.test.js --netstack PATH --artifacts DIR');
      process.exit(2);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  if (!out.netstack || !out.artifacts) {
    console.error('usage: node internals_page.test.js --netstack PATH --artifacts DIR');
    process.exit(2);
  }
  return out;
}

const HOST = 'internals-test.test';
// A host name holding markup (percent-encoded: a URL cannot carry '<' in its host).
const MARKUP_HOST = '%3cimg%20src=x%20onerror=window.__pwned=1%3e.test';
// A host name holding literal markup and script, typed in the DNS view's lookup box: the
// resolver refuses it before any DNS query (not a valid DNS name) and its answer names it.
const MARKUP_LOOKUP =
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">.test';

async function main() {
  const args = parseArgs(process.argv);
  const chromiumPath = fx.ensureChromium();
  const {chromium} = fx.loadPlaywright();
  fs.mkdirSync(args.artifacts, {recursive: true});
  fs.rmSync(path.join(args.artifacts, 'failure.png'), {force: true});  // from an earlier run
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'netstack-internals-browser-'));

  const cleanups = [];
  let page = null;
  let netstack = null;
  let step = 'start';
  try {
    const dns = await fx.startDnsmasq({[HOST]: '127.0.0.1'}, tmp);
    cleanups.push(dns.stop);
    const origin = await fx.startOriginServer();
    cleanups.push(origin.stop);
    const originText = 'http://' + HOST + ':' + origin.port;
    const pageUrl = originText + '/page.html';
    const evilUrl = originText + '/evil/%3Cimg%20src=x%20onerror=window.__pwned=1%3E?q=%3Cb%3E';
    const markupHostUrl = 'http://' + MARKUP_HOST + ':' + origin.port + '/';
    const h2 = await fx.startH2OriginServer(HOST, tmp);
    cleanups.push(h2.stop);
    const h2Origin = HOST + ':' + h2.port;
    const h2PageUrl = 'https://' + h2Origin + '/h2/page.html';

    step = 'start netstack internals';
    netstack = await fx.startNetstack(args.netstack, [
      'internals', '--profile', path.join(tmp, 'profile'), '--port', '0', '--predictor', 'chrome',
      '--dns-server', '127.0.0.1:' + dns.port,
      '-k',  // the HTTP/2 server's certificate is self-signed
    ]);
    cleanups.push(() => fx.stopNetstack(netstack));
    const base = netstack.url;
    console.log('netstack internals at ' + base);
    const api = async (p) => {
      const response = await fetch(base + p.replace(/^\//, ''));
      assert.equal(response.status, 200, 'GET ' + p);
      return response.json();
    };

    step = 'launch chromium';
    const browser = await chromium.launch({executablePath: chromiumPath, args: ['--no-sandbox']});
    cleanups.push(() => browser.close());
    page = await browser.newPage({viewport: {width: 1400, height: 1000}});
    const problems = [];
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push('CSP: ' + m.text());
    });
    const shot = async (name) => {
      const file = path.join(args.artifacts, name + '.png');
      await page.screenshot({path: file, fullPage: true});
      console.log('screenshot: ' + file);
    };
    const view = async (name) => {
      await page.click('#tab-' + name);
      await page.waitForSelector('#view-' + name + ':not([hidden])');
    };
    const textOf = (selector) => page.$$eval(selector, (nodes) => nodes.map((n) => n.textContent));
    const notPwned = async (where) => {
      assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined',
                   'markup ran as script in ' + where);
    };

    step = 'open the page';
    await page.goto(base);
    await fx.waitFor('the info line', async () => /internals/.test(
        await page.textContent('#info-line')));

    // ---- fetches through the box
    const fetchThroughBox = async (url, mayFail) => {
      const before = (await api('/api/fetches')).loads.length;
      await page.fill('#fetch-box', '');
      await page.fill('#fetch-box', url);  // one input event: an omnibox hint
      await page.press('#fetch-box', 'Enter');
      await fx.waitFor('the load of ' + url, async () => {
        const loads = (await api('/api/fetches')).loads;
        if (loads.length > before && loads[0].state === 'done') return true;
        return mayFail && (await page.$('#status.error')) !== null;
      });
    };
    step = 'fetch the page three times through the box';
    for (let i = 0; i < 3; ++i) await fetchThroughBox(pageUrl);
    step = 'fetch a URL whose path holds markup';
    await fetchThroughBox(evilUrl);
    step = 'fetch a host name holding markup';
    await fetchThroughBox(markupHostUrl, true);

    step = 'Fetches view';
    await view('fetches');
    const loadCount = (await api('/api/fetches')).loads.length;
    assert.ok(loadCount >= 4, 'loads in /api/fetches: ' + loadCount);
    await fx.waitFor('every load, done, with waterfalls in the Fetches view', async () =>
      (await page.$$('.load[data-state="done"]')).length === loadCount &&
      (await page.$$('.waterfall-track .phase')).length > 0);
    await shot('fetches');
    step = 'hover a link in the fetch history';
    await page.hover('.fetch-link');
    await fx.waitFor('the hover hint answer', async () =>
      /hover/.test(await page.textContent('#hint-actions')));

    step = 'Sockets view';
    await view('sockets');
    await fx.waitFor('the origin\'s group in the Sockets view', async () =>
      (await textOf('#group-table td[data-field="group"]')).some((t) => t.includes(HOST)));
    await shot('sockets');

    step = 'HTTP/2: a page from the h2 origin through the box';
    await fetchThroughBox(h2PageUrl);
    step = 'HTTP/2 view: the session, its streams and frames';
    await view('http2');
    const h2Row = await fx.waitFor('the h2 origin\'s session in the HTTP/2 view', async () => {
      const rows = await page.$$eval('#http2-sessions tbody tr', (trs) => trs.map((tr) => {
        const cell = (f) => { const td = tr.querySelector('td[data-field="' + f + '"]');
                              return td ? td.textContent : ''; };
        return {host: cell('host'), initiated: +cell('streams_initiated_count'),
                received: +cell('frames_received'), id: tr.dataset.sessionId};
      }));
      return rows.find((r) => r.host.includes(h2Origin) && r.initiated >= 5 && r.received > 0);
    });
    assert.match(await page.textContent('#http2-summary'), /HTTP\/2 enabled; ALPN offers h2/);
    assert.ok((await page.textContent('#http2-known-servers')).includes(h2Origin));
    await shot('http2');
    step = 'HTTP/2 view: the session\'s socket link shows it marked in the Sockets view';
    await page.click('#http2-sessions tr[data-session-id="' + h2Row.id +
                     '"] td[data-field="socket"] button');
    await page.waitForSelector('#view-sockets:not([hidden])');
    await fx.waitFor('the session\'s socket marked and selected in the Sockets view', async () =>
      page.$$eval('#socket-table tr.h2-socket.selected', (trs, id) => trs.some((tr) =>
        tr.querySelector('td[data-field="session"]').textContent === id), h2Row.id));
    assert.ok((await textOf('#group-table td[data-field="http2"]')).some((t) =>
      t.includes('session ' + h2Row.id)), 'the group names its session');
    await shot('sockets-http2');
    step = 'Fetches view: the h2 requests show their session and stream';
    await view('fetches');
    await fx.waitFor('h2 with a session in the Fetches view', async () =>
      (await textOf('td[data-field="protocol"]')).some((t) =>
        t.startsWith('h2 session ' + h2Row.id + ' stream ')));
    await view('sockets');

    step = 'a POST without the token is refused and changes nothing';
    const idleBefore = await fx.waitFor('idle sockets in the pool', async () => {
      const n = (await api('/api/sockets')).idle_socket_count;
      return n > 0 ? n : null;
    });
    for (const headers of [{'Content-Type': 'application/json'},
                           {'Content-Type': 'application/json', 'X-Netstack-Token': '0'.repeat(32)}]) {
      const refused = await fetch(base + 'api/sockets/close-idle', {method: 'POST', headers,
                                                                    body: '{}'});
      assert.equal(refused.status, 403, 'POST close-idle with ' + JSON.stringify(headers));
    }
    assert.equal((await api('/api/sockets')).idle_socket_count, idleBefore,
                 'idle sockets changed after refused POSTs');

    step = 'Close idle sockets';
    // The hover above may have started a preconnect: let it land so it cannot refill the pool.
    await fx.waitFor('no connecting socket', async () =>
      (await api('/api/sockets')).connecting_socket_count === 0);
    await page.click('#close-idle');
    await fx.waitFor('idle count 0 in the Sockets view', async () =>
      (await textOf('#pool-table td[data-field="idle_socket_count"]'))[0] === '0');
    assert.equal((await api('/api/sockets')).idle_socket_count, 0);
    // It sent GOAWAY on the idle h2 session too (Chrome's CloseIdleConnections).
    await fx.waitFor('no HTTP/2 session left', async () =>
      (await api('/api/http2')).sessions.length === 0);
    await shot('sockets-after-close-idle');

    step = 'typing in the box pre-connects (3 earlier navigations taught the omnibox table)';
    await page.fill('#fetch-box', '');
    await page.fill('#fetch-box', pageUrl);
    await fx.waitFor('a preconnect in the hint answer', async () =>
      /preconnect/.test(await page.textContent('#hint-actions')));
    await fx.waitFor('the preconnected socket in the Sockets view', async () => {
      const rows = await page.$$eval('#group-table tbody tr', (trs) => trs.map((tr) => {
        const cell = (f) => { const td = tr.querySelector('td[data-field="' + f + '"]');
                              return td ? td.textContent : ''; };
        return {group: cell('group'), idle: +cell('idle'), jobs: +cell('connect_jobs')};
      }));
      return rows.some((r) => r.group.includes(HOST) && r.idle + r.jobs > 0);
    });
    await shot('sockets-after-omnibox');

    step = 'Predictor view';
    await view('predictor');
    await fx.waitFor('the omnibox preconnect in the recent actions', async () =>
      page.$$eval('#recent-actions tbody tr', (trs) => trs.some((tr) =>
        /preconnect/.test(tr.textContent) && /omnibox/.test(tr.textContent))));
    await fx.waitFor('the page in the referrer and omnibox tables', async () =>
      (await page.textContent('#referrer-table')).includes(HOST) &&
      (await page.textContent('#omnibox-table')).includes(pageUrl));
    await shot('predictor');

    step = 'DNS view';
    await view('dns');
    await fx.waitFor('the resolved host in the DNS view', async () =>
      (await page.textContent('#host-cache-table')).includes(HOST) &&
      (await page.textContent('#host-cache-table')).includes('127.0.0.1'));
    const hostnames = (await api('/api/dns')).cache.entries.map((e) => e.hostname);
    await fx.waitFor('every host name of /api/dns as text in the DNS view', async () => {
      const shown = await textOf('#host-cache-table td[data-field="hostname"]');
      return hostnames.every((h) => shown.includes(h));
    });
    console.log('host cache entries: ' + JSON.stringify(hostnames));
    await notPwned('the DNS view');
    await shot('dns');

    step = 'Cache view: a cached URL with markup in its headers and body renders as text';
    await view('cache');
    await page.fill('#cache-search', '/evil/');
    await fx.waitFor('the search to list the markup URL only', async () => {
      const keys = await textOf('#cache-table td[data-field="key"]');
      return keys.length > 0 && keys.every((k) => k.includes('/evil/'));
    });
    await page.click('#cache-table tbody tr:has-text("/evil/")');
    await fx.waitFor('the entry\'s headers and body', async () =>
      (await textOf('#cache-entry-headers td[data-field="header-value"]'))
          .includes(fx.EVIL_HEADER) &&
      (await page.textContent('#cache-entry-body')) === fx.EVIL_BODY);
    assert.ok((await page.textContent('#cache-entry-key')).includes('/evil/%3Cimg'));
    await notPwned('the Cache view');
    assert.equal(await page.$$eval('img', (n) => n.length), 0, 'an <img> was created from data');
    // index.html's 7 scripts, no more.
    assert.equal(await page.$$eval('script', (n) => n.length), 7, 'a <script> was added');
    await shot('cache');

    step = 'Events view: live stream, one source\'s timeline';
    await view('events');
    await fx.waitFor('events in the live list', async () =>
      (await page.$$('#events-table tbody tr .source-link')).length > 0);
    await page.click('#events-table .source-link');
    await fx.waitFor('a timeline', async () => (await page.$$('#timeline-table tbody tr')).length >
                                              0 && !(await page.$('#timeline-table td.none')));
    await page.fill('#events-filter', 'pwned');
    await fx.waitFor('the filter to apply', async () =>
      /match/.test(await page.textContent('#events-count')));
    await notPwned('the Events view');
    await shot('events');
    await page.fill('#events-filter', '');

    step = 'Events view: load a NetLog file (the export) and a malformed one';
    const exported = await fetch(base + 'api/netlog');
    assert.equal(exported.status, 200);
    const netlogFile = path.join(tmp, 'exported-netlog.json');
    fs.writeFileSync(netlogFile, await exported.text());
    await page.setInputFiles('#netlog-file', netlogFile);
    await fx.waitFor('the file\'s events', async () =>
      /^Showing \d+ events from exported-netlog\.json/.test(
          await page.textContent('#events-message')) &&
      (await page.$$('#events-table tbody tr .source-link')).length > 0);
    await page.click('#events-table .source-link');
    await fx.waitFor('the file source\'s timeline', async () =>
      (await page.$$('#timeline-table tbody tr')).length > 0);
    await shot('events-netlog-file');
    const badFile = path.join(tmp, 'malformed.json');
    fs.writeFileSync(badFile, '{"constants": {}, "events": [{"time": "1"}, ');
    await page.setInputFiles('#netlog-file', badFile);
    await fx.waitFor('a clear message for a malformed file', async () =>
      (await page.$('#events-message.error')) !== null &&
      /Cannot load malformed\.json/.test(await page.textContent('#events-message')));
    await page.click('#events-live');

    step = 'Histograms view';
    await view('histograms');
    await fx.waitFor('histograms with samples', async () => {
      const blocks = await page.$$eval('.histogram', (n) => n.map((b) => b.textContent));
      return blocks.length >= 4 && blocks.some((t) => /count [1-9]/.test(t));
    });
    await shot('histograms');

    step = 'Memory view';
    await view('memory');
    await fx.waitFor('memory parts', async () =>
      (await page.$$('#memory-parts td[data-field="part"]')).length > 0);
    await shot('memory');

    step = 'the other buttons change the state';
    await view('sockets');
    const generation = async () =>
      Number((await textOf('#pool-table td[data-field="pool_generation_number"]'))[0]);
    const generationBefore = await fx.waitFor('the pool generation', async () => {
      const g = await generation();
      return Number.isFinite(g) ? String(g) : null;
    });
    await page.click('#flush-pools');
    await fx.waitFor('a new pool generation after Flush socket pools', async () =>
      (await generation()) > Number(generationBefore));
    await view('dns');
    await page.click('#clear-host-cache');
    await fx.waitFor('an empty host cache after Clear host cache', async () =>
      /the host cache is empty/.test(await page.textContent('#host-cache-table')));
    await shot('dns-after-clear');

    // ---- the DNS view's lookup box (POST /api/dns/resolve with the page's token)
    const lookupField = async (field) =>
      (await textOf('#dns-lookup-answer tr[data-field="' + field + '"] td'))[0];
    const lookupThroughBox = async (host, how) => {
      await page.fill('#dns-lookup-host', host);
      const answered = page.waitForResponse((r) => r.request().method() === 'POST' &&
                                                   r.url().endsWith('/api/dns/resolve'),
                                            {timeout: 30000});
      if (how === 'enter') {
        await page.press('#dns-lookup-host', 'Enter');
      } else {
        await page.click('#dns-lookup-resolve');
      }
      const response = await answered;
      assert.equal(response.status(), 200, 'POST /api/dns/resolve for ' + host);
      const answer = await response.json();
      // The click or Enter replaced the previous answer with "Resolving ...": this is the new one.
      await fx.waitFor('the lookup answer for ' + host + ' in the DNS view', async () =>
        (await lookupField('host')) === host);
      return answer;
    };
    step = 'DNS lookup box: resolve the test host into the emptied host cache';
    const resolved = await lookupThroughBox(HOST, 'enter');
    assert.equal(resolved.host, HOST);
    assert.equal(resolved.result, 'OK', 'lookup of ' + HOST + ': ' + JSON.stringify(resolved));
    assert.ok(resolved.addresses.includes('127.0.0.1'), JSON.stringify(resolved));
    assert.equal(await lookupField('result'), 'OK');
    assert.ok((await lookupField('addresses')).includes('127.0.0.1'));
    await fx.waitFor('the looked-up host in the host cache table', async () =>
      (await textOf('#host-cache-table td[data-field="hostname"]')).includes(HOST) &&
      (await page.textContent('#host-cache-table')).includes('127.0.0.1'));
    step = 'DNS lookup box: the same host again comes from the host cache';
    const again = await lookupThroughBox(HOST, 'button');
    assert.equal(again.result, 'OK');
    assert.equal(again.from_cache, true, 'second lookup: ' + JSON.stringify(again));
    assert.equal(await lookupField('from cache'), 'yes');
    await shot('dns-lookup');

    step = 'DNS lookup box: a host name holding markup is refused and shown as text';
    const scriptsBefore = await page.$$eval('script', (n) => n.length);
    const refused = await lookupThroughBox(MARKUP_LOOKUP, 'button');
    assert.equal(refused.host, MARKUP_LOOKUP);
    assert.equal(refused.result, 'ERR_NAME_NOT_RESOLVED', JSON.stringify(refused));
    assert.ok(refused.detail.includes(MARKUP_LOOKUP), 'detail: ' + refused.detail);
    assert.equal(await lookupField('result'), 'ERR_NAME_NOT_RESOLVED');
    assert.ok((await lookupField('detail')).includes(MARKUP_LOOKUP), 'detail shown as text');
    const visible = await page.innerText('#dns-lookup-result');
    assert.ok(visible.includes(MARKUP_LOOKUP), 'the markup host is not shown as text: ' + visible);
    assert.ok((await page.innerText('#dns-lookup-summary')).includes(MARKUP_LOOKUP));
    assert.ok(!(await api('/api/dns')).cache.entries.some((e) => e.hostname === MARKUP_LOOKUP),
              'the refused name reached the host cache');
    await notPwned('the DNS lookup box');
    assert.equal(await page.$$eval('img', (n) => n.length), 0, 'an <img> was created from data');
    assert.equal(await page.$$eval('script', (n) => n.length), scriptsBefore,
                 'a <script> was added');
    await shot('dns-lookup-markup');

    step = 'Events view: the refused lookup\'s host as text';
    await view('events');
    await page.fill('#events-filter', 'window.__pwned=2');
    // Params are shown as JSON: the host's quotes appear escaped, its markup literally.
    const asJson = JSON.stringify(MARKUP_LOOKUP).slice(1, -1);
    await fx.waitFor('the refused lookup in the filtered events', async () => {
      const rows = await page.$$eval('#events-table tbody tr', (trs) => trs.map((tr) => ({
        text: tr.innerText,
        event: (tr.querySelector('td[data-field="event"]') || {}).textContent || '',
      })));
      return rows.length > 0 &&
             rows.some((r) => /HOST_RESOLVER/.test(r.event) && r.text.includes(asJson));
    });
    assert.ok((await page.innerText('#events-table')).includes(
        '<script>window.__pwned=1</script><img src=x onerror='), 'the host as text in Events');
    await notPwned('the Events view (refused lookup)');
    assert.equal(await page.$$eval('img', (n) => n.length), 0, 'an <img> was created from data');
    assert.equal(await page.$$eval('script', (n) => n.length), scriptsBefore,
                 'a <script> was added');
    await page.fill('#events-filter', '');
    await view('histograms');
    await page.click('#reset-histograms');
    await fx.waitFor('histograms at count 0 after Reset', async () => {
      const summaries = await textOf('.histogram .summary');
      return summaries.length > 0 && summaries.every((t) => t.startsWith('count 0'));
    });

    step = 'a path outside the assets is refused';
    const answer = await new Promise((resolve, reject) => {
      const port = Number(new URL(base).port);
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('GET /../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1:' + port +
                     '\r\nConnection: close\r\n\r\n');
      });
      let data = '';
      socket.setEncoding('latin1');
      socket.on('data', (d) => { data += d; });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
      socket.setTimeout(10000, () => { socket.destroy(); resolve(data); });
    });
    assert.match(answer, /^HTTP\/1\.1 400 /, 'answer to /../../etc/passwd: ' + answer.slice(0, 80));
    assert.ok(!answer.includes('root:'), '/etc/passwd leaked');

    step = 'no script error and no CSP violation';
    await notPwned('the page');
    assert.deepEqual(problems, []);

    step = 'Quit';
    await page.click('#quit');
    await fx.waitFor('netstack to exit after Quit', () => netstack.exited(), 30000);
    assert.equal(netstack.child.exitCode, 0, 'netstack exit status after Quit');
    console.log('PASS: the internals page');
  } catch (e) {
    console.error('FAIL at "' + step + '": ' + (e && e.stack ? e.stack : e));
    if (page) {
      const file = path.join(args.artifacts, 'failure.png');
      await page.screenshot({path: file, fullPage: true}).catch(() => {});
      console.error('screenshot of the failure: ' + file);
    }
    if (netstack) console.error('netstack output (tail):\n' + netstack.output().slice(-3000));
    process.exitCode = 1;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try { await cleanup(); } catch (e) { /* best effort */ }
    }
    fs.rmSync(tmp, {recursive: true, force: true});
  }
}

main().then(() => process.exit(process.exitCode || 0));
