#include "nhsim/server/log.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <sstream>

namespace nhsim::server {
namespace {

/// Length of the valid UTF-8 sequence at text[i], 0 if it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const std::size_t n = lead < 0x80           ? 1
                        : (lead >> 5) == 0x6  ? 2
                        : (lead >> 4) == 0xe  ? 3
                        : (lead >> 3) == 0x1e ? 4
                                              : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  }
  return n;
}

/// `text` as a JSON string, quotes included.
void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text, i, n);
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
    i += n;
  }
  out += '"';
}

void append_field(std::string& out, const char* key, std::string_view value) {
  out += ",\"";
  out += key;
  out += "\":";
  append_json_string(out, value);
}

void write(const std::string& line) {
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace

std::string log_json(LogLevel level, std::string_view message, std::string_view job,
                     std::string_view identity) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[40];
  const std::size_t length = std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(stamp + length, sizeof stamp - length, ".%03dZ", static_cast<int>(millis));

  std::string text(message.substr(0, kMaxLogMessage));
  if (message.size() > kMaxLogMessage) {
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xc0) == 0x80) {
      text.pop_back();  // do not end inside a UTF-8 sequence
    }
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xc0) text.pop_back();
    text += "... (" + std::to_string(message.size()) + " bytes)";
  }
  std::string line = "{\"time\":\"";
  line += stamp;
  line += '"';
  append_field(line, "level",
               level == LogLevel::kError     ? "error"
               : level == LogLevel::kWarning ? "warning"
                                             : "info");
  if (!job.empty()) append_field(line, "job", job.substr(0, 64));
  if (!identity.empty()) append_field(line, "identity", identity.substr(0, 64));
  append_field(line, "msg", text);
  line += '}';
  return line;
}

void log_line(std::string_view message, LogLevel level) { write(log_json(level, message)); }

void log_job(std::string_view job, std::string_view identity, std::string_view message,
             LogLevel level) {
  write(log_json(level, message, job, identity));
}

bool LogThrottle::allow(std::int64_t& held_back, Clock::time_point now) {
  const std::lock_guard lock(mutex_);
  if (logged_ && now - last_ < interval_) {
    ++held_back_;
    held_back = held_back_;
    return false;
  }
  held_back = held_back_;
  held_back_ = 0;
  logged_ = true;
  last_ = now;
  return true;
}

std::string seconds_text(std::chrono::milliseconds duration) {
  std::ostringstream text;
  text << static_cast<double>(duration.count()) / 1000.0 << " s";
  return text.str();
}

}  // namespace nhsim::server
