// Writes the rows of src/onnx/schema_table.cpp: every default-domain op of the linked ONNX library, its schema
// at each opset 1-21 as OpSchemaRegistry::Schema(op, opset, "") returns it (since version, input and output
// counts, required attributes in name order), runs of equal schemas merged. Rerun when the ONNX library changes
// (tests/unit/onnx/test_onnx_schema_table.cpp fails until then):
//   g++ -std=c++17 -DONNX_ML=1 -DONNX_NAMESPACE=onnx tools/cpp/gen_onnx_schema_table.cpp -lonnx -lonnx_proto \
//       -lprotobuf -o /tmp/gen && /tmp/gen
// and paste its output between the markers of k_table.
#include <onnx/defs/schema.h>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>
int main() {
  std::set<std::string> names;
  for (const auto& s : onnx::OpSchemaRegistry::get_all_schemas_with_history())
    if (s.domain() == "" || s.domain() == "ai.onnx") names.insert(s.Name());
  int rows = 0;
  for (const auto& op : names) {
    using T = std::tuple<int, int, int, int, int, std::string>;
    bool have = false; T prev; int from = 0;
    auto flush = [&](int to) {
      if (!have) return;
      const auto& [since, a, b, c, d, req] = prev;
      std::printf("    {\"%s\", %d, %d, %d, %d, %d, %d, %d, \"%s\"},\n", op.c_str(), from, to, since, a, b, c, d, req.c_str());
      ++rows;
    };
    for (int v = 1; v <= 21; ++v) {
      const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(op, v, "");
      if (!s) { flush(v - 1); have = false; continue; }
      std::string req;
      for (const auto& [n, a] : s->attributes()) if (a.required) req += (req.empty() ? "" : ",") + n;
      T t{s->SinceVersion(), s->min_input(), s->max_input(), s->min_output(), s->max_output(), req};
      if (have && t == prev) continue;
      flush(v - 1);
      prev = t; from = v; have = true;
    }
    flush(21);
  }
  std::fprintf(stderr, "%d rows, %zu ops\n", rows, names.size());
}
