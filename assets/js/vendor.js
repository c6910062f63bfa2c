// Hidden Chess -- where the vendored packages are (assets/vendor/), for the modules that load one
// lazily by URL. Resolved from this module's address, which is in assets/js/ both when the page's
// modules are served one by one (the repository) and when they are bundled into main.js
// (`build.py dist`): a module in a subfolder cannot resolve it from its own address.

export const VENDOR = new URL('../vendor/', import.meta.url).href;
