#pragma once
// The product's one version, which the master, the agent and `det` all report: the Determined release
// whose interface this build implements.

namespace det {

inline constexpr char kVersion[] = "0.38.1";

}  // namespace det
