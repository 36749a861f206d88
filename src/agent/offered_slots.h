#pragma once
// The slots an agent offers, from its slot_type (agent_config.h) and the GPUs the driver tools
// show:
// - auto: the CUDA GPUs found, else the ROCm GPUs, else `slots` CPU slots;
// - cuda / rocm: those GPUs; none found is an error that says why (the agent does not start);
// - cpu: `slots` CPU slots; none: no slot.
// `visible_gpus` limits which GPUs are offered. Each GPU slot's id is the GPU's index.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/agent_config.h"
#include "agent/command_runner.h"
#include "api/agent_protocol.h"

namespace det::agent {

// `notes` gets what the agent should log about the choice (why no GPU was offered under auto).
absl::StatusOr<std::vector<api::SlotInfo>> OfferedSlots(const AgentFileConfig& config,
                                                        CommandRunner& runner,
                                                        std::vector<std::string>& notes);

// "2 cuda slot(s) (NVIDIA H200 GPU-7033..., ...)", for the agent's start-up line.
std::string DescribeSlots(const std::vector<api::SlotInfo>& slots);

}  // namespace det::agent
