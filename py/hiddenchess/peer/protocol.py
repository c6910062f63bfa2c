"""Protocol hooks: what a variant adds to the peer protocol, and the registry of variants.

A :class:`Protocol` object is bound to one seat's :class:`~hiddenchess.peer.game.PeerGame`
(``self.pg``) and answers every question the protocol has about the variant: what each side
commits to before play, how the local game is built from what this side knows, what a move
carries and what its answer says, who tells that no move is left, and what the audit checks at
the end. The defaults are those of full-information chess: nothing is committed (an empty
``commit``), a move is final when it arrives, and the local game is the truth.

A variant with secrets subclasses it in ``hiddenchess/variants/<package>/peer.py`` and registers
it, exactly like a determinizer of the computer (:mod:`hiddenchess.ai.determinizers`)::

    @register_protocol("secret-pawn")
    class SecretPawnProtocol(Protocol):
        private = True
        ...

The frameworks load that module on first use (:func:`~hiddenchess.engine.variant.load_plugin`).
A variant whose folder has no ``peer`` plug-in plays with these defaults; one whose plug-in
registers nothing for it (the tabletop rules need a referee) cannot be played with a friend.

>>> peer_variants()[:2]
('standard', 'royal-pawn')
>>> protocol_class("standard") is Protocol
True
"""

from __future__ import annotations

from hiddenchess.errors import HiddenChessError, IllegalMoveError
from hiddenchess.engine import notation
from hiddenchess.engine.core import SQUARE_INDEX
from hiddenchess.engine.variant import VARIANTS, get_variant, load_plugin
from hiddenchess.game.game import Game
from hiddenchess.peer.audit import force, replay
from hiddenchess.peer.codec import Reject
from hiddenchess.peer.endings import claim_reason
from hiddenchess.peer.tries import prepare_questions

__all__ = ["Protocol", "PROTOCOLS", "register_protocol", "protocol_class", "peer_variants",
           "is_king_move", "PAWN_START"]

#: Each side's pawn start squares (ordinary chess).
PAWN_START = {"white": [f + "2" for f in "abcdefgh"], "black": [f + "7" for f in "abcdefgh"]}

#: variant id -> :class:`Protocol` subclass (filled by the variants' ``peer`` plug-ins).
PROTOCOLS: dict = {}


def register_protocol(*variant_ids: str):
    """Class decorator: make the class the protocol hooks of ``variant_ids``."""
    def deco(cls):
        for variant_id in variant_ids:
            PROTOCOLS[variant_id] = cls
        return cls
    return deco


def protocol_class(variant):
    """The hooks class registered for ``variant`` (its ``peer`` plug-in loaded first), else
    :class:`Protocol` when its folder has no such plug-in, else ``None`` (the plug-in does not
    register it: it cannot be played with a friend)."""
    v = get_variant(variant)
    module = load_plugin(v, "peer")
    if v.id in PROTOCOLS:
        return PROTOCOLS[v.id]
    return Protocol if module is None else None


def peer_variants() -> tuple:
    """The ids of the variants two browsers can play without a referee, in menu order."""
    return tuple(v.id for v in list(VARIANTS.values()) if protocol_class(v) is not None)


def is_king_move(game: Game, uci: str) -> bool:
    """Whether ``uci`` moves a king on ``game``'s board."""
    piece = game.position.piece_at(SQUARE_INDEX[uci[:2]])
    return piece is not None and piece[1] == 6


