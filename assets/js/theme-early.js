// Hidden Chess -- the settings' colours and piece set before the first paint (assets/js/settings.js
// keeps them up to date). A classic script that index.html loads in its <head> (render-blocking,
// as it must be; tiny): a file, not an inline script, for the page's Content-Security-Policy.
(function () {
  try {
    var s = JSON.parse(localStorage.getItem('hiddenchess:settings') || '{}') || {};
    var d = document.documentElement;
    var dark = !window.matchMedia || matchMedia('(prefers-color-scheme: dark)').matches;
    d.dataset.theme = s.theme === 'light' || s.theme === 'dark' ? s.theme : dark ? 'dark' : 'light';
    if (['brown', 'blue', 'green', 'grey'].indexOf(s.board) >= 0) d.dataset.board = s.board;
    if (['cburnett', 'merida', 'celtic', 'fantasy', 'spatial'].indexOf(s.pieces) >= 0) d.dataset.pieces = s.pieces;
    d.dataset.coords = s.coords === false ? 'off' : 'on';
  } catch (e) {}
})();
