"""The UI controller of the page: pure Python, JSON-able state in and out.

The page (``assets/``) never decides anything about the game. Every click becomes one *action*
on a :class:`Session` (through ``py/main.py``), and every action returns **one state dict**
(:class:`hiddenchess.app.state.State`, built by :mod:`hiddenchess.app.render`) that the page
draws as it is. The session owns the :class:`~hiddenchess.game.game.Game`, its
:class:`~hiddenchess.game.clock.Clock`, the board orientation, and the saved copy in
``localStorage`` (:mod:`hiddenchess.app.saving`, written after every move and every game-ending
action, so a reload continues exactly where the players were, clocks included).

The session is a small core plus plug-ins, and never names a variant or a mode:

* the variant's :class:`~hiddenchess.app.panels.Panel` (``variants/<package>/panel.py``): its
  setup step, panels, own actions (``seal``, ``place``, ``penalty`` ...) and replay;
* the play mode (:mod:`hiddenchess.app.modes`): two players on this device, against the
  computer, or with a friend;
* the replay of a finished game (:mod:`hiddenchess.app.replay`).

Every action takes ``now_ms`` (the page's time): nothing here reads a clock. Bad input never
raises: the state comes back with ``state["error"]`` set to a clear sentence, the game unchanged.

Variants with secrets show one seat's knowledge, the *viewer* (``state["viewer"]``): the seat
that confirmed it holds the device (action ``show_board``; :meth:`Session.device_due` says who
should), ``"spectator"`` while the hand-over screen is up (public information only), or ``"all"``
(no secrets, or a finished game); see :mod:`hiddenchess.variants.secret_pawn.panel`.

>>> from hiddenchess.app.storage import MemoryBackend
>>> s = Session(MemoryBackend())
>>> st = s.restore(now_ms=0)                 # nothing saved yet: a fresh standard game
>>> st["variant"]["id"], st["turnColor"], st["fen"]
('standard', 'white', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR')
>>> sorted(st["movable"]["dests"]["g1"])
['f3', 'h3']
>>> st = s.move("e2", "e4", now_ms=1000)
>>> st["moves"][-1]["san"], st["lastMove"], st["turnColor"]
('e4', ['e2', 'e4'], 'black')
>>> s.move("e2", "e4", now_ms=2000)["error"]
'Illegal move: e2e4 is not legal in this position.'
"""

from __future__ import annotations

from hiddenchess.ai import computer_variants
from hiddenchess.app import render, saving, typed as typed_module
from hiddenchess.app.actions import ACTIONS, DELETED_TEXT, QUIET_ACTIONS, STALE_TEXT, actions, move_uci
from hiddenchess.app.errors import SessionError
from hiddenchess.app.modes.base import MODES, Mode
from hiddenchess.app.modes.computer import ComputerMode
from hiddenchess.app.modes import FRIEND_ACTIONS, friend_mode
from hiddenchess.app import exchange, games
from hiddenchess.app.options import default_options, new_game as game_from_options
from hiddenchess.app.panels import Panel, absent_text, base_variant, panel_for, variant_actions
from hiddenchess.app.replay import Replay
from hiddenchess.app.storage import MemoryBackend, Storage
from hiddenchess.app.text import COLORS, error_sentence, message, other, title
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.clock import Clock, ClockSettings
from hiddenchess.game.game import Game

__all__ = ["Session", "SessionError", "MODES", "ACTIONS", "actions", "message", "MemoryBackend",
           "computer_variants"]


