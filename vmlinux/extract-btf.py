#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Extract the kernel's built-in BTF (.BTF, CONFIG_DEBUG_INFO_BTF=y) from a
kernel image: an arm64 Image (Debian ships it uncompressed, behind the EFI
stub) or a gzip/xz-compressed one. Writes raw BTF that
`bpftool btf dump file OUT format c` turns into a vmlinux.h.

usage: extract-btf.py VMLINUZ OUT"""
import gzip
import lzma
import struct
import sys

MAGIC = b"\x9f\xeb"                       # BTF_MAGIC 0xeB9F, little-endian
HDR = struct.Struct("<HBBIIIII")         # magic version flags hdr_len type_off type_len str_off str_len


def decompress(data):
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(data)
    return data


def candidates(img):
    """Every offset where a well-formed BTF header and string section sit."""
    pos = img.find(MAGIC)
    while pos >= 0:
        if pos + HDR.size <= len(img):
            _, ver, flags, hdr_len, type_off, type_len, str_off, str_len = HDR.unpack_from(img, pos)
            total = hdr_len + str_off + str_len
            if (ver == 1 and flags == 0 and hdr_len == HDR.size and type_off == 0 and
                    type_len > 0 and str_len > 0 and type_len <= str_off and
                    pos + total <= len(img)):
                strs = img[pos + hdr_len + str_off:pos + total]
                if strs[0] == 0 and strs[-1] == 0:
                    yield pos, total
        pos = img.find(MAGIC, pos + 1)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        img = decompress(f.read())
    found = list(candidates(img))
    if not found:
        sys.exit("%s: no BTF found (a kernel without CONFIG_DEBUG_INFO_BTF?)" % sys.argv[1])
    off, size = max(found, key=lambda c: c[1])     # vmlinux's BTF is by far the largest
    with open(sys.argv[2], "wb") as f:
        f.write(img[off:off + size])
    sys.stderr.write("BTF: %d bytes at %#x\n" % (size, off))


if __name__ == "__main__":
    main()
