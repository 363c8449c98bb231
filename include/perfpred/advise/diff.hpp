#pragma once
/// Model diffs: two predictions of two versions of a model on one device, the change in percent, and
/// the layers that account for it.
#include <optional>
#include <string>
#include <vector>

#include "perfpred/predict/predictor.hpp"

namespace perfpred::advise {

/// How a layer of the new model was paired with one of the old.
enum class LayerMatch { name, position, added, removed };
std::string to_string(LayerMatch m);

struct LayerChange {
  LayerMatch match = LayerMatch::name;
  std::string old_name;  ///< empty when added
  std::string new_name;  ///< empty when removed
  std::string op;        ///< op of the new layer (old when removed)
  double old_ms = 0;
  double new_ms = 0;
  double delta_ms() const { return new_ms - old_ms; }
};

/// Pair layers: first by name (same name and same op, each name unique on both sides), then the
/// remaining layers by position and op (longest common subsequence of the op sequences, so an
/// inserted layer does not shift the pairing of those after it); what is left is added or removed.
/// Output in new-model order, removed layers after the layer they followed.
std::vector<LayerChange> match_layers(const std::vector<LayerPrediction>& old_layers,
                                      const std::vector<LayerPrediction>& new_layers);

struct ModelDiff {
  Prediction old_prediction;
  Prediction new_prediction;
  std::optional<double> latency_pct;  ///< nullopt when the old value is 0
  std::optional<double> memory_pct;
  std::optional<double> energy_pct;
  std::vector<LayerChange> layers;       ///< every pairing, new-model order
  std::vector<LayerChange> top_changes;  ///< largest |delta_ms| first, at most `top` of them
  double explained_share = 0;            ///< sum of top deltas / total kernel-time delta (when nonzero)
  size_t by_name = 0, by_position = 0, added = 0, removed = 0;
};

/// Percent change (new - old) / old x 100; nullopt when old is 0.
std::optional<double> percent_change(double old_value, double new_value);

/// Compare two predictions; `top` bounds top_changes.
ModelDiff diff_predictions(const Prediction& old_p, const Prediction& new_p, size_t top = 10);

}  // namespace perfpred::advise
