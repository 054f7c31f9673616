#!/usr/bin/env python3
"""Checks the ASTRA-sim command docs/chakra.md gives for syncsim's traces against ASTRA-sim's own options.

The analytical frontend's options (astra-sim/astra-sim, astra-sim/network_frontend/analytical/common/CmdLineParser.cc,
define_options): the four without a default must all be given (ASTRA-sim exits 255 when one is missing), and every
option given must be one of them, written --name=value. Prints nothing and exits 0 when the command is right;
otherwise names what is wrong and exits 1.

    tests/chakra/astra_command_check.py docs/chakra.md
"""
import re
import sys

REQUIRED = {"workload-configuration", "system-configuration", "remote-memory-configuration", "network-configuration"}
OPTIONAL = {"comm-group-configuration", "logging-configuration", "logging-folder", "num-queues-per-dim",
            "compute-scale", "comm-scale", "injection-scale", "rendezvous-protocol"}
BINARY = re.compile(r"AstraSim_Analytical_Congestion_(Aware|Unaware)$")


def commands(text):
    """Each AstraSim command of the page, its continuation lines joined."""
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        words = lines[i].split()
        if words and BINARY.search(words[0]):
            command = lines[i].rstrip()
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            found.append(command)
        i += 1
    return found


def problems(command):
    words = command.split()[1:]
    given = set()
    out = []
    for word in words:
        match = re.fullmatch(r"--([a-z-]+)=(\S+)", word)
        if not match:
            out.append(f"'{word}' is not --name=value")
            continue
        name = match.group(1)
        if name not in REQUIRED | OPTIONAL:
            out.append(f"--{name} is not an option of ASTRA-sim's analytical frontend")
        if name in given:
            out.append(f"--{name} is given twice")
        given.add(name)
    out += [f"--{name} is missing (ASTRA-sim requires it)" for name in sorted(REQUIRED - given)]
    return out


def main(page):
    found = commands(open(page, encoding="utf-8").read())
    if not found:
        print(f"{page}: no AstraSim_Analytical_Congestion_* command")
        return 1
    bad = [f"{page}: {p}" for command in found for p in problems(command)]
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
