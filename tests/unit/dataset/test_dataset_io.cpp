#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "perfpred/dataset/dataset.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;
namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    m_path = fs::temp_directory_path() / ("perfpred-dataset-" + std::to_string(::getpid()) + "-" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~TempDir() { fs::remove_all(m_path); }
  fs::path operator/(const std::string& s) const { return m_path / s; }

 private:
  fs::path m_path;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

KernelRow sample_row(const std::string& id) {
  KernelRow r;
  r.id = id;
  r.source = "perfpred-profile";
  r.gpu_id = "a100-pcie-40gb";
  r.runtime = "cudnn";
  r.runtime_version = "9.1.0";
  r.precision = "fp16";
  r.op_family = "conv";
  r.op = "Conv";
  r.phase = "forward";
  r.inputs = "8x64x56x56;64x64x3x3";
  r.attrs = "kernel_h=3;kernel_w=3;stride_h=1;groups=1";
  r.gemm_batch = 1;
  r.gemm_m = 25088;
  r.gemm_n = 64;
  r.gemm_k = 576;
  r.flops = 1849688064;
  r.bytes = 3.2e6;
  r.time_ms = 0.0123456789;
  r.time_ms_min = 0.0119;
  r.repeats = 20;
  r.kernel_names = "sm80_xmma_fprop|cudnn::winograd";
  r.notes = "algo=IMPLICIT_PRECOMP_GEMM, \"workspace\"=0\nsecond line";
  return r;
}

/// A kernel dataset at `path` holding `rows`.
void write_kernels(const fs::path& path, const std::vector<KernelRow>& rows) {
  DatasetWriter w(path, DatasetKind::kernel);
  for (const auto& r : rows) w.append(r);
}

}  // namespace

TEST(DatasetCsv, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_quote("plain"), "plain");
  EXPECT_EQ(csv_quote("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_quote("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_line({"a", "", "c,d"}), "a,,\"c,d\"\n");
}

TEST(DatasetCsv, NumbersArePlainDecimals) {
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(20), "20");
  EXPECT_EQ(format_number(1.5e15), "1500000000000000");
  EXPECT_EQ(format_number(0.0123456789), "0.0123457");
  EXPECT_EQ(format_number(1e-7), "0.0000001");
  EXPECT_EQ(format_number(-2.5), "-2.5");
  EXPECT_EQ(format_number(3.0e20), "300000000000000000000");
}

TEST(DatasetCsv, KernelRoundTrip) {
  TempDir t;
  auto path = t / "k.csv";
  {
    DatasetWriter w(path, DatasetKind::kernel);
    w.append(sample_row("a"));
    KernelRow failed;
    failed.id = "b";
    failed.status = RowStatus::oom;
    failed.reason = "cudaMalloc: out of memory, 80 GB requested";
    failed.gpu_id = "spec:My GPU";
    failed.precision = "fp32";
    failed.op_family = "gemm";
    failed.op = "MatMul";
    failed.synthetic = true;
    w.append(failed);
    w.close();
    EXPECT_EQ(w.rows_written(), 2);
  }
  std::string text = slurp(path);
  EXPECT_EQ(text.rfind("#perfpred kernel-dataset schema_version=1\nid,status,", 0), 0u);
  auto rows = read_kernel_rows(path);
  ASSERT_EQ(rows.size(), 2u);
  const auto want = sample_row("a");
  EXPECT_EQ(rows[0].id, "a");
  EXPECT_EQ(rows[0].status, RowStatus::ok);
  EXPECT_EQ(rows[0].inputs, want.inputs);
  EXPECT_EQ(rows[0].attrs, want.attrs);
  EXPECT_EQ(rows[0].notes, want.notes);
  EXPECT_EQ(rows[0].kernel_names, want.kernel_names);
  EXPECT_EQ(*rows[0].gemm_m, 25088);
  EXPECT_DOUBLE_EQ(*rows[0].flops, 1849688064);
  EXPECT_NEAR(*rows[0].time_ms, 0.0123457, 1e-9);
  EXPECT_EQ(*rows[0].repeats, 20);
  EXPECT_FALSE(rows[0].power_w.has_value());
  EXPECT_FALSE(rows[0].synthetic);
  EXPECT_EQ(rows[1].status, RowStatus::oom);
  EXPECT_EQ(rows[1].reason, "cudaMalloc: out of memory, 80 GB requested");
  EXPECT_EQ(rows[1].gpu_id, "spec:My GPU");
  EXPECT_TRUE(rows[1].synthetic);
  EXPECT_FALSE(rows[1].time_ms.has_value());
}

