#pragma once
// `perfpred devices [--json]` and `perfpred devices show ID|SPEC.json [--json]`.
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace perfpred::cli {

struct DevicesOptions {
  bool json = false;
  std::string show_id;  ///< empty: list the catalog
};

int run_devices(const DevicesOptions& opts);

/// What `devices --json` prints: the catalog with each device's derived ids (MIG slices, power modes).
nlohmann::json devices_document();

/// What `devices show ID --json` prints for a catalog id, ID:MIG-PROFILE, ID@MODE or a spec JSON file.
nlohmann::json device_document(const std::string& id);

}  // namespace perfpred::cli
