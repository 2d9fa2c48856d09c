"""A compiler in another process: the main program never waits for it.

:class:`WorkerClient` (in the program) starts one worker process on the first job and talks
to it through two pipes, in length-prefixed pickle frames. Two daemon threads move the
frames (a thread blocked on a pipe holds no GIL), so :meth:`WorkerClient.submit` only queues.
The worker (:func:`main`) compiles one job at a time and answers with the path of what it
wrote, or the reason it failed.

Why a process and not a thread: a compile holds the GIL for minutes (inductor is Python),
takes torch's compile locks and changes process-wide state (config patches, fake modes); a
thread would slow the program down and could deadlock with it. Why not ``multiprocessing``:
its ``spawn`` runs the user's ``__main__`` again in the child and ``fork`` copies a process
with torch's thread pools running. The worker is a fresh ``python -c`` in a new session, so
Ctrl-C reaches the program only; it exits as soon as its input pipe closes (the program
ended or died: the worker's reader thread sees end of file and leaves at once, mid-compile
too), and the program kills it at exit. A forked child of the program forgets the parent's
worker (``os.register_at_fork``) and starts its own when it needs one.
"""
from __future__ import annotations

import atexit
import itertools
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, BinaryIO

_HEADER = struct.Struct("<Q")


def write_frame(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: BinaryIO) -> Any:
    """The next frame's object; None at end of file."""
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    size = _HEADER.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


@dataclass
class Job:
    """One compile request and, once ``done``, its outcome (``path`` or ``error``)."""

    id: int
    request: dict
    done: bool = False
    path: str | None = None
    error: str | None = None
    seconds: float = 0.0
    pid: int = field(default_factory=os.getpid)  # the process that submitted it
    prepare: Any = None


class WorkerClient:
    """The program's side: one worker process, started on the first :meth:`submit`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._outbox: queue.Queue = queue.Queue()
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)

    def submit(self, request: dict, prepare: Any = None) -> Job:
        """Queue ``request`` for the worker; returns at once. ``prepare(request)``, when given,
        runs on the sending thread and returns what is sent (serialising a graph takes a while)."""
        job = Job(next(self._ids), request, prepare=prepare)
        with self._lock:
            self._jobs[job.id] = job
            if self._proc is None:
                self._start()
        self._outbox.put(("compile", job.id, job))
        return job

    def cancel(self, job: Job) -> None:
        """The result is no longer wanted: the worker skips the job if it has not begun."""
        if not job.done and job.pid == os.getpid() and self._proc is not None:
            self._outbox.put(("cancel", job.id, None))

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> None:
        env = dict(os.environ)
        env["AUTOGRAPH"] = "0"  # the worker itself is never instrumented nor reports
        env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
        roots = [os.path.abspath(p) for p in sys.path if p]
        code = ("import sys; sys.path[:0] = %r; "
                "from autograph.backends.compile_worker import main; main()" % (roots,))
        self._proc = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, start_new_session=True, close_fds=True)
        proc = self._proc
        threading.Thread(target=self._send, args=(proc,), name="autograph-compile-send", daemon=True).start()
        threading.Thread(target=self._receive, args=(proc,), name="autograph-compile-receive",
                         daemon=True).start()

    def _send(self, proc: subprocess.Popen) -> None:
        try:
            while True:
                item = self._outbox.get()
                if item is None:
                    return
                kind, job_id, payload = item
                if kind == "compile":
                    try:
                        payload = payload.prepare(payload.request) if payload.prepare else payload.request
                    except Exception as exc:  # noqa: BLE001 - the job fails, the worker lives on
                        self._finish(job_id, None, f"{type(exc).__name__}: {exc}", 0.0)
                        continue
                write_frame(proc.stdin, (kind, job_id, payload))
        except (OSError, ValueError):  # the worker is gone: _receive fails the jobs
            return

    def _receive(self, proc: subprocess.Popen) -> None:
        try:
            while True:
                msg = read_frame(proc.stdout)
                if msg is None:
                    break
                self._finish(msg["id"], msg.get("path"), msg.get("error"), msg.get("seconds", 0.0))
        except (OSError, ValueError, EOFError, pickle.UnpicklingError):
            pass
        code = proc.wait()
        with self._lock:
            if self._proc is proc:
                self._proc = None
            pending, self._jobs = self._jobs, {}
        for job in pending.values():
            job.error = f"the compile worker exited (code {code}) before finishing"
            job.done = True

    def _finish(self, job_id: int, path: str | None, error: str | None, seconds: float) -> None:
        job = self._jobs.pop(job_id, None)
        if job is not None:
            job.path, job.error, job.seconds = path, error, seconds
            job.done = True

    def shutdown(self) -> None:
        """Stop the worker now (at exit: a compile in progress is abandoned)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self._outbox.put(None)
        try:
            proc.kill()
        except OSError:
            pass

    def forget_after_fork(self) -> None:
        """In a forked child: the parent's worker and threads are not ours."""
        proc = self._proc
        self.__init__()
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                try:
                    os.close(stream.fileno())
                except (OSError, ValueError):
                    pass


_client: WorkerClient | None = None
_client_lock = threading.Lock()


def client() -> WorkerClient:
    """The process's worker client (one worker per process)."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                _client = WorkerClient()
    return _client


def _shutdown_at_exit() -> None:
    if _client is not None:
        _client.shutdown()


def _after_fork_in_child() -> None:
    if _client is not None:
        _client.forget_after_fork()


atexit.register(_shutdown_at_exit)
os.register_at_fork(after_in_child=_after_fork_in_child)


# ---------------------------------------------------------------- the worker process

def main() -> None:
    """The worker's loop: read jobs, compile them one at a time, answer each."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything a compiler prints goes to stderr, never into the answers
    try:
        os.nice(10)  # the program's own work comes first
    except OSError:
        pass
    jobs: queue.Queue = queue.Queue()
    cancelled: set[int] = set()

    def read_jobs() -> None:
        while True:
            try:
                msg = read_frame(proto_in)
            except Exception:  # noqa: BLE001 - a broken pipe is the end of the program
                msg = None
            if msg is None:
                os._exit(0)  # the program is gone: stop at once, mid-compile too
            kind, job_id, request = msg
            if kind == "cancel":
                cancelled.add(job_id)
            else:
                jobs.put((job_id, request))

    threading.Thread(target=read_jobs, daemon=True).start()
    while True:
        job_id, request = jobs.get()
        if job_id in cancelled:
            continue
        write_frame(proto_out, run_job(job_id, request))


def run_job(job_id: int, request: dict) -> dict:
    """Compile one request with the compiler it names; the answer names the file or the failure."""
    import time
    import traceback

    t0 = time.perf_counter()
    try:
        compile_fn = import_object(request["compiler"])
        path = compile_fn(request)
        return {"id": job_id, "path": path, "seconds": time.perf_counter() - t0}
    except BaseException as exc:  # noqa: BLE001 - every failure is an answer, never a dead worker
        where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        at = f" (at {where[0].filename}:{where[0].lineno})" if where else ""
        return {"id": job_id, "error": f"{type(exc).__name__}: {exc}{at}".strip(),
                "seconds": time.perf_counter() - t0}


def import_object(spec: str) -> Any:
    """``module:attr.path`` → the object."""
    import importlib

    module, _, name = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj
