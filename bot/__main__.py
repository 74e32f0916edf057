"""`python -m bot`: see `bot.cli`."""

import faulthandler
import sys

# First, before any import that maps files: a fatal signal (SIGSEGV, SIGBUS from a memory-mapped
# cache truncated under us, SIGFPE, SIGABRT, SIGILL) then leaves a traceback of every thread on
# stderr, where the log goes, instead of a silent exit. Tracebacks name code, never values.
faulthandler.enable(file=sys.stderr, all_threads=True)

from bot.cli import main  # noqa: E402 -- after faulthandler, so import-time faults are caught too

raise SystemExit(main())
