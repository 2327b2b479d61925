"""Exit codes of ``tablehub play`` / ``tablehub watch`` and the error that carries one.

==== ===========================================================================
code meaning
==== ===========================================================================
0    the game finished (or you quit; your seat token is saved to come back)
1    unexpected error (a bug: the message says what)
2    bad command line, unknown game or table options the game refuses
3    the server cannot be reached (or the connection was lost for good, or it stayed busy)
4    the table does not exist, or no seat can be taken there
5    script/piped input ended while it is your turn and nobody else will move for you
130  interrupted (Ctrl-C)
==== ===========================================================================
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_BUG = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_TABLE = 4
EXIT_INPUT_ENDED = 5
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """Stop the command: print ``message`` (to stderr) and exit with ``exit_code``."""

    def __init__(self, exit_code: int, message: str, code: str = "") -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.message = message
        self.code = code
        """The server's wire error code when the error came from the server."""
