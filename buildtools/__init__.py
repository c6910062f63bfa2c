"""The parts of build.py, one module per concern; build.py is their one entry point.

    common    the repository's paths, BuildError
    npm       npm ci when package-lock.json changed
    compress  .br/.gz copies, py.zip's bytecode, the build cache
    vendor    the pinned runtime and py.zip into assets/vendor/ (``build.py build``)
    dist      the deployable static site (``build.py dist``)
    serve     the local server (``build.py serve``)
    testing   Chromium, the virtual environment and pytest (``build.py test``)

Each imports only those above it. Only the standard library is used.
"""
