// The agent <-> master websocket messages (src/api/agent_protocol.h): decoding untrusted text never
// crashes, and whatever decodes re-encodes to text that decodes to the same message.
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/agent_protocol.h"
#include "fuzz_fail.h"

using det::fuzz::Fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);

  if (auto agent = det::api::DecodeAgentMessage(text); agent.ok()) {
    std::string once = det::api::Encode(*agent);
    auto again = det::api::DecodeAgentMessage(once);
    if (!again.ok())
      Fail("re-encoded agent message does not decode", once, again.status().ToString());
    std::string twice = det::api::Encode(*again);
    if (once != twice) Fail("agent message round trip differs", once, twice);
  }

  if (auto master = det::api::DecodeMasterMessage(text); master.ok()) {
    std::string once = det::api::Encode(*master);
    auto again = det::api::DecodeMasterMessage(once);
    if (!again.ok())
      Fail("re-encoded master message does not decode", once, again.status().ToString());
    std::string twice = det::api::Encode(*again);
    if (once != twice) Fail("master message round trip differs", once, twice);
  }
  return 0;
}
