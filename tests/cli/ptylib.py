"""ptylib: the program run on a pseudo-terminal, its output read whole.

    from ptylib import Terminal
    term = Terminal(command, env, columns=80, rows=24)
    shown = term.read_until(b"[step 1 of", 20)   # while it runs
    term.write(b"q")
    status, rest = term.finish(10)              # to the end of its output

Reading the terminal's master side until read() fails with EIO loses
output: Linux may report EIO as soon as the program has closed the
terminal while the last bytes it wrote are still on their way to the
master (a 6-line output lost its last 5 lines in about 1 run in 20 on a
busy machine). So the test keeps a descriptor of the terminal's slave
side open, which keeps EIO away, waits for the program to end, then
writes a marker into the terminal behind the program's bytes and reads
up to the marker: everything the program wrote comes before it.
"""
import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import time

TERMINAL = object()  # a stream of the program that is the terminal
_END = b"\x00\x01end of the program's output\x01\x00"


def _as_terminal(tty_fd):
    def child():
        # a shell starts a command in a terminal with these at their
        # defaults, whatever the test itself inherited (a background
        # job, for one, starts with SIGINT and SIGQUIT ignored)
        for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE,
                    signal.SIGXFSZ, signal.SIGTSTP, signal.SIGTTOU,
                    signal.SIGTTIN):
            signal.signal(sig, signal.SIG_DFL)
        fcntl.ioctl(tty_fd, termios.TIOCSCTTY, 0)
    return child


class Terminal:
    """command on a new pseudo-terminal of columns x rows, its session's
    controlling terminal; stdin, stdout and stderr are the terminal
    unless given (subprocess's values)."""

    def __init__(self, command, env=None, columns=80, rows=24,
                 stdin=TERMINAL, stdout=TERMINAL, stderr=TERMINAL):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ,
                    struct.pack("HHHH", rows, columns, 0, 0))
        streams = [slave if s is TERMINAL else s
                   for s in (stdin, stdout, stderr)]
        first = [s is TERMINAL for s in (stdin, stdout, stderr)].index(True)
        try:
            self.proc = subprocess.Popen(
                command, stdin=streams[0], stdout=streams[1],
                stderr=streams[2], env=env, start_new_session=True,
                preexec_fn=_as_terminal(first))
            # the test's own descriptor of the slave side, a separate
            # open file (O_NONBLOCK here is not the program's)
            self.slave = os.open(os.ttyname(slave),
                                 os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        finally:
            os.close(slave)
        self.pid = self.proc.pid

    def write(self, data):
        """Types data at the terminal."""
        os.write(self.master, data)

    def read_until(self, marker, seconds):
        """Bytes the program writes until marker has come (None: until
        the time is up)."""
        data = b""
        end = time.monotonic() + seconds
        while marker is None or marker not in data:
            left = end - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([self.master], [], [], min(left, 0.2))
            if ready:
                data += os.read(self.master, 65536)
        return data

    def finish(self, seconds):
        """(exit status, the rest of the output) once the program has
        ended; a program still running after `seconds` is killed and its
        status is None."""
        data = b""
        end = time.monotonic() + seconds
        status = None
        while status is None:
            if time.monotonic() > end:
                self.proc.kill()
                self.proc.wait()
                break
            # a full terminal blocks the program: keep reading meanwhile
            ready, _, _ = select.select([self.master], [], [], 0.005)
            if ready:
                data += os.read(self.master, 65536)
            status = self.proc.poll()
        sent = 0
        while not data.endswith(_END):
            if sent < len(_END):
                try:
                    sent += os.write(self.slave, _END[sent:])
                except BlockingIOError:  # full: the reading makes room
                    pass
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                data += os.read(self.master, 65536)
        return status, data[:-len(_END)]

    def settings(self):
        """The terminal's termios settings (tcgetattr), as the program
        left them."""
        return termios.tcgetattr(self.master)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.slave)
        os.close(self.master)
