// Hidden Chess -- a fault of the page's own code that must not stop its caller (one renderer among
// many, a handler that a library calls and would swallow): reported as the page's uncaught error,
// which the console and the browser tests see, and the caller goes on. (In Node: the console.)

export function reportFault(err) {
  if (typeof reportError === 'function') reportError(err);
  else console.error(err);
}
