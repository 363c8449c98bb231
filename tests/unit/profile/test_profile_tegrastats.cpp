// The tegrastats fallback: a fake `tegrastats` (tests/data/jetson/bin/tegrastats, a shell script
// printing fixture lines in the documented Nano / Xavier / Orin formats at the requested interval)
// runs as the child; energies are checked against the fixture's constant powers, and the child (and
// its own children) must be gone after stop(), also when the parent is killed. No Jetson is needed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "perfpred/profile/jetson.hpp"

using namespace perfpred::jetson;
namespace fs = std::filesystem;

namespace {

fs::path data(const std::string& rel) { return fs::path(PERFPRED_SOURCE_ROOT) / "tests/data/jetson" / rel; }
std::string fake() { return data("bin/tegrastats").string(); }

std::vector<std::string> fixture_lines(const std::string& board) {
  std::ifstream in(data(board + "/tegrastats.txt"));
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

/// A temporary file holding the given tegrastats lines; FAKE_TEGRASTATS_LINES names it.
struct Lines {
  fs::path path;
  explicit Lines(const std::vector<std::string>& lines) {
    path = fs::temp_directory_path() / ("perfpred-tegrastats-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter()++) + ".txt");
    std::ofstream out(path);
    for (const auto& l : lines) out << l << "\n";
    ::setenv("FAKE_TEGRASTATS_LINES", path.c_str(), 1);
  }
  ~Lines() {
    ::unsetenv("FAKE_TEGRASTATS_LINES");
    std::error_code ec;
    fs::remove(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

/// Processes of process group `pgid` that are alive (not zombies).
int live_in_group(int pgid) {
  int n = 0;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream in(it->path() / "stat");
    std::string stat;
    std::getline(in, stat);
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    int ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp == pgid && state != 'Z') ++n;
  }
  return n;
}

bool gone_within(int pgid, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (live_in_group(pgid) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return live_in_group(pgid) == 0;
}

RailSample sample(double gpu, double in) { return RailSample{{{"GPU", gpu}, {"IN", in}}}; }

/// Constant fixture power measured over ~150 ms of the fake's output.
void expect_constant_power(const std::string& board, size_t line, const std::string& gpu_rail, double gpu_mw,
                           double total_mw) {
  SCOPED_TRACE(board);
  auto lines = fixture_lines(board);
  ASSERT_GT(lines.size(), line);
  Lines file({lines[line]});
  std::string why;
  auto src = TegrastatsSource::start({fake(), 20, 10000}, why);
  ASSERT_TRUE(src) << why;
  auto choice = choose_rails(src->rails());
  EXPECT_EQ(choice.gpu_rail, gpu_rail);
  double t0 = src->now_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  double t1 = src->now_ms();
  auto r = src->measure_window(t0, t1, choice);
  ASSERT_TRUE(r.gpu_energy_mj && r.total_energy_mj);
  EXPECT_NEAR(r.window_ms, t1 - t0, 1e-9);
  EXPECT_NEAR(*r.gpu_energy_mj, gpu_mw * (t1 - t0) / 1000.0, 1e-9 * (1 + gpu_mw * (t1 - t0)));
  EXPECT_NEAR(*r.total_energy_mj, total_mw * (t1 - t0) / 1000.0, 1e-9 * total_mw * (t1 - t0));
  EXPECT_NEAR(*r.gpu_mean_power_w, gpu_mw / 1000.0, 1e-9);
  EXPECT_NEAR(*r.total_mean_power_w, total_mw / 1000.0, 1e-9);
  EXPECT_GE(r.samples, 2);
  int pid = src->pid();
  src->stop();
  errno = 0;
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);  // reaped already: not our child any more
  EXPECT_EQ(errno, ECHILD);
  EXPECT_TRUE(gone_within(pid, 3)) << "the fake tegrastats or its sleep survived stop()";
}

}  // namespace

TEST(Tegrastats, IntegrateWindowInterpolatesAtBothEnds) {
  RailChoice c;
  c.gpu_rail = "GPU";
  c.total_rails = {"IN"};
  std::vector<std::pair<double, RailSample>> s = {
      {0, sample(0, 1000)}, {10, sample(1000, 2000)}, {20, sample(1000, 2000)}, {30, sample(0, 1000)}};
  auto r = TegrastatsSource::integrate_window(s, 5, 25, c);
  ASSERT_TRUE(r.gpu_energy_mj && r.total_energy_mj);
  EXPECT_DOUBLE_EQ(r.window_ms, 20);
  EXPECT_DOUBLE_EQ(*r.gpu_energy_mj, 17.5);    // 3.75 + 10 + 3.75 (mW x ms = uJ)
  EXPECT_DOUBLE_EQ(*r.total_energy_mj, 37.5);  // 8.75 + 20 + 8.75
  EXPECT_DOUBLE_EQ(*r.gpu_mean_power_w, 0.875);
  // A window wider than the lines is cut to them.
  auto wide = TegrastatsSource::integrate_window(s, -10, 40, c);
  EXPECT_DOUBLE_EQ(wide.window_ms, 30);
  EXPECT_DOUBLE_EQ(*wide.gpu_energy_mj, 20);
  // No line inside or around the window: nothing measured.
  EXPECT_FALSE(TegrastatsSource::integrate_window({}, 0, 10, c).gpu_energy_mj);
  EXPECT_FALSE(TegrastatsSource::integrate_window({s[0]}, 0, 10, c).gpu_energy_mj);
}

TEST(Tegrastats, NanoJetPack4LinesGiveGpuRailAndInputEnergy) {
  expect_constant_power("nano", 1, "POM_5V_GPU", 2392, 5611);
}

TEST(Tegrastats, XavierLinesSumTheRailsForTheTotal) {
  // No input rail in Xavier's tegrastats: the total is GPU + CPU + SOC + CV + VDDRQ + SYS5V.
  expect_constant_power("xavier", 0, "GPU", 0, 0 + 311 + 1243 + 0 + 155 + 2144);
}

TEST(Tegrastats, OrinMilliwattLinesUseTheCombinedGpuSocRail) {
  // NC channels are skipped; VDD_GPU_SOC is the GPU rail (with the SoC).
  expect_constant_power("orin-agx", 0, "VDD_GPU_SOC", 1592, 1592 + 398 + 2420 + 302);
}

TEST(Tegrastats, AlternatingLinesAverageBetweenThem) {
  Lines file(fixture_lines("nano"));  // GPU 0 mW then 2392 mW, IN 2452 then 5611
  std::string why;
  auto src = TegrastatsSource::start({fake(), 20, 10000}, why);
  ASSERT_TRUE(src) << why;
  auto choice = choose_rails(src->rails());
  double t0 = src->now_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  double t1 = src->now_ms();
  auto r = src->measure_window(t0, t1, choice);
  ASSERT_TRUE(r.gpu_mean_power_w && r.total_mean_power_w);
  EXPECT_GE(r.samples, 4);
  EXPECT_GT(*r.gpu_mean_power_w, 0.0);
  EXPECT_LT(*r.gpu_mean_power_w, 2.392);
  EXPECT_GT(*r.total_mean_power_w, 2.452);
  EXPECT_LT(*r.total_mean_power_w, 5.611);
  EXPECT_NEAR(*r.gpu_energy_mj, *r.gpu_mean_power_w * r.window_ms, 1e-9);
  EXPECT_GT(src->lines(), 2);
}

TEST(Tegrastats, FoundThroughTheEnvironmentAndOnPath) {
  Lines file({fixture_lines("nano")[1]});
  std::string why;
  ::setenv(k_tegrastats_env, fake().c_str(), 1);
  {
    auto src = TegrastatsSource::start({"", 20, 10000}, why);
    ASSERT_TRUE(src) << why;
    EXPECT_EQ(src->program(), fake());
  }
  ::unsetenv(k_tegrastats_env);
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (data("bin").string() + ":" + old_path).c_str(), 1);
  auto src = TegrastatsSource::start({"", 20, 10000}, why);
  ::setenv("PATH", old_path.c_str(), 1);
  ASSERT_TRUE(src) << why;
  EXPECT_EQ(fs::path(src->program()), data("bin/tegrastats"));
}

TEST(Tegrastats, FailuresSayWhy) {
  std::string why;
  EXPECT_FALSE(TegrastatsSource::start({"/nonexistent/tegrastats", 20, 2000}, why));
  EXPECT_NE(why.find("not found"), std::string::npos) << why;
  ::setenv("FAKE_TEGRASTATS_FAIL", "1", 1);
  auto src = TegrastatsSource::start({fake(), 20, 10000}, why);
  ::unsetenv("FAKE_TEGRASTATS_FAIL");
  EXPECT_FALSE(src);
  EXPECT_NE(why.find("exited"), std::string::npos) << why;
  EXPECT_NE(why.find("Permission denied"), std::string::npos) << why;
}

TEST(Tegrastats, ChildDiesWithAKilledParent) {
  // A helper process starts the source and is then SIGKILLed (no destructor runs): the parent-death
  // signal must end the fake tegrastats, so no orphan keeps printing.
  Lines file({fixture_lines("nano")[1]});
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    ::close(fds[0]);
    std::string why;
    auto src = TegrastatsSource::start({fake(), 20, 10000}, why);
    int pid = src ? src->pid() : -1;
    if (::write(fds[1], &pid, sizeof pid) != sizeof pid) ::_exit(3);
    ::pause();
    ::_exit(0);
  }
  ::close(fds[1]);
  int child = -1;
  ASSERT_EQ(::read(fds[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::close(fds[0]);
  ASSERT_GT(child, 0);
  ::kill(helper, SIGKILL);
  ::waitpid(helper, nullptr, 0);
  // The shell gets SIGTERM at once; its `sleep` ends within one interval.
  EXPECT_TRUE(gone_within(child, 3)) << "tegrastats outlived its killed parent";
}

TEST(BoardPower, SysfsRailsWhenTheyRead) {
  auto b = open_board_power(data("nano/sysfs"), {"/nonexistent/tegrastats", 20, 2000});
  EXPECT_EQ(b.reader, "sysfs-ina3221");
  EXPECT_FALSE(b.tegrastats);
  ASSERT_EQ(b.choice.gpu_rail, "POM_5V_GPU");
  const Rail* gpu = nullptr;
  for (const auto& r : b.rails)
    if (r.name == "POM_5V_GPU") gpu = &r;
  ASSERT_NE(gpu, nullptr);
  bool ran = false;
  auto r = b.measure([&] {
    ran = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }, 5);
  EXPECT_TRUE(ran);
  ASSERT_TRUE(r.gpu_mean_power_w);
  EXPECT_NEAR(*r.gpu_mean_power_w, *read_power_mw(*gpu) / 1000.0, 1e-9);  // the fixture files are constant
  EXPECT_GE(r.window_ms, 50);
}

TEST(BoardPower, TegrastatsWhenNoRailReads) {
  fs::path empty = fs::temp_directory_path() / ("perfpred-empty-sysfs-" + std::to_string(::getpid()));
  fs::create_directories(empty);
  Lines file({fixture_lines("nano")[1]});
  int pid = -1;
  {
    auto b = open_board_power(empty, {fake(), 20, 10000});
    ASSERT_EQ(b.reader, "tegrastats") << b.why;
    ASSERT_TRUE(b.tegrastats);
    pid = b.tegrastats->pid();
    ASSERT_FALSE(b.rails.empty());
    EXPECT_EQ(b.rails.front().layout, "tegrastats");
    EXPECT_EQ(b.choice.gpu_rail, "POM_5V_GPU");
    EXPECT_EQ(b.choice.total_rails, std::vector<std::string>{"POM_5V_IN"});
    auto r = b.measure([] { std::this_thread::sleep_for(std::chrono::milliseconds(150)); }, 5);
    ASSERT_TRUE(r.gpu_mean_power_w && r.total_mean_power_w);
    EXPECT_NEAR(*r.gpu_mean_power_w, 2.392, 1e-9);
    EXPECT_NEAR(*r.total_mean_power_w, 5.611, 1e-9);
    EXPECT_GE(r.window_ms, 150);
  }  // BoardPower's destructor stops tegrastats
  EXPECT_TRUE(gone_within(pid, 3));
  fs::remove_all(empty);
}

TEST(BoardPower, NeitherSaysWhy) {
  fs::path empty = fs::temp_directory_path() / ("perfpred-empty-sysfs2-" + std::to_string(::getpid()));
  fs::create_directories(empty);
  auto b = open_board_power(empty, {"/nonexistent/tegrastats", 20, 2000});
  EXPECT_EQ(b.reader, "");
  EXPECT_NE(b.why.find("no INA3221 power rails"), std::string::npos) << b.why;
  EXPECT_NE(b.why.find("tegrastats failed"), std::string::npos) << b.why;
  bool ran = false;
  auto r = b.measure([&] { ran = true; }, 5);
  EXPECT_TRUE(ran);
  EXPECT_FALSE(r.gpu_energy_mj || r.total_energy_mj);
  fs::remove_all(empty);
}
