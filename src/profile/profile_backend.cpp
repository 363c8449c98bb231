// ProfileBackend's default sequence measurement: each layer alone, summed. Kept apart from the
// runner so the CUDA plugin (which overrides it) links it without the rest of src/profile.
#include "perfpred/profile/backend.hpp"

namespace perfpred {

SequenceMeasurement ProfileBackend::measure_sequence(const std::vector<PlanEntry>& layers, const MeasureSettings& s) {
  SequenceMeasurement out;
  for (const auto& e : layers) {
    Measurement m = measure(e, s);
    if (m.fatal) {
      out.total = m;
      return out;
    }
    if (m.status != RowStatus::ok) {
      out.failed.push_back(e.node + " (" + e.op + ") " + e.phase + ": " + to_string(m.status) + ": " + m.reason);
      if (out.failed_status == RowStatus::ok || m.status == RowStatus::oom) out.failed_status = m.status;
      continue;
    }
    out.layer_sum_ms += m.time_ms;
    ++out.layers_run;
    if (out.total.runtime.empty()) {
      out.total.runtime = m.runtime;
      out.total.runtime_version = m.runtime_version;
    }
    if (m.energy_mj) out.total.energy_mj = out.total.energy_mj.value_or(0) + *m.energy_mj;
  }
  out.total.status = out.layers_run > 0 ? RowStatus::ok : (out.failed_status == RowStatus::ok ? RowStatus::failed : out.failed_status);
  if (out.layers_run == 0) out.total.reason = "no layer of the sequence ran";
  out.total.time_ms = out.layer_sum_ms;
  out.total.repeats = s.repeats;
  if (out.total.energy_mj && out.total.time_ms > 0) out.total.power_w = *out.total.energy_mj / out.total.time_ms;
  out.total.notes.push_back("sum of layers: this backend does not time sequences, so launch gaps and host dispatch are not included");
  out.sequence_timed = false;
  return out;
}

}  // namespace perfpred
