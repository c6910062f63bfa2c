"""The JSON state the page draws: its schema, written as TypedDicts.

Every action of :class:`~hiddenchess.app.session.Session` answers one :class:`State` (through
``py/main.py`` as JSON). Every key is always present; keys that belong to a mode or a variant
are ``None`` elsewhere. Nothing here is enforced at run time: it is the reference for the page
(``assets/``) and the tests.

A state never holds a secret the viewer may not see: while the hand-over screen is up
(``viewer == "spectator"``) the board, moves and secrets are public information only and
nothing is movable.
"""

from __future__ import annotations

from typing import Dict, List, Optional, TypedDict

__all__ = ["State", "PANEL_KEYS", "MODE_KEYS"]

Side = str          # "white" | "black"
Square = str        # "e4"
Uci = str           # "e2e4", "e7e8q"


class VariantInfo(TypedDict):
    id: str                      # "standard"
    name: str                    # "Standard"


class Movable(TypedDict):
    color: Optional[Side]        # None when nothing may move (over, hand-over, computer thinking)
    dests: Dict[Square, List[Square]]


class MoveItem(TypedDict):
    ply: int                     # 0-based
    number: int                  # move number
    color: Side
    san: str                     # the variant's notation ("**d5", "Nc3?N", "e2-e4" ...)
    uci: Uci                     # as the viewer may know it (an opponent's hidden promotion is not told)
    reveal: bool                 # the move revealed something (a secret pawn, a Reveal cover's role)
    illegal: bool                # tabletop rules: an illegal move was found, or a piece removed, on it
    say: str                     # the move in words as the viewer saw it ("Black: knight takes e4, check.")


class ClockView(TypedDict):
    white: int                   # ms left
    black: int
    running: Optional[Side]      # the page ticks it down from ``at``
    at: int                      # now_ms of this state
    label: str                   # "5+3"
    flagged: Optional[Side]


class StatusView(TypedDict):
    over: bool
    result: str                  # "1-0", "0-1", "1/2-1/2", "*"
    reason: Optional[str]        # a key of hiddenchess.game.events.REASON_TEXT
    winner: Optional[Side]
    message: str                 # "Checkmate — White wins" (hiddenchess.app.text.message)


class ClaimMove(TypedDict):
    uci: Uci
    san: str
    reason: str
    reasonText: str


class Claim(TypedDict):
    now: Optional[str]           # a draw the side to move may claim now
    nowText: Optional[str]
    moves: List[ClaimMove]       # moves whose declaration claims a draw


class MenuChoice(TypedDict):
    id: str                      # the menu entry (base variant id)
    options: List[str]           # its options switched on, e.g. ["rk"]


class Options(TypedDict, total=False):
    variant: str
    mode: str                    # "local" | "computer" | "friend"
    clock: Optional[str]         # "5+3" or None
    autoflip: bool
    level: int                   # computer games
    color: Side                  # computer games: the player's colour
    menu: MenuChoice


class MenuOption(TypedDict):
    key: str                     # "rk"
    label: str                   # "Revealed kings"


class MenuEntry(TypedDict):
    id: str                      # base variant id
    name: str
    summary: str
    how: List[str]               # two lines for the start screen's card (app/guide.py)
    icon: str                    # the card's picture, under assets/img/
    hint: str                    # shown once at the start of a first game ("" for none)
    setupHint: str               # the hint while the setup is being made (sealing, placing)
    options: List[MenuOption]
    ids: Dict[str, str]          # "" | "rk" | "rk,tt" ... -> variant id


#: ``{"to": side, "for": "seal" | "place" | "move" | "penalty" | "draw"}``: hide the board and
#: ask for the device to be passed to ``to`` (action ``show_board``); ``"draw"``: to answer a draw
#: offer (the offerer's board stays hidden).
Handover = TypedDict("Handover", {"to": Side, "for": str})


class ReplayView(TypedDict):
    ply: int                     # the frame shown: after ``ply`` half-moves
    plies: int
    perspective: str             # "white" | "black" | "all"
    perspectives: List[str]
    live: bool                   # browsing during play (the game goes on; replay_exit returns)


