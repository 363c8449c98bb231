"""report_slower.py GPU BASE.html OTHER.html FACTOR: exit 0 when OTHER's device-table latency for GPU is
more than FACTOR x BASE's (perfpred report HTML), else fail naming both figures. Used by the CLI tests of
flags that must slow the report's prediction (--no-tf32, --host-factor)."""
import re
import sys

UNITS = {"ms": 1, "us": 1e-3, "µs": 1e-3, "s": 1e3}


def latency_ms(path, gpu):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<td class="l">' + re.escape(gpu) + r'</td><td>([0-9.]+) (ms|us|µs|s)</td>', html)
    if not m:
        sys.exit("no %s row in the device table of %s" % (gpu, path))
    return float(m.group(1)) * UNITS[m.group(2)]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    gpu, base, other, factor = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    a, b = latency_ms(base, gpu), latency_ms(other, gpu)
    if not b > factor * a:
        sys.exit("%s: %.4g ms is not more than %g x %s's %.4g ms" % (other, b, factor, base, a))


main()
