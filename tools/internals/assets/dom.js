// netstack internals: DOM building, the API client and formatting, shared by every view.
//
// SAFETY RULE (for every file of this page): every string that came from the server (host
// names, URLs, headers, bodies, NetLog params, anything in an API answer) or from a loaded file
// is put in the page with textContent / createTextNode, or with setAttribute on the attributes
// listed in SAFE_ATTRIBUTES below. Never innerHTML, outerHTML, insertAdjacentHTML or
// document.write, with anything. Inline script and style attributes are refused by the
// Content-Security-Policy (default-src 'self'); dynamic sizes go through element.style.
'use strict';

const NS = {};

// Attributes el() may set. href is only set by link(), which keeps http(s) URLs only.
const SAFE_ATTRIBUTES = new Set([
  'id', 'class', 'title', 'type', 'placeholder', 'value', 'colspan', 'download', 'hidden',
  'accept', 'autocomplete', 'spellcheck', 'disabled',
]);

// el('td', {class: 'num', data: {field: 'x'}}, ['text', childNode]): a new element. Children
// that are strings or numbers become text nodes. Attribute names outside SAFE_ATTRIBUTES and
// data-* throw: a programming error, caught in development.
NS.el = function el(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'data') {
      for (const [key, v] of Object.entries(value)) node.dataset[key] = String(v);
    } else if (SAFE_ATTRIBUTES.has(name)) {
      node.setAttribute(name, value === true ? '' : String(value));
    } else {
      throw new Error('el: attribute not allowed: ' + name);
    }
  }
  NS.append(node, children);
  return node;
};

NS.append = function append(node, children) {
  if (children === undefined || children === null) return node;
  if (!Array.isArray(children)) children = [children];
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
};

// Replaces the children of `node` (an element or its id) with `children`.
NS.fill = function fill(node, children) {
  if (typeof node === 'string') node = document.getElementById(node);
  if (!node) return null;
  node.replaceChildren();
  return NS.append(node, children);
};

// A link to `url` when it is http(s), else plain text: a javascript: URL from the network must
// never become a clickable href.
NS.link = function link(url, className) {
  const text = String(url);
  if (/^https?:\/\//i.test(text)) {
    const a = NS.el('a', {class: className}, text);
    a.setAttribute('href', text);
    a.setAttribute('rel', 'noreferrer noopener');
    return a;
  }
  return NS.el('span', {class: className}, text);
};

NS.button = function button(label, onClick, attributes) {
  const b = NS.el('button', Object.assign({type: 'button'}, attributes || {}), label);
  b.addEventListener('click', onClick);
  return b;
};

// A horizontal bar of `fraction` (0..1) of its track.
NS.bar = function bar(fraction, className) {
  const inner = NS.el('span', {class: 'bar-fill ' + (className || '')});
  inner.style.width = (Math.max(0, Math.min(1, fraction || 0)) * 100).toFixed(2) + '%';
  return NS.el('span', {class: 'bar-track'}, inner);
};

// ---- formatting (all return plain strings, rendered as text)

