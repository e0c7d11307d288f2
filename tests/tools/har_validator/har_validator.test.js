// The HAR files netstack writes are valid HAR 1.2 for a maintained validator (har-validator, the
// HAR 1.2 JSON schema of har-schema, pinned in package-lock.json) and meet what Chrome DevTools'
// HAR importer needs: a live page load (`fetch --page --har`, from a small HTTP server started
// here on loopback), its replay under the estimated network (`replay --estimate --har`) and a
// compared replay (`replay --compare A B --har`, both runs in one file).
//
// DevTools' importer (front_end/models/har/HARFormat.ts) reads every date with `new Date` and
// refuses one that does not parse, reads every number it uses as a number (a timing of -1 means
// "not applicable"), needs pages[].startedDateTime, id, title and pageTimings, and reads
// `_initiator` as an optional object with a `type`. Those are checked here beside the schema.
//
//   node har_validator.test.js --netstack BINARY --work DIR
// Exit 0: passed; 1: failed; 77: skipped (npm ci impossible, unless NETSTACK_REQUIRE_FIXTURES=1).
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) {
    console.error('usage: har_validator.test.js --netstack BINARY --work DIR');
    process.exit(2);
  }
  return process.argv[i + 1];
}

const NETSTACK = arg('--netstack');
const WORK = arg('--work');

function skipOrFail(why) {
  if (process.env.NETSTACK_REQUIRE_FIXTURES === '1') {
    console.error('FAIL (NETSTACK_REQUIRE_FIXTURES=1): ' + why);
    process.exit(1);
  }
  console.log('SKIP: ' + why);
  process.exit(77);
}

// har-validator from this folder's package-lock.json (`npm ci` when node_modules is missing).
function loadValidator() {
  const dir = __dirname;
  if (!fs.existsSync(path.join(dir, 'node_modules', 'har-validator', 'package.json'))) {
    console.log('running npm ci in ' + dir);
    const npm = childProcess.spawnSync('npm', ['ci', '--no-audit', '--no-fund'],
                                       {cwd: dir, timeout: 600000, encoding: 'utf8'});
    if (npm.status !== 0) {
      skipOrFail('npm ci failed in ' + dir + ': ' +
                 String(npm.stderr || npm.error || '').trim().slice(-300));
    }
  }
  return require(path.join(dir, 'node_modules', 'har-validator'));
}

let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.error('FAILED: ' + what);
  }
}

// Runs netstack asynchronously (the HTTP server above answers from this process's event loop);
// exits the test when it fails.
function netstack(args) {
  return new Promise((resolve) => {
    const child = childProcess.spawn(NETSTACK, args, {stdio: ['ignore', 'ignore', 'pipe']});
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        console.error('netstack ' + args.join(' ') + ' exited ' + code + ':\n' + stderr);
        process.exit(1);
      }
      resolve();
    });
  });
}

// What DevTools' importer relies on (see the top of this file).
function checkDevToolsExpectations(name, har) {
  const log = har.log;
  check(Array.isArray(log.pages) && log.pages.length > 0, name + ': pages');
  const ids = new Set();
  for (const page of log.pages) {
    check(!isNaN(new Date(page.startedDateTime).getTime()),
          name + ': page ' + page.id + ' startedDateTime ' + page.startedDateTime);
    check(typeof page.id === 'string' && !ids.has(page.id), name + ': page id ' + page.id);
    ids.add(page.id);
    check(typeof page.title === 'string', name + ': page title');
    for (const key of ['onContentLoad', 'onLoad']) {
      const v = page.pageTimings[key];
      check(typeof v === 'number' && (v >= 0 || v === -1), name + ': pageTimings.' + key + ' ' + v);
    }
  }
  for (const e of log.entries) {
    const where = name + ': ' + e.request.url;
    check(!isNaN(new Date(e.startedDateTime).getTime()), where + ': startedDateTime');
    check(ids.has(e.pageref), where + ': pageref ' + e.pageref);
    check(typeof e.time === 'number' && e.time >= 0, where + ': time');
    let sum = 0;
    for (const key of ['blocked', 'dns', 'connect', 'send', 'wait', 'receive']) {
      const v = e.timings[key];
      check(typeof v === 'number' && (v >= 0 || v === -1), where + ': timings.' + key + ' ' + v);
      if (v > 0) sum += v;
    }
    check(Math.abs(sum - e.time) < 0.01, where + ': time ' + e.time + ' is the timings\' sum ' + sum);
    check(typeof e.timings.ssl === 'number' &&
              (e.timings.ssl === -1 || e.timings.ssl <= e.timings.connect),
          where + ': ssl inside connect');
    check(e._initiator === undefined ||
              (typeof e._initiator === 'object' && typeof e._initiator.type === 'string'),
          where + ': _initiator');
    check(typeof e.connection === 'string', where + ': connection id');
    check(e.response.httpVersion === 'http/1.1' || e.response.httpVersion === 'h2',
          where + ': protocol ' + e.response.httpVersion);
  }
}

