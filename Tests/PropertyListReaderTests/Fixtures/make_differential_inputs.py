#!/usr/bin/env python3
"""Writes differential-inputs/: small binary property lists, crafted byte by byte, that the shared
corpus lacks and that DifferentialTests adds to its table as "own/NAME": sets (marker 0xC), which
Foundation on Linux crashes on (SIGSEGV) when the set is not empty, and a UID dictionary key.

Run from the project root:  python3 Tests/PropertyListReaderTests/Fixtures/make_differential_inputs.py
then make_plistlib_differential.py, which records plistlib's reading of these files too.
"""
import os
import struct

OUTPUT = os.path.join(os.path.dirname(__file__), "differential-inputs")


def bplist(objects, top=0):
    """A bplist00 file from encoded objects (1-byte offsets and references)."""
    data = bytearray(b"bplist00")
    offsets = []
    for obj in objects:
        offsets.append(len(data))
        data += bytes(obj)
    table = len(data)
    data += bytes(offsets)
    data += bytes([0, 0, 0, 0, 0, 0, 1, 1]) + struct.pack(">QQQ", len(objects), top, table)
    return bytes(data)


CASES = {
    # A set of one integer as the root: 0xC1, one reference.
    "set_root": [[0xC1, 1], [0x10, 5]],
    "set_empty_root": [[0xC0]],
    # {"k": set(5)}
    "set_in_dictionary": [[0xD1, 1, 2], [0x51, 0x6B], [0xC1, 3], [0x10, 5]],
    # [set(5)]
    "set_in_array": [[0xA1, 1], [0xC1, 2], [0x10, 5]],
    "set_of_strings": [[0xC2, 1, 2], [0x51, 0x61], [0x51, 0x62]],
    # {UID(1): 5}
    "uid_as_dictionary_key": [[0xD1, 1, 2], [0x80, 1], [0x10, 5]],
}


def main():
    os.makedirs(OUTPUT, exist_ok=True)
    for name, objects in CASES.items():
        with open(os.path.join(OUTPUT, f"{name}.plist"), "wb") as out:
            out.write(bplist(objects))
    print(f"wrote {len(CASES)} files to {OUTPUT}")


main()
