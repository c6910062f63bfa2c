// Hidden Chess -- Pyodide, started from a memory snapshot on a return visit (issue 16).
//
// PyScript loads this module as its interpreter (pyscript.toml: `interpreter`), for the page and
// for the computer's worker, and calls its `loadPyodide(options)`; index.html calls `startEarly`
// before that, as soon as it can, so that Python does not wait for PyScript to load.
//
// A first visit starts Pyodide as usual (about 2 s: the interpreter boots, then the engine's
// modules load from py.zip's bytecode). A few seconds later a background worker
// (pyodide-snapshot.js) starts a second Pyodide with the `_makeSnapshot` option, imports the
// engine's modules and keeps the interpreter's whole memory in Cache Storage ("hcsnap-1", ~15 MB
// per role: its zero pages left out). (The instance that makes a snapshot cannot serve the page
// itself: Pyodide then reaches `js` through a recording proxy on which DOM getters fail.) A return
// visit hands that memory back to Pyodide (`_loadSnapshot`): no boot and no compiling, the modules
// already imported (docs/STARTUP.md tells the whole start; docs/BENCHMARKS.md has the figures).
//
// A snapshot belongs to one build. Each role keeps one, under its key: on a deployed page, the
// build's version (index.html's hc-build, a hash of every file); otherwise the SHA-256 of py.zip
// (the engine's sources), Pyodide's version and the modules imported before it was taken.
// Pyodide itself refuses a snapshot of another wasm build. On a return visit the snapshot is
// read and started while the key is worked out (in parallel), and dropped if the keys differ.
// Anything wrong with one (unreadable, refused, no Cache Storage outside a secure context,
// storage full) only means the ordinary start: a snapshot never stops the page from starting.
// Python's global `random` is re-seeded after a restore (the snapshot would otherwise repeat its
// state); the engine draws its secrets from `secrets` / `random.SystemRandom`, which read the
// browser's fresh randomness on every call anyway.
//
// The snapshot holds only the standard library and the engine's pure modules (no `js` object):
// py.zip's files are written into the interpreter here, on either path, before `loadPyodide`
// returns (pyscript.toml has no `[files]`); PyScript's own set-up and the entry script (py/main.py,
// py/worker.py) run after it returns.

import { loadPyodide as loadFresh, version } from '../vendor/pyodide/pyodide.mjs';

export { version };

/** The Cache Storage cache that holds the snapshots (one per role, of the current build). */
export const SNAPSHOT_CACHE = 'hcsnap-1';
const INDEX_URL = new URL('../vendor/pyodide/', import.meta.url).href;
const PY_ZIP = new URL('../vendor/py.zip', import.meta.url).href;

/** The engine modules each entry script imports (py/main.py, py/worker.py): imported before the
 * snapshot is taken, so a return visit finds them compiled. tests/test_pyodide_boot.py checks that the
 * lists name exactly the `hiddenchess` modules those scripts import. */
export const PRELOAD = {
  page: [
    'hiddenchess.app.exchange', 'hiddenchess.app.guide', 'hiddenchess.app.text',
    'hiddenchess.app.session', 'hiddenchess.errors', 'hiddenchess.app.wire',
    'hiddenchess.safejson', 'hiddenchess.app.analysis',
  ],
  worker: ['hiddenchess.ai', 'hiddenchess.ai.analysis', 'hiddenchess.ai.ponder', 'hiddenchess.errors'],
};

/** Standard-library modules that PyScript's own package imports as it starts (pyscript.display:
 * `html`, with its 250 KB table of entities), in both roles, and the engine does not: imported
 * before the snapshot too (else a return visit spends ~80 ms loading them from the standard
 * library's zip). tests/test_pyodide_boot.py checks that PyScript's package imports each. */
export const RUNTIME_PRELOAD = ['html'];

/** The role of this global scope: the page, or the computer's worker. */
const HERE_ROLE = typeof document === 'undefined' ? 'worker' : 'page';

/** What happened, for the bench and the tests: path "snapshot" or "fresh", and why not. */
const report = (globalThis.hcPyodideBoot = { role: HERE_ROLE, path: 'fresh' });

