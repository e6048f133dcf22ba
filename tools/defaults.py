"""The defaults that the command line's help shows, in a module that imports nothing.

Building the ``doublecheck`` parser reads these numbers for every subcommand's
help; keeping them here lets ``doublecheck --version`` or ``doublecheck
moves`` start without importing the runner, the perft pool, the desk server or
the mutant catalogue.  Each module that uses one imports it from here under
the name it always had (``runner.TIMEOUT``, ``desk.server.DEFAULT_PORT``, ...).
"""

TIMEOUT = 10.0              # seconds per request (run --timeout), before a perft case's share
SLOW_RATE = 20_000          # perft nodes per second a slow engine manages; perft limits allow for it
QUICK_MAX_NODES = 200_000   # run --quick: perft cases expecting more nodes are skipped
CASES_PER_JOB = 100         # run --jobs auto: one more process per this many selected cases
PERFT_POOL_NODES = 2_000_000  # perft --jobs auto: a count estimated above this uses the process pool
MUTANTS_MAX_NODES = 20_000  # mutants: perft cases expecting more nodes are skipped
HASH_MB = 1024              # perft --hash, per counting process: four fit a 24 GB machine with room to spare
SERVE_BUDGET = 7200.0       # serve --budget: seconds one request may run (two hours)
DESK_PORT = 8765            # desk --port
DESK_MAX_BODY = 256 * 1024  # bytes in one request body of the desk
