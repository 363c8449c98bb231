#pragma once
// `perfpred devices [--json]` and `perfpred devices show ID|SPEC.json [--json]`.
#include <string>

namespace perfpred::cli {

struct DevicesOptions {
  bool json = false;
  std::string show_id;  ///< empty: list the catalog
};

int run_devices(const DevicesOptions& opts);

}  // namespace perfpred::cli