NS.text = function text(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

NS.bytes = function bytes(n) {
  if (typeof n !== 'number' || !isFinite(n)) return NS.text(n);
  if (Math.abs(n) < 10 * 1024) return n + ' B';
  if (Math.abs(n) < 10 * 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
  return (n / (1024 * 1024)).toFixed(1) + ' MiB';
};

NS.ms = function ms(n) {
  if (typeof n !== 'number' || !isFinite(n)) return NS.text(n);
  if (Math.abs(n) >= 10000) return (n / 1000).toFixed(1) + ' s';
  return n.toFixed(n < 10 ? 2 : 1) + ' ms';
};

NS.yesNo = function yesNo(v) { return v ? 'yes' : 'no'; };

// A wall-clock date for a value that looks like one (ms since the epoch, or an ISO string).
NS.date = function date(v) {
  if (typeof v === 'number' && v > 1e11) return new Date(v).toISOString();
  return NS.text(v);
};

// ---- tables

// table(columns, rows): columns are {label, get(row) -> string|Node, class?, field?}; a row
// may carry onClick; options.rowClass(row) and options.rowData(row) (data-* attributes) style
// and name rows. An empty list gives one "none" row.
NS.table = function table(columns, rows, options) {
  options = options || {};
  const head = NS.el('tr', null, columns.map((c) => NS.el('th', {class: c.class}, c.label)));
  const body = NS.el('tbody');
  for (const row of rows) {
    const tr = NS.el('tr', {class: options.rowClass ? options.rowClass(row) : null,
                            data: options.rowData ? options.rowData(row) : null});
    for (const c of columns) {
      tr.appendChild(NS.el('td', {class: c.class, data: c.field ? {field: c.field} : null},
                           c.get(row)));
    }
    if (options.onClick) {
      tr.classList.add('clickable');
      tr.addEventListener('click', () => options.onClick(row));
    }
    body.appendChild(tr);
  }
  if (!rows.length) {
    body.appendChild(NS.el('tr', null, NS.el('td', {class: 'none', colspan: columns.length},
                                             options.empty || 'none')));
  }
  return NS.el('table', {id: options.id, class: 'grid ' + (options.class || '')},
               [NS.el('thead', null, head), body]);
};

// A table of an array of objects whose fields are not fixed (policy tables): the columns are
// the union of the keys, `preferred` first.
NS.objectTable = function objectTable(rows, preferred, options) {
  rows = Array.isArray(rows) ? rows : [];
  const keys = [];
  for (const k of preferred || []) keys.push(k);
  for (const row of rows) {
    if (row && typeof row === 'object') {
      for (const k of Object.keys(row)) if (!keys.includes(k)) keys.push(k);
    }
  }
  const columns = keys.map((k) => ({
    label: k, field: k,
    class: rows.some((r) => r && typeof r[k] === 'number') ? 'num' : null,
    get: (r) => {
      const v = r ? r[k] : undefined;
      if (typeof v === 'number' && !Number.isInteger(v)) return v.toFixed(3);
      return NS.text(v);
    },
  }));
  return NS.table(columns, rows, options);
};

// A two-column table of an object's fields, nested objects flattened as "a.b".
NS.keyValueTable = function keyValueTable(object, options) {
  const rows = [];
  const walk = (prefix, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(prefix ? prefix + '.' + k : k, x);
    } else {
      rows.push([prefix, v]);
    }
  };
  walk('', object || {});
  const format = (options && options.format) || ((k, v) => NS.text(v));
  return NS.table([
    {label: 'field', get: (r) => r[0]},
    {label: 'value', class: 'value', get: (r) => format(r[0], r[1])},
  ], rows, Object.assign({class: 'kv'}, options || {}));
};

// ---- the API client

NS.token = function token() {
  const meta = document.querySelector('meta[name="netstack-token"]');
  return meta ? meta.getAttribute('content') : '';
};

// Resolves to the parsed JSON of a 2xx answer; rejects with an Error whose message is the
// server's {"error"} (or the status) otherwise.
async function readAnswer(response, path) {
  let body = null;
  const text = await response.text();
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
  if (!response.ok) {
    const why = body && typeof body.error === 'string' ? body.error : response.statusText;
    const error = new Error(path + ': ' + response.status + ' ' + why);
    error.status = response.status;
    throw error;
  }
  if (body === null) throw new Error(path + ': the answer is not JSON');
  return body;
}

NS.get = async function get(path) {
  const response = await fetch(path, {cache: 'no-store', credentials: 'same-origin'});
  return readAnswer(response, path);
};

// POST with a JSON body and the page's token.
NS.post = async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    cache: 'no-store',
    credentials: 'same-origin',
    headers: {'Content-Type': 'application/json', 'X-Netstack-Token': NS.token()},
    body: JSON.stringify(body || {}),
  });
  return readAnswer(response, path);
};

// A one-line message in the status bar (errors in red). Cleared by the next message.
NS.status = function status(message, isError) {
  const node = document.getElementById('status');
  if (!node) return;
  node.textContent = message || '';
  node.classList.toggle('error', !!isError);
};

// The views register here: {id: {title, render(container), refresh() -> Promise}}.
NS.views = {};
