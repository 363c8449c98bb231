#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "perfpred/learn/data.hpp"
#include "perfpred/util/error.hpp"

using namespace perfpred;

namespace {
NetworkRow training_row(const std::string& notes) {
  NetworkRow r;
  r.mode = "training";
  r.precision = "fp32";
  r.runtime = "pytorch";
  r.batch = 32;
  r.notes = notes;
  return r;
}
}  // namespace

// Training memory depends on optimizer state: GPUMemNet rows train with Adam and say so in their notes.
TEST(LearnData, NetworkOptionsTakeTheOptimizerFromTheRowNotes) {
  EXPECT_EQ(learn::network_options(training_row("optimizer Adam, lr 1e-3"), "t").optimizer, Optimizer::adam);
  EXPECT_EQ(learn::network_options(training_row("SGD with momentum 0.9"), "t").optimizer, Optimizer::momentum);
  EXPECT_EQ(learn::network_options(training_row("plain sgd"), "t").optimizer, Optimizer::sgd);
  EXPECT_EQ(learn::network_options(training_row("forward+backward, no optimizer step"), "t").optimizer,
            Optimizer::none);
  EXPECT_EQ(learn::network_options(training_row(""), "t").optimizer, Optimizer::sgd);
}

// HELP's NAS-Bench-201 and FBNet rows carry launch_queue 1 (their harness let the host run one kernel ahead): train
// and eval predict them so; an empty cell is no limit, and anything but a count from 0 to 65536 names the row.
TEST(LearnData, NetworkOptionsTakeTheLaunchQueueFromTheExtraColumn) {
  NetworkRow r = training_row("");
  EXPECT_EQ(learn::network_options(r, "t").launch_queue, 0);
  r.extra["launch_queue"] = "1";
  EXPECT_EQ(learn::network_options(r, "t").launch_queue, 1);
  r.extra["launch_queue"] = "";
  EXPECT_EQ(learn::network_options(r, "t").launch_queue, 0);
  for (const char* bad : {"-1", "65537", "one", "1.5", "2x"}) {
    r.extra["launch_queue"] = bad;
    try {
      learn::network_options(r, "rows.csv:7");
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("rows.csv:7: launch_queue '"), std::string::npos) << e.what();
    }
  }
}

// ryujaehun's last script version timed a pageable copy (a DataLoader without pin_memory): its rows carry
// copy_memory pageable, which train and eval price so; anything but pageable, pinned or empty names the row.
TEST(LearnData, NetworkOptionsTakeTheCopyMemoryFromTheExtraColumn) {
  NetworkRow r = training_row("");
  r.includes_h2d = true;
  EXPECT_FALSE(learn::network_options(r, "t").pageable_copies);
  r.extra["copy_memory"] = "pageable";
  EXPECT_TRUE(learn::network_options(r, "t").pageable_copies);
  EXPECT_TRUE(learn::network_options(r, "t").include_copies);
  r.extra["copy_memory"] = "pinned";
  EXPECT_FALSE(learn::network_options(r, "t").pageable_copies);
  r.extra["copy_memory"] = "unpinned";
  try {
    learn::network_options(r, "rows.csv:9");
    ADD_FAILURE() << "unpinned accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rows.csv:9: copy_memory 'unpinned'"), std::string::npos) << e.what();
  }
}

// MLPerf's rows carry their harness's use_graphs as the extra column cuda_graphs: train and eval predict them so.
TEST(LearnData, NetworkOptionsTakeCudaGraphsFromTheExtraColumn) {
  NetworkRow r = training_row("");
  EXPECT_FALSE(learn::network_options(r, "t").cuda_graphs);
  r.extra["cuda_graphs"] = "1";
  EXPECT_TRUE(learn::network_options(r, "t").cuda_graphs);
  r.extra["cuda_graphs"] = "0";
  EXPECT_FALSE(learn::network_options(r, "t").cuda_graphs);
}