function errorText(err) {
  return String(err && (err.message || err.name) ? err.message || err.name : err);
}

/** The snapshots' cache, or null: not a secure context, storage disabled, or (unless `create`)
 * no snapshot was ever kept (reading never creates the cache). */
async function openCache(create = false) {
  try {
    if (!globalThis.caches || !(create || await caches.has(SNAPSHOT_CACHE))) return null;
    return await caches.open(SNAPSHOT_CACHE);
  } catch (err) {
    return null;
  }
}

/** Where `role` keeps its one snapshot in the cache. */
function snapshotUrl(role) {
  return new URL(`./hcsnap/${role}`, INDEX_URL).href;
}

let pyZip = null;

/** py.zip's bytes (fetched once per page or worker: its loader, the snapshot's key). */
function fetchPyZip() {
  if (!pyZip) {
    pyZip = (async () => {
      const response = await fetch(PY_ZIP);
      if (!response.ok) throw new Error(`py.zip: HTTP ${response.status}`);
      return response.arrayBuffer();
    })();
    pyZip.catch(() => { pyZip = null; }); // a failed fetch is tried again when asked again
  }
  return pyZip;
}

/** The files of a zip whose members are all stored (py.zip: build.py never deflates them), as
 * [path, bytes] pairs (bytes are views into `zip`); directories left out. Throws on anything
 * else (then Pyodide's own unpacker does the work). */
export function storedZipFiles(zip) {
  const bytes = new Uint8Array(zip);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error('not a zip archive');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const decode = new TextDecoder();
  const files = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw new Error('damaged zip archive');
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const stored = method === 0 && size === view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const skip = view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = decode.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + skip;
    if (name.endsWith('/')) continue;
    if (!stored) throw new Error(`${name}: not stored`);
    if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) throw new Error('damaged zip archive');
    const data = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (data + size > bytes.length || name.startsWith('/') || name.split('/').includes('..')) throw new Error('damaged zip archive');
    files.push([name, bytes.subarray(data, data + size)]);
  }
  return files;
}

/** py.zip's files (the engine's sources and bytecode, main.py, worker.py, and the bytecode of
 * PyScript's own package) into the interpreter's working directory, which is on sys.path: written
 * straight into its file system (a few milliseconds; Pyodide's unpacker, which PyScript's
 * `[files]` used, takes 30-40). */
function installPyZip(pyodide, zip) {
  let files;
  try {
    files = storedZipFiles(zip);
  } catch (err) {
    pyodide.unpackArchive(zip, 'zip');
    return;
  }
  const FS = pyodide.FS;
  const home = FS.cwd();
  const made = new Set();
  for (const [name, data] of files) {
    const dir = name.includes('/') ? `${home}/${name.slice(0, name.lastIndexOf('/'))}` : home;
    if (!made.has(dir)) { FS.mkdirTree(dir); made.add(dir); }
    FS.writeFile(`${home}/${name}`, data);
  }
}

/** This build's key for `role`'s snapshot (see the top), or null when it cannot be known. */
async function snapshotKey(role) {
  try {
    const meta = role === 'page' && globalThis.document
      && document.querySelector('meta[name="hc-build"]');
    if (meta && meta.content && meta.content !== 'dev') return `build ${meta.content} ${version}`;
    const zip = await fetchPyZip();
    const names = new TextEncoder().encode(`${version}\n${role}\n${[...PRELOAD[role], ...RUNTIME_PRELOAD].join(',')}\n`);
    const both = new Uint8Array(names.length + zip.byteLength);
    both.set(names);
    both.set(new Uint8Array(zip), names.length);
    const digest = await crypto.subtle.digest('SHA-256', both);
    return `sha256 ${[...new Uint8Array(digest)].map(b => b.toString(16).padStart(2, '0')).join('')}`;
  } catch (err) {
    return null;
  }
}

/** A snapshot is kept without its zero pages (half of it): "HCS1", the full length, the number
 * of runs of non-zero 4 KB pages, each run's (start, end), then the runs' bytes, one after the
 * other. Read back into a zeroed array of the full length: half as much to read from disk. */
