#pragma once
// Splits a byte stream into lines for the task log. '\n', '\r' and "\r\n" each end a line ('\r'
// alone ends one too because progress bars redraw with it, and each redraw is worth a log line).
// Lines longer than `max_line_bytes` are cut so a process that never prints a newline cannot grow
// the buffer without bound. Not thread-safe; one splitter per stream.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace det::agent {

class LineSplitter {
 public:
  using LineCallback = std::function<void(std::string line)>;

  explicit LineSplitter(LineCallback on_line, size_t max_line_bytes = 64 * 1024);

  // Feeds the next chunk of the stream; calls on_line for every line it completes.
  void Feed(std::string_view data);
  // End of stream: delivers a trailing partial line, if any.
  void Finish();

 private:
  LineCallback on_line_;
  size_t max_line_bytes_;
  std::string partial_;
  // The previous chunk ended with '\r': a '\n' that starts the next chunk belongs to it.
  bool after_cr_ = false;
};

}  // namespace det::agent
