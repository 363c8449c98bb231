#include "xgb.hpp"

#include <dlfcn.h>
#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "perfpred/util/error.hpp"

#ifndef PERFPRED_XGBOOST_LIBRARY
#define PERFPRED_XGBOOST_LIBRARY "libxgboost.so"
#endif

namespace perfpred::learn::xgb {
namespace {

// The XGBoost C API, resolved with dlopen on first use: linking libxgboost (and with it libdmlc and
// libgomp, ~8k symbol relocations) into the executable made every command pay for it at start-up,
// about a quarter of an analytical `perfpred predict`'s instructions, though only learned models use it.
struct Api {
  decltype(&XGBGetLastError) GetLastError = nullptr;
  decltype(&XGDMatrixCreateFromMat_omp) DMatrixCreateFromMat = nullptr;
  decltype(&XGDMatrixFree) DMatrixFree = nullptr;
  decltype(&XGDMatrixSetFloatInfo) DMatrixSetFloatInfo = nullptr;
  decltype(&XGBoosterCreate) BoosterCreate = nullptr;
  decltype(&XGBoosterFree) BoosterFree = nullptr;
  decltype(&XGBoosterSetParam) BoosterSetParam = nullptr;
  decltype(&XGBoosterUpdateOneIter) BoosterUpdateOneIter = nullptr;
  decltype(&XGBoosterBoostOneIter) BoosterBoostOneIter = nullptr;
  decltype(&XGBoosterLoadModelFromBuffer) BoosterLoadModelFromBuffer = nullptr;
  decltype(&XGBoosterSaveModelToBuffer) BoosterSaveModelToBuffer = nullptr;
  decltype(&XGBoosterPredictFromDMatrix) BoosterPredictFromDMatrix = nullptr;
  decltype(&XGBoosterGetNumFeature) BoosterGetNumFeature = nullptr;
};

Api load_api() {
  std::string tried;
  void* lib = nullptr;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("PERFPRED_XGBOOST_LIBRARY"); env && *env) {
    candidates.emplace_back(env);  // only this one: a wrong override is reported, not bypassed
  } else {
    candidates.emplace_back(PERFPRED_XGBOOST_LIBRARY);  // the library found at configure time
    candidates.emplace_back("libxgboost.so.0");
    candidates.emplace_back("libxgboost.so");
  }
  // libgomp reads its environment when it loads, which is here: unless the user set it, its idle threads
  // sleep instead of spinning after each parallel region. Spinning doubled the process CPU of a learned
  // `perfpred predict` (a few small parallel regions per booster call) and steals a shared machine's cores.
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  for (const auto& c : candidates) {
    lib = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* e = ::dlerror();
    tried += (tried.empty() ? "" : "; ") + (e ? std::string(e) : c);
  }
  if (!lib)
    throw InputError("the XGBoost library does not load (" + tried +
                     "); install libxgboost (scripts/setup.sh) or set PERFPRED_XGBOOST_LIBRARY to its path");
  Api a;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
    if (!fn)
      throw InputError(std::string("the XGBoost library lacks ") + name +
                       " (perfpred needs XGBoost 1.6 or newer); set PERFPRED_XGBOOST_LIBRARY to a newer one");
  };
  sym(a.GetLastError, "XGBGetLastError");
  sym(a.DMatrixCreateFromMat, "XGDMatrixCreateFromMat_omp");
  sym(a.DMatrixFree, "XGDMatrixFree");
  sym(a.DMatrixSetFloatInfo, "XGDMatrixSetFloatInfo");
  sym(a.BoosterCreate, "XGBoosterCreate");
  sym(a.BoosterFree, "XGBoosterFree");
  sym(a.BoosterSetParam, "XGBoosterSetParam");
  sym(a.BoosterUpdateOneIter, "XGBoosterUpdateOneIter");
  sym(a.BoosterBoostOneIter, "XGBoosterBoostOneIter");
  sym(a.BoosterLoadModelFromBuffer, "XGBoosterLoadModelFromBuffer");
  sym(a.BoosterSaveModelToBuffer, "XGBoosterSaveModelToBuffer");
  sym(a.BoosterPredictFromDMatrix, "XGBoosterPredictFromDMatrix");
  sym(a.BoosterGetNumFeature, "XGBoosterGetNumFeature");
  return a;  // the library stays loaded for the life of the process
}

const Api& api() {
  static const Api k_api = load_api();
  return k_api;
}

void check(int rc, const char* what) {
  if (rc != 0) throw InternalError(std::string("xgboost: ") + what + ": " + api().GetLastError());
}

