#pragma once
/// A trained model bundle: one JSON file with the feature names, one XGBoost booster per op family
/// (base64 of its UBJ buffer), host-overhead and whole-network boosters, and where the training data
/// came from. Loading a bundle whose schema or features differ from this build's is an InputError.
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfpred/learn/efficiency.hpp"
#include "perfpred/learn/features.hpp"
#include "perfpred/learn/policy.hpp"

namespace perfpred::learn {

inline constexpr int k_bundle_schema_version = 1;

/// One training data file.
struct DataSource {
  std::string name;     ///< data set name (sidecar "sources"[].name or the CSV's `source` column)
  std::string file;     ///< file name as given to train (relative paths kept relative)
  std::string licence;  ///< sidecar licence
  size_t rows = 0;      ///< rows of this file used for training
};

/// One serialised booster.
struct BoosterBlob {
  /// XGBoost model buffer (universal binary JSON). Empty for a booster load_bundle() read from a file until
  /// bytes() decodes it: a predict whose policy uses no booster does not pay for decoding and checking them.
  mutable std::string ubj;
  size_t train_rows = 0;  ///< rows it was fitted on
  double train_mean_ape = 0;  ///< in-sample mean APE of the corrected value, percent
  /// A booster read from a bundle file and not decoded yet: its base64 text in the file (kept alive by
  /// `file`), its booster_checksum and the bundle and field it is, for errors.
  struct Encoded {
    std::shared_ptr<const std::string> file;
    std::string_view base64;
    std::string checksum;
    std::string what;
  };
  mutable std::shared_ptr<const Encoded> encoded;
  /// The model bytes: `ubj`, first decoded from the file and checked against its checksum when read lazily
  /// (InputError naming the bundle and field if the file is damaged). Not thread-safe on a lazy blob: callers
  /// serialise (LearnedModel holds its mutex).
  const std::string& bytes() const;
};

struct Bundle {
  int schema_version = k_bundle_schema_version;
  int feature_version = k_feature_version;
  std::string name;  ///< label reported as model_bundle
  Target target = Target::latency;
  std::vector<std::string> kernel_features = kernel_feature_names();
  std::vector<std::string> host_features = host_feature_names();
  std::vector<std::string> network_features = network_feature_names();
  std::map<std::string, BoosterBlob> kernel_models;  ///< booster family (or "fallback") -> booster
  /// What the kernel boosters predict: "log_ratio" (log of measured over analytical, on kernel_feature_names())
  /// or "efficiency" (log efficiency against the kernel's roofline, on efficiency_feature_names()).
  std::string kernel_target = "log_ratio";
  /// Efficiency bundles: training range per booster family of efficiency_range_features().
  std::map<std::string, FeatureRanges> kernel_ranges;
  /// Efficiency bundles: values seen in training per booster family of efficiency_code_features().
  std::map<std::string, FeatureCodes> kernel_codes;
  /// Efficiency bundles: per-op timer floor (seconds) of each source whose labels include one, an unseen GPU's:
  /// a quantile over the training GPUs' floors, chosen by leaving each training GPU out (params
  /// "unseen_timer_floor"; source -> floor_key -> seconds; "*" stands for an op without a floor of its own).
  /// Evaluation on that source's rows adds it back (with_timer_floor); predict never does.
  std::map<std::string, std::map<std::string, double>> timer_floors;
  /// Efficiency bundles: per booster family, the weight of its time against the analytical model's in a
  /// log-space blend (time = learned^w x analytical^(1-w), w further shrunk outside the training range):
  /// TrainOptions::kernel_blend (k_default_kernel_blend, train.hpp). A family without an entry (bundles written
  /// before the field): 1.
  std::map<std::string, double> kernel_blend;
  std::map<std::string, BoosterBlob> host_models;    ///< runtime name -> host-overhead booster
  std::optional<BoosterBlob> network_model;          ///< energy / memory target
  /// What the network booster predicts from: "log_ratio" (log of measured over analytical on
  /// network_feature_names(); memory bundles and energy bundles before this field) or k_energy_target
  /// (energy.hpp: the energy correction on energy_feature_names(), shrunk outside network_ranges).
  std::string network_target = "log_ratio";
  /// Energy-correction bundles: training range of energy_range_features() and codes of energy_code_features().
  FeatureRanges network_ranges;
  FeatureCodes network_codes;
  std::vector<DataSource> sources;
  std::string rows_hash;  ///< "fnv1a64:<hex>" over the training rows' canonical text
  size_t train_rows = 0;
  std::vector<std::string> gpus_seen;
  std::vector<std::string> holdout_gpus;
  std::vector<std::string> holdout_families;
  bool for_shipping = true;  ///< false when trained with --allow-unlicensed-eval
  std::string created_by;    ///< the command line that made it
  nlohmann::json params = nlohmann::json::object();  ///< training parameters
  /// Which parts the bundle predicts by default (policy.hpp); empty: every part it has boosters for.
  Policy policy;
};

nlohmann::json to_json(const Bundle& b);
/// Parse; `label` names the source in errors (schema_version, feature names, base64, boosters).
Bundle bundle_from_json(const nlohmann::json& j, const std::string& label);
/// Write atomically (temp file + rename).
void save_bundle(const Bundle& b, const std::filesystem::path& path);
/// Throws InputError naming the file when it is missing, malformed or built for other features. Its boosters
/// are decoded and checked on first use (decode_boosters checks them at once).
Bundle load_bundle(const std::filesystem::path& path);
/// Decodes every booster of `b` and checks it against its checksum now (BoosterBlob::bytes), so that a damaged
/// file fails here, naming the bundle and field, rather than when a booster is first used.
void decode_boosters(const Bundle& b);

/// Base64 (RFC 4648, with padding).
std::string base64_encode(const std::string& bytes);
/// Throws InputError naming `what` on a malformed input.
std::string base64_decode(const std::string& text, const std::string& what);

/// FNV-1a 64-bit hash, lower-case hex; incremental via `state`.
struct Fnv1a64 {
  unsigned long long state = 14695981039346656037ULL;
  void update(const std::string& s);
  std::string hex() const;
};

/// The shipped default bundle: model_dir()/perfpred-default.json, or nullopt when absent.
std::optional<std::filesystem::path> default_bundle_path();

/// A bundle argument (`--model`, `--bundle`): the word `default` names the shipped bundle (an
/// InputError naming where it was looked for when absent); anything else is a path, as given.
std::filesystem::path bundle_argument(const std::string& arg);

}  // namespace perfpred::learn
