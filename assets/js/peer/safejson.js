// Hidden Chess -- limits on text that arrives from another device or a relay (hostile peers are
// assumed): its length is checked BEFORE JSON.parse, then its nesting depth and its numbers.
// py/hiddenchess/safejson.py does the same on the Python side for the game messages.

export const MAX_MESSAGE_CHARS = 64 * 1024; // one game message (the largest real one is ~4 kB)
export const MAX_DEPTH = 12;
export const MAX_NUMBER_CHARS = 20; // digits of one number literal (no 1e999999, no 400-digit ints)

export class MessageError extends Error {}

/** Throws MessageError when `text` is not a string of at most `maxChars` whose brackets nest at
 * most `maxDepth` deep and whose number literals are at most MAX_NUMBER_CHARS long. Scans the
 * text without parsing it (so a peer's message can be refused before Python sees it). */
export function checkText(text, { maxChars = MAX_MESSAGE_CHARS, maxDepth = MAX_DEPTH } = {}) {
  if (typeof text !== 'string') throw new MessageError('a message must be text');
  if (text.length > maxChars) throw new MessageError(`a message of ${text.length} characters is longer than ${maxChars}`);
  let depth = 0;
  let inString = false;
  let run = 0; // length of the current number literal
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      run = 0;
    } else if (c === 91 || c === 123) {
      depth++;
      if (depth > maxDepth) throw new MessageError(`a message nested deeper than ${maxDepth} levels`);
    } else if (c === 93 || c === 125) {
      depth--;
    } else if ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69) {
      run++;
      if (run > MAX_NUMBER_CHARS) throw new MessageError(`a number longer than ${MAX_NUMBER_CHARS} characters`);
    } else {
      run = 0;
    }
  }
}

/** JSON.parse within the limits above; throws MessageError with a clear message. */
export function parseLimited(text, limits = {}) {
  checkText(text, limits);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MessageError(`not JSON: ${e.message}`);
  }
}
