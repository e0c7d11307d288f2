// Loads one page in Debian's headless Chromium (playwright-core) and writes the load as a HAR:
//   node load_page.js --har FILE [--spki HASH] [--host-rules RULES] [--timeout-s S] URL
// A fresh browser per load (an empty cache, host cache and socket pool, as a netstack fetch
// starts), waiting for the load event. The lab CA is trusted by its SPKI hash when given (the
// --ignore-certificate-errors-spki-list switch), else certificate errors are ignored. Chromium
// runs as root here, so without its sandbox. Exit 0; 2 on bad usage; 1 when the page did not
// load (one line on stderr). Prints one JSON line: the load's wall time and the CPU time the
// browser's processes used meanwhile. --host-rules passes Chromium's --host-resolver-rules ("MAP *.lab
// 127.0.0.1"), to try the script outside the lab.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

// CPU time (user + system, ms) of every process under `root` (not `root` itself), from /proc
// (Linux): playwright starts the browser as a child of this node process.
function treeCpuMs(root) {
  const tick = 100;  // USER_HZ: 100 on every Linux Debian ships
  const children = new Map();
  const cpu = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    let stat;
    try {
      stat = fs.readFileSync('/proc/' + name + '/stat', 'utf8');
    } catch (e) {
      continue;  // gone
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    cpu.set(Number(name), (Number(fields[11]) + Number(fields[12])) * 1000 / tick);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(name));
  }
  let total = 0;
  const todo = (children.get(root) || []).slice();
  while (todo.length) {
    const pid = todo.pop();
    total += cpu.get(pid) || 0;
    for (const c of children.get(pid) || []) todo.push(c);
  }
  return total;
}

function usage(message) {
  console.error('load_page.js: ' + message);
  process.exit(2);
}

async function main() {
  const args = process.argv.slice(2);
  let har = '';
  let spki = '';
  let hostRules = '';
  let timeoutS = 300;
  let url = '';
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--har') har = args[++i] || '';
    else if (args[i] === '--spki') spki = args[++i] || '';
    else if (args[i] === '--host-rules') hostRules = args[++i] || '';
    else if (args[i] === '--timeout-s') timeoutS = Number(args[++i]);
    else if (!url && !args[i].startsWith('--')) url = args[i];
    else usage('unexpected argument ' + args[i]);
  }
  if (!har || !url) usage('needs --har FILE and a URL');
  if (!(timeoutS >= 1 && timeoutS <= 3600)) usage('--timeout-s wants 1..3600');
  const {chromium} = require(path.join(__dirname, 'node_modules', 'playwright-core'));
  const launchArgs = ['--no-sandbox', '--disable-dev-shm-usage'];
  if (hostRules) launchArgs.push('--host-resolver-rules=' + hostRules);
  if (spki) launchArgs.push('--ignore-certificate-errors-spki-list=' + spki);
  const browser = await chromium.launch({executablePath: '/usr/bin/chromium', args: launchArgs});
  try {
    const context = await browser.newContext({
      ignoreHTTPSErrors: !spki,
      recordHar: {path: har, content: 'omit'},
    });
    const page = await context.newPage();
    // /proc's number for this process (the lab runs it in a PID namespace of its own, under
    // the host's /proc, where process.pid means another process).
    const self = Number(fs.readlinkSync('/proc/self'));
    const cpuBefore = treeCpuMs(self);
    const wallBefore = Date.now();
    await page.goto(url, {waitUntil: 'load', timeout: timeoutS * 1000});
    const wallMs = Date.now() - wallBefore;
    const cpuMs = treeCpuMs(self) - cpuBefore;
    await context.close();  // writes the HAR
    // How busy the browser was during the load: its processes' CPU time against the wall time
    // (on 2 cores, a ratio near 2 means the load waited for the CPU, not for the network).
    console.log(JSON.stringify({url: url, wall_ms: wallMs, cpu_ms: cpuMs}));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error('load_page.js: ' + String(e && e.message || e).split('\n')[0]);
  process.exit(1);
});
