"""Secret Pawn Chess without a referee: the protocol hooks (:mod:`hiddenchess.peer.protocol`).

Each side commits to its eight pawn flags (item = start square, value ``"1"`` secret / ``"0"``
not). A non-king move carries the openings of the mover's pawns it reveals; the opponent answers
(refusal of a king move into a hidden pawn's attack, or the openings of its own pawns the move
revealed, a captured pawn's flag always). A king move's own openings follow in an ``open``
message after the opponent accepted it. At the start of every turn on which an unopened pawn of
the opponent could refuse one of its king moves, the side to move asks about *all* those king
moves in one ``probe`` (the same question whatever its own secrets and whatever move it means
to play: privacy by uniform messages, :meth:`SecretPawnProtocol.uniform_tries`); the opponent
answers with its key, and the mover then tries the moves it wants to, one per round of an
oblivious transfer, learning about a move only by trying it, while the opponent learns nothing
of the tries (:mod:`hiddenchess.peer.tries`). A side left with no move says so with an empty
probe (checkmate or stalemate), checked at once as far as the opponent's board allows.
"""

from __future__ import annotations

from hiddenchess.engine import notation
from hiddenchess.engine.core import COLOR_NAMES, SQUARE_INDEX, SQUARE_NAMES
from hiddenchess.engine.variant import get_variant
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.peer.audit import final_values, problem
from hiddenchess.peer.codec import Reject
from hiddenchess.peer.crypto import check_opening, commitment
from hiddenchess.peer.protocol import PAWN_START, Protocol, is_king_move, register_protocol
from hiddenchess.peer.tracking import origins
from hiddenchess.variants.secret_pawn.rules import SECRETS_PER_SIDE

__all__ = ["SecretPawnProtocol", "REFUSAL"]

REFUSAL = "a secret pawn attacks that square"


