"""The end-of-game audit: replay the whole game with full information and check every answer.

Once both sides have sent ``final`` (every secret opened), each client rebuilds the *truth*
(both sides' secrets, each checked against its commitment) and replays the log of attempts it
recorded during play (:attr:`PeerGame.attempts <hiddenchess.peer.game.PeerGame.attempts>`).
:func:`replay` is the audit of the chess moves every variant shares; each variant's protocol hooks
(:class:`~hiddenchess.peer.protocol.Protocol`) add their checks or replace it (Hidden Identity):

Every move and answer is judged by what the side that made it *knew* at that ply (issue #23):
its *view* (:class:`Views`), a game started from its own secrets and the other side's openings
it had actually been shown by then, never from the truth's own reveals -- so a secret the truth
reveals through a wrongly accepted move, or one its holder never opened, stays unknown to the
other side, as it was on its page. Variants without secrets get the truth as both views.

* an accepted move its mover's own view refuses is the mover's (``illegal-move``); one the
  mover's view allows but the answerer's refuses, as a try only the answerer's hidden pieces
  refuse (a king move into its own hidden attack), is the answerer's, who had to refuse it
  (``wrong-answer``); a move both views allow breaks no rule, whatever the truth rebuilt
  through an earlier break says (and one the answerer's view refuses only through a secret it
  never opened follows from that missing opening, reported where it happened);
* every refusal must be a move the answerer's view refuses (``wrong-refusal``);
* the openings sent with a move, after it and in its answer must be exactly the secrets the rules
  reveal at that move: the mover's revealed pawns, the answerer's revealed pawns and a captured
  pawn's flag (``missing-opening`` / ``wrong-answer`` when one is missing, ``bad-opening`` when
  one is extra);
* every table a question's tries were answered with must tell the truth about every move as the
  answerer's view has it (``wrong-probe-answer``), and each mover must have played the first move
  its tries allowed, tried nothing after it and played no move its tries refused (``bad-try``; see
  :mod:`hiddenchess.peer.tries`); "no move left" (an empty probe) must be true on the prober's
  view, moves refused at that ply aside (``bad-probe``);
* after a break the truth and the views replay the move forced (:func:`force`), so that every
  problem is reported, not only the first (the verdict, :mod:`hiddenchess.peer.verdict`, takes
  the first);
* every Reveal Chess draw must open the committed nonce and give the role both nonces make
  (``bad-draw``);
* every final opening must match its commitment (``changed-secret``), every committed item must be
  opened (``missing-opening``) and a side must have exactly two secret pawns (``bad-setup``);
* both sides must report the same result (``result-mismatch``).

The result is ``{"status": "verified", "problems": []}`` or ``{"status": "failed", "problems":
[{"ply", "by", "kind", "message"}, ...]}`` (problems found during play included).
"""

from __future__ import annotations

from hiddenchess.engine import notation
from hiddenchess.engine.core import PAWN, SQUARE_INDEX
from hiddenchess.engine.position import encode_move
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.peer.crypto import check_opening
from hiddenchess.peer.tries import audit_question

__all__ = ["audit", "replay", "problem", "begin", "final_values", "result_mismatch", "force",
           "Views", "judge_move", "audit_probe"]

#: Promotion letters -> piece types (a forced move's promotion).
_PROMO = {"q": 5, "r": 4, "b": 3, "n": 2}


class _Forced:
    """A game's rules hooks with one move let through (:func:`force`): everything else is the
    original hooks'."""

    def __init__(self, rules, m: int):
        self.original = rules
        self.m = m

    def __getattr__(self, name):
        return getattr(self.original, name)

    def parse_illegal(self, game, text: str) -> int:
        return self.m


