// Fixtures for the internals page's browser test: Debian's chromium and playwright-core
// (installed when missing), a real dnsmasq, a real HTTP/1.1 server and a real HTTP/2 server
// (node's, TLS with a self-signed certificate from openssl) on loopback, and the
// `netstack internals` process. Every wait is bounded polling; nothing asserts on timings.
'use strict';

const childProcess = require('node:child_process');
const dgram = require('node:dgram');
const fs = require('node:fs');
const http = require('node:http');
const http2 = require('node:http2');
const path = require('node:path');

const SKIP = 77;

// Skips (exit 77) with `message`, or fails when NETSTACK_REQUIRE_FIXTURES=1 (CI): a missing
// browser or server must not turn into a silent pass there.
function skipOrFail(message) {
  if (process.env.NETSTACK_REQUIRE_FIXTURES === '1') {
    console.error('FAIL (NETSTACK_REQUIRE_FIXTURES=1): ' + message);
    process.exit(1);
  }
  console.log('SKIP: ' + message);
  process.exit(SKIP);
}

// Polls `probe` (sync or async) every `intervalMs` until it returns a truthy value, which is
// returned; throws "timed out waiting for <what>" after `timeoutMs`.
async function waitFor(what, probe, timeoutMs = 30000, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let lastError = null;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error('timed out waiting for ' + what + (lastError ? ' (' + lastError.message + ')'
                                                                  : ''));
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function run(program, args, options) {
  return childProcess.spawnSync(program, args, Object.assign({encoding: 'utf8'}, options || {}));
}

function findProgram(name, extra) {
  for (const dir of (process.env.PATH || '').split(':').concat(extra || [])) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch (e) { /* next */ }
  }
  return null;
}

// apt-get install `pkg` as root (or with passwordless sudo), updating the lists if the first
// attempt fails. Returns '' on success, else why not.
function aptInstall(pkg) {
  const asRoot = process.getuid && process.getuid() === 0 ? [] : ['sudo', '-n'];
  if (asRoot.length && run('sudo', ['-n', 'true']).status !== 0) {
    return 'not root and no passwordless sudo to install ' + pkg;
  }
  const env = Object.assign({}, process.env, {DEBIAN_FRONTEND: 'noninteractive'});
  const install = () => run(asRoot[0] || 'apt-get',
                            asRoot.length ? asRoot.slice(1).concat(['apt-get', 'install', '-y', '-q',
                                                                    '--no-install-recommends',
                                                                    pkg])
                                          : ['install', '-y', '-q', '--no-install-recommends', pkg],
                            {env, timeout: 600000});
  if (install().status === 0) return '';
  run(asRoot[0] || 'apt-get', asRoot.length ? asRoot.slice(1).concat(['apt-get', 'update', '-q'])
                                            : ['update', '-q'], {env, timeout: 600000});
  const second = install();
  return second.status === 0 ? '' : 'apt-get install ' + pkg + ' failed: ' +
                                    String(second.stderr || second.error || '').trim().slice(-300);
}

const CHROMIUM = '/usr/bin/chromium';

function ensureChromium() {
  if (fs.existsSync(CHROMIUM)) return CHROMIUM;
  console.log('chromium is missing: installing Debian\'s chromium package');
  const why = aptInstall('chromium');
  if (why || !fs.existsSync(CHROMIUM)) skipOrFail('no ' + CHROMIUM + ': ' + (why || 'not installed'));
  return CHROMIUM;
}

// playwright-core from this folder's package-lock.json (`npm ci` when node_modules is missing).
function loadPlaywright() {
  const dir = __dirname;
  if (!fs.existsSync(path.join(dir, 'node_modules', 'playwright-core', 'package.json'))) {
    console.log('running npm ci in ' + dir);
    const npm = run('npm', ['ci', '--no-audit', '--no-fund'], {cwd: dir, timeout: 600000});
    if (npm.status !== 0) {
      skipOrFail('npm ci failed in ' + dir + ': ' +
                 String(npm.stderr || npm.error || '').trim().slice(-300));
    }
  }
  return require(path.join(dir, 'node_modules', 'playwright-core'));
}

// ---- dnsmasq on 127.0.0.1 serving `records` ({name: address}), NXDOMAIN for other .test names.

function dnsQuery(name) {
  const header = Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]),
                                                           Buffer.from(l)]));
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

function dnsAnswers(port, name) {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    const done = (ok) => { clearTimeout(timer); socket.close(); resolve(ok); };
    const timer = setTimeout(() => done(false), 500);
    socket.on('message', () => done(true));
    socket.on('error', () => done(false));
    socket.send(dnsQuery(name), port, '127.0.0.1');
  });
}

async function startDnsmasq(records, tmp) {
  let program = findProgram('dnsmasq', ['/usr/sbin', '/sbin']);
  if (!program) {
    const why = aptInstall('dnsmasq-base');
    program = findProgram('dnsmasq', ['/usr/sbin', '/sbin']);
    if (!program) skipOrFail('dnsmasq is missing and could not be installed: ' + why);
  }
  for (let attempt = 0; attempt < 5; ++attempt) {
    const port = 20000 + Math.floor(Math.random() * 40000);
    const args = ['--no-daemon', '--conf-file=/dev/null', '--no-resolv', '--no-hosts',
                  '--bind-interfaces', '--listen-address=127.0.0.1', '--port=' + port,
                  '--pid-file=', '--local-ttl=300', '--local=/test/',
                  '--log-facility=' + path.join(tmp, 'dnsmasq.log')];
    if (process.getuid && process.getuid() === 0) args.push('--user=root');
    for (const [name, address] of Object.entries(records)) {
      args.push('--host-record=' + name + ',' + address);
    }
    const child = childProcess.spawn(program, args, {stdio: 'ignore'});
    let exited = false;
    child.on('exit', () => { exited = true; });
    try {
      await waitFor('dnsmasq on port ' + port, async () => {
        if (exited) throw new Error('dnsmasq exited');
        return dnsAnswers(port, Object.keys(records)[0]);
      }, 10000, 100);
      return {port, stop: () => child.kill('SIGTERM')};
    } catch (e) {
      if (!exited) child.kill('SIGKILL');
    }
  }
  skipOrFail('dnsmasq did not start (see ' + path.join(tmp, 'dnsmasq.log') + ')');
  return null;
}

