#pragma once
// Internal: the XGBoost parameters of a training run, from the user's options (one definition for the
// ratio boosters of train.cpp and the efficiency boosters of train_efficiency.cpp).
#include "perfpred/learn/train.hpp"
#include "xgb.hpp"

namespace perfpred::learn::detail {

xgb::TrainParams train_params(const TrainOptions& o);

}  // namespace perfpred::learn::detail