def force(truth: Game, uci: str, draw=None) -> bool:
    """Play ``uci`` on ``truth`` although the truth refuses it, so that the audit can replay the
    rest of the game after a rule break: the move as its mover's knowledge allowed it (a king
    move into a hidden attack), else the piece on its first square simply goes to the second
    (a move no piece of that identity could make). ``False`` when even that is impossible (no
    piece of the side to move there)."""
    known = truth.rules.known_position(truth, truth.turn)
    try:
        m = notation.parse_move(known, uci)
    except HiddenChessError:
        pos = truth.position
        frm, to = SQUARE_INDEX.get(uci[:2]), SQUARE_INDEX.get(uci[2:4])
        piece = pos.piece_at(frm) if frm is not None else None
        if piece is None or to is None or piece[0] != pos.turn:
            return False
        target = pos.piece_at(to)
        if target is not None and target[0] == pos.turn:
            return False
        promo = 0
        if piece[1] == PAWN and uci[3] in "18":
            promo = _PROMO.get(uci[4:5] or "q", 5)
        m = encode_move(frm, to, promo)
    original = truth.rules
    truth.rules = _Forced(original, m)
    try:
        truth.play(uci, draw=draw, allow_illegal=True)
    except HiddenChessError:
        return False
    finally:
        truth.rules = original
    return True


def problem(problems: list, ply, by, kind: str, message: str) -> None:
    """Add a problem to ``problems`` (once)."""
    entry = {"ply": ply, "by": by, "kind": kind, "message": message}
    if entry not in problems:
        problems.append(entry)


def audit(pg) -> dict:
    """Audit the finished game ``pg`` (a :class:`~hiddenchess.peer.game.PeerGame` that holds the
    peer's final openings): its variant's audit (:meth:`Protocol.audit
    <hiddenchess.peer.protocol.Protocol.audit>`)."""
    return pg.protocol.audit()


def begin(pg) -> tuple:
    """``(problems, final)``: the problems found during play (a copy) and the peer's final."""
    final = pg.peer_final or {"open": {}, "result": None, "reason": None, "ply": None}
    return list(pg.problems), final


def final_values(pg, problems: list, final: dict, accept=None) -> dict:
    """The peer's final openings that match its commitments, ``{item: value}``; a missing or
    changed one is a problem. ``accept(item, value)``: the variant's own check of a value (it
    records its problems; ``False`` leaves the value out)."""
    values = {}
    for item, commit in sorted((pg.peer_commits or {}).items()):
        o = final["open"].get(item)
        if o is None:
            problem(problems, pg.ply, pg.peer, "missing-opening",
                    f"the final openings leave {item} unopened")
        elif not check_opening(commit, pg.game_id, pg.peer, o):
            problem(problems, pg.ply, pg.peer, "changed-secret",
                    f"the final opening of {item} does not match its commitment")
        elif accept is None or accept(item, o["value"]):
            values[item] = o["value"]
    return values


def result_mismatch(pg, problems: list, final: dict, ply: int) -> None:
    """Both sides must report the same result."""
    status = pg.status()
    if final.get("result") and final["result"] != status.result:
        problem(problems, ply, pg.peer, "result-mismatch",
                f"your friend's page reports {final['result']} ({final['reason']}), this page "
                f"{status.result} ({status.reason})")


# ---------------------------------------------------------------------------- what each side knew
def other_seat(seat: str) -> str:
    return "black" if seat == "white" else "white"


def legal_set(game: Game) -> set:
    """The side to move's legal moves on ``game``'s board (UCI), also after a forced move or
    once the game there counts as over."""
    return {notation.uci(m) for m in game.position.legal_moves()}


def why_illegal(game: Game, uci: str) -> str | None:
    """``None`` when ``uci`` is legal on ``game``'s board, else why not (the variant's refusal
    where it has one: "a secret pawn attacks that square")."""
    try:
        notation.parse_move(game.position, uci)
        return None
    except HiddenChessError as e:
        plain = str(e)
    if not game.status.over:
        try:
            game.parse_move(uci)
        except HiddenChessError as e:
            return str(e)
    return plain


def could_try(game: Game, seat: str, uci: str) -> bool:
    """Whether ``seat`` (to move on ``game``) could try ``uci`` as far as ``game`` lets it know:
    legal once the other side's unrevealed secrets are left out -- a move only those secrets
    refuse, which their holder must refuse (the variant's refusal)."""
    known = game.rules.known_position(game, seat)
    if known is game.position:
        return False
    try:
        notation.parse_move(known, uci)
        return True
    except HiddenChessError:
        return False


