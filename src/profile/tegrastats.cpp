// `tegrastats` as a child process: the Jetson power fallback when the INA3221 files are not
// readable (see TegrastatsSource in jetson.hpp).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <sstream>

#include "perfpred/profile/jetson.hpp"

namespace perfpred::jetson {

namespace {

constexpr size_t k_max_samples = 20000;  // ~17 min at 50 ms; windows only need the recent ones

/// An executable `program`: itself when it holds a '/', else the first match on PATH; "" when none.
std::string resolve(const std::string& program) {
  auto executable = [](const std::string& p) {
    struct stat st{};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) return executable(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  for (std::string dir; std::getline(ss, dir, ':');) {
    std::string p = (dir.empty() ? "." : dir) + "/" + program;
    if (executable(p)) return p;
  }
  return "";
}

std::string fmt_ms(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

/// The sample interpolated at t between the samples around it (rails present in both).
RailSample interpolate(const std::pair<double, RailSample>& a, const std::pair<double, RailSample>& b, double t) {
  if (b.first <= a.first) return a.second;
  double w = (t - a.first) / (b.first - a.first);
  RailSample s;
  for (const auto& [name, va] : a.second.power_mw) {
    auto it = std::find_if(b.second.power_mw.begin(), b.second.power_mw.end(), [&key = name](const auto& p) { return p.first == key; });
    s.power_mw.emplace_back(name, it == b.second.power_mw.end() ? va : va + w * (it->second - va));
  }
  return s;
}

RailSample at(const std::vector<std::pair<double, RailSample>>& s, double t) {
  for (size_t k = 0; k + 1 < s.size(); ++k)
    if (s[k].first <= t && t <= s[k + 1].first) return interpolate(s[k], s[k + 1], t);
  return t <= s.front().first ? s.front().second : s.back().second;
}

}  // namespace

struct TegrastatsSource::Impl {
  std::string program;
  double interval_ms = 50;
  pid_t pid = -1;
  int master = -1;
  std::chrono::steady_clock::time_point t0;
  std::thread reader;
  std::atomic<bool> stopping{false};
  mutable std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::pair<double, RailSample>> samples;  // guarded by mutex
  std::vector<std::pair<std::string, RailRole>> rails;
  int lines = 0;
  bool exited = false;        // the pty closed: the child is gone
  std::string last_other;     // the last line without rails (an error message, usually)

  double now_ms() const { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }

  void on_line(std::string line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
    if (line.empty()) return;
    double t = now_ms();
    auto parsed = parse_tegrastats_line(line);
    std::lock_guard<std::mutex> lock(mutex);
    if (!parsed || parsed->rails_mw.empty()) {
      last_other = line.substr(0, 200);
      return;
    }
    RailSample s;
    s.power_mw = parsed->rails_mw;
    if (rails.empty())
      for (const auto& [name, mw] : s.power_mw) rails.emplace_back(name, rail_role(name));
    samples.emplace_back(t, std::move(s));
    if (samples.size() > k_max_samples) samples.pop_front();
    ++lines;
    cv.notify_all();
  }

  void read_loop() {
    std::string pending;
    char buf[4096];
    while (!stopping) {
      pollfd p{master, POLLIN, 0};
      int n = ::poll(&p, 1, 50);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) continue;
      ssize_t got = ::read(master, buf, sizeof buf);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) break;  // EIO: every slave fd closed, the child is gone
      pending.append(buf, static_cast<size_t>(got));
      for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
        on_line(pending.substr(0, nl));
        pending.erase(0, nl + 1);
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    exited = true;
    cv.notify_all();
  }

  void terminate() {
    if (pid > 0) {
      ::kill(-pid, SIGTERM);  // the whole process group: tegrastats and anything it started
      int status = 0;
      bool reaped = false;
      for (int i = 0; i < 100 && !reaped; ++i) {
        pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) reaped = true;
        else std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (!reaped) {
        ::kill(-pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
      }
      // Members of the group that outlived the leader (none, normally) get the same end.
      ::kill(-pid, SIGKILL);
      pid = -1;
    }
    stopping = true;
    if (reader.joinable()) reader.join();
    if (master >= 0) ::close(master);
    master = -1;
  }
};

std::unique_ptr<TegrastatsSource> TegrastatsSource::start(const Options& o, std::string& why) {
  std::string wanted = o.program;
  if (wanted.empty()) {
    const char* env = std::getenv(k_tegrastats_env);
    wanted = env && *env ? env : "tegrastats";
  }
  std::string path = resolve(wanted);
  if (path.empty()) {
    why = "'" + wanted + "' not found or not executable" +
          (wanted.find('/') == std::string::npos ? std::string(" on PATH") : std::string()) + " (set " +
          k_tegrastats_env + " to its path)";
    return nullptr;
  }
  double interval = o.interval_ms > 0 ? o.interval_ms : 50;
  std::string interval_arg = std::to_string(static_cast<long long>(std::max(1.0, std::round(interval))));

  // A pseudo-terminal: a program writing to a terminal flushes every line, to a pipe it may not.
  int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    why = std::string("cannot open a pseudo-terminal for tegrastats: ") + std::strerror(errno);
    if (master >= 0) ::close(master);
    return nullptr;
  }
  char slave_name[128] = {0};
  if (::ptsname_r(master, slave_name, sizeof slave_name) != 0) {
    why = std::string("ptsname failed: ") + std::strerror(errno);
    ::close(master);
    return nullptr;
  }
  int slave = ::open(slave_name, O_RDWR | O_NOCTTY);
  if (slave < 0) {
    why = std::string("cannot open ") + slave_name + ": " + std::strerror(errno);
    ::close(master);
    return nullptr;
  }
  termios tio{};
  if (::tcgetattr(slave, &tio) == 0) {
    ::cfmakeraw(&tio);  // no echo, no CR added to line ends
    ::tcsetattr(slave, TCSANOW, &tio);
  }

  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> args = {path, "--interval", interval_arg};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();

  auto src = std::unique_ptr<TegrastatsSource>(new TegrastatsSource());
  src->m = std::make_unique<Impl>();
  Impl& m = *src->m;
  m.program = path;
  m.interval_ms = interval;
  m.master = master;
  m.t0 = std::chrono::steady_clock::now();

  pid_t pid = ::fork();
  if (pid < 0) {
    why = std::string("fork failed: ") + std::strerror(errno);
    ::close(slave);
    return nullptr;  // ~Impl via terminate() closes master
  }
  if (pid == 0) {
    ::setsid();  // its own session and process group: stop() signals the group
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(slave, 0);
    ::dup2(slave, 1);
    ::dup2(slave, 2);
    if (slave > 2) ::close(slave);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(slave);
  m.pid = pid;
  m.reader = std::thread([&m] { m.read_loop(); });

  std::unique_lock<std::mutex> lock(m.mutex);
  bool ok = m.cv.wait_for(lock, std::chrono::duration<double, std::milli>(o.first_line_timeout_ms),
                          [&] { return m.lines > 0 || m.exited; });
  bool have = m.lines > 0;
  std::string last = m.last_other;
  lock.unlock();
  if (!have) {
    why = path + " --interval " + interval_arg +
          (ok ? std::string(" exited") : " printed no line with power rails within " + fmt_ms(o.first_line_timeout_ms) + " ms") +
          (last.empty() ? std::string() : " (last output: '" + last + "')");
    src->stop();
    return nullptr;
  }
  return src;
}

TegrastatsSource::~TegrastatsSource() { stop(); }

void TegrastatsSource::stop() {
  if (m) m->terminate();
}

int TegrastatsSource::pid() const { return m->pid; }
const std::string& TegrastatsSource::program() const { return m->program; }
double TegrastatsSource::interval_ms() const { return m->interval_ms; }
double TegrastatsSource::now_ms() const { return m->now_ms(); }

std::vector<std::pair<std::string, RailRole>> TegrastatsSource::rails() const {
  std::lock_guard<std::mutex> lock(m->mutex);
  return m->rails;
}

int TegrastatsSource::lines() const {
  std::lock_guard<std::mutex> lock(m->mutex);
  return m->lines;
}

RailSampler::Result TegrastatsSource::measure_window(double t0_ms, double t1_ms, const RailChoice& choice) {
  std::vector<std::pair<double, RailSample>> around;
  {
    std::unique_lock<std::mutex> lock(m->mutex);
    // A line after the window closes it; tegrastats prints one per interval.
    m->cv.wait_for(lock, std::chrono::duration<double, std::milli>(std::max(5 * m->interval_ms, 1000.0)), [&] {
      return m->exited || (!m->samples.empty() && m->samples.back().first >= t1_ms);
    });
    size_t first = 0;
    for (size_t k = 0; k < m->samples.size(); ++k)
      if (m->samples[k].first <= t0_ms) first = k;
    for (size_t k = first; k < m->samples.size(); ++k) {
      around.push_back(m->samples[k]);
      if (m->samples[k].first >= t1_ms) break;
    }
  }
  return integrate_window(around, t0_ms, t1_ms, choice);
}

RailSampler::Result TegrastatsSource::integrate_window(const std::vector<std::pair<double, RailSample>>& samples,
                                                       double t0_ms, double t1_ms, const RailChoice& choice) {
  RailSampler::Result r;
  if (samples.empty()) return r;
  double a = std::max(t0_ms, samples.front().first);
  double b = std::min(t1_ms, samples.back().first);
  // Every line consulted counts, also the ones just outside the window that its ends interpolate from.
  const int used = static_cast<int>(samples.size());
  if (b <= a) {
    r.samples = used;
    return r;
  }
  std::vector<std::pair<double, RailSample>> seq;
  seq.emplace_back(a, at(samples, a));
  for (const auto& s : samples)
    if (s.first > a && s.first < b) seq.push_back(s);
  seq.emplace_back(b, at(samples, b));
  r = RailSampler::integrate(seq, choice);
  r.samples = used;
  return r;
}

}  // namespace perfpred::jetson
