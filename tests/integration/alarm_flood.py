#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""SIGALRM at 1 kHz, taken by a process without a tty, while a kworker is
kept busy flushing a raw pty (one thread writes into it, one reads it) and a
third thread resizes that pty in a loop (TIOCSWINSZ). Timer interrupts land
on the kworker and on threads inside a tty ioctl: none of those SIGALRMs is
the tty's or the ioctl's. Stops after COUNT signals (default: never)."""
import fcntl
import os
import pty
import signal
import struct
import sys
import termios
import threading
import tty

count = int(sys.argv[1]) if len(sys.argv) > 1 else 0
master, slave = pty.openpty()
tty.setraw(slave)
taken = [0]


def on_alarm(sig, frame):
    taken[0] += 1


def pump():
    while True:
        os.write(master, b"x" * 4096)


def drain():
    while True:
        os.read(slave, 65536)


def resize():
    while True:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))


signal.signal(signal.SIGALRM, on_alarm)
for f in (pump, drain, resize):
    threading.Thread(target=f, daemon=True).start()
signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
while not count or taken[0] < count:
    signal.pause()
signal.setitimer(signal.ITIMER_REAL, 0, 0)
os._exit(0)
