#!/usr/bin/env bash
# Where a fresh build spends its time: configure a new build folder, build it with every compile and link
# timed (no ccache), and print the wall time, the load average, CPU seconds per module and the slowest
# steps. Usage: scripts/build-profile.sh [--targets "perfpred perfpred_python"] [-- CMAKE_ARGS...]
# (defaults: all targets, the configuration scripts/build.sh uses). The folder is removed afterwards
# unless PERFPRED_PROFILE_DIR names one to keep.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --targets) read -r -a targets <<<"$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
dir=${PERFPRED_PROFILE_DIR:-$(mktemp -d /tmp/perfpred-build-profile.XXXXXX)}
[ -n "${PERFPRED_PROFILE_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"
log=$dir/unit-times.tsv
: >"$log"
# The launcher: run the compiler, append "cpu_s<TAB>wall_s<TAB>output" (CPU = user + system of the
# compiler and its children, which other work on a shared machine inflates less than the wall time).
wrap=$dir/timed-compile.sh
{
  echo '#!/usr/bin/env bash'
  echo 'out=?; prev=; for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done'
  echo 'start=$(date +%s.%N); "$@"; rc=$?; end=$(date +%s.%N)'
  echo 'times >"$PERFPRED_UNIT_LOG.$$"; read -r _ _ cu cs <<<"$(tr "\n" " " <"$PERFPRED_UNIT_LOG.$$")"; rm -f "$PERFPRED_UNIT_LOG.$$"'
  echo 'awk -v a="$start" -v b="$end" -v u="$cu" -v s="$cs" -v o="$out" '"'"'function sec(t) { split(t, p, "m"); return p[1] * 60 + p[2] }'
  echo '  BEGIN { printf "%.2f\t%.2f\t%s\n", sec(u) + sec(s), b - a, o }'"'"' >>"$PERFPRED_UNIT_LOG"'
  echo 'exit $rc'
} >"$wrap"
chmod +x "$wrap"
export PERFPRED_UNIT_LOG=$log CCACHE_DISABLE=1
jobs=${PERFPRED_JOBS:-$(nproc)}
t0=$(date +%s.%N)
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=${PERFPRED_BUILD_TYPE:-RelWithDebInfo} \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$wrap" -DCMAKE_C_COMPILER_LAUNCHER="$wrap" -DCMAKE_CUDA_COMPILER_LAUNCHER="$wrap" \
  -DCMAKE_CXX_LINKER_LAUNCHER="$wrap" \
  "$@" >"$dir/configure.log"
t1=$(date +%s.%N)
build_args=()
[ ${#targets[@]} -gt 0 ] && build_args=(--target "${targets[@]}")
cmake --build "$dir" -j "$jobs" "${build_args[@]}" >"$dir/build.log"
t2=$(date +%s.%N)
awk -F'\t' -v t0="$t0" -v t1="$t1" -v t2="$t2" -v j="$jobs" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
  '{ c += $1; w += $2; n++ }
   END { printf "configure %.1f s, build %.1f s wall (-j%s); %d steps: %.1f CPU-s, %.1f s wall in them; load average now %s\n",
         t1 - t0, t2 - t1, j, n, c, w, load }' "$log"
echo "CPU-s by target (perfpred_<module>, test_<module>, perfpred = main.cpp):"
awk -F'\t' '{ m = "other"
  if (match($3, /[A-Za-z0-9_]+\.dir\//)) m = substr($3, RSTART, RLENGTH - 5)
  s[m] += $1; n[m]++ } END { for (m in s) printf "  %-24s %7.1f s in %d\n", m, s[m], n[m] }' "$log" | sort -k2 -nr
echo "slowest steps (CPU-s, wall-s, output):"
sort -nr "$log" | head -n "${PERFPRED_PROFILE_TOP:-15}" | sed 's|CMakeFiles/||; s/^/  /'
