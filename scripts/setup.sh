#!/usr/bin/env bash
# Install what perfpred needs to build and test, from Debian packages only. Idempotent: a package
# already installed is not touched, and nothing runs apt when everything is present.
# Usage: scripts/setup.sh [--no-python] [--no-torch] [--no-browser] [--with-clang]
# chromium (headless, for tests/cli/test_report.sh) is installed by default: ~80 MB download, about
# 2 minutes once here; --no-browser skips it and that test then skips itself (exit 77).
# The Python packages are pybind11 and the headers the perfpred module builds with, plus Debian's torch,
# torchvision and onnx for the Python tools and tests; --no-torch keeps the first group only (what
# quickstart.sh needs), --no-python skips both.
# --with-clang adds clang and its sanitizer/libFuzzer runtime, for `scripts/test.sh --sanitize` and
# scripts/fuzz.sh.
set -euo pipefail

want_python=1
want_torch=1
want_browser=1
want_clang=0
for arg in "$@"; do
  case "$arg" in
    --no-python) want_python=0 ;;
    --no-torch) want_torch=0 ;;
    --with-browser) want_browser=1 ;;
    --no-browser) want_browser=0 ;;
    --with-clang) want_clang=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

pkgs=(cmake make g++ pkg-config libonnx-dev libprotobuf-dev protobuf-compiler libxgboost-dev libcli11-dev
      nlohmann-json3-dev libspdlog-dev libgtest-dev libbenchmark-dev)
if [ "$want_python" = 1 ]; then
  pkgs+=(python3 python3-dev pybind11-dev python3-pybind11)
  if [ "$want_torch" = 1 ]; then
    pkgs+=(python3-torch python3-torchvision python3-onnx python3-numpy)
  fi
fi
if [ "$want_browser" = 1 ]; then
  pkgs+=(chromium)
fi
if [ "$want_clang" = 1 ]; then
  pkgs+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all ${#pkgs[@]} packages present"
  exit 0
fi

echo "setup.sh: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup.sh: done"
