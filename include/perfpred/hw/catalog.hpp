#pragma once
/// The GPU catalog (data/gpus/*.json), MIG slices, Jetson power modes, and spec files.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "perfpred/hw/gpu_spec.hpp"

namespace perfpred {

/// Every catalogued device, loaded once from a directory of JSON specs.
class GpuCatalog {
 public:
  /// Load data_dir()/gpus. Throws InputError naming a malformed file and field.
  static const GpuCatalog& instance();
  /// Load a specific directory (tests).
  explicit GpuCatalog(const std::filesystem::path& dir);

  /// Whole devices, sorted by id.
  const std::vector<GpuSpec>& devices() const { return m_devices; }
  /// Every id resolve() accepts: whole devices, MIG slices ("id:profile"), power modes ("id@mode").
  std::vector<std::string> all_ids() const;
  /// MIG slices of a device (empty when it has no MIG).
  std::vector<GpuSpec> mig_slices(const std::string& id) const;
  /// Power modes of a Jetson (empty otherwise), max mode first.
  std::vector<GpuSpec> power_modes(const std::string& id) const;
  /// Resolve an id, a MIG slice, a power mode. Throws InputError listing close ids when unknown.
  GpuSpec resolve(const std::string& id) const;
  /// The catalog file of a whole device as loaded (chip, reference notes, mig_profiles, power_modes);
  /// nullptr when `id` is not a whole device.
  const nlohmann::json* raw(const std::string& id) const;

  /// Resolve one id (whole device, "id:profile" or "id@mode") reading only `dir`/<device>.json: no other
  /// catalog file is parsed. An id whose device file does not exist falls back to loading the whole
  /// directory, so the InputError lists close ids exactly as resolve() does.
  static GpuSpec resolve_in(const std::filesystem::path& dir, const std::string& id);
  /// The catalog of one device file (stem = id) as resolve_in() loads it; throws InputError like the
  /// directory constructor for a malformed file.
  static GpuCatalog single(const std::filesystem::path& file);

 private:
  GpuCatalog() = default;
  void add_file(const std::filesystem::path& path);
  std::vector<GpuSpec> m_devices;
  std::vector<nlohmann::json> m_raw;  // parallel to m_devices: mig profiles and power modes
};

/// Resolve what --gpu accepts: a catalog id, or a path to a spec JSON (a file that exists or ends in .json).
/// A catalog id reads only data_dir()/gpus/<device>.json (cached per device) unless GpuCatalog::instance()
/// is already loaded, which it then uses.
GpuSpec resolve_gpu(const std::string& id_or_path);

/// Check a finished spec as catalog and spec files are checked (every field's rule; idle_power_w <= tdp_w;
/// the host link). Throws InputError "<where>: field '...' ..." naming the first bad field and its value.
void validate_gpu_spec(const GpuSpec& s, const std::string& where);

/// What a device id would impersonate: "" when it is free, else a phrase such as "the catalog GPU 't4'" for
/// a catalog id, a MIG slice or power mode id, or "<catalog id>:..." / "<catalog id>@..." (reserved for
/// them). Case-insensitive, as resolve() is. Reads only the one catalog file the id's device part names.
std::string catalog_id_clash(const std::string& id);

/// Parse a hypothetical GPU spec file. Only essentials are required (sm_count, boost_clock_mhz,
/// fp32_lanes_per_sm or fp32_tflops, mem_bandwidth_gbps, memory_gb); the rest is derived and listed in
/// GpuSpec::assumptions. Missing/zero/negative/NaN fields and unknown keys throw InputError naming the field;
/// so does an "id" that catalog_id_clash() reports (a spec file must not pass for a catalog device).
GpuSpec load_spec_file(const std::filesystem::path& path);
/// Same, from a parsed document; `label` names it in messages.
GpuSpec spec_from_json(const nlohmann::json& j, const std::string& label);
/// Serialise to the catalog's JSON format.
nlohmann::json to_json(const GpuSpec& s);

}  // namespace perfpred
