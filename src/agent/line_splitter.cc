#include "agent/line_splitter.h"

#include <utility>

namespace det::agent {

LineSplitter::LineSplitter(LineCallback on_line, size_t max_line_bytes)
    : on_line_(std::move(on_line)), max_line_bytes_(max_line_bytes) {}

void LineSplitter::Feed(std::string_view data) {
  size_t start = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    char c = data[i];
    if (c == '\n' && after_cr_ && i == start && partial_.empty()) {
      // Second half of a "\r\n" whose '\r' already ended the line.
      after_cr_ = false;
      start = i + 1;
      continue;
    }
    after_cr_ = false;
    if (c != '\n' && c != '\r') {
      if (partial_.size() + (i + 1 - start) >= max_line_bytes_) {
        partial_.append(data.substr(start, i + 1 - start));
        line_end_ = fed_ + i + 1;
        on_line_(std::move(partial_));
        partial_.clear();
        start = i + 1;
      }
      continue;
    }
    partial_.append(data.substr(start, i - start));
    line_end_ = fed_ + i + 1;
    on_line_(std::move(partial_));
    partial_.clear();
    start = i + 1;
    after_cr_ = c == '\r';
  }
  partial_.append(data.substr(start));
  fed_ += data.size();
}

void LineSplitter::Finish() {
  line_end_ = fed_;
  if (!partial_.empty()) on_line_(std::move(partial_));
  partial_.clear();
  after_cr_ = false;
}

}  // namespace det::agent
