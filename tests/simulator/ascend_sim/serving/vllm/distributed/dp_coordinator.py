"""Multi-node data parallelism: head/worker rank registration over the DP RPC port.

The head (``--data-parallel-address A --data-parallel-rpc-port P``) owns ranks
``0 .. size_local-1`` and listens on ``P``. A ``--headless`` worker started with
``--data-parallel-start-rank R --data-parallel-size-local L`` connects, registers ranks
``R .. R+L-1`` and sends a heartbeat every ASCEND_SIM_DP_HEARTBEAT_SECONDS; it reconnects
when the head goes away. The head serves only while every remote rank is registered and
alive (a closed connection or ASCEND_SIM_DP_TIMEOUT_SECONDS of silence drops it).

Wire format: one JSON object per line.
  worker -> head  {"op": "register", "start_rank": R, "size_local": L, "size": N,
                   "host": "...", "pid": n}
  head -> worker  {"ok": true} | {"ok": false, "error": "..."}
  worker -> head  {"op": "heartbeat"}      head -> worker {"ok": true}
"""
import json
import os
import socket
import threading
import time

from vllm import envs
from vllm.logger import init_logger

logger = init_logger(__name__)


def _ranks_text(ranks):
    ranks = sorted(ranks)
    if not ranks:
        return "-"
    if ranks == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 1:
        return f"{ranks[0]}-{ranks[-1]}"
    return ",".join(str(r) for r in ranks)


def _send(sock, obj):
    sock.sendall((json.dumps(obj) + "\n").encode("utf-8"))


class _LineReader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def readline(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                return None
            self.buf += chunk
            if len(self.buf) > 65536:
                raise ValueError("line too long")
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line.decode("utf-8"))


class DPHead:
    def __init__(self, parallel_config):
        self.size = parallel_config.data_parallel_size
        self.size_local = parallel_config.data_parallel_size_local
        self.address = parallel_config.data_parallel_address
        self.port = parallel_config.data_parallel_rpc_port
        self.expected = set(range(self.size_local, self.size))
        self.owners = {}  # rank -> connection id
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.sock = None
        self._conn_seq = 0

    def start(self):
        sock = socket.socket(socket.AF_INET6 if ":" in self.address else socket.AF_INET,
                             socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.address, self.port))
        except OSError as exc:
            if exc.errno != 99:  # EADDRNOTAVAIL: the address is not on this host
                sock.close()
                raise
            sock.bind(("", self.port))
        sock.listen(16)
        sock.settimeout(0.5)
        self.sock = sock
        threading.Thread(target=self._accept_loop, name="dp-head", daemon=True).start()
        logger.info("Waiting for %d local, %d remote core engine proc(s) to start.",
                    self.size_local, len(self.expected))
        logger.info("Data parallel head listening on tcp://%s:%d for DP ranks %s.",
                    self.address, self.port, _ranks_text(self.expected))

    def close(self):
        self.stop.set()
        if self.sock is not None:
            self.sock.close()

    def missing(self):
        with self.lock:
            return sorted(self.expected - set(self.owners))

    def all_registered(self):
        return not self.missing()

    def _accept_loop(self):
        while not self.stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self._conn_seq += 1
            threading.Thread(target=self._serve_conn, args=(conn, peer, self._conn_seq),
                             name="dp-conn-%d" % self._conn_seq, daemon=True).start()

    def _register(self, conn_id, msg):
        try:
            start, count, size = int(msg["start_rank"]), int(msg["size_local"]), int(msg["size"])
        except (KeyError, TypeError, ValueError):
            return None, "malformed registration"
        if size != self.size:
            return None, (f"data_parallel_size mismatch: head has {self.size}, "
                          f"worker has {size}")
        ranks = set(range(start, start + count))
        if count < 1 or not ranks <= self.expected:
            return None, (f"DP ranks {_ranks_text(ranks)} are not remote ranks of this head "
                          f"(expected {_ranks_text(self.expected)})")
        with self.lock:
            taken = sorted(r for r in ranks if r in self.owners)
            if taken:
                return None, f"DP ranks {_ranks_text(taken)} are already registered"
            for rank in ranks:
                self.owners[rank] = conn_id
        return ranks, None

    def _release(self, conn_id):
        with self.lock:
            ranks = [r for r, owner in self.owners.items() if owner == conn_id]
            for rank in ranks:
                del self.owners[rank]
        return ranks

    def _serve_conn(self, conn, peer, conn_id):
        conn.settimeout(envs.ASCEND_SIM_DP_TIMEOUT_SECONDS)
        reader = _LineReader(conn)
        ranks, host = None, peer[0]
        try:
            msg = reader.readline()
            if not msg or msg.get("op") != "register":
                return
            host = msg.get("host") or host
            ranks, error = self._register(conn_id, msg)
            if error:
                logger.error("Rejected DP worker %s: %s", host, error)
                _send(conn, {"ok": False, "error": error})
                return
            _send(conn, {"ok": True})
            logger.info("DP rank(s) %s registered from %s.", _ranks_text(ranks), host)
            missing = self.missing()
            if missing:
                logger.info("Still waiting for DP rank(s) %s.", _ranks_text(missing))
            else:
                logger.info("All %d remote DP rank(s) registered.", len(self.expected))
            while not self.stop.is_set():
                msg = reader.readline()
                if msg is None:
                    break
                if msg.get("op") == "heartbeat":
                    _send(conn, {"ok": True})
        except (OSError, ValueError):
            pass
        finally:
            released = self._release(conn_id)
            conn.close()
            if released and not self.stop.is_set():
                logger.warning("DP rank(s) %s from %s disconnected; engine not ready "
                               "until they register again.", _ranks_text(released), host)