class ComputerRequest(TypedDict):
    view: dict                   # Game.view(seat).to_json() of the computer's seat only
    level: int
    ply: int
    game: str                    # the gameId: computer_move(uci, ply, game) answers it
    timeMs: int                  # the level's time cap: the search stops by then (the page's
                                 # worker counts as stuck well after it, assets/js/computer.js)


class PonderRequest(TypedDict):  # think on the player's time (hiddenchess.ai.ponder)
    view: dict                   # Game.view(seat).to_json() of the computer's seat, the player to move
    level: int
    ply: int
    game: str                    # the gameId: the page stops once the game or ply changes
    nodes: int                   # how many nodes in all, at most
    slice: int                   # nodes per call of the worker's ponder


class ComputerView(TypedDict):
    seat: Side                   # the computer's colour
    player: Side
    level: int                   # 1..5
    levelName: str
    thinking: bool
    request: Optional[ComputerRequest]
    ponder: Optional[PonderRequest]  # while the player thinks, at a level that ponders
    message: Optional[str]       # what the computer did about a draw offer
    canTakeBack: bool            # the action ``takeback`` is allowed now


class Takeback(TypedDict):      # two players on one device: the last move may be taken back
    by: Side                     # who asks (the side that made it)
    agree: Side                  # who must agree, on the same screen
    san: str


class Sealing(TypedDict):       # Secret Pawn: the viewer seals (action ``seal(squares)``)
    seat: Side
    candidates: List[Square]     # its original pawns
    count: int                   # 2


class Secrets(TypedDict):       # hidden variants, as the viewer knows them
    own: List[Square]
    visible: List[Square]
    revealed: List[Square]
    sealed: Dict[Side, List[Square]]
    captured: List[dict]         # {"square", "color"[, "piece"]}
    last: List[dict]             # the reveals of the last ply: {"square", "cause", "captured", "color"}
    fates: Optional[Dict[Side, List[dict]]]  # Secret Pawn, once over: {"square", "fate", "at"}


class RevealView(TypedDict):    # Reveal Chess (no hand-over: nobody knows a cover's role)
    pools: Dict[Side, Dict[str, int]]     # {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    odds: Dict[Side, Dict[str, float]]    # each role's chance for the side's next reveal ({}: no cover left)
    covers: Dict[Side, int]               # the side's covered pieces on the board
    covered: List[Square]
    last: List[dict]             # {"square", "color", "cover", "role", "promoted"}
    conditional: List[Uci]       # promotions by a cover: they apply only if it reveals a pawn


class Placing(TypedDict):       # Hidden Identity: the viewer places its pieces
    seat: Side                   # actions place, move_placed, layout, confirm_setup
    squares: List[Square]        # its 16 home squares
    draft: Dict[Square, str]     # never saved, never shown to anyone else
    left: Dict[str, int]
    complete: bool


class IdentityView(TypedDict):  # Hidden Identity (fen holds "?"/"*" for unknown pieces)
    candidates: Dict[Square, List[str]]
    candidatesText: Dict[Square, str]     # "Q or R"
    captured: List[dict]         # {"square", "color", "piece"}
    notes: Dict[str, str]        # ply -> sentence (odd en passant, tabletop discoveries)
    lastNote: Optional[str]
    revealedKings: bool


class Penalty(TypedDict):
    by: Side
    count: int
    mine: bool                   # the viewer chooses now: action penalty(squares)


class TabletopView(TypedDict):  # Hidden Identity by the tabletop rules
    bluffs: Dict[Square, List[Square]]    # already in movable.dests: move(..., allow_illegal=True)
    penalty: Optional[Penalty]
    found: Dict[Side, int]
    illegalMoves: List[dict]     # once over: {"ply", "color", "uci", "found"}


