#include "cmd_dataset.hpp"

#include <iostream>

#include "common.hpp"
#include "perfpred/dataset/dataset.hpp"
#include "perfpred/util/error.hpp"

namespace perfpred::cli {

namespace {

void print_counts(const char* title, const std::map<std::string, int64_t>& m) {
  std::cout << title << ":\n";
  for (const auto& [k, v] : m) std::cout << "  " << k << ": " << v << "\n";
}

}  // namespace

int run_dataset(const DatasetOptions& opts) {
  if (opts.action == "merge") {
    std::vector<std::filesystem::path> in(opts.inputs.begin(), opts.inputs.end());
    MergeResult r = merge_datasets(opts.out, in);
    print_json({{"out", opts.out},
                {"kind", to_string(r.kind)},
                {"rows_in", r.rows_in},
                {"rows_out", r.rows_out},
                {"duplicates", r.duplicates},
                {"conflicting_duplicates", r.conflicting_duplicates}});
    return 0;
  }
  if (opts.action == "info") {
    if (opts.inputs.size() != 1) throw InputError("dataset info: give exactly one FILE");
    DatasetInfo i = dataset_info(opts.inputs[0]);
    if (opts.json) {
      print_json(to_json(i));
      return 0;
    }
    std::cout << i.path.string() << ": " << to_string(i.kind) << " dataset, schema_version " << i.schema_version << ", "
              << i.rows << " rows (" << i.synthetic_rows << " synthetic)";
    if (i.has_sidecar) std::cout << ", licence " << (i.licence.empty() ? "(none)" : i.licence);
    else std::cout << ", no sidecar";
    std::cout << "\n";
    print_counts("status", i.by_status);
    print_counts("gpu", i.by_gpu);
    print_counts(i.kind == DatasetKind::kernel ? "op_family" : "model_family", i.by_family);
    return 0;
  }
  throw InternalError("dataset: unknown action '" + opts.action + "'");
}

}  // namespace perfpred::cli
