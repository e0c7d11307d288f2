// Loads one page in Debian's headless Chromium (playwright-core) and writes the load as a HAR:
//   node load_page.js --har FILE [--spki HASH] [--host-rules RULES] [--timeout-s S] URL
// A fresh browser per load (an empty cache, host cache and socket pool, as a netstack fetch
// starts), waiting for the load event. The lab CA is trusted by its SPKI hash when given (the
// --ignore-certificate-errors-spki-list switch), else certificate errors are ignored. Chromium
// runs as root here, so without its sandbox. Exit 0; 2 on bad usage; 1 when the page did not
// load (one line on stderr). --host-rules passes Chromium's --host-resolver-rules ("MAP *.lab
// 127.0.0.1"), to try the script outside the lab.
'use strict';

const path = require('node:path');

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
    await page.goto(url, {waitUntil: 'load', timeout: timeoutS * 1000});
    await context.close();  // writes the HAR
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error('load_page.js: ' + String(e && e.message || e).split('\n')[0]);
  process.exit(1);
});