class Session:
    """One player-facing game on one device, saved to ``backend`` (a ``localStorage``-like object).

    Call :meth:`restore` first (it loads the saved game, or starts a fresh one). Every action
    returns the full state (:class:`hiddenchess.app.state.State`). The variant's own actions
    (``seal``, ``place``, ...) are methods too: they run on the variant's panel.
    """

    def __init__(self, backend, *, prefix: str = "hiddenchess"):
        self.storage = Storage(backend, prefix=prefix)
        self.game: Game | None = None
        self.clock: Clock | None = None
        self.options: dict = default_options()
        self.orientation = "white"
        self.auto_flip = False
        self.created_ms = 0
        #: A random id, new with every game (``state["gameId"]``).
        self.game_id = ""
        self.notice: str | None = None
        self.notice_detail: str | None = None
        self.corrupt_key: str | None = None
        self.corrupt_raw: str | None = None
        self.warning: str | None = None
        #: Another tab saved a newer game: nothing is played or saved here until ``restore``.
        self.stale = False
        #: The page asked for the menu's ``friendVariants`` (the peer protocol loads only then).
        self.catalog_asked = False
        #: The seat that confirmed it holds the device (variants with secrets), else ``None``.
        self.holder: str | None = None
        self.replaying = Replay()
        #: What an imported PGN brought besides its moves (``{"tags", "clk"}``,
        #: :mod:`hiddenchess.app.pgn`), written again on export; ``None`` for the page's own games.
        self.pgn: dict | None = None
        #: The play mode (:mod:`hiddenchess.app.modes`).
        self.mode: Mode = Mode()
        #: The variant's page plug-in (:mod:`hiddenchess.app.panels`).
        self.panel: Panel = panel_for(base_variant())

    def __getattr__(self, name: str):
        """The variant's, friend mode's and games' own actions as methods of the session."""
        routed = name in FRIEND_ACTIONS or name in games.GAMES_ACTIONS
        if name.startswith("_") or name not in variant_actions() and not routed:
            raise AttributeError(name)

        def action(*args, now_ms: int, **kwargs) -> dict:
            if routed:
                return self.dispatch(name, kwargs, now_ms=now_ms)
            return self.variant_action(name, *args, now_ms=now_ms, **kwargs)

        return action

    # ------------------------------------------------------------------ who is looking

    def next_viewer(self) -> str | None:
        """The seat that must hold the device now: the next one to make its setup choice, the
        one choosing a penalty, or the side to move (``None`` once the game is over)."""
        g = self.game
        if g.status.over:
            return None
        if g.pending_penalty:
            return g.pending_penalty["by"]
        pending = g.setup_pending()
        return pending[0] if pending else g.turn

    def device_due(self) -> str | None:
        """Who must hold the device: :meth:`next_viewer`, or the side an open draw offer is put to."""
        g = self.game
        if self.draw_offer and not g.status.over and g.phase == "play" and not g.pending_penalty:
            return other(self.draw_offer)
        return self.next_viewer()

    def handed_to(self, seat: str) -> None:
        """``seat`` holds the device: it showed its board or answered a takeback or a draw offer."""
        if self.holder != seat:
            self.panel.viewer_changed(self)
        self.holder = seat

    def viewer(self) -> str:
        """Whose knowledge the page may show: ``"all"``, ``"spectator"``, ``"white"``, ``"black"``."""
        fixed = self.mode.viewer(self)
        if fixed is not None:  # this page holds one seat: no hand-over
            return fixed
        if not self.panel.keeps_secrets or self.game.status.over:
            return "all"
        holder = self.mode.holder(self)
        if holder is not None:
            return holder
        due = self.device_due()
        return due if self.holder == due else "spectator"

    @property
    def draw_offer(self) -> str | None:
        """The side whose draw offer is open (kept by the Game), or ``None``."""
        return self.game.draw_offer if self.game is not None else None

    @draw_offer.setter
    def draw_offer(self, color: str | None) -> None:
        if self.game is not None:
            self.game.draw_offer = color

    # ------------------------------------------------------------------ actions

    def restore(self, game: str | None = None, *, now_ms: int) -> dict:
        """Load the saved game ``game`` (default: see :func:`hiddenchess.app.games.prepare`), or
        start a fresh standard game when there is none or it is unreadable. A running clock keeps
        running across a reload (the time the page was closed counts; a flag that fell ends it)."""
        games.prepare(self, game, now_ms)
        if not saving.restore(self, now_ms):
            self.start(default_options(), None, now_ms)
        elif self.storage.game_id:  # (its key names it; a clock paused when it was left runs)
            games.opened(self, now_ms)
        return self.state(now_ms=now_ms)

    def suspend(self, *, now_ms: int) -> dict:
        """The page is being hidden or closed: save the clock as it stands now."""
        if self.clock is not None and not self.game.status.over:
            self.clock.checkpoint(now_ms)
            self.save(now_ms)
        return self.state(now_ms=now_ms)

    def catalog(self, *, now_ms: int) -> dict:
        """The page opens the new-game menu: the state names the variants a friend can play."""
        self.catalog_asked = True
        return self.state(now_ms=now_ms)

    def storage_changed(self, *, now_ms: int) -> dict:
        """Another tab wrote the save: a newer one makes this page stale until it loads it."""
        self.stale = self.stale or self.storage.staleness()
        return self.state(now_ms=now_ms)

    def new_game(self, options: dict | None = None, *, now_ms: int) -> dict:
        """Start a new game (the one left stays on this device under its own key).

        ``options``: ``variant`` (an id of :data:`hiddenchess.engine.variant.VARIANTS`), ``mode``
        (``"local"``; ``"computer"`` for a variant of :func:`hiddenchess.ai.computer_variants`,
        with ``level`` 1..5 (default 3) and ``color``, the player's: ``"white"`` (default),
        ``"black"`` or ``"random"``, drawn now and saved; ``"friend"``, see
        :mod:`hiddenchess.app.modes.friend`), ``clock`` (``None``/``"none"``, ``"5+3"``,
        ``{"minutes": m, "increment": s}``), ``autoflip`` (bool) and, for tests and set-ups,
        ``fen`` (a start position, validated by the engine) and the variant's own options
        (:attr:`Panel.game_options <hiddenchess.app.panels.Panel.game_options>`, not saved).

        >>> s = Session(MemoryBackend())
        >>> s.new_game({"variant": "standard", "seed": 3}, now_ms=0)["error"]
        "Seed and draws are options of Reveal Chess, not of 'standard'."
        >>> s.new_game({"variant": "reveal", "draws": ["k"]}, now_ms=0)["error"]
        "Draws must be a list of role letters q, r, b, n, p (got ['k'])."
        """
        if isinstance(options, dict) and options.get("mode") == "friend":
            return friend_mode().new_friend_game(self, options, now_ms)
        try:
            opts, settings, game = game_from_options(options)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        self.start(opts, settings, now_ms, game=game)
        return self.state(now_ms=now_ms)

    def move(self, orig: str, dest: str, promotion: str | None = None, allow_illegal: bool = False,
             *, now_ms: int) -> dict:
        """Play the move ``orig`` -> ``dest`` (``promotion``: ``"q"``, ``"r"``, ``"b"``, ``"n"``).
        ``allow_illegal`` (variants whose panel allows it): play it even if it is not legal (a bluff).

        A move made after the mover's flag fell is refused and the game ends on time instead.
        """
        try:
            uci = self.move_uci(orig, dest, promotion)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        if self.check_flag(now_ms):
            return self.state(now_ms=now_ms)
        mover = self.game.turn
        try:
            self.mode.check_mover(self, mover)
            if not isinstance(allow_illegal, bool):
                raise SessionError(f"allow_illegal must be true or false, got {allow_illegal!r}")
            if allow_illegal and not self.panel.allows_illegal:
                raise SessionError(absent_text("allow_illegal", self.game.variant))
            if self.panel.keeps_secrets and self.viewer() != mover and self.game.phase == "play":
                raise SessionError(f"pass the device to {title(self.device_due())} first")
            self.game.play(uci, allow_illegal=allow_illegal)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        return self.after_move(mover, now_ms)

    def computer_move(self, uci=None, ply=None, game=None, score=None, *, now_ms: int) -> dict:
        """Play the computer's answer ``uci`` (from the AI worker) for the request of
        ``state["computer"]["request"]``; ``ply`` and ``game`` are that request's, so an answer
        that arrives after a takeback or a new game is refused (and changes nothing). The move is
        checked by the rules like any other. ``score`` (the search's score in centipawns, the
        computer's point of view) is remembered to answer draw offers.

        >>> s = Session(MemoryBackend())
        >>> st = s.new_game({"mode": "computer", "color": "white"}, now_ms=0)
        >>> s.computer_move("e7e5", ply=0, game=st["gameId"], now_ms=1)["error"]
        "It is not the computer's turn."
        """
        return self.mode.computer_move(self, uci, ply, game, score, now_ms)

    def takeback(self, *, now_ms: int) -> dict:
        """Against the computer: take back the player's last move and the computer's reply (or
        just the player's move when it ended the game). Not while the computer is thinking, and
        not after a resignation, an agreed draw or a flag fall (``state.computer.canTakeBack``).

        >>> s = Session(MemoryBackend())
        >>> st = s.new_game({"mode": "computer", "color": "white"}, now_ms=0)
        >>> _ = s.move("e2", "e4", now_ms=1)
        >>> st = s.computer_move("e7e5", ply=1, game=st["gameId"], now_ms=2)
        >>> st["computer"]["canTakeBack"]
        True
        >>> st = s.takeback(now_ms=3)
        >>> st["moves"], st["turnColor"], st["computer"]["canTakeBack"]
        ([], 'white', False)
        """
        return self.mode.takeback(self, now_ms)

    def tick(self, *, now_ms: int) -> dict:
        """Look at the clock: if a flag fell, the game ends on time (and is saved)."""
        self.check_flag(now_ms)
        return self.state(now_ms=now_ms)

    def resign(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side to move; against the computer: the player) resigns.
        The computer never resigns."""
        try:
            color = self.mode.player(self, color)
            self.require_play(now_ms)
            self.game.resign(color)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        self.finish(now_ms)
        return self.state(now_ms=now_ms)

    def offer_draw(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side to move) offers a draw. An offer made while the other
        side's offer is open accepts it. Against the computer (``color`` defaults to the player)
        the computer answers at once (``state["computer"]["message"]``)."""
        try:
            color = self.mode.player(self, color)
            self.require_play(now_ms, held=True)
            if self.draw_offer == color:
                raise SessionError(f"{title(color)} has already offered a draw.")
            if self.draw_offer == other(color):
                return self.accept_draw(color, now_ms=now_ms)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        answer = self.mode.answer_draw_offer(self, color, now_ms)
        if answer is not None:
            return answer
        self.draw_offer = color
        self.handed_to(color)  # (the offerer holds the device: the other side's board waits)
        self.save(now_ms)
        return self.state(now_ms=now_ms)

    def accept_draw(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side that was offered the draw) accepts: the game is drawn."""
        try:
            self._require_offer_for(color, now_ms)
            self.game.agree_draw()
        except HiddenChessError as e:
            return self.error(e, now_ms)
        self.finish(now_ms)
        return self.state(now_ms=now_ms)

    def decline_draw(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side that was offered the draw) declines; play goes on."""
        try:
            self._require_offer_for(color, now_ms)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        self.handed_to(other(self.draw_offer))  # (who answered holds the device)
        self.draw_offer = None
        self.save(now_ms)
        return self.state(now_ms=now_ms)

    def claim_draw(self, move: str | None = None, *, now_ms: int) -> dict:
        """The side to move claims a draw: now (``move=None``), or by declaring ``move`` (UCI),
        which must reach a position that qualifies (threefold repetition, fifty-move rule)."""
        try:
            if move is not None and not isinstance(move, str):
                raise SessionError(f"the declared move must be UCI text like 'g1f3', got {move!r}")
            self.require_play(now_ms)
            self.game.claim_draw(move)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        self.finish(now_ms)
        return self.state(now_ms=now_ms)

    def show_board(self, seat: str | None = None, *, now_ms: int) -> dict:
        """The player at the device confirms being ``seat`` (default: the one expected): the
        hand-over screen goes and the board is shown with what ``seat`` knows, turned towards it.

        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "secret-pawn"}, now_ms=0)
        >>> s.show_board("black", now_ms=1)["error"]
        'The device goes to White now, not to Black.'
        """
        try:
            if not self.panel.keeps_secrets:
                raise SessionError(f"{self.game.variant.name} has no secrets: the board is always shown")
            due = self.device_due()
            if due is None:
                raise SessionError("the game is over: everything is shown")
            seat = due if seat is None else seat
            if seat not in COLORS:
                raise SessionError(f"seat must be 'white' or 'black', got {seat!r}")
            if seat != due:
                raise SessionError(f"the device goes to {title(due)} now, not to {title(seat)}")
        except HiddenChessError as e:
            return self.error(e, now_ms)
        self.handed_to(seat)
        self.orientation = seat
        return self.state(now_ms=now_ms)

    def variant_action(self, action: str, *args, now_ms: int, **kwargs) -> dict:
        """Run the variant's own ``action`` on its panel (refused in other variants)."""
        if action not in self.panel.actions:
            return self.error(SessionError(absent_text(action, self.game.variant)), now_ms)
        return getattr(self.panel, action)(self, *args, now_ms=now_ms, **kwargs)

    def setup_committed(self, now_ms: int) -> dict:
        """After a seat's setup choice: the hand-over for the next player, the computer's
        choice, saving."""
        self.holder = None
        self.panel.setup_done(self)
        self.mode.make_setup(self)
        self.save(now_ms)
        return self.state(now_ms=now_ms)

    def replay(self, ply=None, perspective: str | None = None, *, now_ms: int) -> dict:
        """Show the game after ``ply`` half-moves (default: where the replay is, or the end) as
        ``perspective`` knew it: ``"white"``, ``"black"`` or ``"all"`` (default); during play,
        as this page's viewer knows it (browsing; ``replay_exit`` returns to the live game)."""
        try:
            self.orientation = self.replaying.select(self.game, ply, perspective, self.orientation,
                                                     self.viewer())
        except HiddenChessError as e:
            return self.error(e, now_ms)
        return self.state(now_ms=now_ms)

    def typed(self, text=None, *, now_ms: int) -> dict:
        """The move box: a move (SAN, UCI, the variant's forms) or a command (:mod:`~hiddenchess.app.typed`)."""
        return typed_module.run(self, text, now_ms)

    def replay_exit(self, *, now_ms: int) -> dict:
        """Leave the replay: the final position again."""
        self.replaying.stop()
        return self.state(now_ms=now_ms)

    def flip(self, *, now_ms: int) -> dict:
        """Turn the board around (switches auto-flip off, so the choice sticks)."""
        self.orientation = other(self.orientation)
        self.auto_flip = False
        self.save(now_ms)
        return self.state(now_ms=now_ms)

    def set_auto_flip(self, on: bool = True, *, now_ms: int) -> dict:
        """Turn the board towards the side to move after every move (``on``) or keep it still."""
        if not isinstance(on, bool):
            return self.error(SessionError(f"auto-flip must be true or false, got {on!r}"), now_ms)
        self.auto_flip = on
        if on and self.game is not None and not self.game.status.over:
            self.orientation = self.game.turn
        self.save(now_ms)
        return self.state(now_ms=now_ms)

    def export_corrupt(self, key: str | None = None, *, now_ms: int) -> dict:
        """Offer the saved data that could not be read for download (``state["download"]``)."""
        try:
            name, text = saving.export_corrupt(self, key)
        except HiddenChessError as e:
            return self.error(e, now_ms)
        st = self.state(now_ms=now_ms)
        st["download"] = {"name": name, "text": text}
        return st

    def dismiss_notice(self, *, now_ms: int) -> dict:
        """The player closed the notice about the saved game."""
        self.notice = None
        return self.state(now_ms=now_ms)

    def dispatch(self, action: str, args: dict | None = None, *, now_ms: int) -> dict:
        """Run ``action`` with keyword ``args`` (what the page's bridge calls).

        >>> s = Session(MemoryBackend()); _ = s.restore(now_ms=0)
        >>> s.dispatch("move", {"orig": "g1", "dest": "f3"}, now_ms=5)["moves"][0]["san"]
        'Nf3'
        >>> s.dispatch("castle", {}, now_ms=6)["error"]
        "Unknown action 'castle'."
        """
        if self.game is None and action != "restore":
            self.restore(now_ms=now_ms)
        if action not in QUIET_ACTIONS and (self.stale or self.storage.staleness()):
            self.stale = self.stale or self.storage.staleness()
            return self.error(SessionError(DELETED_TEXT if self.stale == "deleted" else STALE_TEXT), now_ms)
        if self.stale and action == "tick":
            return self.state(now_ms=now_ms)
        allowed = actions().get(action) if isinstance(action, str) else None
        if allowed is None:
            return self.error(SessionError(f"unknown action {action!r}."), now_ms)
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return self.error(SessionError(f"the arguments of {action!r} must be an object."), now_ms)
        unknown = sorted(set(args) - set(allowed))
        if unknown:
            return self.error(
                SessionError(f"{action!r} does not take {', '.join(map(repr, unknown))}."), now_ms
            )
        if action in games.ROUTED:  # the games on this device, and new ones (one clock at most)
            return games.dispatch(self, action, args, now_ms)
        if self.mode.routes(action):  # e.g. my seat of a friend game, through the protocol
            return self.mode.dispatch(self, action, args, now_ms)
        if action in variant_actions():
            return self.variant_action(action, now_ms=now_ms, **args)
        if action in self.mode.actions:  # peer_open, peer_receive ... (games with a friend)
            return self.mode.dispatch(self, action, args, now_ms)
        if action in FRIEND_ACTIONS and action != "join":
            return self.error(SessionError(f"{action!r} belongs to a game with a friend."), now_ms)
        return getattr(self, action)(**args, now_ms=now_ms)

    def import_game(self, text=None, link=None, *, now_ms: int) -> dict:
        """This session's game becomes one from a PGN, a JSON record or a replay link's
        ``#replay=`` value (:mod:`hiddenchess.app.exchange`); a damaged text changes nothing."""
        return exchange.import_into(self, text, link, now_ms=now_ms)

    def join(self, invite=None, stranger: bool = False, *, now_ms: int) -> dict:
        """Join a friend's game from the invite in the link (``{"g", "v", "c", "h"}``), as the
        guest (see :mod:`hiddenchess.app.modes.friend`; ``stranger``: quick play's); this
        session's game becomes that one."""
        return friend_mode().join_friend_game(self, invite, now_ms, stranger)

    # ------------------------------------------------------------------ state

    def state(self, *, now_ms: int) -> dict:
        """The full state for the page (:class:`hiddenchess.app.state.State`)."""
        return render.state(self, now_ms)

    # ------------------------------------------------------------------ helpers (also for plug-ins)

    def start(self, opts: dict, settings: ClockSettings | None, now_ms: int, *,
              game: Game | None = None, mode: Mode | None = None) -> None:
        """Make a new game the session's game (and save it)."""
        self.game = game if game is not None else Game.new(opts["variant"])
        self.panel = panel_for(self.game.variant)
        self.clock = Clock(settings) if settings is not None else None
        self.options = opts
        if settings is not None:
            self.options["clock"] = settings.label()
        if mode is None:
            mode = ComputerMode.from_options(opts) if opts.get("mode") == "computer" else Mode()
        self.mode = mode
        self.auto_flip = bool(opts.get("autoflip"))
        self.orientation = mode.orientation() or (self.game.turn if self.auto_flip else "white")
        self.created_ms = now_ms
        self.game_id = saving.new_game_id()
        self.holder = None
        self.pgn = None
        self.replaying.stop()
        self.mode.make_setup(self)
        self.save(now_ms)

    def save(self, now_ms: int) -> None:
        """Write the game to storage (a full storage sets ``warning``)."""
        saving.save(self, now_ms)

    def after_move(self, mover: str, now_ms: int) -> dict:
        """Clock, orientation and saving after ``mover`` played (a browse goes back to live)."""
        self.mode.after_move(self)
        self.replaying.stop()
        if self.clock is not None:
            if self.game.status.over:
                self.clock.stop(now_ms)
            else:
                self.clock.press(mover, now_ms)
        # (Game drops a draw offer when the side it was made to plays on instead of answering.)
        if self.auto_flip:
            self.orientation = self.game.turn
        self.save(now_ms)
        return self.state(now_ms=now_ms)

    def after_action(self, now_ms: int) -> None:
        """After an action that may have ended the game: finish it, or save."""
        if self.game.status.over:
            self.finish(now_ms)
        else:
            self.save(now_ms)

    def error(self, e: Exception, now_ms: int) -> dict:
        """The state with ``error``: the sentence of ``e``."""
        if self.game is None:  # refused before anything was loaded: show the saved game
            self.restore(now_ms=now_ms)
        return {**self.state(now_ms=now_ms), "error": error_sentence(str(e))}

    def check_flag(self, now_ms: int) -> bool:
        """End the game if the running side's flag fell. True if the game is (now) over on time."""
        if self.clock is None or self.game.status.over:
            return False
        flagged = self.clock.flagged(now_ms)
        if flagged is None:
            return False
        self.game.flag(flagged)
        self.finish(now_ms)
        return True

    def finish(self, now_ms: int) -> None:
        """After a game-ending action: freeze the clock, close any offer, save."""
        if self.clock is not None:
            self.clock.stop(now_ms)
        self.draw_offer = None
        self.save(now_ms)

    def require_play(self, now_ms: int, held: bool = False) -> None:
        """Raise unless the game is in progress (a fallen flag ends it first) and, if ``held``, on
        one device with secrets, a side holds it (no draw offered or answered under the hand-over)."""
        if self.game.status.over or self.check_flag(now_ms):
            raise SessionError(f"the game is over ({message(self.game.status.to_json())}).")
        if held and self.viewer() == "spectator":
            raise SessionError(f"pass the device to {title(self.device_due())} first")

    def _require_offer_for(self, color: str | None, now_ms: int) -> None:
        self.require_play(now_ms, held=True)
        if self.draw_offer is None:
            raise SessionError("no draw has been offered.")
        color = self.color_arg(other(self.draw_offer) if color is None else color)
        if color == self.draw_offer:
            raise SessionError(f"{title(color)} offered the draw; only {other(color)} can answer it.")

    def color_arg(self, color: str | None) -> str:
        """``color`` checked (default: the side to move)."""
        if color is None:
            return self.game.turn
        if color not in COLORS:
            raise SessionError(f"colour must be 'white' or 'black', got {color!r}")
        return color

    def move_uci(self, orig, dest, promotion) -> str:
        """The UCI text of a move the page sent, checked for form (SessionError)."""
        return move_uci(self.game, orig, dest, promotion)
