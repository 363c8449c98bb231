#include "xgb.hpp"

#include <xgboost/c_api.h>

#include <cmath>
#include <string>
#include <utility>

#include "perfpred/util/error.hpp"

namespace perfpred::learn::xgb {
namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw InternalError(std::string("xgboost: ") + what + ": " + XGBGetLastError());
}

struct DMatrix {
  DMatrixHandle h = nullptr;
  explicit DMatrix(const DenseMatrix& x) {
    check(XGDMatrixCreateFromMat(x.values.data(), static_cast<bst_ulong>(x.rows), static_cast<bst_ulong>(x.cols),
                                 std::nanf(""), &h),
          "XGDMatrixCreateFromMat");
  }
  ~DMatrix() {
    if (h) XGDMatrixFree(h);
  }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
};

std::string num(double v) {
  std::string s = std::to_string(v);
  return s;
}

}  // namespace

Booster::Booster() = default;
Booster::~Booster() {
  if (m_handle) XGBoosterFree(static_cast<BoosterHandle>(m_handle));
}
Booster::Booster(Booster&& other) noexcept : m_handle(std::exchange(other.m_handle, nullptr)) {}
Booster& Booster::operator=(Booster&& other) noexcept {
  if (this != &other) {
    if (m_handle) XGBoosterFree(static_cast<BoosterHandle>(m_handle));
    m_handle = std::exchange(other.m_handle, nullptr);
  }
  return *this;
}

Booster Booster::train(const DenseMatrix& x, const std::vector<float>& y, const TrainParams& p) {
  if (x.rows <= 0 || x.cols <= 0 || static_cast<int64_t>(x.values.size()) != x.rows * x.cols ||
      static_cast<int64_t>(y.size()) != x.rows)
    throw InternalError("xgboost: training matrix and labels disagree in size");
  DMatrix d(x);
  check(XGDMatrixSetFloatInfo(d.h, "label", y.data(), static_cast<bst_ulong>(y.size())), "set labels");
  Booster b;
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(&d.h, 1, &h), "XGBoosterCreate");
  b.m_handle = h;
  const std::pair<const char*, std::string> params[] = {
      {"objective", "reg:squarederror"},
      {"tree_method", "hist"},
      {"max_depth", std::to_string(p.max_depth)},
      {"eta", num(p.eta)},
      {"subsample", num(p.subsample)},
      {"colsample_bytree", num(p.colsample_bytree)},
      {"min_child_weight", num(p.min_child_weight)},
      {"lambda", num(p.lambda)},
      {"nthread", std::to_string(p.nthread)},
      {"seed", std::to_string(p.seed)},
      {"base_score", "0"},
      {"verbosity", "0"},
  };
  for (const auto& [k, v] : params) check(XGBoosterSetParam(h, k, v.c_str()), "XGBoosterSetParam");
  for (int i = 0; i < p.rounds; ++i) check(XGBoosterUpdateOneIter(h, i, d.h), "XGBoosterUpdateOneIter");
  return b;
}

Booster Booster::load(const std::string& buffer, const std::string& label) {
  Booster b;
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(nullptr, 0, &h), "XGBoosterCreate");
  b.m_handle = h;
  if (XGBoosterLoadModelFromBuffer(h, buffer.data(), static_cast<bst_ulong>(buffer.size())) != 0)
    throw InputError(label + ": the XGBoost model in it does not load (" + XGBGetLastError() +
                     "); retrain it with `perfpred train`");
  XGBoosterSetParam(h, "nthread", "1");
  return b;
}

std::string Booster::save_ubj() const {
  bst_ulong len = 0;
  const char* data = nullptr;
  check(XGBoosterSaveModelToBuffer(static_cast<BoosterHandle>(m_handle), R"({"format": "ubj"})", &len, &data),
        "XGBoosterSaveModelToBuffer");
  return std::string(data, len);
}

std::vector<float> Booster::predict(const DenseMatrix& x) const {
  if (x.rows == 0) return {};
  DMatrix d(x);
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  check(XGBoosterPredictFromDMatrix(static_cast<BoosterHandle>(m_handle), d.h,
                                    R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})",
                                    &shape, &dim, &out),
        "XGBoosterPredictFromDMatrix");
  return std::vector<float>(out, out + x.rows);
}

int64_t Booster::num_features() const {
  bst_ulong n = 0;
  check(XGBoosterGetNumFeature(static_cast<BoosterHandle>(m_handle), &n), "XGBoosterGetNumFeature");
  return static_cast<int64_t>(n);
}

}  // namespace perfpred::learn::xgb