const PACK_MAGIC = 0x31534348; // "HCS1", little-endian
const PAGE = 4096;

export function packSnapshot(bytes) {
  const runs = [];
  let start = -1;
  for (let page = 0; page < bytes.length; page += PAGE) {
    const end = Math.min(page + PAGE, bytes.length);
    let zero = true;
    for (let i = page; i < end; i++) if (bytes[i] !== 0) { zero = false; break; }
    if (!zero && start < 0) start = page;
    if (zero && start >= 0) { runs.push([start, page]); start = -1; }
  }
  if (start >= 0) runs.push([start, bytes.length]);
  const head = 12 + 8 * runs.length;
  const size = runs.reduce((sum, [from, to]) => sum + to - from, head);
  const packed = new Uint8Array(size);
  const view = new DataView(packed.buffer);
  view.setUint32(0, PACK_MAGIC, true);
  view.setUint32(4, bytes.length, true);
  view.setUint32(8, runs.length, true);
  let at = head;
  runs.forEach(([from, to], n) => {
    view.setUint32(12 + 8 * n, from, true);
    view.setUint32(16 + 8 * n, to, true);
    packed.set(bytes.subarray(from, to), at);
    at += to - from;
  });
  return packed;
}

/** The snapshot `packSnapshot` packed; throws on anything else (then an ordinary start). */
export function unpackSnapshot(packed) {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  if (packed.length < 12 || view.getUint32(0, true) !== PACK_MAGIC) throw new Error('not a packed snapshot');
  const length = view.getUint32(4, true);
  const count = view.getUint32(8, true);
  const bytes = new Uint8Array(length);
  let at = 12 + 8 * count;
  for (let n = 0; n < count; n++) {
    const from = view.getUint32(12 + 8 * n, true);
    const to = view.getUint32(16 + 8 * n, true);
    if (!(from < to && to <= length && at + to - from <= packed.length)) throw new Error('damaged snapshot');
    bytes.set(packed.subarray(at, at + to - from), from);
    at += to - from;
  }
  if (at !== packed.length) throw new Error('damaged snapshot');
  return bytes;
}

const KEY_HEADER = 'X-Hidden-Chess-Key';

/** Pyodide from `role`'s snapshot if it is this build's, or null. The snapshot is read and,
 * once `ready` has settled, started, while this build's key is worked out. */
async function fromSnapshot(role, ready) {
  const cache = await openCache(); // null on a first visit: nothing to read or hash then
  if (!cache) return null;
  let hit;
  try {
    hit = await cache.match(snapshotUrl(role));
  } catch (err) {
    return null;
  }
  if (!hit) return null;
  const keyed = snapshotKey(role);
  let pyodide = null;
  try {
    const bytes = unpackSnapshot(new Uint8Array(await hit.arrayBuffer()));
    report.read = performance.now();
    await ready;
    pyodide = await loadFresh({ indexURL: INDEX_URL, _loadSnapshot: bytes });
    pyodide.runPython('import random\nrandom.seed()');
  } catch (err) {
    console.warn('Hidden Chess: the saved interpreter snapshot could not be used; starting afresh.', err);
    report.refused = errorText(err);
  }
  const key = await keyed;
  if (pyodide && (!key || hit.headers.get(KEY_HEADER) !== key)) {
    report.refused = 'another build';
    pyodide = null; // (an instance cannot be closed: it is left to the garbage collector)
  }
  if (!pyodide) {
    try { await cache.delete(snapshotUrl(role)); } catch (ignored) { /* a new one replaces it */ }
    return null;
  }
  report.path = 'snapshot';
  return pyodide;
}

/** In a background worker: start a Pyodide for `role`'s snapshot, import its modules, keep the
 * snapshot under `key`. Returns what happened ("stored", "not stored: ...", ...). */
