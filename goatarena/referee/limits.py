"""The resource limits of a bot process: line size and depth, logs, memory, graces, pids."""

from __future__ import annotations

from dataclasses import dataclass

from goatarena import protocol


@dataclass(frozen=True, kw_only=True)
class BotLimits:
    """Resource limits applied to every bot process.

    ``max_line_bytes`` caps one line on stdout (a longer line is malformed and ends the
    conversation) and ``max_depth`` its nesting (a deeper line is malformed);
    ``stderr_log_bytes`` caps the log kept of stderr, which is read and
    discarded beyond that so a chatty bot never blocks; ``memory_bytes`` is the bot's
    ``RLIMIT_DATA`` (None for no limit); the two graces are how long a bot has to exit
    after ``quit``, and after ``SIGTERM`` before its whole process group is killed.
    """

    max_line_bytes: int = protocol.MAX_LINE_BYTES
    max_depth: int = protocol.MAX_DEPTH
    stderr_log_bytes: int = 1 << 20
    stderr_game_bytes: int = 0
    """A cap on each game's stderr; with it the log rotates at ``stderr_log_bytes``
    instead of being cut (:mod:`goatarena.referee.stderr_log`). 0: no cap per game."""
    memory_bytes: int | None = 1 << 30
    quit_grace_s: float = 0.2
    terminate_grace_s: float = 0.3
    processes: int | None = 256
    """Processes and threads of a sandboxed bot (its pids cgroup, where there is one)."""
    open_files: int | None = 1024
    """A sandboxed bot's ``RLIMIT_NOFILE``."""
    file_bytes: int | None = 64 << 20
    """The largest file a sandboxed bot may write (``RLIMIT_FSIZE``)."""
