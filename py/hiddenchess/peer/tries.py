"""Tries by oblivious transfer: a try tells only the one who makes it, and only about its move.

Under a referee, a player learns that a move its opponent's secrets may refuse (Secret Pawn: a
king move next to an unopened pawn) is allowed only by playing it; a refused try is told, and
the player may try another. Without a referee the *holder* of the secrets must answer, yet
learn nothing of which move was tried, or whether any was. Each time the question arises (the
variant's :meth:`uniform_tries <hiddenchess.variants.secret_pawn.peer.SecretPawnProtocol.
uniform_tries>`: whether it arises and its moves are public), the two pages run it as a fixed
number of oblivious transfers (:mod:`hiddenchess.peer.ot`):

1. the mover sends ``probe`` with the ``n`` moves (automatic, at the start of its turn);
2. the holder answers ``probe-key``: its key ``A``;
3. ``n`` rounds, each a ``try`` (the mover's point ``B``) and a ``try-answer`` (the table: for
   each move ``allowed`` or ``refused``, then the empty slot ``none``, each sealed so that the
   mover can open only the entry its point chose). The mover chooses a move when its player
   tries one (refused: told, and it may try another; allowed: played); once its player chose the
   move to play -- a tried and allowed one or any other -- the remaining rounds choose the empty
   slot and the move follows them.

So the holder sees the same messages, of the same sizes, whatever is tried (points and tables
are random-looking); only their timing could differ. At the end each side opens the seed its
scalars came from (the ``final``'s ``tries``), and the audit (:func:`audit_question`) checks that
every table told the truth (else the holder's ``wrong-probe-answer``), that the mover's points
were made from its seed, that it played the first move a try allowed, tried nothing after it,
and never played a move its try refused (else its ``bad-try``).
"""

from __future__ import annotations

from hiddenchess.peer import ot
from hiddenchess.peer.codec import Reject

__all__ = ["Questions", "prepare_questions", "audit_question"]


def _other(seat: str) -> str:
    return "black" if seat == "white" else "white"


def context(game_id: str, holder: str, ply: int, round_no: int) -> str:
    """What binds a table to its game, holder, question and round."""
    return f"{game_id}|{holder}|{ply}|{round_no}"