export async function makeSnapshot(role, key) {
  const cache = await openCache(true);
  if (!cache || !key) return 'no cache';
  const zip = await fetchPyZip();
  const pyodide = await loadFresh({ indexURL: INDEX_URL, _makeSnapshot: true });
  installPyZip(pyodide, zip);
  pyodide.runPython([...PRELOAD[role], ...RUNTIME_PRELOAD].map(name => `import ${name}`).join('\n'));
  const bytes = packSnapshot(pyodide.makeMemorySnapshot());
  try {
    await cache.put(snapshotUrl(role), new Response(bytes, {
      headers: { 'Content-Type': 'application/octet-stream', [KEY_HEADER]: key },
    }));
    return 'stored';
  } catch (err) {
    try { await cache.delete(snapshotUrl(role)); } catch (ignored) { /* nothing kept */ }
    return `not stored: ${errorText(err)}`;
  }
}

/** Predicates that hold the making of snapshots back while true (see `holdSnapshotsWhile`). */
const busy = [];

/** Make no snapshot while `isBusy()` is true: computer.js, while the computer thinks (making one
 * takes a core for a few seconds). */
export function holdSnapshotsWhile(isBusy) {
  busy.push(isBusy);
}

/** How long after a fresh start the snapshot is made (the page is playable well before). */
const MAKE_DELAY_MS = 4000;

/** Make sure `role` has a snapshot of this build: if it has none, a background worker makes it,
 * `delayMs` after the call. Called on the page (for its own role after a fresh start, and by
 * computer.js for the computer's worker). `window.hcSnapshots = false` (set by the browser tests,
 * which start hundreds of short-lived pages) turns the making off. */
export function ensureSnapshot(role, delayMs = MAKE_DELAY_MS) {
  if (globalThis.hcSnapshots === false || !globalThis.Worker || !globalThis.caches) return;
  const done = outcome => { report.made = { ...report.made, [role]: outcome }; };
  setTimeout(async () => {
    while (busy.some(isBusy => isBusy())) await new Promise(resolve => setTimeout(resolve, 2000));
    const key = await snapshotKey(role);
    try {
      const cache = await openCache();
      const hit = cache && await cache.match(snapshotUrl(role));
      if (!key || (hit && hit.headers.get(KEY_HEADER) === key)) return;
      const maker = new Worker(new URL('./pyodide-snapshot.js', import.meta.url), { type: 'module' });
      maker.onmessage = ({ data }) => { done(data); maker.terminate(); };
      maker.onerror = event => { done(`error: ${event.message}`); maker.terminate(); };
      maker.postMessage({ role, key });
    } catch (err) {
      done(`error: ${errorText(err)}`);
    }
  }, delayMs);
}

/** Output handlers as PyScript passes them to loadPyodide, set on an instance started earlier. */
function applyOutput(pyodide, options) {
  if (options.stdout) pyodide.setStdout({ batched: options.stdout });
  if (options.stderr) pyodide.setStderr({ batched: options.stderr });
}

let early = null;

/** Start Pyodide now, before PyScript asks for it (index.html calls this as soon as it can, while
 * PyScript still loads and reads its configuration): from this build's snapshot if there is one
 * -- read meanwhile, and started once `ready` (a promise: the board's first frame) has settled,
 * since that start is one long task -- else afresh at once (its download is the long pole; its
 * long task comes only after it). Resolves to the started Pyodide. */
export function startEarly(ready = null) {
  if (!early) {
    report.asked = performance.now();
    const zip = fetchPyZip();
    zip.catch(() => {}); // (awaited below)
    early = (async () => {
      let pyodide = await fromSnapshot(HERE_ROLE, ready);
      if (!pyodide) {
        pyodide = await loadFresh({ indexURL: INDEX_URL });
        if (HERE_ROLE === 'page') ensureSnapshot('page');
      }
      installPyZip(pyodide, await zip);
      return pyodide;
    })();
  }
  return early;
}

/** PyScript's entry: `loadPyodide(options)` of pyodide.mjs, from a snapshot when there is one.
 * Of PyScript's options only the output handlers apply (pyscript.toml asks for no packages). */
export async function loadPyodide(options = {}) {
  const pyodide = await startEarly();
  applyOutput(pyodide, options);
  report.started = performance.now();
  return pyodide;
}
