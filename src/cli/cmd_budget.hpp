#pragma once
// `perfpred budget check BUDGETS.json`: check predicted performance against budgets (CI).
#include <string>

namespace perfpred::cli {

struct BudgetCliOptions {
  std::string file;
  std::string junit;    ///< write JUnit XML here
  bool json = false;
  bool no_meta = false;  ///< drop the "meta" field (argv-independent, byte-identical output)
  std::string bundle;
  bool analytical = false;
  double host_factor = 1;      ///< --host-factor: every entry predicted for a host this much slower
  double gpu_factor = 1;       ///< --gpu-factor: every entry predicted for a GPU this much slower
  bool no_tf32 = false;        ///< --no-tf32: every entry with allow_tf32 = False (fp32 entries only)
  bool allow_partial = false;  ///< check models whose working nodes have unknown shapes ("complete": false)
};

/// 0: every entry within its limits; 1: some limit exceeded; InputError (2) on a bad budget file.
int run_budget_check(const BudgetCliOptions& opts);

}  // namespace perfpred::cli
