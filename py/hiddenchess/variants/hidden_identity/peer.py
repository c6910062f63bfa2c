"""Hidden Identity Chess without a referee: the protocol hooks (:mod:`hiddenchess.peer.protocol`).

Each side commits to its sixteen identities (item = start square); a piece reaching its last rank
commits to its identity there (item ``"ply:<n>"``), so a promotion is not told. A capture's owner
opens the captured identity; an en passant capture (announced by the mover, as is castling) is
answered "captured" (with the pawn's opening) or "not-a-pawn". With revealed kings the commit
opens the king. A side with no legal move says so with an empty ``probe`` (stalemate). (The
tabletop rules need a referee: they are not played with a friend.)

Of the opponent's identities a side knows only what the public history proves
(:func:`hiddenchess.variants.hidden_identity.rules.candidates`' deduction). To run a local engine
game it *determinizes* (:func:`determinize`): it gives every opponent piece an original role
(and a promoted piece its new role) consistent with that and with the counts K Q R R B B N N +
8 pawns, and replays the arrangement; nothing of it is shown. When a new fact contradicts it (a
move the assumed role could not make, an opened identity, an en passant outcome) a new
arrangement is drawn; when none exists the opponent broke the rules: the message is rejected.
"""

from __future__ import annotations

import json
import random

from hiddenchess.engine import notation
from hiddenchess.engine.core import PIECE_SYMBOLS, SQUARE_INDEX
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.peer.audit import begin, final_values, force, problem, result_mismatch
from hiddenchess.peer.claims import audit_fifty, holder_fifty, own_fifty
from hiddenchess.peer.endings import claim_reason
from hiddenchess.peer.codec import Reject
from hiddenchess.peer.crypto import check_opening, commitment
from hiddenchess.peer.protocol import Protocol, register_protocol
from hiddenchess.variants.hidden_identity.assume import determinize, far_rank, piece_items
from hiddenchess.variants.hidden_identity.rules import home_squares, parse_placement

__all__ = ["IdentityProtocol", "RevealedKingsProtocol", "determinize", "far_rank",
           "piece_items"]


