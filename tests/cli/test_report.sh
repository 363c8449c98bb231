#!/usr/bin/env bash
# perfpred report: a self-contained page (no scripts, no network) that renders to a non-blank
# screenshot in headless Chromium. Skips (77) when /usr/bin/chromium is absent
# (scripts/setup.sh installs it unless --no-browser).
set -u
bin=$1
root=$2
model=$root/models/zoo/resnet18.onnx
[ -f "$model" ] || { echo "skip: $model not present"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" report "$model" --gpu t4 --gpu a100-sxm4-40gb,jetson-orin-nano-8gb --batch 8 --out "$tmp/report.html" >"$tmp/out" 2>"$tmp/err" \
  || fail "report: $(cat "$tmp/err")"
grep -q "wrote" "$tmp/out" || fail "no confirmation line"
html=$tmp/report.html
[ -s "$html" ] || fail "empty report"
grep -qi "<script" "$html" && fail "report contains a script"
grep -qi "<link\|<img\|<iframe\|<object\|@import" "$html" && fail "report references an external resource"
grep -o 'url([^)]*)' "$html" | grep -qv '^url(#' && fail "report has a non-local url()"
urls=$(grep -o 'https\?://[^"'"'"' ]*' "$html" | sort -u)
[ "$urls" = "http://www.w3.org/2000/svg" ] || fail "unexpected URLs: $urls"
for s in "Device comparison" "Memory timeline" "Roofline" "Time per layer" t4 a100-sxm4-40gb jetson-orin-nano-8gb; do
  grep -q "$s" "$html" || fail "report lacks '$s'"
done
[ "$(grep -c '<h3>Roofline</h3>' "$html")" -eq 3 ] || fail "expected one roofline per device"
# The shipped range table: each device's latency and energy range in the table and as whiskers on the charts.
grep -q "<th>latency range</th>" "$html" || fail "report lacks the latency range column"
[ "$(grep -o 'class="range"' "$html" | wc -l)" -eq 6 ] || fail "expected a latency and an energy whisker per device"
mkdir -p "$tmp/no-table"
PERFPRED_MODEL_DIR="$tmp/no-table" "$bin" report "$model" --gpu t4 --out "$tmp/plain.html" >/dev/null 2>&1 ||
  fail "report without a range table exited $?"
grep -q "latency range" "$tmp/plain.html" && fail "a range column without a range table"

# Bad input: exit 2.
"$bin" report "$model" --gpu nope --out "$tmp/x.html" >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown gpu not exit 2"
"$bin" report "$model" --gpu t4 --out "$tmp/no/such/dir/x.html" >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad --out dir not exit 2"
"$bin" report "$model" --gpu t4 >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing --out not exit 2"

chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then
  echo "skip: $chromium absent (scripts/setup.sh installs it unless --no-browser); static checks passed"
  exit 77
fi
shot=$tmp/shot.png
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --user-data-dir="$tmp/profile" --screenshot="$shot" --window-size=1400,2000 \
  "file://$html" >"$tmp/chrome.log" 2>&1
[ -s "$shot" ] || fail "no screenshot: $(tail -5 "$tmp/chrome.log")"
[ -n "${PERFPRED_KEEP_SCREENSHOT:-}" ] && cp "$shot" "$PERFPRED_KEEP_SCREENSHOT"
# Count non-white pixels and distinct colours by decoding the PNG with zlib (no numpy needed).
/usr/bin/python3 - "$shot" <<'PY' || fail "screenshot is blank or unreadable"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
nonwhite = 0
colours = set()
i = 0
for y in range(h):
    f = raw[i]; i += 1
    line = bytearray(raw[i:i + stride]); i += stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        if px != b"\xff\xff\xff":
            nonwhite += 1
            if len(colours) < 4096: colours.add(px)
    prev = line
share = nonwhite / (w * h)
print("screenshot %dx%d: %.1f%% non-white pixels, %d+ colours" % (w, h, 100 * share, len(colours)))
assert share > 0.03, "almost blank"
assert len(colours) > 20, "too few colours for charts"
PY
echo "ok"