TEST(LearnData, NetworkOptionsRejectAMissingBatch) {
  NetworkRow r = training_row("");
  r.batch.reset();
  EXPECT_THROW(learn::network_options(r, "t"), InputError);
}

// A row measured under a power limit (its power_limit_w) is predicted on the GPU under that limit, cached apart
// from the same GPU at its TDP; a limit outside the GPU's range names the file, gpu_id and column.
TEST(LearnData, GpuResolverAppliesTheRowsPowerLimit) {
  learn::DataFile f;
  f.path = "zeus.csv";
  f.has_meta = true;
  f.meta.devices = nlohmann::json::parse(R"({"spec:quadro-rtx-6000": {"architecture": "Turing",
      "boost_clock_mhz": 1770, "compute_capability": "7.5", "fp32_lanes_per_sm": 64, "mem_bandwidth_gbps": 672,
      "memory_gb": 24, "name": "Quadro RTX 6000", "sm_count": 72, "tdp_w": 260}})");
  learn::GpuResolver gpus;
  const GpuSpec& full = gpus.get("spec:quadro-rtx-6000", f);
  const GpuSpec& capped = gpus.get("spec:quadro-rtx-6000", f, 150.0);
  EXPECT_EQ(full.power_limit_w, 0.0);
  EXPECT_EQ(capped.power_limit_w, 150.0);
  EXPECT_EQ(capped.tdp_w, 260.0);
  EXPECT_EQ(gpus.get("spec:quadro-rtx-6000", f).power_limit_w, 0.0);  // not the capped entry
  try {
    gpus.get("spec:quadro-rtx-6000", f, 300.0);
    ADD_FAILURE() << "a limit above the TDP was accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("zeus.csv: gpu_id 'spec:quadro-rtx-6000' at column power_limit_w 300"), std::string::npos) << m;
    EXPECT_NE(m.find("260] W"), std::string::npos) << m;
  }
}

// A profiled kernel row is labelled with CUPTI's kernel time where the profiler recorded it: the CUDA-event
// time_ms around a cuDNN call holds the library's host work too (data/measured/README.md).
TEST(LearnData, KernelLabelIsTheKernelsOwnTimeWhereCuptiRecordedIt) {
  KernelRow r;
  r.op_family = "conv";
  r.time_ms = 0.41;
  r.notes = "algo=fwd:1; workspace_bytes=0; cupti_kernels=4; cupti_busy_ms=0.3551; grid/block=98x2x64/256x1x1";
  ASSERT_TRUE(learn::kernel_label_ms(r).has_value());
  EXPECT_DOUBLE_EQ(*learn::kernel_label_ms(r), 0.3551);
  // Without the note (DeepBench, NeuSight), or with one that is not a positive number: time_ms.
  r.notes = "algo=fwd:1";
  EXPECT_DOUBLE_EQ(*learn::kernel_label_ms(r), 0.41);
  r.notes = "cupti_busy_ms=0";
  EXPECT_DOUBLE_EQ(*learn::kernel_label_ms(r), 0.41);
  r.notes = "cupti_busy_ms=nan";
  EXPECT_DOUBLE_EQ(*learn::kernel_label_ms(r), 0.41);
  // Microbenchmarks time many launches (or a copy) per row; CUPTI saw one launch of them.
  r.op_family = "microbench";
  r.notes = "cupti_busy_ms=0.002";
  EXPECT_DOUBLE_EQ(*learn::kernel_label_ms(r), 0.41);
  // A recurrent op's steps wait on cuDNN's host loop between launches: its event time is the label.
  r.op_family = "rnn";
  r.notes = "cupti_kernels=33; cupti_busy_ms=0.07094";
  EXPECT_DOUBLE_EQ(*learn::kernel_label_ms(r), 0.41);
  // Neither a note nor a positive time: no label.
  r.op_family = "conv";
  r.notes.clear();
  r.time_ms = 0;
  EXPECT_FALSE(learn::kernel_label_ms(r).has_value());
  r.time_ms.reset();
  EXPECT_FALSE(learn::kernel_label_ms(r).has_value());
}
