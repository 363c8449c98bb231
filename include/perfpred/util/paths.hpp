#pragma once
/// Where perfpred finds its shipped data (GPU catalog, plans) and models (predictor bundles).
#include <filesystem>

namespace perfpred {

/// Directory holding gpus/ and plans/: $PERFPRED_DATA_DIR, else <exe>/../share/perfpred/data,
/// else the source tree's data/ this binary was built from.
std::filesystem::path data_dir();
/// Directory holding shipped predictor bundles: $PERFPRED_MODEL_DIR, else <exe>/../share/perfpred/models,
/// else the source tree's models/.
std::filesystem::path model_dir();

}  // namespace perfpred