@register_protocol("hidden-identity")
class IdentityProtocol(Protocol):
    """Identity commitments, last-rank recommitments, assumed identities, "not a pawn" (see the
    module docstring). ``det``: the peer's assumed identities (``{"placement", "promotions"}``)."""

    private = True
    setup = "place"
    setup_wait = "your friend to place their pieces"
    FIELDS = ("det", "peer_king")
    proven = False  # (set by fit: whether its last failure is a proof)
    #: Whether both kings are open from the start (the commit opens the king).
    kings_open = False

    #: Whether the friend's pawns moved is its secret: it answers a fifty-move claim.
    answered_claims = ("fifty-moves",)

    det: dict | None = None         # the assumed enemy identities
    peer_king: str | None = None    # revealed kings: the peer king's start square

    # ------------------------------------------------------------------ before play
    def place(self, placement) -> None:
        """Place this side's sixteen pieces (``{square: role}`` on its two home rows, or any form
        :func:`~hiddenchess.variants.hidden_identity.rules.parse_placement` reads) and send the
        commitments to all sixteen identities (with revealed kings, the king's opening)."""
        pg = self.pg
        pg.require(pg.my_secrets is None, "your pieces are already placed")
        placement = parse_placement(placement, pg.seat)
        pg.my_secrets = {sq: {"value": role, "salt": pg.rng.token_hex(16)}
                         for sq, role in sorted(placement.items())}
        openings = []
        if self.kings_open:
            king = next(sq for sq, r in placement.items() if r == "k")
            openings = [pg.opening(king)]
            pg.my_open.append(king)
        pg.send("commit", c={i: commitment(pg.game_id, pg.seat, i, s["value"], s["salt"])
                             for i, s in pg.my_secrets.items()}, open=openings)
        self.redeterminize()

    def commit_items(self, seat: str) -> set:
        return set(home_squares(seat))

    def committed(self) -> None:
        self.redeterminize()

    # ------------------------------------------------------------------ the local game
    def my_placement(self) -> dict:
        return {i: s["value"] for i, s in (self.pg.my_secrets or {}).items() if not i.startswith("ply:")}

    def local_sig(self):
        return json.dumps([self.pg.my_secrets is not None, self.det], sort_keys=True)

    def build(self, moves, peer_open=None, det=None) -> Game:
        pg = self.pg
        det = self.det if det is None else det
        g = Game.new(pg.variant)
        if pg.my_secrets is None:
            return g
        g.setup(pg.seat, {"placement": self.my_placement()})
        if det is None:
            return g
        g.setup(pg.peer, {"placement": det["placement"]})
        for i, mv in enumerate(moves):
            self.play(g, i, mv, det)
        return g

    def play(self, g: Game, i: int, mv: dict, det=None):
        """Play the ``i``-th move ``mv`` on ``g`` (the promotion as known or assumed)."""
        uci = mv["uci"]
        if g.promotion_roles(uci[:2], uci[2:4]):
            if mv["by"] == self.pg.seat:
                promo = mv.get("promo") or "q"
            else:
                promo = ((self.det if det is None else det) or {}).get("promotions", {}).get(str(i)) or "q"
            uci = uci[:4] + promo
        return g.play(uci, draw=mv.get("role"))

    def truth_known(self) -> bool:
        # (the enemy identities are assumed until the friend's final openings)
        return self.pg.peer_final is not None

    def in_check(self, game: Game) -> bool:
        return False  # (no check: capture the king)

    def start_info(self) -> tuple:
        """(both sides' start squares, revealed kings) as public information."""
        pg = self.pg
        start = {pg.seat: sorted(self.my_placement(), key=SQUARE_INDEX.get),
                 pg.peer: sorted((i for i in (pg.peer_commits or {}) if not i.startswith("ply:")),
                                 key=SQUARE_INDEX.get)}
        kings = {}
        if self.kings_open:
            kings[pg.seat] = next(sq for sq, r in self.my_placement().items() if r == "k")
            if self.peer_king:
                kings[pg.peer] = self.peer_king
        return start, kings

    def sample(self, moves, salt: int = 0):
        """A determinization of the peer's identities fitting ``moves`` whose replay the engine
        accepts (a few draws are tried) with the local game, or ``None``."""
        pg = self.pg
        start, kings = self.start_info()
        for attempt in range(12):
            rng = random.Random(f"{pg.game_id}|{pg.seat}|{len(moves)}|{salt}|{attempt}")
            det = determinize(start, kings, moves, pg.peer, rng)
            if det is None:
                self.proven = True  # no arrangement at all fits the public facts: a proof
                return None
            det = {"placement": det["placement"],
                   "promotions": {str(k): v for k, v in det["promotions"].items()}}
            try:
                g = self.build(moves, det=det)
            except HiddenChessError:
                continue
            if facts_match(g, moves):
                return det, g
        return None

    def redeterminize(self) -> bool:
        """Draw the peer's assumed identities afresh for the moves so far (and rebuild)."""
        pg = self.pg
        if pg.my_secrets is None or pg.peer_commits is None:
            return True
        if pg.peer_final is not None:
            truth = self.final_det()
            if truth is not None:
                self.det = truth
                pg.adopt_local(None)
                return True
        found = self.sample(pg.moves)
        if found is None:
            return False
        self.det = found[0]
        pg.adopt_local(found[1])
        return True

    def final_det(self):
        """The peer's true identities from its final openings (``None`` if they do not fit)."""
        pg = self.pg
        placement, promotions = {}, {}
        for item, o in pg.peer_final["open"].items():
            if item not in (pg.peer_commits or {}) or \
                    not check_opening(pg.peer_commits[item], pg.game_id, pg.peer, o):
                return None
            if item.startswith("ply:"):
                promotions[item[4:]] = o["value"]
            else:
                placement[item] = o["value"]
        det = {"placement": placement, "promotions": promotions}
        try:
            self.build(pg.moves, det=det)
        except HiddenChessError:
            return None
        return det

    def fit(self, local: Game, ply: int, entry: dict, salt: int):
        """``(det, game)``: the assumed identities and local game with ``entry`` played at ``ply``
        -- the current ones when they allow it (``game`` is ``local``, the move taken back until
        the commit), else a new draw -- or ``None`` when no arrangement allows it."""
        moves = self.pg.moves + [entry]
        found = None
        self.proven = False
        try:
            self.play(local, ply, entry)
            if facts_match(local, moves):
                found = (self.det, local)
            local.undo()
        except HiddenChessError:
            pass
        return found if found is not None else self.sample(moves, salt=salt)

    def adopt(self, det, game: Game, local: Game, ply: int, entry: dict) -> None:
        """The move ``entry`` is final: take the assumed identities ``det`` and their game."""
        pg = self.pg
        if game is local:
            self.play(local, ply, entry, det)
        self.det = det
        pg.adopt_local(game)

    # ------------------------------------------------------------------ my move
    def move(self, uci: str, now_ms: int) -> None:
        pg = self.pg
        local = pg.local
        m = local.parse_move(uci)
        pg.decline_by_moving()
        full = notation.uci(m)
        public, promo = full[:4], full[4:]
        ply = pg.ply
        piece = local.position.piece_at(SQUARE_INDEX[public[:2]])
        result = local.play(full)
        try:
            e = next(x for x in result.events if x.kind == "move").public
        finally:
            local.undo()
        castle = e["castle"]
        answer = bool(e["captured"] or e["ep"])
        c = {}
        if far_rank(pg.seat, public[2:4]) and not castle:
            item = f"ply:{ply}"
            role = promo or PIECE_SYMBOLS[piece[1]]
            pg.my_secrets[item] = {"value": role, "salt": pg.rng.token_hex(16)}
            s = pg.my_secrets[item]
            c = {item: commitment(pg.game_id, pg.seat, item, s["value"], s["salt"])}
        pending = {"ply": ply, "by": pg.seat, "uci": public, "stage": "answer", **pg.owe_mark(now_ms),
                   "king": False, "draw": "", "nonce": "", "open": [], "promo": promo,
                   "castle": castle, "ep": bool(e["ep"])}
        left = pg.stop_my_clock(now_ms)
        if pg.clock is not None:
            pending["left"] = left
        pg.send("move", ply=ply, uci=public, open=[], draw="", left=left,
                castle="".join(castle) if castle else "", ep=bool(e["ep"]), c=c)
        pg.my_last_left = {"ply": ply, "left": left}
        pg.attempts.append({"kind": "move", "ply": ply, "by": pg.seat, "uci": public, "open": [],
                            "answer": None, "later": [], "draw": "", "nonces": None,
                            "castle": castle, "commit": sorted(c)})
        pending["n"] = len(pg.chain.sent)
        if answer:
            pg.pending = pending
            pg.clock_owe(pg.peer, now_ms)  # (the answer is owed: the peer's time runs)
        else:
            pg.finish_move({"uci": public, "by": pg.seat, "promo": promo, "castle": castle,
                            "ep": None, "captured": None, "n": len(pg.chain.sent)}, pg.seat)
            if left is not None:
                pg.clock_move(pg.seat, left, now_ms)

    # ------------------------------------------------------------------ the peer's move
    def on_move(self, msg, now_ms):
        pg = self.pg
        pg.require_friend_to_move()
        pg.check_ply(msg)
        ply, uci = pg.ply, msg["uci"]
        if len(uci) != 4 or msg["open"] or msg["draw"]:
            raise Reject("a move names its squares only (no promotion, opening nor draw)")
        frm, to = uci[:2], uci[2:]
        castle = [msg["castle"][:2], msg["castle"][2:]] if msg["castle"] else None
        local = pg.local
        pos = local.position
        mine = pos.color_mask(0 if pg.seat == "white" else 1)
        theirs = pos.color_mask(0 if pg.peer == "white" else 1)
        if not theirs >> SQUARE_INDEX[frm] & 1:
            raise Reject(f"illegal move {uci}: no piece of your friend on {frm}", "illegal-move", ply)
        start, _ = self.start_info()
        items = piece_items(start, pg.moves)
        target = SQUARE_INDEX[to]
        captured = ep = None
        opening = []
        if castle is None and mine >> target & 1:
            origin = items["board"][to]
            item = items["latest"][origin]
            captured = pg.my_secrets[item]["value"]
            opening = [] if item in pg.my_open else [pg.opening(item)]
        elif msg["ep"]:
            victim = to[0] + frm[1]
            origin = items["board"].get(victim)
            if (castle is not None or pos.ep != target or (mine | theirs) >> target & 1
                    or abs(ord(frm[0]) - ord(to[0])) != 1 or origin is None
                    or not mine >> SQUARE_INDEX[victim] & 1):
                raise Reject(f"illegal move {uci}: no en passant capture there", "illegal-move", ply)
            item = items["latest"][origin]
            if pg.my_secrets[item]["value"] == "p":
                ep, opening = "captured", [] if item in pg.my_open else [pg.opening(item)]
            else:
                ep = "not-a-pawn"
        arrival = far_rank(pg.peer, to) and castle is None
        expected = {f"ply:{ply}"} if arrival else set()
        if set(msg["c"]) != expected:
            raise Reject("a piece reaching the last rank commits to its identity there (and only then)",
                         "bad-commit", ply)
        entry = {"uci": uci, "by": pg.peer, "castle": castle, "ep": ep, "captured": captured,
                 "n": msg["n"]}
        found = self.fit(local, ply, entry, salt=1)
        if found is None:
            raise Reject(f"illegal move {uci}: no piece of your friend's could make it"
                         + (" (it contradicts what its earlier moves proved)" if self.proven else ""),
                         "illegal-move", ply, forfeit=self.proven)
        det, game = found
        answer = bool(captured or ep)
        left = pg.accepted_left(msg["left"], now_ms)
        attempt = {"kind": "move", "ply": ply, "by": pg.peer, "uci": uci, "open": [],
                   "answer": None, "later": [], "draw": "", "nonces": None, "castle": castle,
                   "commit": sorted(msg["c"])}

        def commit():
            pg.peer_commits.update(msg["c"])
            pg.attempts.append(attempt)
            if answer:
                pg.send("answer", ply=ply, ok=True, refusal="", open=opening, nonce="", ep=ep or "")
                for o in opening:
                    pg.my_open.append(o["item"])
                attempt["answer"] = {"ok": True, "open": [[o["item"], o["value"]] for o in opening],
                                     "ep": ep or ""}
            pg.finish_move(entry, pg.peer)
            self.adopt(det, game, local, ply, entry)
            pg.clock_move(pg.peer, left, now_ms)
        return commit

    def on_answer(self, p: dict, msg, now_ms):
        pg = self.pg
        attempt = pg.attempts[-1]
        if not msg["ok"] or msg["refusal"] or msg["nonce"]:
            raise Reject("in this variant an answer only opens a captured piece", "wrong-answer", p["ply"])
        uci = p["uci"]
        to = uci[2:]
        start, _ = self.start_info()
        items = piece_items(start, pg.moves)
        local = pg.local
        ep_try = p["ep"]
        victim = (to[0] + uci[1]) if ep_try else to
        expected_item = items["latest"].get(items["board"].get(victim, ""), None)
        captured = ep = None
        if ep_try:
            if msg["ep"] not in ("captured", "not-a-pawn"):
                raise Reject("the answer to an en passant capture says pawn or not", "wrong-answer", p["ply"])
            ep = msg["ep"]
        elif msg["ep"]:
            raise Reject("this move was no en passant capture", "wrong-answer", p["ply"])
        want_open = not ep_try or ep == "captured"
        opened = pg.check_openings(msg["open"], "the answer")
        known = expected_item in pg.peer_open  # (a revealed king is open from the start)
        if want_open and list(opened) != ([] if known else [expected_item]):
            raise Reject(f"the answer must open the captured piece ({expected_item})", "wrong-answer",
                         p["ply"])
        if not want_open and opened:
            raise Reject("a piece that stays on the board is not opened", "wrong-answer", p["ply"])
        if want_open:
            value = pg.peer_open[expected_item] if known else opened[expected_item]
            if value not in "kqrbnp" or (ep == "captured" and value != "p"):
                raise Reject(f"{expected_item} opened as {value!r}", "wrong-answer", p["ply"])
            if not ep:
                captured = value
        entry = {"uci": uci, "by": pg.seat, "promo": p.get("promo") or "", "castle": p["castle"],
                 "ep": ep, "captured": captured, "n": p.get("n", 0)}
        found = self.fit(local, p["ply"], entry, salt=2)
        if found is None:
            raise Reject("the opened identity contradicts your friend's earlier moves",
                         "illegal-move", p["ply"], forfeit=self.proven)
        det, game = found

        def commit():
            pg.peer_open.update(opened)
            attempt["answer"] = {"ok": True, "open": [[i, v] for i, v in opened.items()], "ep": ep or ""}
            pg.finish_move(entry, pg.seat)
            self.adopt(det, game, local, p["ply"], entry)
            pg.clock_answered(p, now_ms)
        return commit

    # ------------------------------------------------------------------ fifty moves
    def own_claim(self, game: Game, move: str | None):
        """Threefold on this side's game; the fifty-move count as this side knows it (captures
        and its own pawn moves: :func:`~hiddenchess.peer.claims.own_fifty`)."""
        found = claim_reason(game, move)
        return found if found == "threefold" else own_fifty(game, self.pg.seat, move)

    def holder_claim(self, game: Game, reason: str, move: str | None) -> bool:
        return holder_fifty(game, self.pg.seat, move)

    # ------------------------------------------------------------------ no move left
    def on_probe(self, msg, now_ms):
        pg = self.pg
        self.check_probe(msg)
        if msg["moves"]:
            raise Reject("in this variant a probe only says that no move is left")
        step = self.known_king_step()
        if step:
            raise Reject(f"your friend says no move is left, but its king (open from the start) "
                         f"can play {step}", "bad-probe", pg.ply, forfeit=True)
        ply = pg.ply

        def commit():
            pg.attempts.append({"kind": "probe", "ply": ply, "by": pg.peer, "moves": [],
                                "refused": []})
            pg.send("probe-answer", ply=ply, refused=[])
            pg.end(None, "stalemate", ply, pg.seat)
        return commit

    def known_king_step(self) -> str | None:
        """With revealed kings: a step of the peer's king (to move) that is legal whatever the
        peer's other pieces are -- its square is known and this side knows every attacker (its
        own pieces) -- else ``None``."""
        if not self.kings_open:
            return None
        local = self.pg.local
        pos = local.position
        color = 0 if self.pg.peer == "white" else 1
        king = next((sq for sq in range(64) if pos.piece_at(sq) == (color, 6)), None)
        if king is None:
            return None
        for uci in sorted(local.legal_moves()):
            frm, to = SQUARE_INDEX[uci[:2]], SQUARE_INDEX[uci[2:4]]
            if frm == king and abs((frm & 7) - (to & 7)) <= 1:
                return uci
        return None

    def auto_probe(self, now_ms: int) -> None:
        pg = self.pg
        if pg.phase == "play" and pg.turn == pg.seat and pg.pending is None \
                and pg.probe is None and not pg.local.legal_moves():
            # No legal move at all (only this side knows its pieces): a stalemate, said so.
            self.ask([], now_ms)

    # ------------------------------------------------------------------ the end
    def void_from(self, ply: int) -> None:
        """Identities committed by void moves are void too."""
        pg = self.pg
        for items in (pg.my_secrets or {}, pg.peer_commits or {}):
            for item in [i for i in items if i.startswith("ply:") and int(i[4:]) >= ply]:
                del items[item]

    def final_received(self) -> None:
        self.redeterminize()  # the truth, when the openings fit

    def audit(self) -> dict:
        """Rebuild both placements and every promotion from the openings, replay the moves and
        check each public fact (captured identities, en passant outcomes, castling), each
        identity committed on the last rank and each stalemate."""
        pg = self.pg
        problems, final = begin(pg)
        last = pg.ply
        truth_items = {pg.seat: {i: s["value"] for i, s in (pg.my_secrets or {}).items()},
                       pg.peer: final_values(pg, problems, final)}
        result_mismatch(pg, problems, final, last)
        if any(q["kind"] in ("missing-opening", "changed-secret") for q in problems):
            return {"status": "failed", "problems": problems}  # (no truth to replay)
        if pg.peer_commits is None or pg.my_secrets is None:  # ended before both had placed
            return {"status": "failed" if problems else "verified", "problems": problems}
        truth = Game.new(pg.variant)
        try:
            for seat in (pg.seat, pg.peer):
                placement = {i: v for i, v in truth_items[seat].items() if not i.startswith("ply:")}
                truth.setup(seat, {"placement": placement})
        except HiddenChessError as e:
            problem(problems, 0, seat, "bad-setup", f"{seat}'s placement is not valid: {e}")
            return {"status": "failed", "problems": problems}
        probes = {a["ply"]: a for a in pg.attempts if a["kind"] == "probe"}
        for i, mv in enumerate(pg.moves):
            mover = mv["by"]
            answerer = "black" if mover == "white" else "white"
            uci = mv["uci"]
            promo = ""
            if truth.promotion_roles(uci[:2], uci[2:4]):
                promo = truth_items[mover].get(f"ply:{i}", "")
                if promo not in ("q", "r", "b", "n"):
                    problem(problems, i + 1, mover, "bad-commit", f"{uci}: no promotion was committed")
                    promo = "q"
            try:
                truth.play(uci + promo)
            except HiddenChessError as e:
                # (no check in this variant: an illegal move is its mover's; the replay goes on
                # with the move forced, so that every later problem is reported too)
                problem(problems, i + 1, mover, "illegal-move", f"{uci} is illegal: {e}")
                if not force(truth, uci + promo):
                    problem(problems, i + 1, mover, "illegal-move",
                            f"{uci} cannot be replayed at all: the audit stops at move {i + 1}")
                    break
            e = next(x for x in truth.history[-1].events if x.kind == "move").public
            if (e["castle"] or None) != (mv.get("castle") or None):
                problem(problems, i + 1, mover, "illegal-move", f"{uci} was announced as "
                        f"{'castling' if mv.get('castle') else 'no castling'}, which it was not")
            if (e["captured"] or None) != (mv.get("captured") or None):
                problem(problems, i + 1, answerer, "wrong-answer",
                        f"{uci} captured a {e['captured']}, but {mv.get('captured')} was opened")
            if (e["ep"] or None) != (mv.get("ep") or None):
                problem(problems, i + 1, answerer, "wrong-answer",
                        f"{uci}: the en passant outcome was {e['ep']}, but {mv.get('ep')} was answered")
            item = f"ply:{i}"
            if far_rank(mover, uci[2:4]) and not e["castle"]:
                piece = truth.position.piece_at(SQUARE_INDEX[uci[2:4]])
                role = PIECE_SYMBOLS[piece[1]] if piece else None
                if truth_items[mover].get(item) != role:
                    problem(problems, i + 1, mover, "changed-secret",
                            f"{uci}: the identity committed on the last rank is not the piece's")
        for ply_no, a in probes.items():
            if ply_no == truth.ply and truth.legal_moves():
                problem(problems, ply_no, a["by"], "bad-probe",
                        f"{a['by']} said it had no legal move, but it had {len(truth.legal_moves())}")
        if pg.status().reason == "fifty-moves":
            audit_fifty(truth, pg.ending["by"], pg.ending.get("move"), problems)
        if pg.status().reason == "king-captured" and truth.status.reason != "king-captured":
            problem(problems, last, pg.peer, "wrong-result", "no king was captured")
        return {"status": "failed" if problems else "verified", "problems": problems}


