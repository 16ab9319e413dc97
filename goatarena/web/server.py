"""Serving the site: Hypercorn's trio worker with limits fit for a public address, and
the child process that serves beside a run (``goatarena run --serve``).

A run's referee keeps each bot's clock; the site's work (fits, pages, a thousand open
event streams) must never be charged to a bot. So ``run --serve`` starts the site as a
process of its own (``goatarena serve`` on the run's database), which reads the store
read-only while the run writes it, and ends it when the run ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from goatarena.errors import ConfigError
from goatarena.web.app import Site

LIMITS = {
    "h11_max_incomplete_size": 8 * 1024,  # a request line and headers: at most 8 KiB
    "h2_max_header_list_size": 8 * 1024,
    "h2_max_concurrent_streams": 32,
    # An idle connection, or one whose request head is not complete within 5 s, is closed.
    # No read timeout: an event stream's client rightly sends nothing for hours.
    "keep_alive_timeout": 5,
    "graceful_timeout": 2,
    "backlog": 512,
    "max_app_queue_size": 10,
    "include_server_header": False,
    "accesslog": None,
    "errorlog": None,
}
"""Hypercorn's settings: small request heads, no slow client holding a connection."""


SITE_NICENESS = 10
"""How much lower the site's process runs beside a run (``nice``): a page waits for the
referees where the kernel weighs the two together (not across sessions, see
:func:`serve_command_child`)."""


def parse_address(text: str, *, default_host: str = "127.0.0.1") -> tuple[str, int]:
    """``[HOST:]PORT`` as a host and a port; one clear error for anything else."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or default_host
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"--serve {text}: give [HOST:]PORT, a port from 0 to 65535")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def hypercorn_config(host: str, port: int) -> Config:
    """Hypercorn's configuration for one address, with :data:`LIMITS`."""
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    for name, value in LIMITS.items():
        setattr(config, name, value)
    _check_bindable(config)
    return config


def _check_bindable(config: Config) -> None:
    """Refuse in one line an address that cannot be bound (a port in use, a host that is
    not this machine's), which Hypercorn would raise deep inside its nurseries."""
    try:
        sockets = config.create_sockets()
    except OSError as error:
        raise ConfigError(f"cannot serve at {config.bind[0]}: {error.strerror}") from None
    for sock in [*sockets.secure_sockets, *sockets.insecure_sockets]:
        sock.close()


async def serve_site(
    site: Site,
    host: str,
    port: int,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Follow the store and serve the site at ``host:port`` until cancelled; started with
    the addresses bound (``http://...``), once the store's first games are read."""
    async with trio.open_nursery() as nursery:
        await nursery.start(site.follower.follow)
        app: Any = site.app  # an ASGI application; Hypercorn's type names its own events
        config = hypercorn_config(host, port)
        bound = await nursery.start(partial(serve, app, config))
        task_status.started(bound)


@contextlib.contextmanager
def serving_child(db: Path, host: str, port: int, *, show_commands: bool = False) -> Iterator[None]:
    """Serve ``db`` from a child process (``goatarena serve``) while the block runs."""
    arguments = ["--db", str(db), "--host", host, "--port", str(port)]
    if show_commands:
        arguments.append("--show-commands")
    with serve_command_child(arguments):
        yield


@contextlib.contextmanager
def serve_command_child(arguments: list[str]) -> Iterator[None]:
    """Run ``goatarena serve ARGUMENTS`` in a child process while the block runs.

    The child has its own session, so a Ctrl-C typed at the run reaches the run alone,
    which ends the child when it ends (SIGTERM, then SIGKILL after a few seconds); a run
    that dies without ending it (``kill -9``) ends it too (:func:`end_with_run`). A child
    killed by a signal (``kill -9``, the kernel out of memory) is started again, so the
    site, and a competition's builds, come back while the run plays on; one that ends by
    itself (a port in use) is left ended. It runs ``nice``d (fits and validations
    inherit that; builds run lower still, at the machine's idle priority, see
    :mod:`goatarena.referee.idle`). It is in a session of its own, which a kernel that
    weighs sessions as wholes (``sched_autogroup``) gives a session's share beside the
    run's, whatever its nice value.
    """
    site = _SiteChild([sys.executable, "-m", "goatarena", "serve", *arguments])
    try:
        yield
    finally:
        site.stop()


RESTART_PAUSE_S = 1.0
"""How long a run waits before starting again a site that was killed."""


class _SiteChild:
    """The site's process of a run, started again when a signal kills it."""

    def __init__(self, command: list[str]) -> None:
        self._command = command
        self._lock = threading.Lock()
        self._stopping = False
        self._child = self._start()
        # A child started again is started by this thread, which then waits for it: the
        # child's parent-death signal follows the thread that made it, not the process.
        threading.Thread(target=self._keep, daemon=True).start()

    def _start(self) -> subprocess.Popen[bytes]:
        environment = {**os.environ, SITE_OF: str(os.getpid())}
        child = subprocess.Popen(self._command, start_new_session=True, env=environment)  # noqa: S603
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, child.pid, SITE_NICENESS)
        return child

    def _keep(self) -> None:
        while True:
            code = self._child.wait()
            if code >= 0 or self._stopping:
                return
            sys.stderr.write(
                f"goatarena: the site's process was killed (signal {-code}); starting it again\n"
            )
            time.sleep(RESTART_PAUSE_S)
            with self._lock:
                if self._stopping:
                    return
                self._child = self._start()

    def stop(self) -> None:
        """End the child: SIGTERM, then SIGKILL after a few seconds."""
        with self._lock:
            self._stopping = True
            child = self._child
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGTERM)
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


SITE_OF = "GOATARENA_SITE_OF"
"""Set by a run in its site's environment: the run's process id."""
PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal a process gets when its parent dies."""


def end_with_run() -> None:
    """In a site a run started: get SIGTERM (and stop as on Ctrl-C) when that run dies,
    even of ``kill -9``. Left running, a competition's site would go on building
    submissions beside the one a restarted run starts. Nothing for a site started by
    hand, or where ``prctl`` is missing (not Linux)."""
    parent = os.environ.pop(SITE_OF, "")
    if not parent.isdigit():
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != int(parent):  # it died before the signal was asked for
        raise ConfigError("the run that started this site has ended")