TEST(DatasetCsv, NetworkRoundTrip) {
  TempDir t;
  auto path = t / "n.csv";
  NetworkRow r;
  r.id = "resnet18-b8";
  r.gpu_id = "jetson-nano@5w";
  r.precision = "fp16";
  r.model = "models/resnet18.onnx";
  r.mode = "inference";
  r.batch = 8;
  r.includes_h2d = true;
  r.latency_ms = 12.5;
  r.energy_mj = 40;
  r.power_source = "jetson-gpu-rail";
  {
    DatasetWriter w(path, DatasetKind::network);
    w.append(r);
  }
  auto rows = read_network_rows(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].model, r.model);
  EXPECT_EQ(*rows[0].batch, 8);
  EXPECT_TRUE(*rows[0].includes_h2d);
  EXPECT_DOUBLE_EQ(*rows[0].latency_ms, 12.5);
  EXPECT_EQ(rows[0].power_source, "jetson-gpu-rail");
  EXPECT_THROW(read_kernel_rows(path), InputError);
}

TEST(DatasetCsv, NetworkRowCarriesItsPowerLimit) {
  // A run under nvidia-smi -pl: power_limit_w round-trips, is empty (nullopt) without one, and must be positive.
  TempDir t;
  auto path = t / "n.csv";
  NetworkRow r;
  r.id = "zeus-v100-1";
  r.gpu_id = "v100-pcie-32gb";
  r.precision = "fp32";
  r.model = "resnet50.onnx";
  r.mode = "training";
  r.batch = 64;
  r.power_w = 148;
  r.power_limit_w = 150;
  NetworkRow bare = r;
  bare.id = "zeus-v100-2";
  bare.power_limit_w.reset();
  {
    DatasetWriter w(path, DatasetKind::network);
    w.append(r);
    w.append(bare);
  }
  auto rows = read_network_rows(path);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].power_limit_w);
  EXPECT_DOUBLE_EQ(*rows[0].power_limit_w, 150);
  EXPECT_FALSE(rows[1].power_limit_w);
  spit(path, "#perfpred network-dataset schema_version=1\n"
             "id,status,gpu_id,precision,model,mode,batch,latency_ms,power_limit_w\n"
             "a,ok,v100-pcie-32gb,fp32,m.onnx,training,8,10,-5\n");
  try {
    read_network_rows(path);
    ADD_FAILURE() << "a negative power_limit_w was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("power_limit_w"), std::string::npos) << e.what();
  }
}

