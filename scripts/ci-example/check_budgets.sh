#!/usr/bin/env bash
# Fail a CI job when a model's predicted performance breaks its budget, without the target GPU in CI.
#
# Copy this directory into your repository, list your models, devices and limits in budgets.json
# (format: docs/formats.md, "Budget files"; model paths are relative to the budget file), and run
#
#   scripts/ci-example/check_budgets.sh [BUDGETS.json]
#
# Exit status: 0 every budget met; 1 a limit exceeded; 2 a bad budget file, model or device id.
# Environment:
#   PERFPRED         the perfpred binary (default: perfpred on PATH, else build/src/cli/perfpred here)
#   PERFPRED_JUNIT   JUnit XML for the CI system's test view (default: perfpred-budgets.xml)
#   PERFPRED_VERDICT also write the JSON verdict here (deterministic: no timestamps; cache or diff it)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
budgets=${1:-$here/budgets.json}
perfpred=${PERFPRED:-}
if [ -z "$perfpred" ]; then
  if command -v perfpred >/dev/null 2>&1; then perfpred=perfpred
  elif [ -x "$here/../../build/src/cli/perfpred" ]; then perfpred=$here/../../build/src/cli/perfpred
  else echo "check_budgets.sh: perfpred not found; set PERFPRED=/path/to/perfpred" >&2; exit 2
  fi
fi
junit=${PERFPRED_JUNIT:-perfpred-budgets.xml}

"$perfpred" budget check "$budgets" --junit "$junit"
rc=$?
if [ -n "${PERFPRED_VERDICT:-}" ] && [ $rc -le 1 ]; then
  "$perfpred" -q budget check "$budgets" --json --no-meta >"$PERFPRED_VERDICT" || true
fi
case $rc in
  0) echo "check_budgets.sh: every performance budget is met (JUnit: $junit)" ;;
  1) echo "check_budgets.sh: a performance budget is exceeded; see the FAIL lines above (JUnit: $junit)" >&2 ;;
  2) echo "check_budgets.sh: the budget file, a model or a device id is wrong (message above)" >&2 ;;
  *) echo "check_budgets.sh: perfpred failed with exit $rc" >&2 ;;
esac
exit $rc
