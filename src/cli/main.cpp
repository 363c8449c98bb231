// The perfpred command line. This is the only translation unit that includes CLI11 (it compiles
// slowly): each subcommand's options are declared here into a plain struct from cmd_<name>.hpp, and
// run_<name>() in cmd_<name>.cpp does the work. Exceptions are turned into exit codes here once:
// 0 success, 1 a check failed or an internal error, 2 bad input (docs/cli.md).
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <functional>
#include <iostream>

#include "perfpred/util/error.hpp"
// @@cmd-includes@@

namespace {

constexpr int k_exit_ok = 0;
constexpr int k_exit_internal = 1;
constexpr int k_exit_input = 2;

void setup_logging(bool verbose, bool quiet) {
  auto logger = spdlog::stderr_color_mt("perfpred");
  logger->set_pattern("perfpred: %^%l%$: %v");
  logger->set_level(quiet ? spdlog::level::err : verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"perfpred: predict latency, energy and memory of neural networks on GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "perfpred 0.1.0");
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "Log details to stderr");
  app.add_flag("-q,--quiet", quiet, "Log only errors");

  std::function<int()> action;

  // @@cmd-setup@@

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "perfpred: error: " << e.what() << " (see --help)\n";
    return k_exit_input;
  }
  setup_logging(verbose, quiet);
  if (!action) {
    std::cerr << "perfpred: error: no subcommand (see --help)\n";
    return k_exit_input;
  }
  try {
    return action();
  } catch (const perfpred::InputError& e) {
    std::cerr << "perfpred: error: " << e.what() << "\n";
    return k_exit_input;
  } catch (const std::exception& e) {
    std::cerr << "perfpred: internal error: " << e.what() << "\n";
    return k_exit_internal;
  }
}
