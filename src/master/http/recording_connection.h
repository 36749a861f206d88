#pragma once
// For tests: a WebSocket connection that keeps what is sent to it.
#include <string>
#include <vector>

#include "master/http/http_types.h"

namespace det::master {

class RecordingConnection : public WebSocketConnection {
 public:
  void Send(std::string text) override { sent.push_back(std::move(text)); }
  void Close() override { closed = true; }
  std::vector<std::string> sent;
  bool closed = false;
};

}  // namespace det::master
