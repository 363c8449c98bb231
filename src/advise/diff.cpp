#include "perfpred/advise/diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace perfpred::advise {

std::string to_string(LayerMatch m) {
  switch (m) {
    case LayerMatch::name: return "name";
    case LayerMatch::position: return "position";
    case LayerMatch::added: return "added";
    case LayerMatch::removed: return "removed";
  }
  return "name";
}

std::optional<double> percent_change(double old_value, double new_value) {
  if (old_value == 0 || !std::isfinite(old_value) || !std::isfinite(new_value)) return std::nullopt;
  return (new_value - old_value) / old_value * 100.0;
}

std::vector<LayerChange> match_layers(const std::vector<LayerPrediction>& a, const std::vector<LayerPrediction>& b) {
  const size_t na = a.size(), nb = b.size();
  std::vector<int> pair_of_b(nb, -1), pair_of_a(na, -1);
  std::vector<LayerMatch> how_b(nb, LayerMatch::added);
  // 1. Names unique on both sides, with the same op.
  std::map<std::string, int> count_a, count_b;
  for (const auto& l : a)
    if (!l.name.empty()) ++count_a[l.name];
  for (const auto& l : b)
    if (!l.name.empty()) ++count_b[l.name];
  std::map<std::string, size_t> index_a;
  for (size_t i = 0; i < na; ++i)
    if (!a[i].name.empty() && count_a[a[i].name] == 1) index_a[a[i].name] = i;
  for (size_t j = 0; j < nb; ++j) {
    if (b[j].name.empty() || count_b[b[j].name] != 1) continue;
    auto it = index_a.find(b[j].name);
    if (it == index_a.end() || a[it->second].op != b[j].op) continue;
    pair_of_b[j] = static_cast<int>(it->second);
    pair_of_a[it->second] = static_cast<int>(j);
    how_b[j] = LayerMatch::name;
  }
  // 2. The rest by position and op: LCS over the unmatched subsequences.
  std::vector<size_t> ua, ub;
  for (size_t i = 0; i < na; ++i)
    if (pair_of_a[i] < 0) ua.push_back(i);
  for (size_t j = 0; j < nb; ++j)
    if (pair_of_b[j] < 0) ub.push_back(j);
  if (!ua.empty() && !ub.empty()) {
    const size_t n = ua.size(), m = ub.size();
    std::vector<std::vector<int>> L(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        L[i][j] = a[ua[i]].op == b[ub[j]].op ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n && j < m) {
      if (a[ua[i]].op == b[ub[j]].op) {
        pair_of_b[ub[j]] = static_cast<int>(ua[i]);
        pair_of_a[ua[i]] = static_cast<int>(ub[j]);
        how_b[ub[j]] = LayerMatch::position;
        ++i;
        ++j;
      } else if (L[i + 1][j] >= L[i][j + 1]) {
        ++i;
      } else {
        ++j;
      }
    }
  }
  // 3. Emit in new-model order; a removed old layer goes after the new layer paired with its nearest
  // matched predecessor.
  std::vector<std::vector<size_t>> removed_after(nb + 1);  // slot nb = before everything
  int last_b = -1;
  for (size_t i = 0; i < na; ++i) {
    if (pair_of_a[i] >= 0) last_b = std::max(last_b, pair_of_a[i]);
    else removed_after[last_b < 0 ? nb : static_cast<size_t>(last_b)].push_back(i);
  }
  std::vector<LayerChange> out;
  auto emit_removed = [&](size_t slot) {
    for (size_t i : removed_after[slot]) {
      LayerChange c;
      c.match = LayerMatch::removed;
      c.old_name = a[i].name;
      c.op = a[i].op;
      c.old_ms = a[i].time_ms;
      out.push_back(c);
    }
  };
  emit_removed(nb);
  for (size_t j = 0; j < nb; ++j) {
    LayerChange c;
    c.match = how_b[j];
    c.new_name = b[j].name;
    c.op = b[j].op;
    c.new_ms = b[j].time_ms;
    if (pair_of_b[j] >= 0) {
      c.old_name = a[pair_of_b[j]].name;
      c.old_ms = a[pair_of_b[j]].time_ms;
    }
    out.push_back(c);
    emit_removed(j);
  }
  return out;
}

ModelDiff diff_predictions(const Prediction& old_p, const Prediction& new_p, size_t top) {
  ModelDiff d;
  d.old_prediction = old_p;
  d.new_prediction = new_p;
  d.latency_pct = percent_change(old_p.latency_ms, new_p.latency_ms);
  d.memory_pct = percent_change(old_p.peak_memory_bytes, new_p.peak_memory_bytes);
  d.energy_pct = percent_change(old_p.energy_mj, new_p.energy_mj);
  d.layers = match_layers(old_p.layers, new_p.layers);
  double total_delta = 0;
  for (const auto& c : d.layers) {
    total_delta += c.delta_ms();
    switch (c.match) {
      case LayerMatch::name: ++d.by_name; break;
      case LayerMatch::position: ++d.by_position; break;
      case LayerMatch::added: ++d.added; break;
      case LayerMatch::removed: ++d.removed; break;
    }
  }
  d.top_changes = d.layers;
  std::stable_sort(d.top_changes.begin(), d.top_changes.end(), [](const LayerChange& x, const LayerChange& y) {
    return std::fabs(x.delta_ms()) > std::fabs(y.delta_ms());
  });
  while (!d.top_changes.empty() && d.top_changes.back().delta_ms() == 0) d.top_changes.pop_back();
  if (d.top_changes.size() > top) d.top_changes.resize(top);
  double top_delta = 0;
  for (const auto& c : d.top_changes) top_delta += c.delta_ms();
  d.explained_share = total_delta != 0 ? top_delta / total_delta : 0;
  return d;
}

}  // namespace perfpred::advise