class Questions:
    """The question's messages, a part of :class:`~hiddenchess.peer.match.Match` (a mixin: it uses
    the seat's ``probe``, ``attempts``, ``rng``, ``send``, the clock, ...). ``pg.probe`` of a
    question: ``{"ply", "by", "moves", "key", "rounds", "told": {uci: value}, "trying",
    "decided", "point", "refused", ...}``; ``refused`` is ``None`` while an answer is owed (or
    the move is decided), else the moves told refused."""

    tries_seed = ""  # this side's secret seed of every transfer in the game (opened in its final)

    def ensure_seed(self) -> str:
        if not self.tries_seed:
            self.tries_seed = self.rng.token_hex(32)
        return self.tries_seed

    # ------------------------------------------------------------------ the mover
    def ask_question(self, moves: list, now_ms: int) -> None:
        """Ask the question about ``moves`` (the holder owes its key)."""
        self.ensure_seed()
        self.probe = {"ply": self.ply, "by": self.seat, "moves": list(moves), "refused": None,
                      "key": "", "rounds": 0, "told": {}, "trying": "", "decided": "",
                      "point": "", **self.owe_mark(now_ms)}
        self.clock_probe(self.probe, now_ms)
        self.send("probe", ply=self.ply, moves=list(moves))

    def my_question(self):
        """My question at this ply (``None`` when there is none)."""
        pr = self.probe
        if pr is None or pr["by"] != self.seat or pr["ply"] != self.ply or "key" not in pr:
            return None
        return pr

    def on_probe_key(self, msg, now_ms):
        pr = self.my_question()
        if pr is None or pr["key"] or pr["refused"] is not None:
            raise Reject("out of turn: a key for no question")
        self.check_ply(msg)
        if not ot.valid_point(msg["key"]):
            raise Reject("the question's key is not a valid point", "wrong-probe-answer",
                         self.ply, forfeit=True)

        def commit():
            pr["key"] = msg["key"]
            pr["refused"] = []
            self.attempts.append({"kind": "probe", "ply": pr["ply"], "by": self.seat,
                                  "moves": list(pr["moves"]), "refused": [], "key": msg["key"],
                                  "rounds": []})
            self.clock_probe_answered(pr, now_ms)
        return commit

    def try_first(self, uci: str, now_ms: int) -> bool:
        """My player tries or chooses ``uci`` (legal as far as I know): while my question has
        rounds left, a try of one of its untold moves goes out as a round choosing it, and any
        other move waits for the remaining rounds (the empty slot). ``False``: send the move."""
        pr = self.my_question()
        if pr is None or not pr["key"] or pr["rounds"] >= len(pr["moves"]) or pr["decided"]:
            return False
        if uci in pr["moves"] and uci not in pr["told"]:
            pr["trying"] = uci
            self.send_round(pr["moves"].index(uci), now_ms)
        else:
            pr["decided"] = uci
            self.send_round(len(pr["moves"]), now_ms)
        return True

    def send_round(self, c: int, now_ms: int) -> None:
        pr = self.probe
        j = pr["rounds"] + 1
        b = ot.mover_scalar(self.ensure_seed(), self.game_id, pr["ply"], j)
        pr["point"] = ot.choose(b, pr["key"], c)
        pr["choice"] = c
        pr["refused"] = None
        pr.update(self.owe_mark(now_ms))
        self.clock_probe(pr, now_ms)
        self.send("try", ply=pr["ply"], round=j, point=pr["point"])

    def on_try_answer(self, msg, now_ms):
        pr = self.my_question()
        if pr is None or not pr["point"] or msg["round"] != pr["rounds"] + 1:
            raise Reject("out of turn: an answer to no try")
        self.check_ply(msg)
        n = len(pr["moves"])
        if len(msg["table"]) != n + 1:
            raise Reject(f"the answer holds {len(msg['table'])} entries instead of {n + 1}",
                         "wrong-probe-answer", self.ply, forfeit=True)
        b = ot.mover_scalar(self.tries_seed, self.game_id, pr["ply"], msg["round"])
        c = pr["choice"]
        value = ot.read(b, pr["key"], pr["point"], c, msg["table"][c],
                        context(self.game_id, self.peer, pr["ply"], msg["round"]))
        record = next(a for a in reversed(self.attempts)
                      if a["kind"] == "probe" and a.get("key") == pr["key"])

        def commit():
            record["rounds"].append({"point": pr["point"], "table": list(msg["table"])})
            pr["rounds"] += 1
            pr["point"] = ""
            trying, pr["trying"] = pr["trying"], ""
            if trying:
                # (anything but "allowed" -- a lie the audit will find -- counts as refused)
                told = "allowed" if value == "allowed" else "refused"
                pr["told"][trying] = told
                if told == "allowed":
                    pr["decided"] = trying
                else:
                    self.notice = f"{trying}: {self.protocol.refusal}"
                    if self.refused.get("ply") != pr["ply"]:
                        self.refused = {"ply": pr["ply"], "moves": []}
                    self.refused["moves"].append(trying)
            pr["refused"] = None if pr["decided"] else sorted(
                m for m, v in pr["told"].items() if v != "allowed")
            self.clock_probe_answered(pr, now_ms)
        return commit

    def question_step(self, now_ms: int) -> bool:
        """After every change: once my player chose its move, the remaining rounds (the empty
        slot), then the move. ``True`` when something was sent."""
        pr = self.my_question()
        if (pr is None or not pr["decided"] or pr["point"] or self.phase != "play"
                or self.turn != self.seat or self.pending is not None):
            return False
        if pr["rounds"] < len(pr["moves"]):
            self.send_round(len(pr["moves"]), now_ms)
            return True
        uci, pr["decided"] = pr["decided"], ""
        pr["refused"] = sorted(m for m, v in pr["told"].items() if v != "allowed")
        self.protocol.move(uci, now_ms)
        return True

    # ------------------------------------------------------------------ the holder
    def answer_question(self, moves: list, entries: list):
        """The commit that answers the peer's question about ``moves`` (``entries``: for each
        ``"allowed"`` or ``"refused"``, as this side's secrets say): its key."""
        ply = self.ply

        def commit():
            key = ot.holder_key(ot.holder_scalar(self.ensure_seed(), self.game_id, ply))
            self.attempts.append({"kind": "probe", "ply": ply, "by": self.peer,
                                  "moves": list(moves), "refused": [], "key": key,
                                  "rounds": [], "entries": list(entries)})
            self.send("probe-key", ply=ply, key=key)
        return commit

    def on_try(self, msg, now_ms):
        if self.phase != "play" or self.turn != self.peer or self.pending is not None:
            raise Reject("out of turn: a try from the side not to move")
        self.check_ply(msg)
        record = next((a for a in reversed(self.attempts) if a["kind"] == "probe"
                       and a["by"] == self.peer and a["ply"] == self.ply and a.get("key")), None)
        if record is None:
            raise Reject("out of turn: a try before any question")
        if msg["round"] != len(record["rounds"]) + 1:
            raise Reject(f"the try is round {msg['round']}, but round {len(record['rounds']) + 1} "
                         "is next")
        if msg["round"] > len(record["moves"]):
            raise Reject(f"the question about {len(record['moves'])} moves has only as many "
                         "tries", "bad-try", self.ply)
        if not ot.valid_point(msg["point"]):
            raise Reject("the try's point is not a valid point", "bad-try", self.ply)
        a = ot.holder_scalar(self.ensure_seed(), self.game_id, self.ply)
        table = ot.table(a, record["key"], msg["point"], record["entries"] + ["none"],
                         context(self.game_id, self.seat, self.ply, msg["round"]))

        def commit():
            record["rounds"].append({"point": msg["point"], "table": table})
            self.send("try-answer", ply=msg["ply"], round=msg["round"], table=table)
        return commit


