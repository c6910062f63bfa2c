// Hidden Chess -- the service worker of a deployed build (`python3 build.py dist`), which makes
// the page load with no network after one visit, from any static host.
//
// `build.py dist` writes dist/sw.js from this file with the two constants below filled in: the
// build's version (a hash of every file) and the list of its files. The repository's own page
// (index.html with <meta name="hc-build" content="dev">) never registers it.
//
// - install: every file of the build goes into one cache, "hiddenchess-<version>", all or nothing
//   (a failed download leaves the previous version in charge).
// - A new version waits until the page asks it to take over (assets/js/offline.js shows "A new
//   version is available: Reload"), or until no tab runs the old one.
// - activate: the caches of other versions are deleted; from then on every request for a file of
//   the build is answered from the cache (the network only for anything else).
// - Navigations to the page (./, ./index.html, with any query or #invite) get the cached
//   index.html.

const VERSION = 'dev';
const FILES = [];

const PREFIX = 'hiddenchess-';
const CACHE = PREFIX + VERSION;
const SCOPE = new URL('./', self.location).href;
const PAGE = new URL('index.html', SCOPE).href;

self.addEventListener('install', event => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // cache: 'no-cache' -- revalidate with the server, never a stale copy from the HTTP cache.
      await cache.addAll(FILES.map(file => new Request(new URL(file, SCOPE), { cache: 'no-cache' })));
    })(),
  );
});

self.addEventListener('message', event => {
  if (event.data && event.data.type === 'activate') self.skipWaiting();
});

self.addEventListener('activate', event => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

function cacheKey(request) {
  const url = new URL(request.url);
  url.hash = '';
  if (request.mode === 'navigate') {
    url.search = '';
    if (url.href === SCOPE || url.href === PAGE) return PAGE;
    return null;
  }
  return url.href;
}

self.addEventListener('fetch', event => {
  const request = event.request;
  if (request.method !== 'GET' || !request.url.startsWith(SCOPE)) return;
  const key = cacheKey(request);
  if (!key) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(key, { ignoreVary: true });
      return hit || fetch(request);
    })(),
  );
});
