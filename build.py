#!/usr/bin/env python3
"""Build, serve and test Hidden Chess.

Hidden Chess is a static page: ``index.html`` plus the files under
``assets/`` and ``py/``.  Its third-party runtime (Pyodide, PyScript and
chessground) comes from npm, pinned in ``package-lock.json``, and is *vendored*
into the git-ignored ``assets/vendor/`` so that the page never touches a CDN::

    assets/vendor/
      pyodide/      pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm,
                    python_stdlib.zip, pyodide-lock.json
      pyscript/     core.js, core.css and the chunks they load at run time
      chessground/  chessground.min.js (ESM bundle) and its three CSS files
      trystero/     Trystero's Nostr strategy (nostr.mjs + core/*.mjs, ES modules whose
                    bare imports are rewritten to relative ones) for one-click invites
                    and quick play; noble/secp256k1.js (the Nostr event signatures)
      py.zip        the Python sources of py/ and their bytecode (written into Python by assets/js/pyodide-boot.js)

Each text, wasm or zip file there of 1 KB or more also gets ``.br`` (Brotli, by Node.js) and
``.gz`` copies when they pay (:func:`compressed_copies`; cached in ``~/.cache/hiddenchess/``), which
``build.py serve`` sends to browsers that accept them.

Usage::

    python3 build.py [build]                  # npm ci (when needed) + vendor
    python3 build.py serve [--port N] [--no-build | --dist]
    python3 build.py dist [--out DIR]         # the deployable static site (default: dist/)
    python3 build.py test [--quick] [pytest args...]
                                              # .venv + build + pytest (in parallel);
                                              # --quick: the pure-Python tests alone

The build is repeatable: a second run rewrites nothing.  Every failure ends
with one line ``build.py: error: ...`` on stderr and a non-zero exit status.

Only the standard library is used, so this file runs on any Python >= 3.9.  Its parts live in
the package beside it, one module per concern (``buildtools/``); this file is the command line,
and hands on their names (the tests and benches use ``build.make_server``, ``build.write_dist``...).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

if str(Path(__file__).resolve().parent) not in sys.path:  # (loaded by file, as the tests do)
    sys.path.append(str(Path(__file__).resolve().parent))

# Their names, handed on (``build.X``).
from buildtools.common import *  # noqa: E402,F401,F403
from buildtools.npm import *  # noqa: E402,F401,F403
from buildtools.vendor import *  # noqa: E402,F401,F403
from buildtools.compress import *  # noqa: E402,F401,F403
from buildtools.serve import *  # noqa: E402,F401,F403
from buildtools.dist import *  # noqa: E402,F401,F403
from buildtools.testing import *  # noqa: E402,F401,F403
from buildtools.common import BuildError  # noqa: E402
from buildtools.dist import DIST, write_dist  # noqa: E402
from buildtools.serve import serve  # noqa: E402
from buildtools.testing import run_tests  # noqa: E402
from buildtools.vendor import build  # noqa: E402

# --------------------------------------------------------------------------
# command line


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["test"]:
            # Everything after "test" belongs to pytest, untouched.
            return run_tests(argv[1:])
        parser = argparse.ArgumentParser(
            prog="build.py", description=__doc__.split("\n\n")[0],
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog="commands:\n  build                 npm ci (if needed) + vendor into assets/vendor/\n"
                   "  serve [--port N] [--no-build | --dist]\n"
                   "  dist [--out DIR]      write the deployable static site (default: dist/)\n"
                   "  test [--quick] [pytest args]\n"
                   "                        create .venv, build, run pytest over tests/ in parallel\n"
                   "                        (--quick: the pure-Python tests alone)")
        sub = parser.add_subparsers(dest="command")
        sub.add_parser("build", help="install npm packages if needed and vendor them")
        serve_parser = sub.add_parser("serve", help="serve the repository on 127.0.0.1")
        serve_parser.add_argument("--port", type=int, default=8000, help="default: 8000")
        serve_parser.add_argument("--no-build", action="store_true",
                                  help="serve assets/vendor/ as it is")
        serve_parser.add_argument("--dist", action="store_true",
                                  help="write dist/ and serve it (compressed, offline-capable)")
        dist_parser = sub.add_parser("dist", help="write the deployable static site")
        dist_parser.add_argument("--out", type=Path, default=DIST, help="default: dist/")
        sub.add_parser("test", help="run the test suite (extra arguments go to pytest)")
        args = parser.parse_args(argv)
        if args.command == "serve":
            return serve(args.port, args.no_build, args.dist)
        if args.command == "dist":
            write_dist(args.out.resolve())
            return 0
        build()
        return 0
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
