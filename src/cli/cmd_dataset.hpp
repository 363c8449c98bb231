#pragma once
// `perfpred dataset merge OUT IN...` and `perfpred dataset info FILE`.
#include <string>
#include <vector>

namespace perfpred::cli {

struct DatasetOptions {
  std::string action;               ///< "merge" or "info"
  std::string out;                  ///< merge: the new file
  std::vector<std::string> inputs;  ///< merge: shards; info: one file
  bool json = false;                ///< info: JSON instead of text
};

/// Returns the exit code; throws InputError on bad input.
int run_dataset(const DatasetOptions& opts);

}  // namespace perfpred::cli
