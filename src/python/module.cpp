// The perfpred Python extension (_perfpred): the documents the CLI prints with --json, built by the same
// functions (src/cli cmd_*.cpp without CLI11), so a prediction from Python and from the command line is
// the same JSON text. The pure-Python package (src/python/perfpred) wraps these into result objects and
// exports torch modules to ONNX bytes. This is the only translation unit that includes pybind11.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "cmd_devices.hpp"
#include "cmd_eval.hpp"
#include "cmd_fit_host.hpp"
#include "cmd_mig.hpp"
#include "cmd_predict.hpp"
#include "cmd_select.hpp"
#include "cmd_sweep.hpp"
#include "common.hpp"
#include "perfpred/util/error.hpp"

namespace py = pybind11;
namespace cli = perfpred::cli;

namespace {

/// The JSON text the CLI prints (print_json: 2-space indent, newline-terminated).
std::string text(const nlohmann::json& j) { return cli::json_text(j); }

/// Warnings (importer notes on the model) go to stderr as the CLI writes them; the CLI sets the same up.
void setup_logging() {
  if (spdlog::get("perfpred")) return;
  auto logger = spdlog::stderr_color_mt("perfpred");
  logger->set_pattern("perfpred: %^%l%$: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

void set_log_level(const std::string& level) {
  const auto l = spdlog::level::from_str(level);
  if (l == spdlog::level::off && level != "off")
    throw perfpred::InputError("log level '" + level + "': use debug, info, warning, error or off");
  spdlog::set_level(l);
}

template <class T>
void bind_choices(py::class_<T, cli::PredictChoices>& c) {
  c.def(py::init<>());
}

/// The option structs of the commands, field for field (the Python package fills them from keywords).
void bind_options(py::module_& m) {
  py::class_<cli::PredictCmdOptions>(m, "PredictOptions")
      .def(py::init<>())
      .def_readwrite("model", &cli::PredictCmdOptions::model)
      .def_readwrite("model_bytes", &cli::PredictCmdOptions::model_bytes)
      .def_readwrite("gpu", &cli::PredictCmdOptions::gpu)
      .def_readwrite("batch", &cli::PredictCmdOptions::batch)
      .def_readwrite("batch_given", &cli::PredictCmdOptions::batch_given)
      .def_readwrite("input_shapes", &cli::PredictCmdOptions::input_shapes)
      .def_readwrite("branches", &cli::PredictCmdOptions::branches)
      .def_readwrite("loop_trips", &cli::PredictCmdOptions::loop_trips)
      .def_readwrite("dims", &cli::PredictCmdOptions::dims)
      .def_readwrite("data_counts", &cli::PredictCmdOptions::data_counts)
      .def_readwrite("nms_candidates", &cli::PredictCmdOptions::nms_candidates)
      .def_readwrite("allow_partial", &cli::PredictCmdOptions::allow_partial)
      .def_readwrite("precision", &cli::PredictCmdOptions::precision)
      .def_readwrite("mode", &cli::PredictCmdOptions::mode)
      .def_readwrite("optimizer", &cli::PredictCmdOptions::optimizer)
      .def_readwrite("runtime", &cli::PredictCmdOptions::runtime)
      .def_readwrite("layers", &cli::PredictCmdOptions::layers)
      .def_readwrite("allow_unknown", &cli::PredictCmdOptions::allow_unknown)
      .def_readwrite("no_meta", &cli::PredictCmdOptions::no_meta)
      .def_readwrite("no_copies", &cli::PredictCmdOptions::no_copies)
      .def_readwrite("pageable_copies", &cli::PredictCmdOptions::pageable_copies)
      .def_readwrite("host_factor", &cli::PredictCmdOptions::host_factor)
      .def_readwrite("gpu_factor", &cli::PredictCmdOptions::gpu_factor)
      .def_readwrite("no_tf32", &cli::PredictCmdOptions::no_tf32)
      .def_readwrite("cuda_graphs", &cli::PredictCmdOptions::cuda_graphs)
      .def_readwrite("grad_mode", &cli::PredictCmdOptions::grad_mode)
      .def_readwrite("launch_queue", &cli::PredictCmdOptions::launch_queue)
      .def_readwrite("channels_last", &cli::PredictCmdOptions::channels_last)
      .def_readwrite("attention", &cli::PredictCmdOptions::attention)
      .def_readwrite("param_updates", &cli::PredictCmdOptions::param_updates)
      .def_readwrite("mixed_precision", &cli::PredictCmdOptions::mixed_precision);

  py::class_<cli::FitHostCmdOptions>(m, "FitHostOptions")
      .def(py::init<>())
      .def_readwrite("predict", &cli::FitHostCmdOptions::predict)
      .def_readwrite("measured_ms", &cli::FitHostCmdOptions::measured_ms)
      .def_readwrite("bundles", &cli::FitHostCmdOptions::bundles)
      .def_readwrite("analytical", &cli::FitHostCmdOptions::analytical)
      .def_property(
          "fit_gpu", [](const cli::FitHostCmdOptions& o) { return o.factor == cli::MachineFactor::gpu; },
          [](cli::FitHostCmdOptions& o, bool gpu) { o.factor = gpu ? cli::MachineFactor::gpu : cli::MachineFactor::host; });

  py::class_<cli::PredictChoices>(m, "PredictChoices")
      .def(py::init<>())
      .def_readwrite("batch", &cli::PredictChoices::batch)
      .def_readwrite("precision", &cli::PredictChoices::precision)
      .def_readwrite("mode", &cli::PredictChoices::mode)
      .def_readwrite("runtime", &cli::PredictChoices::runtime)
      .def_readwrite("optimizer", &cli::PredictChoices::optimizer)
      .def_readwrite("input_shapes", &cli::PredictChoices::input_shapes)
      .def_readwrite("branches", &cli::PredictChoices::branches)
      .def_readwrite("loop_trips", &cli::PredictChoices::loop_trips)
      .def_readwrite("dims", &cli::PredictChoices::dims)
      .def_readwrite("data_counts", &cli::PredictChoices::data_counts)
      .def_readwrite("nms_candidates", &cli::PredictChoices::nms_candidates)
      .def_readwrite("allow_partial", &cli::PredictChoices::allow_partial)
      .def_readwrite("allow_unknown", &cli::PredictChoices::allow_unknown)
      .def_readwrite("bundle", &cli::PredictChoices::bundle)
      .def_readwrite("analytical", &cli::PredictChoices::analytical)
      .def_readwrite("host_factor", &cli::PredictChoices::host_factor)
      .def_readwrite("gpu_factor", &cli::PredictChoices::gpu_factor)
      .def_readwrite("no_tf32", &cli::PredictChoices::no_tf32)
      .def_readwrite("cuda_graphs", &cli::PredictChoices::cuda_graphs)
      .def_readwrite("grad_mode", &cli::PredictChoices::grad_mode)
      .def_readwrite("launch_queue", &cli::PredictChoices::launch_queue)
      .def_readwrite("channels_last", &cli::PredictChoices::channels_last)
      .def_readwrite("attention", &cli::PredictChoices::attention)
      .def_readwrite("param_updates", &cli::PredictChoices::param_updates)
      .def_readwrite("mixed_precision", &cli::PredictChoices::mixed_precision);

  py::class_<cli::SelectCliOptions, cli::PredictChoices> select(m, "SelectOptions");
  bind_choices(select);
  select.def_readwrite("model", &cli::SelectCliOptions::model)
      .def_readwrite("devices", &cli::SelectCliOptions::devices)
      .def_readwrite("all", &cli::SelectCliOptions::all)
      .def_readwrite("max_latency_ms", &cli::SelectCliOptions::max_latency_ms)
      .def_readwrite("max_power_w", &cli::SelectCliOptions::max_power_w)
      .def_readwrite("min_memory_headroom", &cli::SelectCliOptions::min_memory_headroom)
      .def_readwrite("max_latency_range_high_ms", &cli::SelectCliOptions::max_latency_range_high_ms)
      .def_readwrite("max_power_range_high_w", &cli::SelectCliOptions::max_power_range_high_w)
      .def_readwrite("objective", &cli::SelectCliOptions::objective)
      .def_readwrite("prices", &cli::SelectCliOptions::prices);

  py::class_<cli::SweepCliOptions, cli::PredictChoices> sweep(m, "SweepOptions");
  bind_choices(sweep);
  sweep.def_readwrite("model", &cli::SweepCliOptions::model)
      .def_readwrite("base_gpu", &cli::SweepCliOptions::base_gpu)
      .def_readwrite("vary", &cli::SweepCliOptions::vary)
      .def_readwrite("max_points", &cli::SweepCliOptions::max_points);

  py::class_<cli::MigCliOptions, cli::PredictChoices> mig(m, "MigOptions");
  bind_choices(mig);
  mig.def_readwrite("model", &cli::MigCliOptions::model)
      .def_readwrite("gpu", &cli::MigCliOptions::gpu)
      .def_readwrite("slo_ms", &cli::MigCliOptions::slo_ms)
      .def_readwrite("memory_headroom", &cli::MigCliOptions::memory_headroom)
      .def_readwrite("max_batch", &cli::MigCliOptions::max_batch)
      .def_readwrite("max_batch_limit", &cli::MigCliOptions::max_batch_limit);
}

/// One call per command, returning the JSON text the command prints with --json.
void bind_commands(py::module_& m) {
  // The work runs without the GIL: other Python threads go on while a model is imported and costed.
  using release = py::call_guard<py::gil_scoped_release>;
  m.def(
      "predict",
      [](const cli::PredictCmdOptions& o, const std::vector<std::string>& bundles, bool analytical) {
        return text(cli::predict_document_with_model(o, bundles, analytical));
      },
      py::arg("options"), py::arg("bundles") = std::vector<std::string>{}, py::arg("analytical") = false, release(),
      "The JSON text `perfpred predict --json` prints for these options.");
  m.def(
      "fit_host", [](const cli::FitHostCmdOptions& o) { return text(cli::fit_host_document(o)); },
      py::arg("options"), release(), "The JSON text `perfpred fit-host --json` prints.");
  m.def(
      "select", [](const cli::SelectCliOptions& o) { return text(cli::select_document(o)); }, py::arg("options"),
      release(), "The JSON text `perfpred select --json` prints.");
  m.def(
      "sweep", [](const cli::SweepCliOptions& o) { return text(cli::sweep_document(o)); }, py::arg("options"),
      release(), "The JSON text `perfpred sweep --json` prints.");
  m.def(
      "mig", [](const cli::MigCliOptions& o) { return text(cli::mig_document(o)); }, py::arg("options"), release(),
      "The JSON text `perfpred mig --json` prints.");
  m.def(
      "devices", [] { return text(cli::devices_document()); }, release(), "The JSON text `perfpred devices --json` prints.");
  m.def(
      "device", [](const std::string& id) { return text(cli::device_document(id)); }, py::arg("id"), release(),
      "The JSON text `perfpred devices show ID --json` prints.");
}

}  // namespace

PYBIND11_MODULE(_perfpred, m) {
  m.doc() = "perfpred: predict latency, energy and memory of neural networks on GPUs (C++ extension)";
  setup_logging();
  // Error types keep the C++ message, the one line the CLI prints after "perfpred: error: ".
  // Translators are tried last-registered first: the subclass UnsupportedOpError before InputError.
  auto& input_error = py::register_exception<perfpred::InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<perfpred::UnsupportedOpError>(m, "UnsupportedOpError", input_error.ptr());
  py::register_exception<perfpred::InternalError>(m, "InternalError", PyExc_RuntimeError);
  bind_options(m);
  bind_commands(m);
  m.def("set_log_level", &set_log_level, py::arg("level"), "Level of perfpred's messages on stderr (default warning).");
}