TEST(DatasetCsv, OkNetworkRowNeedsOneMeasuredTarget) {
  TempDir t;
  auto path = t / "n.csv";
  const std::string head =
      "#perfpred network-dataset schema_version=1\n"
      "id,status,gpu_id,precision,model,mode,batch,latency_ms,energy_mj,power_w,peak_memory_bytes\n";
  // Memory-only, energy-only and power-only 'ok' rows are valid; a non-ok row needs nothing.
  spit(path, head +
                 "mem,ok,a100,fp32,resnet50,training,32,,,,12000000000\n"
                 "en,ok,v100,fp32,resnet50,training,32,,5000,,\n"
                 "pw,ok,v100,fp32,resnet50,inference,1,,,250,\n"
                 "big,oom,a100,fp32,vit_h,training,256,,,,\n");
  auto rows = read_network_rows(path);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_FALSE(rows[0].latency_ms.has_value());
  ASSERT_TRUE(rows[0].peak_memory_bytes.has_value());
  EXPECT_DOUBLE_EQ(*rows[0].peak_memory_bytes, 12e9);
  EXPECT_FALSE(rows[1].latency_ms.has_value());
  EXPECT_DOUBLE_EQ(*rows[1].energy_mj, 5000);
  EXPECT_DOUBLE_EQ(*rows[2].power_w, 250);
  EXPECT_EQ(rows[3].status, RowStatus::oom);
  // An 'ok' row with no measured target at all is an error naming file and line.
  spit(path, head + "mem,ok,a100,fp32,resnet50,training,32,,,,12000000000\nnone,ok,a100,fp32,resnet50,training,32,,,,\n");
  try {
    read_network_rows(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("n.csv:4"), std::string::npos) << m;
    EXPECT_NE(m.find("peak_memory_bytes"), std::string::npos) << m;
  }
}

TEST(DatasetCsv, MeasurementsArePositive) {
  // A negative or zero time is not a measurement: refused naming the line and column, in every
  // reader (train, eval, dataset info, merge), never dropped quietly.
  TempDir t;
  auto path = t / "n.csv";
  const std::string head =
      "#perfpred network-dataset schema_version=1\n"
      "id,status,gpu_id,precision,model,mode,batch,latency_ms,energy_mj,power_w,peak_memory_bytes\n";
  for (const char* bad : {"-1", "0", "inf"}) {
    spit(path, head + "a,ok,a100,fp32,resnet50,inference,1,2.5,,,\nb,ok,a100,fp32,resnet50,inference,1," + bad + ",,,\n");
    try {
      read_network_rows(path);
      ADD_FAILURE() << "no error for latency_ms " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("n.csv:4: column 'latency_ms'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(dataset_info(path), InputError);
    EXPECT_THROW(merge_datasets(t / "m.csv", {path}), InputError);
    EXPECT_FALSE(fs::exists(t / "m.csv"));
  }
}

TEST(DatasetCsv, TornLastLineIsSkippedAndRepairedOnAppend) {
  TempDir t;
  auto path = t / "k.csv";
  {
    DatasetWriter w(path, DatasetKind::kernel);
    w.append(sample_row("a"));
    w.append(sample_row("b"));
  }
  std::string full = slurp(path);
  // Simulate a writer killed inside row "b" (whose notes hold a quoted newline).
  std::string cut = full.substr(0, full.size() - 30);
  spit(path, cut);
  RawDataset d = read_dataset(path);
  EXPECT_TRUE(d.torn_tail);
  ASSERT_EQ(d.rows.size(), 1u);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("k.csv"), std::string::npos);
  EXPECT_NE(d.warnings[0].find("no newline"), std::string::npos);
  {
    DatasetWriter w(path, DatasetKind::kernel);  // repairs the tail
    w.append(sample_row("c"));
  }
  auto rows = read_kernel_rows(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, "a");
  EXPECT_EQ(rows[1].id, "c");
  EXPECT_EQ(rows[1].notes, sample_row("c").notes);
}

TEST(DatasetCsv, MissingColumnNamesFileAndColumn) {
  TempDir t;
  auto path = t / "bad.csv";
  spit(path, "#perfpred kernel-dataset schema_version=1\nid,status,gpu_id,precision,op_family,op\nx,ok,g,fp32,conv,Conv\n");
  try {
    read_dataset(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("bad.csv:2"), std::string::npos) << m;
    EXPECT_NE(m.find("'time_ms'"), std::string::npos) << m;
  }
}

TEST(DatasetCsv, BadFirstLineAndVersionAndFieldsAreErrors) {
  TempDir t;
  auto path = t / "x.csv";
  spit(path, "id,status\n1,ok\n");
  EXPECT_THROW(read_dataset(path), InputError);
  spit(path, "#perfpred kernel-dataset schema_version=2\nid\n");
  try {
    read_dataset(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema_version 2"), std::string::npos);
  }
  const std::string head = "#perfpred kernel-dataset schema_version=1\nid,status,gpu_id,precision,op_family,op,time_ms\n";
  spit(path, head + "a,ok,g,fp32,conv,Conv,1.5\nb,ok,g,fp32,conv,Conv\n");
  try {
    read_dataset(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.csv:4"), std::string::npos) << e.what();
  }
  spit(path, head + "a,ok,g,fp32,conv,Conv,1.5\nb,ok,g,fp32,conv,Conv,fast\n");
  try {
    read_kernel_rows(path);
    FAIL();
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("x.csv:4"), std::string::npos) << m;
    EXPECT_NE(m.find("time_ms"), std::string::npos) << m;
  }
  spit(path, head + "a,great,g,fp32,conv,Conv,1.5\n");
  EXPECT_THROW(read_kernel_rows(path), InputError);
}

TEST(DatasetCsv, KernelModelFamilyRoundTripsAndIsOptional) {
  // A kernel row's application (model_family) is a column of its own: written, read back, and empty in files
  // written before it existed.
  TempDir t;
  auto path = t / "app.csv";
  {
    DatasetWriter w(path, DatasetKind::kernel);
    KernelRow r = sample_row("a");
    r.model_family = "deepspeech";
    w.append(r);
  }
  auto rows = read_kernel_rows(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].model_family, "deepspeech");
  EXPECT_TRUE(rows[0].extra.empty());
  auto old = t / "old.csv";
  spit(old, "#perfpred kernel-dataset schema_version=1\nid,status,gpu_id,precision,op_family,op,time_ms\n"
            "a,ok,g,fp32,conv,Conv,1.5\n");
  rows = read_kernel_rows(old);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].model_family, "");
}

