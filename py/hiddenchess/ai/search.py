"""Alpha-beta search over a full :class:`~hiddenchess.engine.position.Position`.

The :class:`Searcher` knows nothing about views or seats: it is handed one concrete position
(a *determinization*, see :mod:`hiddenchess.ai.determinizers`) and the repetition keys of the
positions that came before it. Techniques:

* iterative deepening; the budget (nodes and a clock deadline) is checked every
  :attr:`Searcher.check_every` nodes *inside* the search, and an interrupted iteration is thrown
  away -- the answer is the best move of the last completed one -- unless it had already
  searched that move (it is tried first) and then proved another move better (plain search,
  no root margin);
* principal variation search (null windows after the first move) with aspiration windows from
  depth 4, a transposition table keyed by the position's state, check extension, null-move
  pruning (not in check, not without pieces), late move reductions for quiet moves, and near
  the leaves reverse futility, futility and late move pruning;
* move ordering: transposition-table move, royal-pawn wins, captures by MVV-LVA, promotions,
  two killer moves per ply, captures a pawn avenges (a bigger piece takes a pawn-guarded one),
  then quiet moves by the history heuristic. The table's move is tried before the node builds
  its other moves, which it then never does if that move cuts off;
* quiescence search over captures and queen promotions (all evasions when in check, for its
  first two plies), with stand pat, delta pruning and no pawn-guarded captures by a bigger
  piece; captures come from :mod:`hiddenchess.ai.movegen`, not from the full move generator;
* the material + piece-square part of the evaluation is updated move by move
  (:func:`~hiddenchess.ai.evaluation.pst_delta`);
* draws: a position repeated since the last irreversible move (in the game or in the search),
  the fifty-move count, and in Standard the automatic bare-material draw all score 0, so the
  search steers into a repetition only when it stands worse and avoids one when it stands better;
* game ends: checkmate, a royal pawn reaching its last rank and (capture-the-king variants,
  ``royal == "none"``) a captured king score
  ``-(MATE - ply)`` for the side that suffers them (the fastest win is preferred), stalemate 0.

Recursion is bounded: one Python frame per ply, at most :data:`MAX_PLY` plies (search,
extensions and quiescence together), so the search stays far below Pyodide's small stack.

>>> from hiddenchess.engine.notation import position_from_fen, uci
>>> pos = position_from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")   # back-rank mate
>>> s = Searcher(pos, max_nodes=20_000)
>>> result = s.think(max_depth=3)
>>> uci(result.move), result.score > MATE - 10
('a1a8', True)
"""

import math
from operator import itemgetter

from hiddenchess.engine.core import BB_RANKS, KING, PAWN_ATTACKS, QUEEN, WHITE
from hiddenchess.engine.position import EN_PASSANT, ROYAL_PROMOTION
from hiddenchess.ai.evaluation import MATE, PIECE_VALUES, evaluate, material_pst, pst_delta, tables_for
from hiddenchess.ai.movegen import in_check as _in_check
from hiddenchess.ai.movegen import is_legal_after_push, quiet_gives_check, tactical_moves
from hiddenchess.ai.result import Result

#: Hard cap on the ply reached by search + quiescence (= Python frames used by the search).
MAX_PLY = 32
#: Scores beyond this are game ends found by the search.
MATE_BOUND = MATE - 1000
INF = MATE + 1
#: Quiescence depth after which checks are no longer answered with every evasion.
QCHECK_PLIES = 2
#: Half-width of the aspiration window (centipawns) from depth 4 on.
ASPIRATION = 40
#: Half-width of the window around each chance outcome's static value (root expectimax).
CHANCE_WINDOW = 100
#: Frontier futility margins by remaining depth: quiet moves that cannot lift the static score
#: above alpha by this much are skipped (unless they give check).
FUTILITY = (0, 200, 450)
#: Reverse futility: at remaining depth up to RFP_DEPTH outside the principal variation, a
#: static score RFP_MARGIN * depth above beta fails high at once.
RFP_DEPTH = 2
RFP_MARGIN = 150
#: Late move pruning: at remaining depth d (1..3) outside the principal variation, quiet moves
#: after the first LATE_MOVES[d] are not searched (unless they give check).
LATE_MOVES = (0, 8, 12, 20)
#: Late move reductions by remaining depth and move number: about ln(depth) * ln(number) / 2.
_LMR = [[0] * 64 for _ in range(MAX_PLY + 8)]
for _d in range(1, MAX_PLY + 8):
    for _i in range(1, 64):
        _LMR[_d][_i] = max(0, min(_d - 2, int(0.5 + math.log(_d) * math.log(_i) / 2.0)))
