#!/usr/bin/env python3
"""Embed a text file (an OpenCL kernel, an SQL script) into C as a string.

usage: embed.py SYMBOL INPUT OUTPUT
writes `const char SYMBOL[] = "...";` to OUTPUT.
"""
import sys


def main() -> int:
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    symbol, source, target = sys.argv[1:]
    with open(source, "rb") as f:
        data = f.read()
    lines = [f"/* generated from {source.split('/')[-1]} by tools/embed.py */",
             f"const char {symbol}[] ="]
    chunk = []
    for byte in data:
        if byte == 0x5C:
            chunk.append("\\\\")
        elif byte == 0x22:
            chunk.append('\\"')
        elif byte == 0x0A:
            chunk.append("\\n")
            lines.append('    "' + "".join(chunk) + '"')
            chunk = []
        elif 0x20 <= byte < 0x7F:
            chunk.append(chr(byte))
        else:
            chunk.append(f"\\{byte:03o}")
    if chunk or not data:
        lines.append('    "' + "".join(chunk) + '"')
    lines[-1] += ";"
    with open(target, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
