#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A stand-in for journald or a syslog daemon on a unix datagram socket, for
tests/integration/t_golden.py: receive.py journal|syslog SOCKET OUT.

Binds SOCKET, then writes SOCKET.ready; every datagram that arrives is one
line of OUT: for the journal, its fields (the native protocol, a memfd
passed with SCM_RIGHTS included) as a JSON object of hex values; for syslog,
the message as hex. A datagram "PGT_GOLDEN_END" ends it. Bounded: 60 s
without a datagram ends it too."""
import array
import json
import os
import socket
import struct
import sys


def journal_fields(data):
    """The native journal protocol: NAME=value lines, or NAME, a newline, a
    64-bit little-endian length, the value and a newline."""
    out, i = {}, 0
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        if b"=" in line:
            name, value = line.split(b"=", 1)
            i = nl + 1
        else:
            name = line
            size = struct.unpack("<Q", data[nl + 1:nl + 9])[0]
            value = data[nl + 9:nl + 9 + size]
            i = nl + 9 + size + 1
        out.setdefault(name.decode(), []).append(value.hex())
    return out


def main():
    kind, path, out = sys.argv[1:4]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.settimeout(60)
    open(path + ".ready", "w").close()
    with open(out, "w") as f:
        while True:
            try:
                data, anc, _, _ = s.recvmsg(1 << 20, socket.CMSG_SPACE(4 * 4))
            except socket.timeout:
                break
            for level, typ, cdata in anc:
                if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                    fds = array.array("i")
                    fds.frombytes(cdata[:len(cdata) - len(cdata) % fds.itemsize])
                    for fd in fds:
                        os.lseek(fd, 0, os.SEEK_SET)
                        chunks = []
                        while True:
                            b = os.read(fd, 1 << 20)
                            if not b:
                                break
                            chunks.append(b)
                        data += b"".join(chunks)
                        os.close(fd)
            if data.startswith(b"PGT_GOLDEN_END"):
                break
            if kind == "journal":
                f.write(json.dumps(journal_fields(data), sort_keys=True) + "\n")
            else:
                f.write(data.hex() + "\n")


if __name__ == "__main__":
    main()
