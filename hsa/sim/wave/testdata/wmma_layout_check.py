#!/usr/bin/env python3
"""Compare the gfx12 simulator's WMMA/SWMMAC operand layouts with AMD's matrix
instruction calculator (github ROCm/amd_matrix_instruction_calculator).

    WMMA_LAYOUT_OUT=/tmp/layout.json go test -run TestWMMALayoutDump ./hsa/sim/wave/
    python3 hsa/sim/wave/testdata/wmma_layout_check.py /tmp/layout.json CALCULATOR.py

The calculator is run as a program (its --register-layout output is parsed
here); nothing of it is part of this repository.
"""
import collections
import json
import re
import subprocess
import sys

CELL = re.compile(r"^v(\d+)\{(\d+)\}(?:\.\[(\d+):(\d+)\])?$")


def table(calc, inst, wave, matrix, key):
    args = [sys.executable, calc, "-a", "gfx1201", "-i", inst, "-w", str(wave), "-R"]
    args.append({"A": "-A", "B": "-B", "D": "-D", "K": "-k"}[matrix])
    if matrix == "K":
        args += ["--opsel", str(key)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) < 2 or not parts[0].isdigit():
            continue
        rows[int(parts[0])] = parts[1:]
    return rows


def main():
    cells = json.load(open(sys.argv[1]))
    calc = sys.argv[2]
    groups = collections.defaultdict(list)
    for c in cells:
        groups[(c["inst"], c["wave"], c["matrix"], c["key"])].append(c)
    bad = 0
    for (inst, wave, matrix, key), cs in sorted(groups.items()):
        rows = table(calc, inst, wave, matrix, key)
        for c in cs:
            # A, D and K tables are [row][col]; B is B[k][n] with row = k.
            cell = rows[c["row"]][c["col"]]
            m = CELL.match(cell)
            if not m:
                print(f"{inst} w{wave} {matrix}: unparsed cell {cell!r}")
                bad += 1
                continue
            reg, lane = int(m.group(1)), int(m.group(2))
            hi, lo = (int(m.group(3)), int(m.group(4))) if m.group(3) else (31, 0)
            if (reg, lane, lo, hi) != (c["reg"], c["lane"], c["lo"], c["hi"]):
                bad += 1
                if bad < 40:
                    print(f"{inst} w{wave} {matrix} key {key} [{c['row']}][{c['col']}]: "
                          f"calculator {cell}, simulator v{c['reg']}{{{c['lane']}}}.[{c['hi']}:{c['lo']}]")
    print(f"{len(cells)} elements in {len(groups)} operand tables, {bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
