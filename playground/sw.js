// The playground's service worker: the page, the engine and the gallery are kept in a cache, so that once the page
// has been loaded, a reload works offline too. Network first: online, every file comes from the server (and the
// cache is refreshed with it); offline, from the cache. Nothing but these files is cached, and nothing leaves the page.
const CACHE = 'palisade-playground';
const FILES = ['./', 'index.html', 'app.js', 'style.css', 'palisade_bg.wasm', 'examples.json'];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  // a navigation (any query, any fragment) is the page
  const key = request.mode === 'navigate' ? new URL('./', self.registration.scope).href : request.url.split('?')[0];
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(request);
        if (response.ok) await cache.put(key, response.clone());
        return response;
      } catch (offline) {
        const cached = await cache.match(key);
        if (cached) return cached;
        throw offline;
      }
    })(),
  );
});