@register_protocol("secret-pawn")
class SecretPawnProtocol(Protocol):
    """Pawn-flag commitments, openings on reveal, refusals, probes (see the module docstring)."""

    private = True
    setup = "seal"
    setup_count = SECRETS_PER_SIDE
    setup_wait = "your friend to choose their secret pawns"
    refusal = REFUSAL
    refusal_denied = "no secret pawn attacks that square"

    # ------------------------------------------------------------------ before play
    def seal(self, squares) -> None:
        """Choose this side's secret pawns (start squares); send the commitments to all eight
        pawn flags."""
        pg = self.pg
        pg.require(pg.my_secrets is None, "your secret pawns are already sealed")
        probe = Game.new(pg.variant)
        probe.seal(pg.seat, squares)  # the engine's checks and messages
        chosen = set(probe.setup_data[pg.seat])
        pg.my_secrets = {}
        for item in PAWN_START[pg.seat]:
            pg.my_secrets[item] = {"value": "1" if item in chosen else "0",
                                   "salt": pg.rng.token_hex(16)}
        pg.send("commit", c={i: commitment(pg.game_id, pg.seat, i, s["value"], s["salt"])
                             for i, s in pg.my_secrets.items()}, open=[])

    def commit_items(self, seat: str) -> set:
        return set(PAWN_START[seat])

    # ------------------------------------------------------------------ the local game
    def known_secret_squares(self, peer_open=None) -> list:
        pg = self.pg
        peer_open = pg.peer_open if peer_open is None else peer_open
        known = [i for i, s in (pg.my_secrets or {}).items() if s["value"] == "1"]
        known += [i for i, v in peer_open.items() if v == "1"]
        if pg.peer_final is not None:  # the end: everything the peer opened truthfully
            for item, o in pg.peer_final["open"].items():
                if (o["value"] == "1" and item in (pg.peer_commits or {}) and item not in known
                        and check_opening(pg.peer_commits[item], pg.game_id, pg.peer, o)):
                    known.append(item)
        return sorted(known)

    def start_fen(self, peer_open=None) -> str | None:
        if self.pg.my_secrets is None:
            return None  # unsealed: the local game shows the sealing phase
        return secret_fen(self.pg.variant, self.known_secret_squares(peer_open))

    # ------------------------------------------------------------------ my move
    def move_openings(self, local: Game, uci: str, pending: dict) -> list:
        local.play(uci)
        try:
            openings = self.my_reveals(local)
        finally:
            local.undo()
        if pending["king"]:
            pending["open"], openings = openings, []
        return openings

    def needs_answer(self, draw: str) -> bool:
        return True

    def my_reveals(self, game: Game, before: dict | None = None) -> list:
        """Openings of this side's items that the last ply of ``game`` revealed: its pawns
        revealed by the move and, given ``before`` (:func:`~hiddenchess.peer.tracking.origins`
        before the move, as the receiver), a captured pawn's flag."""
        pg = self.pg
        where = origins(game)
        items = []
        last = game.history[-1]
        for e in last.events:
            p = e.public
            if e.kind == "reveal" and not p.get("captured") and p.get("color") == pg.seat:
                items.append(where.get(p["square"], p["square"]))
            if (before is not None and e.kind == "capture" and p["color"] == pg.seat
                    and p["piece"] == "pawn"):
                start = before.get(p["square"])
                if start in (pg.my_secrets or {}):
                    items.append(start)
        out = []
        for item in dict.fromkeys(items):
            if item in pg.my_secrets and item not in pg.my_open:
                out.append(pg.opening(item))
        return out

    # ------------------------------------------------------------------ the peer's move
    def check_move_openings(self, opened: dict, ply: int) -> None:
        if opened and any(v != "1" for v in opened.values()):
            raise Reject("a move may only open secret pawns it reveals", "bad-opening", ply)
        self.check_secret_count(opened, ply)

    # ------------------------------------------------------------------ checked at once
    def check_secret_count(self, opened: dict, ply: int) -> None:
        """Forfeit: the peer opened more secret pawns ("1") than a side seals."""
        ones = sorted({i for i, v in {**self.pg.peer_open, **opened}.items() if v == "1"})
        if len(ones) > SECRETS_PER_SIDE:
            raise Reject(f"your friend opened {len(ones)} secret pawns ({', '.join(ones)}), but "
                         f"each side seals exactly {SECRETS_PER_SIDE}", "bad-setup", ply,
                         forfeit=True)

    def could_refuse(self, game: Game, uci: str) -> bool:
        """Whether the peer's hidden pawns could refuse my king move ``uci`` on ``game`` (this
        side's knowledge): a secret pawn attacks its eight neighbours, so some pawn of the peer
        whose flag is still unopened must stand next to a square the king crosses, and the peer
        must have a secret pawn left unopened (castling: next to a square the king crosses)."""
        pg = self.pg
        if sum(1 for v in pg.peer_open.values() if v == "1") >= SECRETS_PER_SIDE:
            return False
        frm, to = SQUARE_INDEX[uci[:2]], SQUARE_INDEX[uci[2:4]]
        path = {to}
        if frm >> 3 == to >> 3 and abs((frm & 7) - (to & 7)) == 2:  # castling: every square
            lo, hi = sorted((frm & 7, to & 7))
            path |= {(frm >> 3) * 8 + f for f in range(lo, hi + 1)}
        where = origins(game)
        pos = game.position
        for sq in range(64):
            piece = pos.piece_at(sq)
            if piece is None or piece[1] != 1 or COLOR_NAMES[piece[0]] != pg.peer:
                continue
            item = where.get(SQUARE_NAMES[sq], SQUARE_NAMES[sq])
            if item not in (pg.peer_commits or {}) or item in pg.peer_open:
                continue
            if any(max(abs((sq & 7) - (t & 7)), abs((sq >> 3) - (t >> 3))) == 1 for t in path):
                return True
        return False

    def check_refusals(self, game: Game, refused, ply: int) -> None:
        """Forfeit: a refusal of my king move that no unrevealed pawn of the peer could cause."""
        for uci in refused:
            if not self.could_refuse(game, uci):
                raise Reject(f"your friend refused {uci}, but no pawn of theirs that could be "
                             "secret stands next to that square", "wrong-refusal", ply,
                             forfeit=True)

    def check_probe_answer(self, refused: list) -> None:
        self.check_refusals(self.pg.local, refused, self.pg.ply)

    def tryable(self, game: Game, uci: str) -> bool:
        """Whether ``uci`` is a move the side to move could try as far as it knows (its king move
        into a hidden attack), as opposed to a plainly illegal move."""
        known = game.rules.known_position(game, game.turn)
        try:
            notation.parse_move(known, uci)
        except HiddenChessError:
            return False
        return is_king_move(game, uci)

    def refuse(self, msg, trial: Game, uci: str, opened: dict, ply: int, now_ms):
        if not self.tryable(trial, uci):
            return None
        if opened:
            raise Reject("a refused move cannot have revealed anything", "bad-opening", ply)
        pg = self.pg
        if any(a["kind"] == "move" and a["ply"] == ply and a["by"] == pg.peer and a["uci"] == uci
               or a["kind"] == "probe" and a["ply"] == ply and a["by"] == pg.peer
               and uci in a["refused"] for a in pg.attempts):
            raise Reject(f"{uci} was already tried and refused at this move")
        attempt = {"kind": "move", "ply": ply, "by": pg.peer, "uci": uci, "open": [],
                   "answer": {"ok": False, "open": []}, "later": [], "draw": "", "nonces": None}
        left = pg.accepted_left(msg["left"], now_ms)

        def commit():
            pg.attempts.append(attempt)
            pg.send("answer", ply=ply, ok=False, refusal=REFUSAL, open=[], nonce="", ep="")
            if pg.clock is not None and pg.clock.started:
                pg.set_clock({pg.peer: left}, pg.peer, now_ms)  # its time runs on
        return commit

    def accept_move(self, msg, trial: Game, opened: dict, king: bool, attempt: dict, left, now_ms):
        pg = self.pg
        ply, uci = attempt["ply"], attempt["uci"]
        before = origins(trial)
        trial.play(uci)
        try:
            mine = self.my_reveals(trial, before)
        finally:
            if king:
                trial.undo()  # final once the mover's openings arrive

        def commit():
            pg.peer_open.update(opened)
            pg.attempts.append(attempt)
            pg.send("answer", ply=ply, ok=True, refusal="", open=mine, nonce="", ep="")
            for o in mine:
                pg.my_open.append(o["item"])
            attempt["answer"] = {"ok": True, "open": [[o["item"], o["value"]] for o in mine]}
            if king:
                pg.pending = {"ply": ply, "by": pg.peer, "uci": uci, "stage": "open",
                              **pg.owe_mark(now_ms), "king": True, "draw": "", "nonce": "",
                              "open": [], "left": left, "n": msg["n"]}
                pg.clock_opening_owed(left, now_ms)
            else:
                pg.finalize(uci, None, pg.peer, msg["n"])
                pg.adopt_local(trial)
                pg.clock_move(pg.peer, left, now_ms)
        return commit

    # ------------------------------------------------------------------ answers and openings
    def refused(self, p: dict, msg, attempt: dict, now_ms):
        if not p["king"]:
            return super().refused(p, msg, attempt, now_ms)
        if msg["open"] or msg["nonce"]:
            raise Reject("a refusal carries nothing else")
        pg = self.pg
        uci = p["uci"]
        self.check_refusals(pg.local, [uci], p["ply"])
        if any(a["kind"] == "probe" and a["by"] == pg.seat and a["ply"] == p["ply"]
               and not a.get("key") and uci in a["moves"] and uci not in a["refused"]
               for a in pg.attempts):
            raise Reject(f"your friend refused {uci}, which its own answer to the probe of this "
                         "move allowed", "wrong-refusal", p["ply"], forfeit=True)

        def commit():
            attempt["answer"] = {"ok": False, "open": []}
            pg.pending = None
            pg.notice = f"{uci}: {REFUSAL}"
            if pg.refused.get("ply") != p["ply"]:
                pg.refused = {"ply": p["ply"], "moves": []}
            pg.refused["moves"].append(uci)
            if p.get("declined") and pg.draw_offer is None:
                pg.draw_offer = p["declined"]  # (the try did not happen)
            pg.clock_refused(p, now_ms)  # my time again (the peer's charged)
        return commit

    def answered(self, p: dict, msg, attempt: dict, now_ms):
        pg = self.pg
        uci = p["uci"]
        if msg["nonce"]:
            raise Reject("this answer takes no nonce")
        opened = pg.check_openings(msg["open"], "the answer")
        self.check_secret_count(opened, p["ply"])
        peer_open = {**pg.peer_open, **opened}
        # A captured pawn's flag must be opened with the answer (checked now; the rest at the end).
        local = pg.local
        target = local.position.piece_at(SQUARE_INDEX[uci[2:4]])
        missing = None
        if target is not None and target[1] == 1 and target[0] != local.position.turn:
            start = origins(local).get(uci[2:4])
            if start in (pg.peer_commits or {}) and start not in peer_open:
                missing = start
        if missing:
            raise Reject(f"the answer does not open the captured pawn {missing}", "wrong-answer",
                         p["ply"])

        def commit():
            pg.peer_open.update(opened)
            attempt["answer"] = {"ok": True, "open": [[i, v] for i, v in opened.items()]}
            later = p["open"]
            if p["king"]:
                pg.send("open", ply=p["ply"], open=later, nonce="")
                for o in later:
                    pg.my_open.append(o["item"])
                attempt["later"] = [[o["item"], o["value"]] for o in later]
            pg.finalize(uci, None, pg.seat, p.get("n", 0))
            pg.clock_answered(p, now_ms)
        return commit

    def on_open(self, p: dict, msg, now_ms):
        pg = self.pg
        attempt = pg.attempts[-1]
        if msg["nonce"]:
            raise Reject("this opening takes no nonce")
        opened = pg.check_openings(msg["open"], "the opening")
        if any(v != "1" for v in opened.values()):
            raise Reject("a move may only open secret pawns it reveals", "bad-opening", p["ply"])
        self.check_secret_count(opened, p["ply"])

        def commit():
            pg.peer_open.update(opened)
            attempt["later"] = [[i, v] for i, v in opened.items()]
            pg.finalize(p["uci"], None, pg.peer, p.get("n", 0))
            pg.clock_opened(p, now_ms)
        return commit

    # ------------------------------------------------------------------ probes
    def uniform_tries(self, game: Game) -> list:
        """The question of this turn (privacy by uniform messages, issue #12): every king move
        of the side to move that is legal as far as public information tells (a king's moves
        never depend on its own side's secrets) and that an unopened pawn of the opponent could
        refuse (:meth:`could_refuse`, public too). Whether the probe is sent and what it asks
        thus never depend on this side's secret pawns nor on the move it means to play; the
        answer is only the holder's key, and each move is then told to the mover only when it
        tries it (:mod:`hiddenchess.peer.tries`)."""
        return sorted(u for u in game.legal_moves()
                      if is_king_move(game, u) and self.could_refuse(game, u))

    def on_probe(self, msg, now_ms):
        pg = self.pg
        self.check_probe(msg)
        local = pg.local
        ply = pg.ply
        if len(set(msg["moves"])) != len(msg["moves"]):
            raise Reject("the probe names a move twice")
        if not msg["moves"]:
            return self.on_no_move(local, ply)
        if len(msg["moves"]) > 16:
            raise Reject("the probe asks about more moves than a king has", "bad-probe", ply)
        entries = []
        for uci in msg["moves"]:
            if not is_king_move(local, uci):
                raise Reject(f"the probe asks about {uci}, which is not a king move", "bad-probe", ply)
            try:
                local.play(uci)
                local.undo()
                entries.append("allowed")
            except HiddenChessError:
                if not self.tryable(local, uci):
                    raise Reject(f"the probe asks about {uci}, which is not a legal try", "bad-probe",
                                 ply)
                entries.append("refused")
        return pg.answer_question(msg["moves"], entries)

    def on_no_move(self, local: Game, ply: int):
        """The peer says it has no move left (an empty probe): every move legal on this side's
        board is legal in truth (hidden pawns only add moves to their owner and attacks to the
        enemy king's neighbours), so one that this side did not refuse at this move proves the
        claim false (a forfeit); the rest (the peer's own secret pawns) is the audit's."""
        pg = self.pg
        refused = set()
        for a in pg.attempts:
            if a["by"] == pg.peer and a["ply"] == ply:
                if a["kind"] == "probe":
                    refused |= set(a["refused"])
                elif a.get("answer") and not a["answer"]["ok"]:
                    refused.add(a["uci"])  # (a try refused by an answer)
        left_out = sorted(set(local.legal_moves()) - refused)
        if left_out:
            raise Reject(f"your friend says no move is left, but {', '.join(left_out)} is legal "
                         "on this board", "bad-probe", ply, forfeit=True)
        check = local.position.is_check()

        def commit():
            pg.attempts.append({"kind": "probe", "ply": ply, "by": pg.peer, "moves": [],
                                "refused": []})
            pg.send("probe-answer", ply=ply, refused=[])
            pg.end(pg.seat if check else None, "checkmate" if check else "stalemate", ply, pg.seat)
        return commit

    def auto_probe(self, now_ms: int) -> None:
        """At the start of each of my turns: ask the uniform question (:meth:`uniform_tries`)
        if there is one; once my player chose its move, the question's remaining rounds and
        the move (:meth:`~hiddenchess.peer.tries.Questions.question_step`); and say so when no
        move is left (checkmate or stalemate: the game ends, which the rules tell anyway)."""
        pg = self.pg
        if pg.question_step(now_ms) or not (pg.phase == "play" and pg.turn == pg.seat
                                            and pg.pending is None):
            return
        pr = pg.probe
        if pr is not None and pr["ply"] == pg.ply and (pr["refused"] is None or not pr["moves"]):
            return  # (waiting for the answer, or "no move is left" said)
        local = pg.local
        if pr is None or pr["ply"] != pg.ply:
            tries = self.uniform_tries(local)
            if tries:
                self.ask(tries, now_ms)
                return
        if not set(local.legal_moves()) - set(pg.refused_moves()):
            self.ask([], now_ms)

    # ------------------------------------------------------------------ the audit
    def audit_values(self, problems: list, final: dict, values: dict) -> None:
        pg = self.pg

        def accept(item, value) -> bool:
            if value not in ("0", "1"):
                problem(problems, pg.ply, pg.peer, "bad-opening", f"{item} opened as {value!r}")
                return False
            if item in pg.peer_open and pg.peer_open[item] != value:
                problem(problems, pg.ply, pg.peer, "changed-secret",
                        f"{item} was opened twice differently")
            return True
        values[pg.peer].update(final_values(pg, problems, final, accept))
        for seat in (pg.seat, pg.peer):
            ones = sum(1 for v in values[seat].values() if v == "1")
            if len(values[seat]) == len(PAWN_START[seat]) and ones != SECRETS_PER_SIDE:
                problem(problems, 0, seat, "bad-setup",
                        f"{seat} committed to {ones} secret pawns instead of {SECRETS_PER_SIDE}")

    def audit_fen(self, values: dict) -> str | None:
        ones = sorted(i for seat in values for i, v in values[seat].items() if v == "1")
        return secret_fen(self.pg.variant, ones)

    def audit_before(self, truth: Game, a: dict, ctx: dict, problems: list) -> None:
        ctx["before"] = origins(truth)

    def audit_after(self, truth: Game, a: dict, ctx: dict, problems: list) -> None:
        """The openings sent with the move, after it and in its answer must be exactly the pawns
        it revealed (and a captured pawn's flag)."""
        seat_of = {i: s for s in ("white", "black") for i in PAWN_START[s]}
        opened = ctx.setdefault("opened", set())
        before = ctx["before"]
        mover = a["by"]
        answerer = "black" if mover == "white" else "white"
        answer = a.get("answer")
        ply_no = a["ply"] + 1
        where = origins(truth)
        expected = {mover: set(), answerer: set()}
        for e in truth.history[-1].events:
            p = e.public
            if e.kind == "reveal" and not p.get("captured"):
                item = where.get(p["square"])
                if item in seat_of:
                    expected[seat_of[item]].add(item)
            if e.kind == "capture" and p["piece"] == "pawn":
                item = before.get(p["square"])
                if item in seat_of and item not in opened:
                    expected[seat_of[item]].add(item)
        sent = {mover: {i for i, _ in a["open"]} | {i for i, _ in a.get("later", [])},
                answerer: {i for i, _ in (answer or {}).get("open", [])}}
        for seat, kind_missing in ((mover, "missing-opening"), (answerer, "wrong-answer")):
            missing = sorted(expected[seat] - sent[seat] - opened)
            extra = sorted(sent[seat] - expected[seat])
            if missing:
                problem(problems, ply_no, seat, kind_missing,
                        f"{a['uci']} revealed {', '.join(missing)}, which {seat} did not open")
            if extra:
                problem(problems, ply_no, seat, "bad-opening",
                        f"{seat} opened {', '.join(extra)} at {a['uci']}, which the move did not reveal")
            opened |= sent[seat]


def secret_fen(variant, secret_squares) -> str:
    """The start of a Secret Pawn game whose secret pawns ``secret_squares`` are known."""
    base = get_variant(variant).start_fen.split(" secret:")[0]
    return f"{base} secret:{','.join(secret_squares) if secret_squares else '-'}"