_LMR_DEPTHS = len(_LMR) - 1
EXACT, LOWER, UPPER = 0, 1, 2
_PROMO_RANK = (BB_RANKS[7], BB_RANKS[0])
_FLAG_SHIFT = 15
_VICTIM = (0, 100, 300, 320, 500, 900, 250)  # ordering values (king captured in royal-pawn)
_TT_LIMIT = 300_000
_FIRST = itemgetter(0)


class SearchTimeout(Exception):
    """Raised inside the search when the node or time budget is spent (caught by :meth:`think`)."""


def repetition_key(pos) -> tuple:
    """The key under which the search compares positions (state plus en passant square)."""
    return pos.state_key() + (pos.ep,)


class Searcher:
    """Searches one position. ``history`` lists the repetition keys (:func:`repetition_key`) of
    the positions before it in the game, oldest first. Budget: ``max_nodes`` and/or
    ``deadline`` (a time on ``clock``, consulted every ``check_every`` nodes). ``quiescence``
    off makes depth-1 searches see only the static value after each move (level 1).
    ``root_order`` (optional) is the order root moves are tried in before anything is known;
    the caller shuffles it for variety. ``tt`` (optional) is the transposition table to use and
    fill, e.g. one kept from the last move (:class:`~hiddenchess.ai.memory.SearchMemory`);
    by default the search starts with an empty one.
    """

    def __init__(self, pos, *, history=(), max_nodes=None, deadline=None, clock=None,
                 check_every=256, quiescence=True, root_order=None, chance=None, tt=None):
        self.pos = pos.copy()  # the caller's position is never touched
        #: Optional chance hook ``chance(pos, move) -> [(probability, apply), ...] | None``:
        #: root moves it answers for are scored as the expectation over their outcomes (each
        #: ``apply(pos)`` runs right after the move is pushed, e.g. a Reveal Chess draw).
        self.chance = chance
        self.tables = tables_for(pos.variant)
        self.royal_wins = pos.variant.royal_promotion_wins
        #: Capture-the-king variants (``royal == "none"``, Hidden Identity Chess): no check, and a
        #: side whose king was captured has lost (scored like being mated).
        self.king_capture = pos.variant.royal == "none"
        self.king_gain = MATE if self.king_capture else self.tables.king_value
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.clock = clock
        self.check_every = check_every
        self.quiescence = quiescence
        self.root_order = root_order
        self.nodes = 0
        #: True once the clock deadline (not the node budget) stopped the search.
        self.timed_out = False
        #: During a root iteration: ``(move, score)`` of a move after the first that has been
        #: searched fully and scored above the first (kept when the iteration is interrupted).
        self.partial = None
        self.next_check = self._next_check()
        self.tt = {} if tt is None else tt
        self.killers = [[0, 0] for _ in range(MAX_PLY + 2)]
        self.history = ([0] * 4096, [0] * 4096)
        self.keys = list(history)
        self.psq = material_pst(self.pos, self.tables)

    # --- budget -----------------------------------------------------------------------------------
    def _next_check(self) -> int:
        step = self.nodes + self.check_every
        if self.max_nodes is not None and self.max_nodes < step:
            return self.max_nodes
        return step

    def _check_budget(self) -> None:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise SearchTimeout
        if self.deadline is not None and self.clock() >= self.deadline:
            self.timed_out = True
            raise SearchTimeout
        self.next_check = self._next_check()

    # --- root -------------------------------------------------------------------------------------
    def think(self, max_depth=MAX_PLY - 8, margin=0) -> Result:
        """Iterative deepening up to ``max_depth`` plies (or until the budget is spent).

        ``margin`` > 0 asks for the score of every root move within ``margin`` of the best (the
        weaker levels pick among them with noise); 0 is plain principal variation search.
        Raises ``ValueError`` if the side to move has no legal move.
        """
        pos = self.pos
        base = pos.pushed
        moves = pos.legal_moves()
        if not moves:
            raise ValueError("no legal move to search")
        if self.root_order:
            rank = {m: i for i, m in enumerate(self.root_order)}
            moves.sort(key=lambda m: rank.get(m, len(rank)))
        moves = self._order(moves, 0)
        best = Result(moves[0], 0, 0, 0, [moves[0]], {})
        root_psq = self.psq
        max_depth = max(1, min(max_depth, MAX_PLY - 8))
        for depth in range(1, max_depth + 1):
            try:
                if margin == 0 and depth >= 4 and abs(best.score) < MATE_BOUND:
                    # Aspiration: a narrow window around the last score, widened on failure.
                    low, high = best.score - ASPIRATION, best.score + ASPIRATION
                    score, move, scores = self._root(moves, depth, 0, low, high)
                    if score <= low or score >= high:
                        score, move, scores = self._root(moves, depth, 0)
                else:
                    score, move, scores = self._root(moves, depth, margin)
            except SearchTimeout:
                while pos.pushed > base:  # unwind the interrupted line (pop restores the state)
                    pos.pop()
                self.psq = root_psq
                if not margin and self.partial is not None and self.partial[0] != best.move:
                    # The interrupted iteration already proved a move better than the last
                    # iteration's best (searched first, fully): play it.
                    move, score = self.partial
                    best = Result(move, score, best.depth, self.nodes, self._pv(move),
                                  best.root_scores)
                break
            best = Result(move, score, depth, self.nodes, self._pv(move), scores)
            # Next iteration: best move first, the rest by this iteration's scores.
            moves.sort(key=lambda m: -scores.get(m, -INF))
            if abs(score) > MATE_BOUND and MATE - abs(score) <= depth:
                break  # a forced game end within the horizon: deeper search cannot change it
        best.nodes = self.nodes
        return best

    def _root(self, moves, depth, margin, alpha=-INF, beta=INF):
        pos = self.pos
        self.partial = None
        key = repetition_key(pos)
        self.keys.append(key)
        best_score, best_move = -INF, moves[0]
        scores = {}
        push, pop = pos.push, pos.pop
        tables = self.tables
        try:
            for i, m in enumerate(moves):
                outcomes = self.chance(pos, m) if self.chance is not None else None
                if outcomes:
                    score = self._expectation(m, outcomes, depth)
                    scores[m] = score
                    if score > best_score:
                        best_score, best_move = score, m
                        if score > alpha:
                            alpha = score
                            if score >= beta:
                                break
                    continue
                delta = pst_delta(pos, m, tables)
                push(m)
                self.psq += delta
                if i == 0:
                    score = -self._search(depth - 1, -beta, -alpha, 1, True)
                else:
                    floor = max(alpha - margin, -INF + 1) if margin else alpha
                    score = -self._search(depth - 1, -floor - 1, -floor, 1, True)
                    if score > floor:
                        score = -self._search(depth - 1, -beta, -floor, 1, True)
                pop()
                self.psq -= delta
                scores[m] = score
                if score > best_score:
                    best_score, best_move = score, m
                    if score > alpha:
                        alpha = score
                        if i:
                            self.partial = (m, score)
                        if score >= beta:
                            break
        finally:
            self.keys.pop()
        if -INF < best_score < INF and not margin:
            flag = LOWER if best_score >= beta else EXACT
            self._store(key, depth, best_score, flag, best_move, 0)
        return best_score, best_move, scores

    def _expectation(self, m, outcomes, depth) -> int:
        """Expectimax at the root: the probability-weighted mean of the searches of each outcome
        of chance move ``m`` (an outcome's ``apply`` changes the position after the push;
        :meth:`Position.pop` undoes both). Each outcome is searched in a window of
        :data:`CHANCE_WINDOW` around its static value -- a full window would make the capture
        search explode -- and a score outside it counts as the (fail-soft) bound found."""
        pos = self.pos
        saved = self.psq
        total = 0.0
        for probability, apply in outcomes:
            pos.push(m)
            apply(pos)
            self.psq = material_pst(pos, self.tables)
            static = evaluate(pos, self.tables, self.psq)
            low = max(static - CHANCE_WINDOW, -INF + 1)
            high = min(static + CHANCE_WINDOW, INF - 1)
            total += probability * -self._search(depth - 1, low, high, 1, True)
            pos.pop()
            self.psq = saved
        return int(round(total))

    def _pv(self, first) -> list:
        pos = self.pos
        line = [first]
        pos.push(first)
        seen = {repetition_key(pos)}
        try:
            while len(line) < 16:
                entry = self.tt.get(repetition_key(pos))
                if entry is None or not entry[4] or entry[4] not in pos.legal_moves():
                    break
                pos.push(entry[4])
                line.append(entry[4])
                key = repetition_key(pos)
                if key in seen:
                    break
                seen.add(key)
        finally:
            for _ in line:
                pos.pop()
        return line

    # --- helpers ----------------------------------------------------------------------------------
    def _store(self, key, depth, score, flag, move, ply):
        if score > MATE_BOUND:
            score += ply
        elif score < -MATE_BOUND:
            score -= ply
        tt = self.tt
        if len(tt) >= _TT_LIMIT:
            tt.clear()
        old = tt.get(key)
        if old is not None and old[0] > depth and flag != EXACT:
            return
        tt[key] = (depth, flag, score, ply, move)

    def _order(self, moves, ply) -> list:
        """Moves best-first: royal wins, captures (MVV-LVA), promotions, killers, a bigger piece's
        captures of a pawn-guarded one (not a king), then quiet moves by history. (The table's
        move, when there is one, is tried before, by :meth:`_search` itself.)"""
        pos = self.pos
        them = pos.black if pos.turn == WHITE else pos.white
        k1, k2 = self.killers[ply]
        hist = self.history[pos.turn]
        type_at = pos.piece_type_at
        their_pawns = pos.pawns & them
        guards = PAWN_ATTACKS[pos.turn]
        scored = []
        for m in moves:
            to = m >> 6 & 63
            flag = m >> _FLAG_SHIFT & 7
            if flag == ROYAL_PROMOTION:
                s = 1 << 39
            elif them >> to & 1:
                vt = type_at(to)
                victim, attacker, promo = _VICTIM[vt], _VICTIM[type_at(m & 63)], m >> 12 & 7
                if attacker > victim + 50 and not promo and vt != KING and guards[to] & their_pawns:
                    s = (1 << 27) + victim * 16 - attacker // 16   # a losing capture: after killers
                else:
                    s = (1 << 30) + victim * 16 - attacker // 16
                    if promo:
                        s += _VICTIM[promo] * 16
            elif flag == EN_PASSANT:
                s = (1 << 30) + 100 * 16 - 6
            elif m >> 12 & 7:
                s = (1 << 29) + (m >> 12 & 7)
            elif m == k1:
                s = 1 << 28
            elif m == k2:
                s = (1 << 28) - 1
            else:
                s = hist[m & 4095]
            scored.append((s, m))
        scored.sort(key=_FIRST, reverse=True)  # stable: equal moves keep the given order
        return [m for _, m in scored]

    def _royal_lost(self, pos) -> bool:
        """The opponent's royal pawn reached its last rank, or (capture-the-king variants) the
        side to move has no king: the previous move won."""
        if self.king_capture:
            return not pos.kings & (pos.white if pos.turn == WHITE else pos.black)
        if not self.royal_wins:
            return False
        them = pos.black if pos.turn == WHITE else pos.white
        return bool(pos.royal & them & _PROMO_RANK[pos.turn ^ 1])

    def _repeated(self, pos, key) -> bool:
        keys = self.keys
        n = len(keys)
        stop = n - pos.halfmove
        i = n - 2
        while i >= stop and i >= 0:
            if keys[i] == key:
                return True
            i -= 2
        return False

    def _draw_by_material(self, pos) -> bool:
        if pos.pawns or pos.rooks or pos.queens or not self.tables.draw_by_material:
            return False
        return (pos.knights | pos.bishops).bit_count() <= 1

    # --- the search -------------------------------------------------------------------------------
    def _search(self, depth, alpha, beta, ply, null_ok) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check_budget()
        pos = self.pos
        if self._royal_lost(pos):
            return -(MATE - ply)
        if pos.halfmove >= 100:
            return 0
        key = repetition_key(pos)
        if self._repeated(pos, key) or self._draw_by_material(pos):
            return 0
        # Mate distance pruning.
        if alpha < -(MATE - ply):
            alpha = -(MATE - ply)
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
        in_check = _in_check(pos)
        if in_check and ply < MAX_PLY - 8:
            depth += 1
        if depth <= 0 or ply >= MAX_PLY - 1:
            if self.quiescence:
                return self._qsearch(alpha, beta, ply, 0)
            return evaluate(pos, self.tables, self.psq)
        entry = self.tt.get(key)
        tt_move = 0
        if entry is not None:
            tt_move = entry[4]
            if entry[0] >= depth:
                score = entry[2]
                if score > MATE_BOUND:
                    score -= ply
                elif score < -MATE_BOUND:
                    score += ply
                flag = entry[1]
                if (flag == EXACT or (flag == LOWER and score >= beta)
                        or (flag == UPPER and score <= alpha)):
                    return score
        pv_node = beta - alpha > 1
        turn = pos.turn
        us = pos.white if turn == WHITE else pos.black
        futile = False
        late = 64
        if not in_check and not pv_node:
            if depth <= 3:
                late = LATE_MOVES[depth]
            static = evaluate(pos, self.tables, self.psq)
            if depth <= 2 and static + FUTILITY[depth] <= alpha and abs(alpha) < MATE_BOUND:
                futile = True
            if (depth <= RFP_DEPTH and static - RFP_MARGIN * depth >= beta
                    and abs(beta) < MATE_BOUND):
                return static
            if (null_ok and depth >= 3 and static >= beta and abs(beta) < MATE_BOUND
                    and us & (pos.knights | pos.bishops | pos.rooks | pos.queens)):
                r = 2 + (depth >= 5) + depth // 8
                saved = (pos.ep, pos.halfmove)
                pos.turn ^= 1
                pos.ep = -1
                pos.halfmove = 0
                self.keys.append(key)
                try:
                    score = -self._search(depth - 1 - r, -beta, -beta + 1, ply + 1, False)
                finally:
                    self.keys.pop()
                    pos.turn ^= 1
                    pos.ep, pos.halfmove = saved
                if score >= beta:
                    return beta if score < MATE_BOUND else score
        if tt_move:
            # The table's move first, before the others are built: the table's key is the whole
            # position, so the move is legal here, and when it cuts off (as it mostly does) the
            # node never builds or orders its moves. The others come in _order's order, by the
            # history as it stands after the first move's search (fresher than before it).
            moves = [tt_move]
        else:
            moves = pos.legal_moves()
            if not moves:
                return -(MATE - ply) if in_check else 0
            moves = self._order(moves, ply)
        them = pos.black if turn == WHITE else pos.white
        best, best_move = -INF, 0
        orig_alpha = alpha
        keys = self.keys
        keys.append(key)
        push, pop = pos.push, pos.pop
        tables = self.tables
        try:
            for i, m in enumerate(moves):
                quiet = not (them >> (m >> 6 & 63) & 1) and not (m >> 12 & 7) and (
                    m >> _FLAG_SHIFT & 7) not in (EN_PASSANT, ROYAL_PROMOTION)
                if (futile or i >= late) and quiet and i:
                    if not quiet_gives_check(pos, m):
                        if futile and best < static + FUTILITY[depth]:
                            best = static + FUTILITY[depth]
                        continue
                delta = pst_delta(pos, m, tables)
                push(m)
                self.psq += delta
                if i == 0:
                    score = -self._search(depth - 1, -beta, -alpha, ply + 1, True)
                else:
                    reduction = 0
                    if (quiet and depth >= 3 and i >= 3 and not in_check
                            and m != self.killers[ply][0] and m != self.killers[ply][1]
                            and not _in_check(pos)):
                        reduction = _LMR[min(depth, _LMR_DEPTHS)][min(i, 63)] - pv_node
                        if reduction < 0:
                            reduction = 0
                    score = -self._search(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, True)
                    if score > alpha and reduction:
                        score = -self._search(depth - 1, -alpha - 1, -alpha, ply + 1, True)
                    if alpha < score < beta:
                        score = -self._search(depth - 1, -beta, -alpha, ply + 1, True)
                pop()
                self.psq -= delta
                if score > best:
                    best, best_move = score, m
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            if quiet:
                                killers = self.killers[ply]
                                if killers[0] != m:
                                    killers[1] = killers[0]
                                    killers[0] = m
                                self.history[turn][m & 4095] += depth * depth
                            break
                if not i and tt_move:  # the table's move did not cut off: now the rest
                    rest = pos.legal_moves()
                    rest.remove(tt_move)
                    moves += self._order(rest, ply)
        finally:
            keys.pop()
        if best >= beta:
            flag = LOWER
        elif best > orig_alpha:
            flag = EXACT
        else:
            flag = UPPER
        self._store(key, depth, best, flag, best_move, ply)
        return best

    def _qsearch(self, alpha, beta, ply, qply) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check_budget()
        pos = self.pos
        if self._royal_lost(pos):
            return -(MATE - ply)
        if ply >= MAX_PLY - 1:
            return evaluate(pos, self.tables, self.psq)
        turn = pos.turn
        them = pos.black if turn == WHITE else pos.white
        tables = self.tables
        if qply < QCHECK_PLIES and _in_check(pos):
            # In check: every evasion, and no legal move is mate.
            moves = pos.legal_moves()
            if not moves:
                return -(MATE - ply)
            best = -INF
            candidates = self._order(moves, min(ply, MAX_PLY))
            checked = True
        else:
            stand = evaluate(pos, tables, self.psq)
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            raw, checked = tactical_moves(pos), False
            scored = []
            type_at = pos.piece_type_at
            their_pawns = pos.pawns & them
            guards = PAWN_ATTACKS[turn]
            for m in raw:
                to = m >> 6 & 63
                if them >> to & 1:
                    gain = PIECE_VALUES[type_at(to)] or self.king_gain
                    if m >> 12 & 7:
                        gain += PIECE_VALUES[QUEEN] - 100
                    if stand + gain + 200 <= alpha:
                        continue  # delta pruning: even winning it cannot lift the score
                    attacker = _VICTIM[type_at(m & 63)]
                    if attacker > gain + 50 and guards[to] & their_pawns:
                        continue  # a bigger piece takes something a pawn guards: a losing trade
                    scored.append((gain * 16 - attacker // 16, m))
                else:
                    flag = m >> _FLAG_SHIFT & 7
                    if flag == ROYAL_PROMOTION:
                        scored.append((1 << 30, m))
                    elif flag == EN_PASSANT:
                        scored.append((100 * 16, m))
                    elif m >> 12 & 7 == QUEEN:
                        scored.append((800 * 16, m))
            if not scored:
                return best
            scored.sort(key=_FIRST, reverse=True)
            candidates = [m for _, m in scored]
        push, pop = pos.push, pos.pop
        for m in candidates:
            delta = pst_delta(pos, m, tables)
            push(m)
            if not checked and not is_legal_after_push(pos):
                pop()
                continue
            if m >> _FLAG_SHIFT & 7 == ROYAL_PROMOTION:
                pop()
                return MATE - ply - 1
            self.psq += delta
            score = -self._qsearch(-beta, -alpha, ply + 1, qply + 1)
            pop()
            self.psq -= delta
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best


__all__ = ["MATE", "MATE_BOUND", "MAX_PLY", "Result", "SearchTimeout", "Searcher", "repetition_key"]
