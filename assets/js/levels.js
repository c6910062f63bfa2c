// Hidden Chess -- the computer's levels as the page shows them: the approximate rating of each,
// on Stockfish 15.1's UCI_Elo scale in standard chess, the one place these numbers live.
// Levels 2-5 were measured against Stockfish (bench/strength.py) and fitted together with their
// self-play steps (bench/ladder.py); level 1, below Stockfish's lowest setting, is chained down
// from level 2: docs/BENCHMARKS.md, "What the levels are worth"; level 5 was measured again
// with its opening book and, as the page plays it, its table kept between moves ("The bench
// plays as the page does" there), again at 32 000 nodes a move ("A third more nodes"), and
// again thinking on the player's time ("Thinking on the opponent's time").
// They are rough (each is known to about +-100-200): a guide, not a promise; in the hidden
// variants the same level plays differently.

/** Approximate rating of each level (1..5), rounded to 50. */
export const LEVEL_RATINGS = Object.freeze({ 1: 1000, 2: 1300, 3: 1500, 4: 1700, 5: 1900 });

/** "≈1500": the rating as the badges and the start screen's menu show it. */
export function ratingText(level) {
  const r = LEVEL_RATINGS[level];
  return r ? `≈${r}` : '';
}

/** Fills the rating beside each level: the New game dialog's badges (span[data-level-rating])
 * and the start screen's level menu (#start-level: "3 · Club ≈1500"). Safe to call again. */
export function showLevelRatings(doc = document) {
  for (const badge of doc.querySelectorAll('[data-level-rating]')) {
    const level = Number(badge.dataset.levelRating);
    badge.textContent = ratingText(level);
    badge.title = `About ${LEVEL_RATINGS[level]} on Stockfish's rating scale, in standard chess`;
  }
  const menu = doc.getElementById('start-level');
  if (!menu) return;
  for (const option of menu.options) {
    option.dataset.name = option.dataset.name || option.textContent;
    const text = ratingText(Number(option.value));
    option.textContent = text ? `${option.dataset.name} ${text}` : option.dataset.name;
  }
}