@register_protocol("hidden-identity-rk")
class RevealedKingsProtocol(IdentityProtocol):
    """Hidden Identity with revealed kings: the commit opens the king."""

    kings_open = True

    def commit_openings(self, c: dict, openings: list) -> dict:
        pg = self.pg
        o = openings
        if len(o) != 1 or o[0]["value"] != "k" or o[0]["item"] not in c or \
                not check_opening(c[o[0]["item"]], pg.game_id, pg.peer, o[0]):
            raise Reject("with revealed kings the commitment opens the king", "bad-commit")
        return {o[0]["item"]: "k"}

    def committed(self) -> None:
        self.peer_king = next(i for i, v in self.pg.peer_open.items() if v == "k")
        super().committed()


def facts_match(g: Game, moves) -> bool:
    """Whether the local game ``g`` shows every public fact of ``moves`` (captured identities,
    en passant outcomes, castling) as they were established."""
    for ply, mv in zip(g.history, moves):
        e = next(x for x in ply.events if x.kind == "move").public
        if (e["captured"] or None) != (mv.get("captured") or None):
            return False
        if (e["ep"] or None) != (mv.get("ep") or None):
            return False
        if (e["castle"] or None) != (mv.get("castle") or None):
            return False
    return len(g.history) == len(moves)
