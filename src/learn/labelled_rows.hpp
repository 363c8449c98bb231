#pragma once
// Internal: labelled training rows (a dense feature matrix, one label and the physical GPU per row) and a
// subset of them by row index, shared by the efficiency boosters (train_efficiency.cpp) and the energy
// correction (energy.cpp), which both pick their rounds by leaving one GPU out.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "xgb.hpp"

namespace perfpred::learn::detail {

struct LabelledRows {
  xgb::DenseMatrix x;
  std::vector<float> y;
  std::vector<std::string> gpu;
};

inline LabelledRows subset(const LabelledRows& all, const std::vector<size_t>& idx) {
  LabelledRows r;
  const auto nf = static_cast<size_t>(all.x.cols);
  r.x.cols = all.x.cols;
  r.x.rows = static_cast<int64_t>(idx.size());
  r.x.values.resize(idx.size() * nf);
  r.y.resize(idx.size());
  r.gpu.resize(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    std::copy_n(all.x.values.begin() + static_cast<std::ptrdiff_t>(idx[i] * nf), nf,
                r.x.values.begin() + static_cast<std::ptrdiff_t>(i * nf));
    r.y[i] = all.y[idx[i]];
    r.gpu[i] = all.gpu[idx[i]];
  }
  return r;
}

}  // namespace perfpred::learn::detail
