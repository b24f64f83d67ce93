"""The site's run lock: one changing run per site at a time, and what a killed run left behind.

A run that changes the site is held by an exclusive flock(2) on ``<lock_dir>/<site>.lock`` for its
whole life. The run's first changing playbook task (the ``run_lock`` action) starts a small keeper
process (``aipod_run.keeper``) that takes the lock for the run's main process and holds it until
that process has ended and no process of the run is left: Ansible's workers call setsid, so killing
the run's process group misses them, and a worker running DeepOps goes on for minutes. The keeper
notes the main process's children (the workers) while it lives; those still there once it is gone,
and what runs in their sessions, are what the run left. The kernel drops the lock with the keeper,
so a killed run never leaves a lock that blocks the next one.

Who holds the lock is written beside it, in ``<site>.run.json`` (replaced atomically), with the
run's end once it reaches it: a record without an end, whose lock is free, is a run that was
stopped (killed, or failed before its last play).

Pure functions and one class; the keeper and the run_lock action are the glue.
"""
from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import getpass
import json
import os
import re
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

RECORD_LIMIT = 1024 * 1024
# How long a slice waits for another slice of the site to finish joining or updating the record.
GATE_SECONDS = 30.0
KEEPER_MODULE = "aipod_run.keeper"
SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Holder:
    """The run that holds (or last held) a site's lock."""

    pid: int
    user: str
    host: str
    playbook: str
    started: float
    boot_id: str = ""
    start_ticks: int = 0
    command: str = ""
    awx_job: str = ""
    finished: float | None = None
    outcome: str = ""
    # Set once the run reaches a step that arms a safety net which fires by itself (the compute
    # layer: a DGX's storage-network rollback timer). A run killed after that owes the site a
    # resolution, which every later run carries in `owes` until a run resolves it.
    may_arm: bool = False
    owes: str = ""
    # [pid, start ticks] of the processes the run's main process had started (its workers), as the
    # keeper saw them; once the main process is gone, those still there are what the run left.
    left: list = field(default_factory=list)
    # A sliced job (AWX job slicing) holds the site as one run: its slices share the lock. The record
    # is the first slice's; each slice is a member, {id, awx_job, may_arm, finished, outcome}.
    slice_group: str = ""
    members: list = field(default_factory=list)

    def describe(self, now: float | None = None) -> str:
        """'site.yml by alice@ctl01 (pid 4242, AWX job 17), started 2026-11-25 10:02:11 UTC, 3 min ago'"""
        now = time.time() if now is None else now
        when = datetime.datetime.fromtimestamp(self.started, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        job = f", AWX job {self.awx_job}" if self.awx_job else ""
        sliced = f", one of the {len(self.members)} slice(s) of sliced job {self.slice_group}" if self.slice_group else ""
        return (f"{self.playbook} by {self.user}@{self.host} (pid {self.pid}{job}{sliced}), started {when}, "
                f"{_ago(now - self.started)}")


@dataclass
class Process:
    """A process found holding the lock file or serving a dead run's persistent connection."""

    pid: int
    command: str

    def __str__(self) -> str:
        return f"{self.pid} ({self.command})"


@dataclass
class Outcome:
    """What taking the lock found. ``taken`` False means refused, with ``refusal`` saying why."""

    taken: bool
    site: str
    path: str
    refusal: str = ""
    previous: Holder | None = None
    previous_interrupted: bool = False
    waited_seconds: float = 0.0
    survivors: list[Process] = field(default_factory=list)
    nested_in: Holder | None = None
    # A run stopped after it could arm a DGX's storage-network rollback, and no run has resolved it
    # since: what it was ('' when nothing is owed).
    owes: str = ""

    def report(self) -> dict:
        """The run report's section: the lock, and the previous run when it did not finish."""
        section: dict = {"site": self.site, "lock": self.path, "taken": self.taken}
        if self.previous is not None:
            section["previous_run"] = {**asdict(self.previous), "interrupted": self.previous_interrupted}
        if self.waited_seconds:
            section["waited_for_survivors_seconds"] = round(self.waited_seconds, 1)
        if self.survivors:
            section["survivors"] = [str(process) for process in self.survivors]
        if self.refusal:
            section["refusal"] = self.refusal
        if self.nested_in is not None:
            section["nested_in"] = asdict(self.nested_in)
        if self.owes:
            section["owes"] = self.owes
        return section


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s ago"
    if seconds < 7200:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"


def site_file_name(site: str) -> str:
    """A file name for a site's name: the name itself when it is plain, never a path."""
    cleaned = SAFE_NAME.sub("-", site).strip(".-") or "site"
    return cleaned[:100]


def boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def start_ticks(pid: int) -> int:
    """The process's start time in clock ticks since boot (0 when it does not exist, or has ended
    and waits for its parent to reap it): with the boot id it tells a live holder from a recycled pid."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return 0
    # The command name (field 2) is in parentheses and may hold spaces: fields resume after the last ')'.
    fields = stat[stat.rfind(")") + 2:].split()
    if not fields or fields[0] in ("Z", "X"):
        return 0
    return int(fields[19]) if len(fields) > 19 else 0


def holder_alive(holder: Holder, this_host: str, this_boot: str) -> bool | None:
    """True or False for a holder on this control node; None when it ran elsewhere (unknowable here)."""
    if holder.host != this_host:
        return None
    if holder.boot_id and this_boot and holder.boot_id != this_boot:
        return False
    ticks = start_ticks(holder.pid)
    return ticks != 0 and (not holder.start_ticks or ticks == holder.start_ticks)


def read_holder(path: str) -> Holder | None:
    """The record beside a lock; None when there is none or it cannot be read as one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.loads(handle.read(RECORD_LIMIT))
        return Holder(**{key: data[key] for key in Holder.__dataclass_fields__ if key in data})
    except (OSError, ValueError, TypeError, KeyError):
        return None


def write_holder(path: str, holder: Holder) -> None:
    """Replace the record atomically, so a reader never sees half of it."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(asdict(holder), handle, indent=2, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def command_line(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return [part.decode("utf-8", "replace") for part in handle.read().split(b"\0") if part]
    except OSError:
        return []


def shown_command(argv: list[str]) -> str:
    """The run's command line with the values of extra variables left out: they may hold secrets."""
    shown, hide_next = [], False
    for part in argv:
        if hide_next:
            shown.append("<extra vars>")
            hide_next = False
        elif part in ("-e", "--extra-vars"):
            shown.append(part)
            hide_next = True
        elif part.startswith("--extra-vars="):
            shown.append("--extra-vars=<extra vars>")
        elif part.startswith("-e") and len(part) > 2:
            shown.append("-e<extra vars>")
        else:
            shown.append(part)
    return _short(shown)


# ansible-playbook's options that take a value, which is never a playbook.
_VALUED_OPTIONS = frozenset({"-i", "--inventory", "--inventory-file", "-e", "--extra-vars", "-l", "--limit", "-t", "--tags",
                             "--skip-tags", "-u", "--user", "-f", "--forks", "-M", "--module-path", "-c", "--connection",
                             "-T", "--timeout", "--vault-id", "--vault-password-file", "--vault-pass-file",
                             "--private-key", "--key-file", "--start-at-task", "--become-method", "--become-user",
                             "--become-password-file", "--connection-password-file", "--ssh-common-args",
                             "--ssh-extra-args", "--sftp-extra-args", "--scp-extra-args"})
_PLAYBOOK_NAME = re.compile(r"(.+\.ya?ml|[A-Za-z_]\w*\.[A-Za-z_]\w*\.[A-Za-z_][\w.]*)")


def playbooks_of(argv: list[str]) -> str:
    """The playbooks an ansible-playbook command line runs, by file name or FQCN ('' when none)."""
    found, skip_next = [], False
    for part in argv[1:]:
        if skip_next:
            skip_next = False
        elif part in _VALUED_OPTIONS:
            skip_next = True
        elif not part.startswith("-") and _PLAYBOOK_NAME.fullmatch(part) and "ansible-playbook" not in part:
            found.append(os.path.basename(part))
    return " ".join(found)


def _short(argv: list[str]) -> str:
    text = " ".join(argv)
    return text if len(text) <= 160 else text[:157] + "..."


def _pids() -> Iterable[int]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return sorted(int(name) for name in names if name.isdigit())


def _holders(opened: Callable[[str], bool]) -> Iterable[int]:
    """Processes (this one left out) with an open file descriptor for which ``opened`` (given
    /proc/<pid>/fd/<n>) is true."""
    for pid in _pids():
        if pid == os.getpid():
            continue
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for descriptor in descriptors:
            try:
                if opened(f"/proc/{pid}/fd/{descriptor}"):
                    yield pid
                    break
            except OSError:
                continue


def processes_holding(path: str) -> list[Process]:
    """Processes with the lock file open (this process excluded), found through /proc/<pid>/fd."""
    try:
        wanted = os.stat(path)
    except OSError:
        return []

    def is_it(descriptor: str) -> bool:
        opened = os.stat(descriptor)
        return (opened.st_dev, opened.st_ino) == (wanted.st_dev, wanted.st_ino)

    return [Process(pid, _short(command_line(pid))) for pid in _holders(is_it)]


def orphaned_connections(dead_pid: int) -> list[Process]:
    """ansible-connection processes started for a run that is gone.

    Ansible starts a persistent connection (network_cli, the switch layer) as
    ``ansible-connection <run pid> <task uuid>`` in a process of its own, which does not hold the
    lock; it ends by itself once idle (persistent_connect_timeout), and may be mid-command until then.
    """
    found = []
    for pid in _pids():
        argv = command_line(pid)
        for index, part in enumerate(argv[:-1]):
            if os.path.basename(part) == "ansible-connection" and argv[index + 1] == str(dead_pid):
                found.append(Process(pid, _short(argv)))
                break
    return found


def _stat(pid: int) -> tuple[int, int] | None:
    """(session id, start ticks) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return int(fields[3]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def children_of(pid: int) -> dict[int, int]:
    """The children of a process, {pid: start ticks}, from /proc/<pid>/task/*/children."""
    found: dict[int, int] = {}
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", encoding="ascii") as handle:
                children = [int(child) for child in handle.read().split()]
        except (OSError, ValueError):
            continue
        for child in children:
            ticks = start_ticks(child)
            if ticks:
                found[child] = ticks
    return found


def shared_pipes(pid: int) -> set[str]:
    """The pipes and sockets a process has open beyond its standard streams ('pipe:[inode]'): a
    process forked from it holds them too, such as the queue an Ansible worker reports through."""
    found = set()
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return found
    for descriptor in descriptors:
        if not descriptor.isdigit() or int(descriptor) < 3:
            continue
        try:
            target = os.readlink(f"/proc/{pid}/fd/{descriptor}")
        except OSError:
            continue
        if target.startswith(("pipe:", "socket:")):
            found.add(target)
    return found


def holding_any(targets: set[str]) -> dict[int, int]:
    """Processes that hold one of these pipes or sockets, {pid: start ticks} (this process left out)."""
    if not targets:
        return {}
    found = {pid: start_ticks(pid) for pid in _holders(lambda descriptor: os.readlink(descriptor) in targets)}
    return {pid: ticks for pid, ticks in found.items() if ticks}


def processes_of_run(holder: Holder) -> list[Process]:
    """The processes of a run whose main process is gone: the workers it left (holder.left, each
    still the process the keeper saw) and what runs in their sessions. Ansible's workers call
    setsid, so a module or a child ansible-playbook a worker started is in the worker's session."""
    if holder.boot_id != boot_id():
        return []
    workers = {pid for pid, ticks in (tuple(pair) for pair in holder.left if len(pair) == 2) if start_ticks(pid) == ticks}
    if not workers:
        return []
    found = []
    for pid in _pids():
        stat = _stat(pid) if pid != os.getpid() else None
        if stat and (pid in workers or (stat[0] in workers and stat[1] >= holder.start_ticks)):
            found.append(Process(pid, _short(command_line(pid))))
    return found


def left_by(holder: Holder, lock_path: str) -> list[Process]:
    """What a stopped run left: its processes, anything else holding the lock file but the keeper
    that holds it for them, and its persistent connections."""
    found = {process.pid: process for process in processes_of_run(holder)}
    for process in processes_holding(lock_path):
        if not any(KEEPER_MODULE in part for part in command_line(process.pid)):
            found.setdefault(process.pid, process)
    for process in orphaned_connections(holder.pid):
        found.setdefault(process.pid, process)
    return [found[pid] for pid in sorted(found)]


def parent_pid(pid: int) -> int | None:
    """The parent of a process of this machine, from /proc (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def is_ancestor(pid: int, child: int | None = None) -> bool:
    """Whether `pid` is this process's parent, grandparent, ... (or `child`'s)."""
    current = os.getpid() if child is None else child
    for _depth in range(64):
        current = parent_pid(current)
        if current is None or current <= 1:
            return False
        if current == pid:
            return True
    return False


def owed_by(previous: Holder | None) -> str:
    """The run that may have left a DGX's storage-network rollback armed, which no run has resolved
    since ('' when none). Owed until a run's compute layer converges every DGX (mark_resolved),
    whether the run that armed was killed, failed or went on to another layer."""
    if previous is None:
        return ""
    return previous.describe() if previous.may_arm else previous.owes


def owed_refusal(owes: str) -> str:
    """Why a run that does not resolve an owed rollback is refused, and what resolves it."""
    return (f"the run {owes} stopped after its compute layer could arm a storage-network rollback on the DGX, and no "
            "run has resolved that since: the rollback fires by itself and would take the storage network away after "
            "this run reported success. Run compute.yml (or site.yml) first, on every DGX: no --limit, and --tags (if "
            "any) with compute. It keeps the change where the management path answers and lets the rollback restore "
            "the previous network where it does not. This run changed nothing.")


def open_lock_file(path: str) -> int:
    """A descriptor to flock ``path`` with, created 0664 whatever the umask, so that another user of
    the group may lock it too. Opened for writing where this user may: on NFS, Linux emulates flock
    with a byte-range lock, and an exclusive one needs a descriptor open for writing. Read-only
    otherwise: a local flock needs no write access."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o664)
    except PermissionError:
        descriptor = os.open(path, os.O_RDONLY | os.O_CREAT, 0o664)
    if os.fstat(descriptor).st_uid == os.getuid():
        os.fchmod(descriptor, 0o664)
    return descriptor


class RunLock:
    """The lock of one site, taken once by the run's main process and held until it exits."""

    def __init__(self, lock_dir: str, site: str):
        self.site = site
        self.directory = os.path.abspath(os.path.expanduser(lock_dir))
        name = site_file_name(site)
        self.path = os.path.join(self.directory, f"{name}.lock")
        self.record_path = os.path.join(self.directory, f"{name}.run.json")
        self._fd: int | None = None
        self._holder: Holder | None = None
        # The member this lock holds for, when it holds for a slice of a sliced job.
        self._member_id = ""

    def _try(self, exclusive: bool = True) -> bool:
        if self._fd is None:
            os.makedirs(self.directory, mode=0o775, exist_ok=True)
            self._fd = open_lock_file(self.path)
        try:
            fcntl.flock(self._fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
            return True
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                return False
            raise

    def held_by_other(self) -> Holder | None:
        """For a run that takes no lock: the changing run holding it now, if any."""
        if not os.path.exists(self.path):
            return None
        try:
            free = self._try(exclusive=False)
        except OSError:
            return None
        if free:
            record = read_holder(self.record_path)
            # A sliced job's slices hold the lock shared, which a shared probe does not see: one
            # exclusive probe tells them from a free lock (only while such a job may be running).
            sliced = record is not None and record.slice_group and record.finished is None
            if sliced and not self._try():
                return record
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            return None
        return read_holder(self.record_path) or Holder(0, "?", "?", "an unknown run", time.time())

    def take(self, me: Holder, wait_seconds: float, progress: Callable[[str], None] = lambda _: None,
             sleep: Callable[[float], None] = time.sleep) -> Outcome:
        """Take the lock for the run ``me``, or say who has it.

        A live run holding it is a refusal at once. Processes left by a killed run (its record is
        there, its main process is gone) are waited for up to ``wait_seconds``, then named.
        """
        this_host, this_boot = me.host, me.boot_id
        previous = read_holder(self.record_path)
        outcome = Outcome(taken=False, site=self.site, path=self.path, previous=previous)
        started = time.monotonic()
        announced = False
        while not self._try():
            holder = read_holder(self.record_path)
            alive = holder_alive(holder, this_host, this_boot) if holder else None
            if holder is not None and alive and holder.host == this_host and is_ancestor(holder.pid, me.pid):
                # A playbook the holding run itself started (a task running ansible-playbook on the
                # same site): it runs under its parent's lock, which is held for both.
                outcome.nested_in = holder
                return outcome
            if holder is None or alive is not False or (holder.slice_group and holder.finished is None):
                # A sliced job's slices hold the lock together: while the job runs, one of them has it.
                # (Once it has finished, a lock held a moment is a reader's probe: try again below.)
                who = holder.describe() if holder else f"a run whose record {self.record_path} cannot be read"
                outcome.refusal = (f"another run is changing the site '{self.site}': {who}. This run changed nothing. "
                                   "Wait for it to finish, or stop it; the lock goes with it "
                                   f"({self.path}).")
                return outcome
            survivors = left_by(holder, self.path)
            waited = time.monotonic() - started
            if waited >= wait_seconds:
                names = ", ".join(str(process) for process in survivors) or "none found on this control node"
                outcome.survivors = survivors
                outcome.refusal = (f"the run {holder.describe()} was stopped, but processes it started still hold the "
                                   f"site '{self.site}' after {int(waited)} s: {names}. This run changed nothing. "
                                   "They may still be changing devices: let them end, or stop them "
                                   f"(kill {' '.join(str(p.pid) for p in survivors) or '<pid>'}), then run again.")
                return outcome
            if not announced:
                progress(f"the run {holder.describe()} was stopped; waiting up to {int(wait_seconds)} s for "
                         f"{len(survivors)} process(es) it left: " + ", ".join(str(p) for p in survivors))
                announced = True
            sleep(1.0)
        outcome.waited_seconds = time.monotonic() - started if announced else 0.0
        # Persistent connections hold no lock: wait for those of the previous run too.
        if previous is not None and previous.finished is None:
            outcome.previous_interrupted = True
            while (leftover := orphaned_connections(previous.pid)) and time.monotonic() - started < wait_seconds:
                if not announced:
                    progress("waiting for the persistent connections the stopped run left: "
                             + ", ".join(str(p) for p in leftover))
                    announced = True
                sleep(1.0)
            outcome.waited_seconds = time.monotonic() - started if announced else 0.0
            if leftover:
                # A connection that outlives the wait may still be sending a switch configuration.
                fcntl.flock(self._fd, fcntl.LOCK_UN)
                outcome.survivors = leftover
                outcome.refusal = (f"the run {previous.describe()} was stopped, but persistent connections it opened are "
                                   f"still open after {int(outcome.waited_seconds)} s: "
                                   + ", ".join(str(process) for process in leftover)
                                   + ". This run changed nothing. They may still be sending commands to a device: let them "
                                   f"end (persistent_connect_timeout), or stop them (kill {' '.join(str(p.pid) for p in leftover)}), "
                                   "then run again.")
                return outcome
        outcome.owes = owed_by(previous)
        me.owes = outcome.owes
        self._holder = me
        write_holder(self.record_path, me)
        outcome.taken = True
        return outcome

    @contextlib.contextmanager
    def _gate(self, timeout: float = GATE_SECONDS, sleep: Callable[[float], None] = time.sleep):
        """A short exclusive lock on <site>.gate, held while a slice joins its job or updates its
        member: slices of different jobs never both join, and no member's update is lost."""
        os.makedirs(self.directory, mode=0o775, exist_ok=True)
        descriptor = open_lock_file(self.path[:-len(".lock")] + ".gate")
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as error:
                    if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                    if time.monotonic() > deadline:
                        raise TimeoutError(errno.ETIMEDOUT, f"another slice of site '{self.site}' kept its gate "
                                           f"({os.path.basename(self.path[:-len('.lock')])}.gate) for {timeout:.0f} s") from error
                    sleep(0.05)
            yield
        finally:
            os.close(descriptor)

    def take_slice(self, me: Holder, group: str, wait_seconds: float, progress: Callable[[str], None] = lambda _: None,
                   sleep: Callable[[float], None] = time.sleep) -> Outcome:
        """Take the lock for one slice of the sliced job ``group``.

        The slices of one job share it (flock LOCK_SH): the first takes it as a run does, the others
        join while it is held. Any other run, another sliced job's slices included, is refused as
        by take(): the record then names the sliced job.
        """
        # The first slice may wait up to wait_seconds for what a stopped run left, inside the gate.
        with self._gate(timeout=wait_seconds + GATE_SECONDS):
            holder = read_holder(self.record_path)
            if holder is not None and holder.slice_group == group and not self._try() and self._try(exclusive=False):
                current, member = read_holder(self.record_path) or holder, _member(me)
                current.members.append(member)
                current.finished, current.outcome = None, ""
                write_holder(self.record_path, current)
                self._holder, self._member_id = current, member["id"]
                return Outcome(taken=True, site=self.site, path=self.path, previous=None, owes=current.owes)
            outcome = self.take(me, wait_seconds, progress, sleep)
            if outcome.taken:
                member = _member(me)
                me.slice_group, me.members = group, [member]
                write_holder(self.record_path, me)
                self._member_id = member["id"]
                # The job's other slices join while this one holds it.
                fcntl.flock(self._fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return outcome

    def _update_member(self, change: Callable[[dict], None]) -> None:
        """Change this slice's member in the record, then what the record says of the whole job."""
        with self._gate():
            current = read_holder(self.record_path)
            if current is None or current.slice_group != self._holder.slice_group:
                return
            for member in current.members:
                if member.get("id") == self._member_id:
                    change(member)
            current.may_arm = any(member.get("may_arm") for member in current.members)
            if all(member.get("finished") for member in current.members):
                current.finished = max(member["finished"] for member in current.members)
                current.outcome = "ok" if all(member.get("outcome") == "ok" for member in current.members) else "failed"
            else:
                current.finished, current.outcome = None, ""
            self._holder = current
            write_holder(self.record_path, current)

    def mark_may_arm(self) -> None:
        """Record that this run reached a step that arms a safety net which fires by itself."""
        if self._member_id:
            self._update_member(lambda member: member.update(may_arm=True, finished=None, outcome=""))
            return
        if self._holder is None or (self._holder.may_arm and self._holder.finished is None):
            return
        self._holder.may_arm = True
        # The run goes on after an imported playbook's end: it is not finished until its own end.
        self._holder.finished, self._holder.outcome = None, ""
        write_holder(self.record_path, self._holder)

    def mark_resolved(self) -> None:
        """Record that this run's compute layer converged every DGX: no rollback is left armed, by
        this run or an earlier one, so nothing is owed any more."""
        if self._member_id:
            # A slice converged its own DGX only: what an earlier run left owed stays owed until a
            # run converges every DGX.
            self._update_member(lambda member: member.update(may_arm=False))
            return
        if self._holder is None:
            return
        self._holder.may_arm = False
        self._holder.owes = ""
        write_holder(self.record_path, self._holder)

    def finish(self, outcome: str) -> None:
        """Mark the run finished (the lock itself goes when the keeper exits)."""
        if self._member_id:
            self._update_member(lambda member: member.update(finished=time.time(), outcome=outcome))
            return
        if self._holder is None:
            return
        self._holder.finished = time.time()
        self._holder.outcome = outcome
        write_holder(self.record_path, self._holder)

    @property
    def holder(self) -> Holder | None:
        """The record of the run this lock is held for (None until taken or adopted)."""
        return self._holder

    def release(self) -> None:
        """Drop the lock now (a keeper's exit does the same)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def record_left(self, processes: dict[int, int]) -> None:
        """Record the workers the run's main process left ({pid: start ticks}) for the next run to name.
        Not for a slice: the record is its job's, whose other slices may be writing it."""
        if self._holder is None or self._member_id:
            return
        current = read_holder(self.record_path)
        if current is not None:  # a step of the run (may_arm, finished) may have written it since
            current.left = [[pid, ticks] for pid, ticks in sorted(processes.items())]
            self._holder = current
            write_holder(self.record_path, current)

    def adopt(self, pid: int) -> bool:
        """Take up the record of the run whose main process is ``pid``, for a step of that run that
        runs in another process (an Ansible worker): False when the record is another run's."""
        holder = read_holder(self.record_path)
        # A run's record may say it finished and the run go on: a playbook that imports several of
        # the collection's playbooks reaches the end of each.
        if holder is not None and holder.slice_group:
            wanted = _member_id(socket.gethostname(), pid, start_ticks(pid), boot_id())
            if not any(member.get("id") == wanted for member in holder.members):
                return False
            self._holder, self._member_id = holder, wanted
            return True
        if holder is None or holder.pid != pid:
            return False
        if holder.boot_id != boot_id() or start_ticks(pid) != holder.start_ticks:
            return False
        self._holder = holder
        return True

    def finished_for(self, holder: Holder) -> bool:
        """Whether the run ``holder`` (a slice: its member) reached its end, as the record says."""
        record = read_holder(self.record_path)
        if record is None:
            return False
        if record.slice_group:
            wanted = _member(holder)["id"]
            return any(member.get("id") == wanted and member.get("finished") for member in record.members)
        return record.pid == holder.pid and record.finished is not None


def _member_id(host: str, pid: int, ticks: int, boot: str) -> str:
    return f"{host}:{boot}:{pid}:{ticks}"


def _member(holder: Holder) -> dict:
    """A slice's entry in its sliced job's record."""
    return {"id": _member_id(holder.host, holder.pid, holder.start_ticks, holder.boot_id), "awx_job": holder.awx_job,
            "may_arm": False, "finished": None, "outcome": ""}


def this_run(playbook: str, argv: list[str], environ: dict | None = None, pid: int | None = None) -> Holder:
    """The Holder record of the run whose main process is ``pid`` (default: the calling process)."""
    environ = os.environ if environ is None else environ
    pid = os.getpid() if pid is None else pid
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    return Holder(pid=pid, user=user, host=socket.gethostname(), playbook=playbook, started=time.time(),
                  boot_id=boot_id(), start_ticks=start_ticks(pid), command=shown_command(argv),
                  awx_job=str(environ.get("JOB_ID") or environ.get("AWX_JOB_ID") or ""))
