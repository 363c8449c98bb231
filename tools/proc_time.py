#!/usr/bin/env python3
"""Run a command and write what it cost as JSON: wall seconds, user and system CPU seconds and peak RSS.

    proc_time.py OUT.json CMD [ARG...]

/usr/bin/time prints seconds with two decimals, so a 15 ms `perfpred predict` read as "0 ms" there; this takes the
child's own resource usage from wait4 (microseconds) and the wall time from a monotonic clock. The command's stdin,
stdout and stderr are the caller's; the exit status is the command's (128 + N when a signal N ended it).
"""
import json
import os
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: proc_time.py OUT.json CMD [ARG...]")
    out, cmd = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    try:
        child = subprocess.Popen(cmd)
    except OSError as e:
        sys.exit(f"proc_time: cannot run {cmd[0]}: {e.strerror}")
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    wall = time.perf_counter() - start
    with open(out, "w") as f:
        json.dump({"wall_s": round(wall, 6), "cpu_s": round(usage.ru_utime, 6), "sys_s": round(usage.ru_stime, 6),
                   "max_rss_kb": usage.ru_maxrss}, f)
        f.write("\n")
    code = child.returncode
    sys.exit(128 - code if code < 0 else code)


if __name__ == "__main__":
    main()