async function validate(validator, name, file) {
  const har = JSON.parse(fs.readFileSync(file, 'utf8'));
  try {
    await validator.har(har);
  } catch (e) {
    check(false, name + ': har-validator: ' + JSON.stringify(e.errors || String(e)).slice(0, 2000));
  }
  checkDevToolsExpectations(name, har);
  console.log(name + ': ' + har.log.pages.length + ' page(s), ' + har.log.entries.length +
              ' entries checked');
  return har;
}

// A page with a stylesheet, a script (which answers after 50 ms) and an image with a query.
function startServer() {
  const server = http.createServer((req, res) => {
    const url = req.url;
    const send = (type, body) => {
      res.writeHead(200, {'Content-Type': type, 'Content-Length': Buffer.byteLength(body)});
      res.end(body);
    };
    if (url === '/page.html') {
      send('text/html', '<!doctype html><html><head><link rel=stylesheet href="/a.css">' +
                            '<script src="/b.js"></script></head><body>' +
                            '<img src="/c.png?x=1&y=2"></body></html>');
    } else if (url === '/a.css') {
      send('text/css', 'body{}');
    } else if (url === '/b.js') {
      setTimeout(() => send('text/javascript', 'var x = 1;'), 50);
    } else if (url.startsWith('/c.png')) {
      send('image/png', 'png');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main() {
  const validator = loadValidator();
  fs.mkdirSync(WORK, {recursive: true});
  const server = await startServer();
  const hostPort = 'a.test:' + server.address().port;
  const page = 'http://' + hostPort + '/page.html';
  const live = path.join(WORK, 'live.har');
  const replayed = path.join(WORK, 'replay.har');
  const compared = path.join(WORK, 'compare.har');
  try {
    await netstack(['fetch', '--page', '--har', live, '--resolve', hostPort + ':127.0.0.1', '--no-cache',
              '--predictor', 'off', page]);
    const liveHar = await validate(validator, 'fetch --page --har', live);
    check(liveHar.log.entries.length === 4, 'the live load has 4 entries');
    await netstack(['replay', live, '--estimate', '--har', replayed, '--quiet']);
    const replayHar = await validate(validator, 'replay --estimate --har', replayed);
    check(replayHar.log.entries.length === 4, 'the replay has 4 entries');
    await netstack(['replay', live, '--compare', 'rtt_ms=10', 'rtt_ms=100', '--har', compared, '--quiet']);
    const compareHar = await validate(validator, 'replay --compare --har', compared);
    check(compareHar.log.pages.map((p) => p.id).join(',') === 'page_1-a,page_1-b',
          'compare pages are page_1-a and page_1-b');
  } finally {
    server.close();
  }
  if (failures > 0) {
    console.error(failures + ' check(s) failed');
    process.exit(1);
  }
  console.log('all HAR files valid');
}

main().catch((e) => {
  console.error(e && e.stack || String(e));
  process.exit(1);
});