class PeerView(TypedDict):      # games with a friend (hiddenchess.app.modes.friend)
    role: str                    # "host" | "guest"
    status: str
    game_id: str
    seat: Side
    invite: dict
    outbox: List[str]            # send these texts to the friend, in order
    waiting_for: Optional[str]
    rejected: Optional[str]
    audit: Optional[dict]
    connected: bool
    heard: bool                  # the friend's page has sent a message of this game (it joined)
    notice: Optional[str]
    stranger: bool               # the other side is a stranger from quick play ("Your opponent")
    canClaim: Optional[str]      # "flag" | "stalled"
    canAbort: bool               # the game may be aborted (no result): before both sides moved
    aborted: bool                # it was aborted (no result, no end-of-game check)
    settled: bool                # aborted, and the friend has the abort: nothing left to exchange
    chat: dict                   # {"lines": [{"by": "me"|"friend", "text", "at"}], "dropped"}:
                                 # the players' chat, its last 50 lines (peer/chat.py)
    start: Optional[dict]        # quick play: {"by": "me"|"friend", "left_s", "text"} before the
                                 # game began (a set-up, White's first move): then it is aborted
    rematch: Optional[dict]
    fork: Optional[str]
    provisional: bool            # over, but the end-of-game check is pending: the result may change
    owed: Optional[dict]         # {"what", "counted_s", "limit_s", "text"}: a message the friend owes
    relayed: bool                # a game without a clock: it also goes through the relays' store
    publish: List[str]           # publish these texts to the relays' store (each once)
    unacked: List[str]           # (peer_stored open) texts the friend has not acknowledged yet


class Speech(TypedDict):
    key: str                     # the live region says ``text`` when this (or gameId) changes
    text: str                    # "Black: knight takes e4, check. White to move." (the viewer's knowledge only)
    reply: Optional[str]         # the answer of a reading command of the move box (action "typed")


class State(TypedDict):
    variant: VariantInfo
    audited: str                 # what a friend game's audit proves ("every move", ...: Panel.audited)
    fen: str                     # board placement only (chessground's fen)
    orientation: Side            # the side at the bottom of the screen
    autoFlip: bool
    turnColor: Side
    movable: Movable
    promotions: Dict[Uci, List[str]]      # "e7e8" -> ["q", "r", "b", "n"]
    lastMove: Optional[List[Square]]
    check: Optional[Square]
    royal: List[Square]          # royal pieces that are not kings (crown badge)
    moves: List[MoveItem]
    clock: Optional[ClockView]
    status: StatusView
    drawOffer: Optional[Side]
    claim: Claim
    options: Options
    gameId: str                  # a random id, new with every game (not a time)
    players: Optional[dict]      # {"white": name|None, "black": ...}: an imported PGN's players
    inProgress: bool             # replacing the game loses a move or setup choice: ask first
    notice: Optional[str]        # about the saved game
    noticeDetail: Optional[str]
    corrupt: Optional[dict]      # {"key"} of unreadable data kept aside
    warning: Optional[str]       # saving fails (full storage)
    stale: "bool | str"          # another tab saved this game since (True), or deleted it ("deleted"): reload to go on
    error: Optional[str]         # why the last action was refused
    phase: str                   # "setup" | "play" | "over"
    viewer: str                  # whose knowledge this shows: "white" | "black" | "spectator" | "all"
    handover: Optional[Handover]
    replay: Optional[ReplayView]
    variantMenu: List[MenuEntry]
    computer: Optional[ComputerView]
    takeback: Optional[Takeback]  # on one device: the move a takeback would undo, if any
    takebackWhy: Optional[str]   # why no takeback is possible now (the greyed button's title)
    material: Optional[Dict[Side, dict]]  # {"pieces": ["q", "p"], "score": 8} per side, where public
    computerVariants: List[str]
    friendVariants: Optional[List[str]]  # None until the page asks (action "catalog")
    peer: Optional[PeerView]
    # variant panels (None where the variant has none):
    sealing: Optional[Sealing]
    placing: Optional[Placing]
    identity: Optional[IdentityView]
    tabletop: Optional[TabletopView]
    secrets: Optional[Secrets]
    reveal: Optional[RevealView]
    squareMarks: Dict[Square, str]  # what a screen reader adds to a square's piece: "your secret
                                 # pawn", "covered", "royal" (Panel.square_marks; the viewer's knowledge)
    speech: Speech               # words for a screen reader (hiddenchess.app.speech)
    # only in the answer to export_corrupt: download: {"name", "text"}
    # only in the move box's answer to "resign": ask: {"action": "resign", "args": {"color"}}, the
    # question the page puts first (the action is not done until the player confirms it)


#: State keys the variants' panels fill (:meth:`hiddenchess.app.panels.Panel.decorate`).
PANEL_KEYS = ("sealing", "placing", "identity", "tabletop", "secrets", "reveal")
#: State keys the play modes fill.
MODE_KEYS = ("computer", "peer", "takeback", "takebackWhy")
