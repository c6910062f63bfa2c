// Hidden Chess -- the registry of variant panels. A panel is everything the page draws for one
// variant's own state keys (e.g. state.sealing for Secret Pawn, state.reveal for Reveal); the
// rest of the page names no variant and asks the panels through these hooks (all optional):
//
//   reset(st)                     start of every render: forget picks made for another game / seat
//   overlay(st, mark)             board decorations: mark.cls(square, cssClass), mark.svg(square, html)
//   stillPieces(st) -> bool       true: set the pieces without animation, only the changed squares
//   select(st, key) -> bool       a click on a square; true: handled, nothing else happens
//   userMove(st, orig, dest) -> bool   a move dropped on the board; true: the panel sends it (or not)
//   conditionalPromotion(st, uci) -> string | null   the promotion applies only "if it reveals a Pawn"
//   render(st)                    the panel's own part of the page
//   setup(st) -> {seat, marker, status} | null   who is setting up before the first move
//   actor(st) -> {seat, marker, status} | null   in play, someone acts other than the side to move
//   handoverText(st, who) -> string | null       the hand-over screen's sentence
//   handoverIcon(st) -> url | null               the hand-over screen's picture (else the site's)
//   moveNote(st, move) -> string | null          a sentence attached to a move of the list
//   tray(st) -> {what, items: [{color, label, node()}]} | null   captured pieces beside the players
//   squareWords(st, sq) -> string | null         what the keyboard cursor adds to a square from the
//                                 panel's own picks, not yet in the state ("chosen"; the state's
//                                 marks are state.squareMarks, from the Python panel)
//   notify(st)                    after a render that showed no error toast
//   perspectives(st) -> bool      the replay can show what each side knew
//   guideMarks(marks, mark)       a rules page's example board: draw the variant's marks
//                                 ({necktie: [...], crown: [...], ...} from app/guide.py) with mark.svg
//   ticking(st) -> bool           something is judged on this page's time (friend play polls)
//
// panels/index.js registers the panels; a new variant adds its module there.

export const panels = [];

export function registerPanel(panel) {
  panels.push(panel);
  return panel;
}

/** Call a hook of every panel that has it. */
export function each(hook, ...args) {
  for (const p of panels) if (p[hook]) p[hook](...args);
}

/** The first non-null, non-false answer of a hook, else null. */
export function first(hook, ...args) {
  for (const p of panels) {
    if (!p[hook]) continue;
    const out = p[hook](...args);
    if (out !== null && out !== undefined && out !== false) return out;
  }
  return null;
}

/** Whether any panel answers the hook with true. */
export function any(hook, ...args) {
  return panels.some(p => !!(p[hook] && p[hook](...args)));
}