class Protocol:
    """The protocol hooks of full-information chess (see the module docstring); ``pg``: the
    seat's :class:`~hiddenchess.peer.game.PeerGame`."""

    #: Whether each side holds secrets (committed before play, opened at the end); then "no
    #: legal move" is not the local game's to decide but told by the side to move (a probe).
    private = False
    #: What a player chooses before play: ``None``, ``"seal"`` (pawns) or ``"place"`` (pieces),
    #: and how many (``0``: all of them, or nothing to choose).
    setup = None
    setup_count = 0
    #: What this side waits for while the friend has not committed yet.
    setup_wait = "your friend"
    #: The text of a refused move (variants whose secrets may refuse a move), and what the audit
    #: says of a refusal the truth does not bear out.
    refusal = ""
    refusal_denied = "nothing hidden refuses it"
    #: Attributes of the hooks object saved with the game (see ``PeerGame.to_json``).
    FIELDS: tuple = ()
    #: Draw claims whose truth only the other side can tell (its answer: ``draw-accept`` when the
    #: claim stands as far as it knows, ``draw-decline`` when not; the audit checks the rest).
    answered_claims: tuple = ()

    def __init__(self, pg):
        self.pg = pg

    # ------------------------------------------------------------------ before play
    def seal(self, squares) -> None:
        """Choose this side's secret pawns and commit (``PeerGame.seal``)."""
        raise HiddenChessError("this variant has no secrets to choose")

    def place(self, placement) -> None:
        """Place this side's pieces and commit (``PeerGame.place``)."""
        raise HiddenChessError("this variant has no pieces to place")

    def commit_items(self, seat: str) -> set:
        """The items ``seat`` commits to before play."""
        return set()

    def commit_openings(self, c: dict, openings: list) -> dict:
        """Check the openings sent with the peer's commitments ``c``; ``{item: value}``."""
        if openings:
            raise Reject("the commitments open nothing")
        return {}

    def committed(self) -> None:
        """The peer's commitments were taken."""

    # ------------------------------------------------------------------ the local game
    def start_fen(self, peer_open=None) -> str | None:
        """The local game's start (``None``: the variant's), with ``peer_open`` as the peer's
        openings."""
        return None

    def local_sig(self):
        """What the local game is built from besides the moves (a change rebuilds it)."""
        return self.start_fen()

    def build(self, moves, peer_open=None) -> Game:
        """The local game: this side's knowledge, ``moves`` played."""
        g = Game.new(self.pg.variant, fen=self.start_fen(peer_open))
        for i, mv in enumerate(moves):
            try:
                self.play(g, i, mv)
            except HiddenChessError:
                # A final move that what was opened since refuses (it was wrongly accepted; the
                # audit says by whom): it stays played, as both pages saw it.
                if not force(g, mv["uci"], mv.get("role")):
                    raise
        return g

    def provisional(self, moves, peer_open, uci: str) -> Game | None:
        """The local game with my move ``uci`` played while it awaits the peer's answer, to show
        that move meanwhile (a move by correspondence may wait days); ``None`` when the answer
        decides what the move shows (a Reveal draw)."""
        g = self.build(moves, peer_open)
        try:
            g.play(uci)
        except HiddenChessError:
            return None
        return g

    def play(self, g: Game, i: int, mv: dict):
        """Play the ``i``-th move ``mv`` on ``g`` (the drawn role, the promotion as known)."""
        return g.play(mv["uci"], draw=mv.get("role"))

    def truth_known(self) -> bool:
        """Whether the local game is the truth (not an assumption about the peer's secrets)."""
        return True

    def ends_locally(self, status) -> bool:
        """Whether the local game's ending ``status`` ends the game (with secrets, "no legal
        move" is the side to move's to tell)."""
        return not (self.private and status.reason in ("checkmate", "stalemate"))

    def in_check(self, game: Game) -> bool:
        """Whether ``game``'s side to move is in check (a probe refusing every move: mate)."""
        return game.position.is_check()

    # ------------------------------------------------------------------ my move
    def move(self, uci: str, now_ms: int) -> None:
        """Play ``uci`` (this side to move, checked): send the move and what it carries."""
        pg = self.pg
        local = pg.local
        m = local.parse_move(uci)  # legal as far as this side knows (raises otherwise)
        uci = notation.uci(m)
        if uci in pg.refused_moves():
            raise IllegalMoveError(self.refusal)
        if pg.try_first(uci, now_ms):
            return  # (a try of the question, or the move once its remaining rounds are done)
        declined = pg.decline_by_moving()
        ply = pg.ply
        king = is_king_move(local, uci)
        pending = {"ply": ply, "by": pg.seat, "uci": uci, "stage": "answer", **pg.owe_mark(now_ms),
                   "king": king, "draw": "", "nonce": "", "open": [], "declined": declined}
        openings = self.move_openings(local, uci, pending)
        draw = self.draw_for(local, m, ply, pending)
        left = pg.stop_my_clock(now_ms)
        if pg.clock is not None:
            pending["left"] = left
        pg.send("move", ply=ply, uci=uci, open=openings, draw=draw, left=left, castle="", ep=False,
                c={})
        pg.my_last_left = {"ply": ply, "left": left}
        for o in openings:
            pg.my_open.append(o["item"])
        attempt = {"kind": "move", "ply": ply, "by": pg.seat, "uci": uci,
                   "open": [[o["item"], o["value"]] for o in openings], "answer": None,
                   "later": [], "draw": draw, "nonces": None}
        pg.attempts.append(attempt)
        pending["n"] = len(pg.chain.sent)
        if self.needs_answer(draw):
            pg.pending = pending
            pg.clock_owe(pg.peer, now_ms)  # (the answer is owed: the peer's time runs)
        else:
            pg.finalize(uci, None, pg.seat, len(pg.chain.sent))
            if left is not None:
                pg.clock_move(pg.seat, left, now_ms)

    def move_openings(self, local: Game, uci: str, pending: dict) -> list:
        """The openings my move ``uci`` carries (later ones go to ``pending["open"]``)."""
        return []

    def draw_for(self, local: Game, m: int, ply: int, pending: dict) -> str:
        """The draw commitment my move ``m`` carries (``""``: it draws nothing)."""
        return ""

    def needs_answer(self, draw: str) -> bool:
        """Whether my move waits for the peer's answer before it is final."""
        return False

    # ------------------------------------------------------------------ the peer's move
    def on_move(self, msg, now_ms):
        """Check the peer's move; returns the commit that applies it (see ``PeerGame.receive``)."""
        pg = self.pg
        if msg["castle"] or msg["c"] or msg["ep"]:
            raise Reject("this variant's moves carry no castling squares, en passant mark nor "
                         "commitments")
        pg.require_friend_to_move()
        if pg.probe is not None and pg.probe["by"] == pg.seat:
            raise Reject("out of turn: a probe is waiting for its answer")
        pg.check_ply(msg)
        ply, uci, draw = pg.ply, msg["uci"], msg["draw"]
        opened = pg.check_openings(msg["open"], "the move") if msg["open"] else {}
        self.check_move_openings(opened, ply)
        trial = pg.trial({**pg.peer_open, **opened})
        try:
            m = trial.parse_move(uci)
        except IllegalMoveError as e:
            commit = self.refuse(msg, trial, uci, opened, ply, now_ms)
            if commit is None:
                raise Reject(f"illegal move {uci}: {e}", "illegal-move", ply)
            return commit
        except HiddenChessError as e:
            raise Reject(f"illegal move {uci}: {e}", "illegal-move", ply)
        if notation.uci(m) != uci:
            raise Reject(f"{uci} is not in UCI form")
        king = is_king_move(trial, uci)
        if king and msg["open"]:
            raise Reject("a king move's openings come after the answer", "bad-opening", ply)
        reveals = self.draw_expected(trial, m)
        if reveals != bool(draw):
            raise Reject("the move " + ("reveals a cover but carries no draw commitment" if reveals
                                        else "carries a draw commitment but reveals nothing"),
                         "bad-draw", ply)
        attempt = {"kind": "move", "ply": ply, "by": pg.peer, "uci": uci,
                   "open": [[i, v] for i, v in opened.items()], "answer": None, "later": [],
                   "draw": draw, "nonces": None}
        left = pg.accepted_left(msg["left"], now_ms)
        return self.accept_move(msg, trial, opened, king, attempt, left, now_ms)

    def check_move_openings(self, opened: dict, ply: int) -> None:
        """Refuse openings a move may not carry (checked against the commitments already)."""

    def refuse(self, msg, trial: Game, uci: str, opened: dict, ply: int, now_ms):
        """The commit answering a move ``trial`` finds illegal with a refusal, or ``None``: the
        move is plainly illegal."""
        return None

    def draw_expected(self, trial: Game, m: int) -> bool:
        """Whether the peer's move ``m`` must carry a draw commitment."""
        return False

    def accept_move(self, msg, trial: Game, opened: dict, king: bool, attempt: dict, left, now_ms):
        """The commit of the peer's checked move (``attempt``: its record for the audit)."""
        pg = self.pg

        def commit():
            pg.attempts.append(attempt)
            pg.finalize(msg["uci"], None, pg.peer, msg["n"])
            pg.clock_move(pg.peer, left, now_ms)
        return commit

    # ------------------------------------------------------------------ answers and openings
    def on_answer(self, p: dict, msg, now_ms):
        """The peer's answer ``msg`` to my pending move ``p``; returns its commit."""
        if msg["ep"]:
            raise Reject("this answer takes no en passant result")
        attempt = self.pg.attempts[-1]
        if not msg["ok"]:
            return self.refused(p, msg, attempt, now_ms)
        if msg["refusal"]:
            raise Reject("an accepting answer has no refusal text")
        return self.answered(p, msg, attempt, now_ms)

    def refused(self, p: dict, msg, attempt: dict, now_ms):
        raise Reject(f"your friend refused {p['uci']}, which nothing hidden can refuse",
                     "wrong-refusal", p["ply"])

    def answered(self, p: dict, msg, attempt: dict, now_ms):
        raise Reject("out of turn: an answer to no move")

    def on_open(self, p: dict, msg, now_ms):
        """The peer's opening ``msg`` for its pending move ``p``; returns its commit."""
        raise Reject("out of turn: an opening nobody asked for")

    def on_probe(self, msg, now_ms):
        """The peer asks which of its moves my secrets refuse; returns the commit."""
        raise Reject("there is nothing to probe")

    def check_probe(self, msg) -> None:
        """What every probe must be before a variant reads it: in play, from the side to move
        with no move of its own pending, at the current ply (Reject otherwise)."""
        pg = self.pg
        if pg.phase != "play":
            raise Reject("there is nothing to probe")
        if pg.turn != pg.peer or pg.pending is not None:
            raise Reject("out of turn: a probe from the side not to move")
        pg.check_ply(msg)

    def check_probe_answer(self, refused: list) -> None:
        """Check at once the peer's answer to my probe (``refused``: the moves it refuses);
        raise :class:`~hiddenchess.peer.codec.Reject` (``forfeit``) for a proven rule break."""

    def auto_probe(self, now_ms: int) -> None:
        """After every change: ask (probe) when only the peer can tell whether I may move."""

    def ask(self, moves: list, now_ms: int) -> None:
        """Send a probe about my ``moves`` (``[]``: "no move is left"): the peer owes the
        answer, its clock runs and mine stops (:mod:`hiddenchess.peer.deadlines`). A question
        about moves is then tried move by move (:mod:`hiddenchess.peer.tries`)."""
        pg = self.pg
        if moves:
            pg.ask_question(moves, now_ms)
            return
        pg.probe = {"ply": pg.ply, "by": pg.seat, "moves": list(moves), "refused": None,
                    **pg.owe_mark(now_ms)}
        pg.clock_probe(pg.probe, now_ms)
        pg.send("probe", ply=pg.ply, moves=list(moves))

    # ------------------------------------------------------------------ draw claims
    def own_claim(self, game: Game, move: str | None):
        """The draw this side may claim now (or by declaring ``move``), as far as it knows."""
        return claim_reason(game, move)

    def holder_claim(self, game: Game, reason: str, move: str | None) -> bool:
        """Whether the peer's claim ``reason`` (declaring ``move``) stands as far as this side
        knows (an :attr:`answered_claims` claim)."""
        return claim_reason(game, move) == reason

    # ------------------------------------------------------------------ the end
    def void_from(self, ply: int) -> None:
        """The game ended at ``ply``: what later moves committed is void."""

    def final_received(self) -> None:
        """The peer's final openings arrived."""

    def audit(self) -> dict:
        """The end-of-game audit (:mod:`hiddenchess.peer.audit`)."""
        prepare_questions(self.pg)
        return replay(self.pg, self)

    def audit_values(self, problems: list, final: dict, values: dict) -> None:
        """Check the peer's final openings into ``values[peer]`` (``{item: value}``)."""

    def audit_fen(self, values: dict) -> str | None:
        """The true start from both sides' opened secrets ``values``."""
        return None

    def audit_before(self, truth: Game, a: dict, ctx: dict, problems: list) -> None:
        """Check the attempt ``a`` before it is replayed on ``truth`` (``ctx``: the audit's own
        notes, shared by all attempts)."""

    def audit_after(self, truth: Game, a: dict, ctx: dict, problems: list) -> None:
        """Check the attempt ``a`` after it was replayed on ``truth``."""
