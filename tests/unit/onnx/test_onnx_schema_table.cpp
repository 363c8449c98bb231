// src/onnx/schema_table.cpp stands in for ONNX's OpSchemaRegistry in check_schemas (the registry builds all of
// its schemas on the first lookup): every default-domain op the linked ONNX library knows, at every opset,
// must give what the registry gives. A newer ONNX library fails this test until the table is regenerated
// (tools/cpp/gen_onnx_schema_table.cpp).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <onnx/defs/schema.h>

#include "limits.hpp"

namespace oi = perfpred::onnx_import::detail;

namespace {

std::string required_of(const onnx::OpSchema& s) {
  std::string out;
  for (const auto& [name, attr] : s.attributes())
    if (attr.required) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

TEST(OnnxSchemaTable, EveryOpAtEveryOpsetIsWhatTheRegistrySays) {
  std::set<std::string> ops;
  for (const auto& s : onnx::OpSchemaRegistry::get_all_schemas_with_history())
    if (s.domain().empty() || s.domain() == "ai.onnx") ops.insert(s.Name());
  ASSERT_GT(ops.size(), 150u);
  size_t rows_seen = 0;
  for (const auto& op : ops)
    for (int v = 1; v <= oi::k_max_opset + 2; ++v) {
      const onnx::OpSchema* want = onnx::OpSchemaRegistry::Schema(op, v, "");
      const oi::SchemaArity* got = oi::schema_arity(op, v);
      ASSERT_EQ(want == nullptr, got == nullptr) << op << " at opset " << v;
      if (!want) continue;
      ++rows_seen;
      EXPECT_EQ(got->since, want->SinceVersion()) << op << " at opset " << v;
      EXPECT_EQ(got->min_in, want->min_input()) << op << " at opset " << v;
      EXPECT_EQ(got->max_in, want->max_input()) << op << " at opset " << v;
      EXPECT_EQ(got->min_out, want->min_output()) << op << " at opset " << v;
      EXPECT_EQ(got->max_out, want->max_output()) << op << " at opset " << v;
      EXPECT_EQ(std::string(got->required), required_of(*want)) << op << " at opset " << v;
    }
  EXPECT_GT(rows_seen, 1000u);
  // Nothing else: every row of the table is an op the registry knows.
  for (const auto& row : oi::schema_arity_table()) EXPECT_TRUE(ops.count(row.op)) << row.op;
  // Names ONNX does not know (contrib ops, typos) have no schema in either.
  for (const char* op : {"FusedConv", "Attention", "conv", "", "Conv2D"}) {
    EXPECT_EQ(oi::schema_arity(op, 13), nullptr) << op;
    EXPECT_EQ(onnx::OpSchemaRegistry::Schema(op, 13, ""), nullptr) << op;
  }
}
