// Hidden Chess -- the computer's levels as the page shows them: the approximate rating of each,
// on Stockfish 15.1's UCI_Elo scale in standard chess, the one place these numbers live.
// They come from bench/ladder.py (level k+1 against level k, node budgets) chained down from
// level 5's rating against Stockfish (bench/strength.py): docs/BENCHMARKS.md, "What the levels
// are worth". They are rough (each step is known to about +-150, and the errors add up down the
// chain): a guide, not a promise; in the hidden variants the same level plays differently.

/** Approximate rating of each level (1..5), rounded to 50. */
export const LEVEL_RATINGS = Object.freeze({ 1: 600, 2: 900, 3: 1100, 4: 1450, 5: 1650 });

/** "≈1100": the rating as the badges and the start screen's menu show it. */
export function ratingText(level) {
  const r = LEVEL_RATINGS[level];
  return r ? `≈${r}` : '';
}

/** Fills the rating beside each level: the New game dialog's badges (span[data-level-rating])
 * and the start screen's level menu (#start-level: "3 · Club ≈1100"). Safe to call again. */
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
