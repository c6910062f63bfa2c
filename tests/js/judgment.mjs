// Hidden Chess -- the marks of the analysis after the game (assets/js/judgment.js), in Node (run
// by tests/test_judgment.py). Prints one JSON line.

import { whiteChances, judge, judgments } from '../../assets/js/judgment.js';

const ev = (white, turn, mate = null) => ({ white, turn, mate, score: turn === 'white' ? white : -white });
const out = {};
out.chances = [
  whiteChances(ev(0, 'white')),
  Math.round(whiteChances(ev(300, 'black')) * 1000) / 1000,
  whiteChances(ev(99999, 'white', 1)),
  whiteChances(ev(-99999, 'white', -2)),
  whiteChances(ev(-99999, 'black', 3)),
  whiteChances({ over: 'Checkmate', result: '1-0' }),
  whiteChances({ over: 'Stalemate', result: '1/2-1/2' }),
  whiteChances({ error: 'x' }),
  whiteChances(undefined),
];
out.blunder = judge(ev(50, 'black'), ev(99999, 'white', 1), 'black');
out.mistake = judge(ev(0, 'white'), ev(-120, 'black'), 'white');
out.good = judge(ev(30, 'white'), ev(20, 'black'), 'white');
out.missing = judge(ev(30, 'white'), undefined, 'white');
// A game: 0 (W) -> 1 (B) -> 2 (W) -> 3 over. White blunders at move 0, Black at move 1.
const answers = [ev(0, 'white'), ev(-400, 'black'), ev(99999, 'white', 1), { over: 'Checkmate', result: '1-0', turn: 'black' }];
out.all = judgments(i => answers[i], 3, 'all');
out.white = judgments(i => answers[i], 3, 'white');
out.black = judgments(i => answers[i], 3, 'black');
console.log(JSON.stringify(out));