struct DMatrix {
  DMatrixHandle h = nullptr;
  // `nthread`: OpenMP threads that copy the rows in. Prediction passes 1: its matrices are a few hundred
  // rows, and a parallel region there cost more CPU (thread start-up and spinning) than the copy itself.
  DMatrix(const DenseMatrix& x, int nthread) {
    check(api().DMatrixCreateFromMat(x.values.data(), static_cast<bst_ulong>(x.rows), static_cast<bst_ulong>(x.cols),
                                     std::nanf(""), &h, std::max(1, nthread)),
          "XGDMatrixCreateFromMat_omp");
  }
  ~DMatrix() {
    if (h) api().DMatrixFree(h);
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
  if (m_handle) api().BoosterFree(static_cast<BoosterHandle>(m_handle));
}
Booster::Booster(Booster&& other) noexcept : m_handle(std::exchange(other.m_handle, nullptr)) {}
Booster& Booster::operator=(Booster&& other) noexcept {
  if (this != &other) {
    if (m_handle) api().BoosterFree(static_cast<BoosterHandle>(m_handle));
    m_handle = std::exchange(other.m_handle, nullptr);
  }
  return *this;
}

Booster Booster::train(const DenseMatrix& x, const std::vector<float>& y, const TrainParams& p) {
  if (x.rows <= 0 || x.cols <= 0 || static_cast<int64_t>(x.values.size()) != x.rows * x.cols ||
      static_cast<int64_t>(y.size()) != x.rows)
    throw InternalError("xgboost: training matrix and labels disagree in size");
  DMatrix d(x, p.nthread);
  check(api().DMatrixSetFloatInfo(d.h, "label", y.data(), static_cast<bst_ulong>(y.size())), "set labels");
  Booster b;
  BoosterHandle h = nullptr;
  check(api().BoosterCreate(&d.h, 1, &h), "XGBoosterCreate");
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
  for (const auto& [k, v] : params) check(api().BoosterSetParam(h, k, v.c_str()), "XGBoosterSetParam");
  if (!p.monotone.empty()) check(api().BoosterSetParam(h, "monotone_constraints", p.monotone.c_str()), "XGBoosterSetParam");
  for (int i = 0; i < p.rounds; ++i) check(api().BoosterUpdateOneIter(h, i, d.h), "XGBoosterUpdateOneIter");
  if (p.rounds <= 0) {
    // No rounds: XGBoost saves only a configured model, so boost once on zero gradients, a single leaf of
    // weight 0 (-G / (H + lambda)): the booster predicts base_score 0, no correction, for every row.
    std::vector<float> grad(y.size(), 0.0f), hess(y.size(), 1.0f);
    check(api().BoosterBoostOneIter(h, d.h, grad.data(), hess.data(), static_cast<bst_ulong>(y.size())),
          "XGBoosterBoostOneIter");
  }
  return b;
}

Booster Booster::load(const std::string& buffer, const std::string& label) {
  Booster b;
  BoosterHandle h = nullptr;
  check(api().BoosterCreate(nullptr, 0, &h), "XGBoosterCreate");
  b.m_handle = h;
  if (api().BoosterLoadModelFromBuffer(h, buffer.data(), static_cast<bst_ulong>(buffer.size())) != 0)
  {
    // XGBoost's message carries a stack trace: its first line says what went wrong.
    std::string why = api().GetLastError();
    why = why.substr(0, why.find('\n'));
    throw InputError(label + ": the XGBoost model in it does not load (" + why + "); retrain it with `perfpred train`");
  }
  api().BoosterSetParam(h, "nthread", "1");
  return b;
}

std::string Booster::save_ubj() const {
  bst_ulong len = 0;
  const char* data = nullptr;
  check(api().BoosterSaveModelToBuffer(static_cast<BoosterHandle>(m_handle), R"({"format": "ubj"})", &len, &data),
        "XGBoosterSaveModelToBuffer");
  return std::string(data, len);
}

std::vector<float> Booster::predict(const DenseMatrix& x, int iteration_end) const {
  if (x.rows == 0) return {};
  DMatrix d(x, 1);
  const std::string config = R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": )" +
                             std::to_string(std::max(0, iteration_end)) + R"(, "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  check(api().BoosterPredictFromDMatrix(static_cast<BoosterHandle>(m_handle), d.h,
                                        config.c_str(), &shape, &dim, &out),
        "XGBoosterPredictFromDMatrix");
  return std::vector<float>(out, out + x.rows);
}

int64_t Booster::num_features() const {
  bst_ulong n = 0;
  check(api().BoosterGetNumFeature(static_cast<BoosterHandle>(m_handle), &n), "XGBoosterGetNumFeature");
  return static_cast<int64_t>(n);
}

}  // namespace perfpred::learn::xgb