# ---------------------------------------------------------------------- the audit
def prepare_questions(pg) -> None:
    """Before the audit: note in each question's record what the audit needs besides the truth
    (both seeds, as opened, and the moves its mover then sent at that ply)."""
    peer_seed = (pg.peer_final or {}).get("tries", "")
    for a in pg.attempts:
        if a["kind"] == "probe" and a.get("key"):
            played = [m["uci"] for m in pg.attempts
                      if m["kind"] == "move" and m["by"] == a["by"] and m["ply"] == a["ply"]]
            a["audit"] = {"game": pg.game_id, "played": played,
                          "seeds": {pg.seat: pg.tries_seed, pg.peer: peer_seed}}


def audit_question(a: dict, legal: set) -> tuple:
    """Check the question ``a`` (a record prepared by :func:`prepare_questions`) against the
    truth's ``legal`` moves at its ply. Returns ``(problems, refused)``: ``[(seat, kind,
    message)]`` and the moves the mover was told refused."""
    mover = a["by"]
    holder = _other(mover)
    info = a.get("audit") or {}
    seeds, game, ply = info.get("seeds", {}), info.get("game", ""), a["ply"]
    moves, key = a["moves"], a["key"]
    n = len(moves)
    out, refused = [], set()
    truth = [("allowed" if m in legal else "refused") for m in moves] + ["none"]
    hs, ms = seeds.get(holder) or "", seeds.get(mover) or ""
    ha = ot.holder_scalar(hs, game, ply) if hs else None
    if ha is None or ot.holder_key(ha) != key:
        out.append((holder, "wrong-probe-answer", "the key of the question about "
                    f"{', '.join(moves)} was not made from the seed {holder} opened"))
        ha = None
    allowed = None
    for j, r in enumerate(a["rounds"], 1):
        ctx = context(game, holder, ply, j)
        if ha is not None:
            for i, got in enumerate(ot.open_table(ha, key, r["point"], r["table"], ctx)):
                if got != truth[i]:
                    what = moves[i] if i < n else "the empty slot"
                    out.append((holder, "wrong-probe-answer",
                                f"try {j} answered {got or 'nothing'} for {what}, but the truth "
                                f"is {truth[i]}"))
        b = ot.mover_scalar(ms, game, ply, j) if ms else None
        c = ot.choice(b, key, r["point"], n + 1) if b is not None else None
        if c is None:
            out.append((mover, "bad-try", f"try {j} at this move was not made from the seed "
                        f"{mover} opened"))
            continue
        if c == n:
            continue
        if allowed is not None:
            out.append((mover, "bad-try", f"{mover} tried {moves[c]} after its try of "
                        f"{allowed} was allowed (an allowed try is played)"))
            continue
        told = ot.read(b, key, r["point"], c, r["table"][c], ctx)
        if told == "allowed":
            allowed = moves[c]
        else:
            refused.add(moves[c])
    played = info.get("played", [])
    for uci in played:
        if uci in refused:
            out.append((mover, "bad-try", f"{mover} played {uci}, which its try was told "
                        "was refused"))
    if allowed is not None and played and played[0] != allowed:
        out.append((mover, "bad-try", f"{mover} played {played[0]}, but its try of {allowed} "
                    "was allowed (an allowed try is played)"))
    return out, refused
