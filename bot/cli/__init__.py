"""The command line, `python -m bot [run|console|search|prepare|export|fetch]`: one module a
command; `main` reads the arguments and turns errors into exit codes."""

from bot.cli.main import EXIT_USAGE, main

__all__ = ["EXIT_USAGE", "main"]
