"""One process of the site's load generator (:mod:`benchmarks.web` starts several, so
that the clients are not one Python process measuring its own queue).

It holds ``--streams`` event streams and runs ``--fetchers`` clients, each on one
keep-alive connection as a browser keeps one, fetching pages one after another with a
random pause of 0 to ``2 * --pause`` seconds before each (0: no pause, the site at its
limit). It says ``ready`` once every stream is open, fetches from the line ``go`` on its
standard input until each client has fetched ``--per-client`` pages or the line ``stop``
comes, then prints one JSON line: the errors, every fetch's time (from the request's
first byte sent to the answer's last byte read, over HTTP/1.1 with :mod:`h11`, far
cheaper than a full client library), and the CPU this process used.

Only the address given is contacted; ``make bench`` gives it 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time

import h11
import trio


class PageClient:
    """One keep-alive HTTP/1.1 connection, reopened when the server closes it."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.stream: trio.SocketStream | None = None
        self.connection = h11.Connection(h11.CLIENT)

    async def _open(self) -> trio.SocketStream:
        if self.stream is None:
            self.stream = await trio.open_tcp_stream(self.host, self.port)
            self.connection = h11.Connection(h11.CLIENT)
        return self.stream

    async def close(self) -> None:
        """Close the connection (the next request opens another)."""
        if self.stream is not None:
            await self.stream.aclose()
            self.stream = None

    async def request(self, path: str, *, head_only: bool = False) -> int:
        """Send ``GET path`` and read the whole answer (its head alone with
        ``head_only``, for an event stream); its status."""
        stream = await self._open()
        request = h11.Request(method="GET", target=path,
                              headers=[("Host", self.host), ("Accept", "*/*")])  # fmt: skip
        head = self.connection.send(request) or b""
        await stream.send_all(head + (self.connection.send(h11.EndOfMessage()) or b""))
        status = 0
        while True:
            event = self.connection.next_event()
            if event is h11.NEED_DATA:
                self.connection.receive_data(await stream.receive_some(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
                if head_only:
                    return status
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                await self.close()
                raise ConnectionError(f"{path}: closed before the answer's end")
        if self.connection.our_state is h11.DONE and self.connection.their_state is h11.DONE:
            self.connection.start_next_cycle()
        else:
            await self.close()
        return status

    async def read_stream(self) -> None:
        """Read an event stream's bytes until it ends (an error if it ends)."""
        assert self.stream is not None
        while True:
            event = self.connection.next_event()
            if event is h11.NEED_DATA:
                self.connection.receive_data(await self.stream.receive_some(65536))
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                raise ConnectionError("the event stream ended")


async def generate(args: argparse.Namespace) -> dict[str, object]:
    """Hold the streams, run the fetchers between ``go`` and ``stop``; the findings."""
    errors: list[str] = []
    times: list[float] = []
    kinds: list[list[str]] = json.loads(args.paths)
    stop = trio.Event()

    async def hold(opened: trio.Event, counter: list[int]) -> None:
        client = PageClient(args.host, args.port)
        try:
            status = await client.request("/api/events", head_only=True)
            if status != 200:
                errors.append(f"stream: {status}")
                return
            counter[0] += 1
            if counter[0] == args.streams:
                opened.set()
            await client.read_stream()
        except (OSError, ConnectionError, h11.ProtocolError) as error:
            if not stop.is_set():
                errors.append(f"stream: {error!r}")
        finally:
            await client.close()

    async def fetch(seed: int) -> None:
        chooser = random.Random(seed)
        client = PageClient(args.host, args.port)
        try:
            if args.pause:  # browsing clients arrive one by one, not all in one instant
                with trio.move_on_after(chooser.uniform(0, 2 * args.pause)):
                    await stop.wait()
            for _ in range(args.per_client):
                if stop.is_set():
                    return
                path = chooser.choice(chooser.choice(kinds))
                began = time.perf_counter()
                try:
                    status = await client.request(path)
                    if status != 200:
                        errors.append(f"{path}: {status}")
                except (OSError, ConnectionError, h11.ProtocolError) as error:
                    errors.append(f"{path}: {error!r}")
                    await client.close()
                times.append(time.perf_counter() - began)
                if args.pause:
                    with trio.move_on_after(chooser.uniform(0, 2 * args.pause)):
                        await stop.wait()
        finally:
            await client.close()

    async def watch_stdin() -> None:
        line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        if line.strip() == "stop":  # not its end: the bench closes its side when it waits
            stop.set()

    async with trio.open_nursery() as holding:
        opened, counter = trio.Event(), [0]
        if args.streams:
            for _ in range(args.streams):
                holding.start_soon(hold, opened, counter)
            with trio.move_on_after(30):
                await opened.wait()
        print("ready", flush=True)
        line = await trio.to_thread.run_sync(sys.stdin.readline)
        if line.strip() == "go":
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            began = time.perf_counter()
            async with trio.open_nursery() as fetching:
                fetching.start_soon(watch_stdin)
                async with trio.open_nursery() as clients:
                    for number in range(args.fetchers):
                        clients.start_soon(fetch, args.seed * 10_000 + number)
                fetching.cancel_scope.cancel()
            wall = time.perf_counter() - began
            used = resource.getrusage(resource.RUSAGE_SELF)
            stop.set()
            cpu_s = used.ru_utime - cpu.ru_utime + used.ru_stime - cpu.ru_stime
        else:
            wall = cpu_s = 0.0
        holding.cancel_scope.cancel()
    return {"errors": errors, "times": times, "wall": wall, "cpu": cpu_s,
            "streams": counter[0]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--streams", type=int, default=0)
    parser.add_argument("--fetchers", type=int, default=0)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--pause", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--paths",
        required=True,
        help="a JSON list of lists of paths: a kind, then a path of it, chosen at random",
    )
    args = parser.parse_args()
    print(json.dumps(trio.run(generate, args)), flush=True)


if __name__ == "__main__":
    main()