class Views:
    """What each side knew, ply by ply (issue #23: blame by knowledge).

    A side's *view* is a game started from its own secrets and the other side's openings it had
    actually been shown by then (``hooks.audit_fen`` of those values: the same start its own page
    built its local game from), with every accepted move replayed on it -- forced where the view
    refuses it (:func:`force`), as on the truth. The truth's own reveals never enter a view: a
    secret the truth reveals through a move its holder wrongly accepted, or that its holder
    never opened, stays unknown to the other side, as it was on its page. A variant without
    secrets gets the truth for both views (one game, shared). ``game(seat)`` builds a view
    lazily; games with the same start are shared, the truth's included."""

    def __init__(self, variant, hooks, values: dict, truth: Game):
        self.variant = variant
        self.hooks = hooks
        self.values = values
        self.truth = truth
        self.shown = {"white": {}, "black": {}}     # seat -> the other side's openings it saw
        self.played: list = []                      # (uci, role) of every replayed move
        self.games = {hooks.audit_fen(values): truth}
        self.fens = {seat: self.start(seat) for seat in self.shown}

    def start(self, seat: str) -> str | None:
        """The start ``seat``'s view is built from now."""
        return self.hooks.audit_fen({seat: self.values.get(seat, {}),
                                     other_seat(seat): dict(self.shown[seat])})

    def show(self, seat: str, openings) -> None:
        """``seat`` was shown ``openings`` (``[[item, value], ...]``) of the other side."""
        if not openings:
            return
        self.shown[seat].update({item: value for item, value in openings})
        self.fens[seat] = self.start(seat)

    def game(self, seat: str) -> Game:
        """``seat``'s view at the current ply (the truth when its start is no valid game)."""
        fen = self.fens[seat]
        if fen not in self.games:
            try:
                g = Game.new(self.variant, fen=fen)
            except HiddenChessError:
                g = self.truth
            else:
                for uci, role in self.played:
                    replay_move(g, uci, role)
            self.games[fen] = g
        return self.games[fen]

    def play(self, uci: str, role) -> bool:
        """Replay an accepted move on the truth and on each view in use (forced where it is
        refused); ``False`` when the truth cannot replay it at all."""
        self.played.append((uci, role))
        keep = set(self.fens.values())
        ok, done = True, set()
        for fen, g in list(self.games.items()):
            if g is not self.truth and fen not in keep:
                del self.games[fen]  # (a start nobody holds any more)
            elif id(g) not in done:
                done.add(id(g))
                played = replay_move(g, uci, role)
                ok = played if g is self.truth else ok
        return ok


def replay_move(game: Game, uci: str, role) -> bool:
    """Play ``uci`` on ``game``, forced when it refuses it; ``False`` if even that fails."""
    try:
        game.play(uci, draw=role)
        return True
    except HiddenChessError:
        return force(game, uci, role)


def judge_move(views: Views, a: dict, problems: list) -> None:
    """An accepted move, judged by what each side knew (their views): the mover broke a rule
    when its own view refuses the move (``illegal-move``); else the answerer, when the move is a
    try only its own hidden pieces refuse, which it had to refuse and accepted (``wrong-answer``).
    A move both views allow breaks no rule, whatever a truth rebuilt through an earlier break
    says; one the answerer's view refuses in another way follows from an earlier break (its
    own missing opening, which that check reports)."""
    mover, uci, ply_no = a["by"], a["uci"], a["ply"] + 1
    answerer = other_seat(mover)
    mine = views.game(mover)
    error = why_illegal(mine, uci)
    if error is not None:
        problem(problems, ply_no, mover, "illegal-move", f"{uci} is illegal: {error}")
        return
    theirs = views.game(answerer)
    if theirs is mine:
        return  # (nothing hidden: one view)
    error = why_illegal(theirs, uci)
    if error is not None and could_try(theirs, mover, uci):
        problem(problems, ply_no, answerer, "wrong-answer",
                f"{answerer} accepted {uci}, which its own hidden pieces make illegal ({error}): "
                "it had to refuse it")


