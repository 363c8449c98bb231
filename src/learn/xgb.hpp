#pragma once
// Thin RAII wrapper over the XGBoost C API. Private to the learn module: the only place that
// includes xgboost/c_api.h is xgb.cpp.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfpred::learn::xgb {

/// Row-major dense matrix of features; NaN marks a missing value.
struct DenseMatrix {
  std::vector<float> values;
  int64_t rows = 0;
  int64_t cols = 0;
};

/// Training parameters (XGBoost names). Deterministic: fixed seed, fixed thread count.
struct TrainParams {
  int rounds = 300;
  int max_depth = 8;
  double eta = 0.08;
  double subsample = 0.8;
  double colsample_bytree = 0.8;
  double min_child_weight = 2;
  double lambda = 1.0;
  int nthread = 2;
  int seed = 0;
  /// XGBoost monotone_constraints, "(0,1,...)"; empty for none.
  std::string monotone;
};

/// One gradient-boosted regressor (reg:squarederror).
class Booster {
 public:
  Booster();
  ~Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  Booster(Booster&& other) noexcept;
  Booster& operator=(Booster&& other) noexcept;

  /// Fit on x (rows x cols) against labels y (size rows); with rounds <= 0 a booster that predicts 0
  /// (base_score) for every row. Throws InternalError on an XGBoost failure.
  static Booster train(const DenseMatrix& x, const std::vector<float>& y, const TrainParams& params);
  /// Load from an XGBoost model buffer (UBJ or JSON). `label` names it in errors (InputError).
  static Booster load(const std::string& buffer, const std::string& label);

  /// Serialise to UBJ (universal binary JSON).
  std::string save_ubj() const;
  /// Predict one value per row of x, with the first `iteration_end` rounds only when it is positive.
  std::vector<float> predict(const DenseMatrix& x, int iteration_end = 0) const;
  /// Number of features the model was trained on.
  int64_t num_features() const;

 private:
  void* m_handle = nullptr;
};

}  // namespace perfpred::learn::xgb