// ---- the origin server: a real HTTP/1.1 server (node's) on 127.0.0.1 with long keep-alive,
// so the stack's idle sockets stay idle until the test closes them.

const EVIL_HEADER = '<script>window.__pwned=1</script>';
const EVIL_BODY = '<img src=x onerror=window.__pwned=1><script>window.__pwned=1</script>';

function startOriginServer() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://origin');
    const cacheable = {'Cache-Control': 'max-age=3600'};
    if (url.pathname === '/page.html') {
      let page = '<!doctype html><html><head><title>internals test</title></head><body>';
      for (let i = 0; i < 4; ++i) page += '<img src="/res/' + i + '.txt">';
      res.writeHead(200, Object.assign({'Content-Type': 'text/html'}, cacheable));
      res.end(page + '</body></html>');
    } else if (/^\/res\/\d+\.txt$/.test(url.pathname)) {
      res.writeHead(200, Object.assign({'Content-Type': 'text/plain'}, cacheable));
      res.end('internals test resource ' + url.pathname + '\n' + 'x'.repeat(2000));
    } else if (url.pathname.startsWith('/evil/')) {
      res.writeHead(200, Object.assign({'Content-Type': 'text/plain', 'X-Evil': EVIL_HEADER},
                                       cacheable));
      res.end(EVIL_BODY);
    } else {
      res.writeHead(404, {'Content-Type': 'text/plain'});
      res.end('not found');
    }
  });
  server.keepAliveTimeout = 600000;
  server.headersTimeout = 610000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({port: server.address().port,
                                                 stop: () => server.close()}));
  });
}

// ---- the HTTP/2 origin: node's http2 secure server (h2 only, no HTTP/1.1 fallback) with a
// self-signed certificate for `host` made by openssl in `tmp` (netstack runs with -k). Serves
// /h2/page.html with 4 images, so a page load multiplexes 5 streams on one session.

function startH2OriginServer(host, tmp) {
  const openssl = findProgram('openssl');
  if (!openssl) skipOrFail('no openssl to make the HTTP/2 server\'s certificate');
  const key = path.join(tmp, 'h2-key.pem');
  const cert = path.join(tmp, 'h2-cert.pem');
  const made = run(openssl, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key,
                             '-out', cert, '-days', '2', '-subj', '/CN=' + host,
                             '-addext', 'subjectAltName=DNS:' + host]);
  if (made.status !== 0) throw new Error('openssl req failed: ' + made.stderr);
  const server = http2.createSecureServer({key: fs.readFileSync(key),
                                           cert: fs.readFileSync(cert)});
  server.on('stream', (stream, headers) => {
    const p = headers[':path'] || '';
    if (p === '/h2/page.html') {
      let page = '<!doctype html><html><head><title>h2 test</title></head><body>';
      for (let i = 0; i < 4; ++i) page += '<img src="/h2/res/' + i + '.txt">';
      stream.respond({':status': 200, 'content-type': 'text/html'});
      stream.end(page + '</body></html>');
    } else if (/^\/h2\/res\/\d+\.txt$/.test(p)) {
      stream.respond({':status': 200, 'content-type': 'text/plain'});
      stream.end('h2 resource ' + p + '\n' + 'y'.repeat(4000));
    } else {
      stream.respond({':status': 404});
      stream.end();
    }
  });
  server.on('sessionError', () => {});
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({port: server.address().port,
                                                 stop: () => server.close()}));
  });
}

// ---- netstack internals: started on a fresh profile; resolves to {url, child, output()}.

function startNetstack(binary, args) {
  if (!fs.existsSync(binary)) throw new Error('no netstack binary at ' + binary);
  const child = childProcess.spawn(binary, args, {stdio: ['ignore', 'pipe', 'pipe']});
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  let exitCode = null;
  child.on('exit', (code, signal) => { exitCode = code === null ? signal : code; });
  return waitFor('the "internals page at" line from netstack', () => {
    if (exitCode !== null) {
      throw new Error('netstack exited (' + exitCode + ') before serving:\n' + output);
    }
    const m = /netstack: internals page at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
    return m ? {url: m[1], child, output: () => output, exited: () => exitCode !== null} : null;
  }, 30000, 100);
}

async function stopNetstack(netstack) {
  if (!netstack || netstack.exited()) return;
  netstack.child.kill('SIGTERM');
  try {
    await waitFor('netstack to exit', () => netstack.exited(), 20000, 100);
  } catch (e) {
    netstack.child.kill('SIGKILL');
  }
}

module.exports = {
  SKIP, skipOrFail, waitFor, ensureChromium, loadPlaywright, startDnsmasq, startOriginServer,
  startH2OriginServer, startNetstack, stopNetstack, EVIL_HEADER, EVIL_BODY,
};
