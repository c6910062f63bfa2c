// Hidden Chess -- the marks of the analysis after the game (analysis.js): which moves were
// inaccuracies (?!), mistakes (?) or blunders (??), from the evaluations of the positions before
// and after each, as lichess marks them (the loss in winning chances of the side that moved).
// Pure: no DOM, tested in Node (tests/js/judgment.mjs).

/** Winning chances from lichess's logistic of centipawns: -1 (Black wins) .. 1 (White wins). */
export function whiteChances(answer) {
  if (!answer || answer.error) return null;
  if (answer.over) return answer.result === '1-0' ? 1 : answer.result === '0-1' ? -1 : 0;
  if (typeof answer.white !== 'number') return null;
  if (answer.mate !== null && answer.mate !== undefined) {
    return (answer.turn === 'white') === answer.mate > 0 ? 1 : -1;
  }
  return 2 / (1 + Math.exp(-0.00368208 * answer.white)) - 1;
}

/** The marks, worst first: a loss of at least this much of the mover's winning chances. */
export const MARKS = [
  { loss: 0.3, mark: '??', name: 'Blunder' },
  { loss: 0.2, mark: '?', name: 'Mistake' },
  { loss: 0.1, mark: '?!', name: 'Inaccuracy' },
];

/**
 * The mark of the move from the position analysed as ``before`` to the one analysed as ``after``
 * ({mark, name, loss}), or null (a good move, or an evaluation missing). ``mover``: "white" |
 * "black".
 */
export function judge(before, after, mover) {
  const a = whiteChances(before);
  const b = whiteChances(after);
  if (a === null || b === null) return null;
  const loss = (a - b) * (mover === 'white' ? 1 : -1);
  const found = MARKS.find(m => loss >= m.loss);
  return found ? { mark: found.mark, name: found.name, loss } : null;
}

/**
 * The marks of a game's moves: ``answerAt(i)`` is the analysis of the position after i plies
 * (or undefined), ``plies`` the number of moves, ``perspective`` the replay's: "all" marks both
 * sides' moves; "white" / "black" only that side's (what it knew before and after its own
 * move). Returns {moveIndex: {mark, name, loss}}.
 */
export function judgments(answerAt, plies, perspective) {
  const out = {};
  for (let i = 0; i < plies; i++) {
    const before = answerAt(i);
    if (!before || before.error) continue;
    const mover = before.turn;
    if (mover !== 'white' && mover !== 'black') continue;
    if (perspective !== 'all' && mover !== perspective) continue;
    const mark = judge(before, answerAt(i + 1), mover);
    if (mark) out[i] = mark;
  }
  return out;
}
