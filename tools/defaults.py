"""The defaults that the command line's help shows, in a module that imports nothing.

Building the ``doublecheck`` parser reads these numbers for every subcommand's
help; keeping them here lets ``doublecheck --version`` or ``doublecheck
moves`` start without importing the runner, the perft pool, the desk server or
the mutant catalogue.  Each module that uses one imports it from here under
the name it always had (``runner.TIMEOUT``, ``desk.server.DEFAULT_PORT``, ...).
"""

TIMEOUT = 10.0              # seconds per request (run --timeout), before a perft case's share
SLOW_RATE = 20_000          # perft nodes per second a slow engine manages; perft limits allow for it
# Turn perft counts whole turns: each node is one to two moves played plus the legality of the
# pair, and the python-chess adapter counts about 20,000 a second where it counts 150,000-250,000
# move nodes (marseillais-classic/generated-perft/start-turns-2: 196,646 turns in 9.7 s on a
# loaded 2-core machine).  A slow engine gets a tenth of SLOW_RATE for them.
SLOW_TURN_RATE = 2_000
# run --quick: perft cases expecting more nodes are skipped.  The bound of the mutant check
# (`doublecheck mutants`, default --max-nodes 20000), under which every mutant is killed and every
# rule keeps a case in every variant; the chess cases under it total about 61,000 nodes, so a
# slow engine (10,000 nodes a second) has its first report within a minute.
QUICK_MAX_NODES = 20_000
CASES_PER_JOB = 100         # run --jobs auto: one more process per this many selected cases
PERFT_POOL_NODES = 2_000_000  # perft --jobs auto: a count estimated above this uses the process pool
SPLIT_NODES = 20_000_000    # run --deep with the oracle: a perft case this large is split over every job
MUTANTS_MAX_NODES = 20_000  # mutants: perft cases expecting more nodes are skipped
HASH_MB = 1024              # perft --hash, per counting process: four fit a 24 GB machine with room to spare
SERVE_BUDGET = 7200.0       # serve --budget: seconds one request may run (two hours)
DESK_PORT = 8765            # desk --port
DESK_MAX_BODY = 256 * 1024  # bytes in one request body of the desk
