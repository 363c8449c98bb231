#pragma once
// Internal: the memory footprint of a planned run.
#include "plan.hpp"

namespace perfpred::detail {

MemoryBreakdown estimate_memory(const Graph& g, const GraphCost& cost, const Plan& plan, const GpuSpec& gpu,
                                const PredictOptions& opts);

}  // namespace perfpred::detail
