// Royal Pawn Chess: a crown over each royal piece (state.royal: its squares).

import { registerPanel } from './registry.js';

// Crown badge drawn over a royal pawn (top-right corner of its square), above the piece.
const CROWN_SVG =
  '<g transform="translate(60 3) scale(1.5)" class="royal-crown">' +
  '<path d="M3 8.5l4.2 3.6L12 4.5l4.8 7.6L21 8.5l-1.9 10H4.9z" fill="#f4c430" stroke="#5a3d00" stroke-width="1.5" stroke-linejoin="round"/>' +
  '<rect x="4.9" y="18.5" width="14.2" height="2.6" rx="0.8" fill="#e0a800" stroke="#5a3d00" stroke-width="1.2"/>' +
  '<circle cx="12" cy="4.4" r="1.6" fill="#fff3c4" stroke="#5a3d00"/>' +
  '<circle cx="3" cy="8.4" r="1.4" fill="#fff3c4" stroke="#5a3d00"/>' +
  '<circle cx="21" cy="8.4" r="1.4" fill="#fff3c4" stroke="#5a3d00"/></g>';

export default registerPanel({
  id: 'royal-pawn',
  // A rules page's example board: crowns on the royal pawns (marks.crown).
  guideMarks(marks, mark) {
    for (const sq of marks.crown || []) mark.svg(sq, CROWN_SVG);
  },
  overlay(st, mark) {
    for (const sq of st.royal || []) {
      mark.cls(sq, 'royal');
      mark.svg(sq, CROWN_SVG);
    }
  },
});