class DPWorker:
    def __init__(self, parallel_config):
        self.address = parallel_config.data_parallel_address
        self.port = parallel_config.data_parallel_rpc_port
        self.size = parallel_config.data_parallel_size
        self.start_rank = parallel_config.data_parallel_start_rank
        self.size_local = parallel_config.data_parallel_size_local
        self.ranks = list(range(self.start_rank, self.start_rank + self.size_local))

    def run(self, stop):
        """Register and keep the heartbeat until *stop* is set. Returns an exit code."""
        interval = envs.ASCEND_SIM_DP_HEARTBEAT_SECONDS
        waiting_logged = False
        while not stop.is_set():
            try:
                sock = socket.create_connection((self.address, self.port), timeout=2)
            except OSError as exc:
                if not waiting_logged:
                    logger.info("Waiting for data parallel head at tcp://%s:%d (%s).",
                                self.address, self.port, exc)
                    waiting_logged = True
                stop.wait(min(1.0, interval))
                continue
            waiting_logged = False
            try:
                sock.settimeout(max(2.0, interval * 3))
                reader = _LineReader(sock)
                _send(sock, {"op": "register", "start_rank": self.start_rank,
                             "size_local": self.size_local, "size": self.size,
                             "host": socket.gethostname(), "pid": os.getpid()})
                reply = reader.readline()
                if reply is None:
                    raise OSError("connection closed during registration")
                if not reply.get("ok"):
                    logger.error("Data parallel head tcp://%s:%d refused DP rank(s) %s: %s",
                                 self.address, self.port, _ranks_text(self.ranks),
                                 reply.get("error"))
                    return 1
                logger.info("Registered DP rank(s) %s with head tcp://%s:%d.",
                            _ranks_text(self.ranks), self.address, self.port)
                while not stop.wait(interval):
                    _send(sock, {"op": "heartbeat"})
                    if reader.readline() is None:
                        raise OSError("connection closed by head")
            except (OSError, ValueError) as exc:
                if stop.is_set():
                    break
                logger.warning("Lost connection to data parallel head tcp://%s:%d (%s); "
                               "reconnecting.", self.address, self.port, exc)
                stop.wait(min(1.0, interval))
            finally:
                sock.close()
        return 0


def wait_until(predicate, stop, timeout=None, poll=0.1):
    deadline = None if timeout is None else time.monotonic() + timeout
    while not stop.is_set():
        if predicate():
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        stop.wait(poll)
    return False