TEST(DatasetCsv, ExtraColumnsAreKept) {
  TempDir t;
  auto path = t / "x.csv";
  spit(path, "#perfpred kernel-dataset schema_version=1\nid,status,gpu_id,precision,op_family,op,time_ms,future\r\n"
             "a,ok,g,fp32,conv,Conv,1.5,hello\r\n");
  auto rows = read_kernel_rows(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].extra.at("future"), "hello");
  EXPECT_DOUBLE_EQ(*rows[0].time_ms, 1.5);
  // Appending to a file with a foreign column order writes in that order.
  {
    DatasetWriter w(path, DatasetKind::kernel);
    KernelRow r = sample_row("b");
    r.extra["future"] = "again";
    w.append(r);
  }
  rows = read_kernel_rows(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].extra.at("future"), "again");
  EXPECT_EQ(rows[1].op, "Conv");
}

TEST(DatasetMeta, RoundTripAndErrors) {
  TempDir t;
  DatasetMeta m;
  m.kind = DatasetKind::kernel;
  m.licence = "perfpred-measured";
  m.created_by = "perfpred profile";
  m.devices["a100-pcie-40gb"] = {{"sm_count", 108}};
  m.environment = {{"driver", "550.54"}};
  m.plan = {{"name", "quick"}};
  m.notes = {"hello"};
  m.extra["custom"] = 3;
  auto p = t / "k.csv.meta.json";
  write_dataset_meta(p, m);
  DatasetMeta r = read_dataset_meta(p);
  EXPECT_EQ(r.licence, m.licence);
  EXPECT_EQ(r.devices, m.devices);
  EXPECT_EQ(r.plan, m.plan);
  EXPECT_EQ(r.notes, m.notes);
  EXPECT_EQ(r.extra["custom"], 3);
  EXPECT_EQ(sidecar_path("a/b.csv"), fs::path("a/b.csv.meta.json"));
  EXPECT_THROW(dataset_meta_from_json({{"kind", "kernel"}}, "x"), InputError);
  EXPECT_THROW(dataset_meta_from_json({{"schema_version", 1}, {"kind", "tables"}}, "x"), InputError);
}

