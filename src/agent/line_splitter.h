#pragma once
// Splits a byte stream into lines for the task log. '\n', '\r' and "\r\n" each end a line ('\r'
// alone ends one too because progress bars redraw with it, and each redraw is worth a log line).
// Lines longer than `max_line_bytes` are cut so a process that never prints a newline cannot grow
// the buffer without bound. Not thread-safe; one splitter per stream.
#include <cstddef>
#include <cstdint>
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
  // For a stream picked up in the middle, right after a '\r': a '\n' that comes first ends no line.
  void ContinueAfterCarriageReturn() { after_cr_ = true; }

  // While on_line runs: how many bytes of the stream (counting every Feed) the lines delivered so
  // far, this one included, and their terminators span. Reading the stream again from there
  // delivers the lines after this one.
  uint64_t consumed() const { return line_end_; }

 private:
  LineCallback on_line_;
  size_t max_line_bytes_;
  std::string partial_;
  // The previous chunk ended with '\r': a '\n' that starts the next chunk belongs to it.
  bool after_cr_ = false;
  uint64_t fed_ = 0;  // bytes fed before the current chunk
  uint64_t line_end_ = 0;
};

}  // namespace det::agent