def audit_probe(views: Views, a: dict, ctx: dict, problems: list) -> None:
    """A probe (which of these king moves do your hidden pieces refuse?) must be answered as
    the answerer's own view answers it (``wrong-probe-answer``); an empty probe says that no
    move is left (besides those refused at this ply): a move left on the prober's own view is
    its ``bad-probe`` (a move the answerer wrongly refused is the answerer's). A question tried by
    oblivious transfer (``key``) is checked by :func:`~hiddenchess.peer.tries.audit_question`:
    its tables against the answerer's view, its tries against the mover's moves."""
    ply_no = a["ply"] + 1
    answerer = other_seat(a["by"])
    refused = ctx.setdefault("refused", {}).setdefault(a["ply"], set())
    if a.get("key"):
        found, told = audit_question(a, legal_set(views.game(answerer)))
        for by, kind, message in found:
            problem(problems, ply_no, by, kind, message)
        refused |= told
        return
    if not a["moves"]:
        left = sorted(legal_set(views.game(a["by"])) - refused)
        if left:
            problem(problems, ply_no, a["by"], "bad-probe",
                    f"{a['by']} said no move was left, but it had {', '.join(left)}")
        return
    legal = legal_set(views.game(answerer))
    for m in a["moves"]:
        if m in a["refused"]:
            refused.add(m)
        if (m in a["refused"]) != (m not in legal):
            problem(problems, ply_no, answerer, "wrong-probe-answer",
                    f"{m} was {'refused' if m in a['refused'] else 'allowed'}, but the truth "
                    f"{'allows' if m in legal else 'refuses'} it")


def replay(pg, hooks) -> dict:
    """Replay every attempt of ``pg`` on the truth its variant's ``hooks`` rebuild from both
    sides' secrets and on each side's view (:class:`Views`), and check every move, refusal and
    probe by what the side that made it knew (the hooks check the rest; ``ctx["views"]`` gives
    them the views)."""
    problems, final = begin(pg)
    values = {pg.seat: {i: s["value"] for i, s in (pg.my_secrets or {}).items()}, pg.peer: {}}
    hooks.audit_values(problems, final, values)
    result_mismatch(pg, problems, final, pg.ply)
    try:
        truth = Game.new(pg.variant, fen=hooks.audit_fen(values))
        views = Views(pg.variant, hooks, values, truth)
    except HiddenChessError as e:
        problem(problems, 0, pg.peer, "bad-setup", f"the opened secrets give no valid start: {e}")
        return {"status": "failed", "problems": problems}

    ctx: dict = {"views": views}
    final_plies = len(pg.moves)
    for a in pg.attempts:
        if a["ply"] != truth.ply or truth.ply >= final_plies and a["kind"] == "move" \
                and (a.get("answer") is None or a["answer"]["ok"]):
            continue  # void (crossed an ending) or after a stop
        ply_no = a["ply"] + 1
        if a["kind"] == "probe":
            audit_probe(views, a, ctx, problems)
            continue
        mover, uci = a["by"], a["uci"]
        answerer = other_seat(mover)
        answer = a.get("answer")
        views.show(answerer, a["open"])  # (what the move itself opened)
        if answer is not None and not answer["ok"]:
            ctx.setdefault("refused", {}).setdefault(a["ply"], set()).add(uci)
            if why_illegal(views.game(answerer), uci) is None:
                problem(problems, ply_no, answerer, "wrong-refusal",
                        f"{uci} was refused, but {hooks.refusal_denied}")
            continue
        hooks.audit_before(truth, a, ctx, problems)
        judge_move(views, a, problems)
        if not views.play(uci, a.get("role")):
            problem(problems, ply_no, mover, "illegal-move",
                    f"{uci} cannot be replayed at all: the audit stops at move {ply_no}")
            break
        hooks.audit_after(truth, a, ctx, problems)
        views.show(mover, (answer or {}).get("open", []))
        views.show(answerer, a.get("later", []))
    status = pg.status()
    if status.reason in ("checkmate", "stalemate") and truth.ply == final_plies and not truth.status.over:
        problem(problems, final_plies, pg.peer, "wrong-result",
                f"the game was scored as {status.reason}, but the side to move had legal moves")
    return {"status": "failed" if problems else "verified", "problems": problems}