TEST(DatasetMerge, DedupesByIdAndMergesSidecars) {
  TempDir t;
  auto a = t / "a.csv", b = t / "b.csv", out = t / "all.csv";
  {
    DatasetWriter w(a, DatasetKind::kernel);
    w.append(sample_row("1"));
    w.append(sample_row("2"));
  }
  {
    DatasetWriter w(b, DatasetKind::kernel);
    w.append(sample_row("2"));  // the same row again (a resumed shard)
    KernelRow other = sample_row("3");
    other.gpu_id = "h100-sxm5-80gb";
    w.append(other);
  }
  DatasetMeta ma;
  ma.licence = "perfpred-measured";
  ma.devices["a100-pcie-40gb"] = {{"sm_count", 108}};
  ma.plan = {{"name", "quick"}};
  DatasetMeta mb = ma;
  mb.devices = {{"h100-sxm5-80gb", {{"sm_count", 132}}}};
  write_dataset_meta(sidecar_path(a), ma);
  write_dataset_meta(sidecar_path(b), mb);
  MergeResult res = merge_datasets(out, {a, b});
  EXPECT_EQ(res.rows_in, 4);
  EXPECT_EQ(res.rows_out, 3);
  EXPECT_EQ(res.duplicates, 1);
  EXPECT_EQ(res.conflicting_duplicates, 0);
  auto rows = read_kernel_rows(out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].gpu_id, "h100-sxm5-80gb");
  DatasetMeta m = read_dataset_meta(sidecar_path(out));
  EXPECT_EQ(m.devices.size(), 2u);
  EXPECT_EQ(m.licence, "perfpred-measured");
  EXPECT_EQ(m.plan, ma.plan);
  // The output must not exist yet, and kinds must agree.
  EXPECT_THROW(merge_datasets(out, {a}), InputError);
  auto n = t / "n.csv";
  { DatasetWriter w(n, DatasetKind::network); }
  EXPECT_THROW(merge_datasets(t / "mixed.csv", {a, n}), InputError);
  EXPECT_FALSE(fs::exists(t / "mixed.csv"));
}

TEST(DatasetMerge, CountsConflictingDuplicates) {
  TempDir t;
  auto a = t / "a.csv", b = t / "b.csv";
  write_kernels(a, {sample_row("1")});
  KernelRow r = sample_row("1");
  r.time_ms = 99;
  write_kernels(b, {r});
  MergeResult res = merge_datasets(t / "o.csv", {a, b});
  EXPECT_EQ(res.rows_out, 1);
  EXPECT_EQ(res.conflicting_duplicates, 1);
  EXPECT_NEAR(*read_kernel_rows(t / "o.csv")[0].time_ms, 0.0123457, 1e-9);
}

TEST(DatasetMerge, SameIdOnAnotherGpuIsAnotherRow) {
  // One plan profiled on two GPUs: every id repeats, and no row is a duplicate.
  TempDir t;
  auto a = t / "a.csv", b = t / "b.csv";
  write_kernels(a, {sample_row("1")});
  KernelRow r = sample_row("1");
  r.gpu_id = "h100-sxm5-80gb";
  r.time_ms = 0.5;
  write_kernels(b, {r});
  MergeResult res = merge_datasets(t / "o.csv", {a, b});
  EXPECT_EQ(res.rows_out, 2);
  EXPECT_EQ(res.duplicates, 0);
  EXPECT_EQ(read_kernel_rows(t / "o.csv")[1].gpu_id, "h100-sxm5-80gb");
}

TEST(DatasetMerge, NetworkModelPathsFollowTheOutputFolder) {
  // Shards name their model relative to their own folder; merged elsewhere they must still resolve.
  TempDir t;
  fs::create_directories(t / "models");
  fs::create_directories(t / "shard0");
  fs::create_directories(t / "merged/all");
  spit(t / "models/net.onnx", "onnx");
  auto row = [](const std::string& id, const std::string& model) {
    NetworkRow r;
    r.id = id;
    r.gpu_id = "a100-pcie-40gb";
    r.precision = "fp32";
    r.model = model;
    r.mode = "inference";
    r.batch = 1;
    r.latency_ms = 1.5;
    return r;
  };
  auto shard = t / "shard0/networks.csv";
  {
    DatasetWriter w(shard, DatasetKind::network);
    w.append(row("a", "../models/net.onnx"));
    w.append(row("b", "resnet50"));                              // a name, not a file: kept
    w.append(row("c", (t / "models/net.onnx").string()));         // absolute: kept
    w.append(row("d", "../models/missing.onnx"));                 // no such file: kept
  }
  auto out = t / "merged/all/networks.csv";
  merge_datasets(out, {shard});
  auto rows = read_network_rows(out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].model, "../../models/net.onnx");
  EXPECT_TRUE(fs::is_regular_file(out.parent_path() / rows[0].model));
  EXPECT_EQ(rows[1].model, "resnet50");
  EXPECT_EQ(rows[2].model, (t / "models/net.onnx").string());
  EXPECT_EQ(rows[3].model, "../models/missing.onnx");
  // Merged into the shard's own folder, nothing changes.
  auto same = t / "shard0/all.csv";
  merge_datasets(same, {shard});
  EXPECT_EQ(read_network_rows(same)[0].model, "../models/net.onnx");
}

TEST(DatasetInfo, CountsByStatusGpuAndFamily) {
  TempDir t;
  auto a = t / "a.csv";
  {
    DatasetWriter w(a, DatasetKind::kernel);
    w.append(sample_row("1"));
    KernelRow r = sample_row("2");
    r.status = RowStatus::unsupported;
    r.op_family = "rnn";
    r.synthetic = true;
    w.append(r);
  }
  DatasetInfo i = dataset_info(a);
  EXPECT_EQ(i.rows, 2);
  EXPECT_EQ(i.by_status["ok"], 1);
  EXPECT_EQ(i.by_status["unsupported"], 1);
  EXPECT_EQ(i.by_family["rnn"], 1);
  EXPECT_EQ(i.by_gpu["a100-pcie-40gb"], 2);
  EXPECT_EQ(i.synthetic_rows, 1);
  EXPECT_FALSE(i.has_sidecar);
  EXPECT_EQ(to_json(i)["by_op_family"]["conv"], 1);
}

// Fuzz finding: a denormal peak_memory_bytes (1e-320) reached XGBoost as a label of -inf, which
// answered with a multi-line stack trace. Values too small to be measurements are refused by line.
TEST(DatasetCsv, DenormalMeasurementsAreRefused) {
  TempDir t;
  auto path = t / "d.csv";
  const std::string head =
      "#perfpred network-dataset schema_version=1\n"
      "id,status,gpu_id,precision,model,mode,batch,latency_ms,energy_mj,power_w,peak_memory_bytes\n";
  for (const auto& [row, col] : std::vector<std::pair<std::string, std::string>>{
           {"b,ok,a100,fp32,resnet50,inference,1,,,,1e-320", "peak_memory_bytes"},
           {"b,ok,a100,fp32,resnet50,inference,1,,,,0.5", "peak_memory_bytes"},
           {"b,ok,a100,fp32,resnet50,inference,1,1e-310,,,", "latency_ms"}}) {
    spit(path, head + row + "\n");
    try {
      read_network_rows(path);
      ADD_FAILURE() << "no error for " << row;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("d.csv:3: column '" + col + "'"), std::string::npos) << e.what();
    }
  }
}
