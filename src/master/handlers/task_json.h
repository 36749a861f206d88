#pragma once
// The wire forms of tasks: upstream's commandv1.Command (also the shape of shells, notebooks and
// TensorBoards) and taskv1.Task with its allocations.
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "master/db/store.h"

namespace det::master {

// "STATE_QUEUED" (queued or assigned), "STATE_RUNNING", "STATE_TERMINATING" (being killed or paused),
// "STATE_TERMINATED" (ended, or paused with nothing running): what a task shows, from its own state
// and its latest allocation.
std::string TaskDisplayState(const Task& task, const std::optional<Allocation>& latest);

// {id, description, state, startTime, container, displayName, userId, username, resourcePool,
// exitStatus, jobId, workspaceId, exitCode}. `exitCode` is ours (null until the process exits), so
// `det cmd run` can exit with the command's status.
nlohmann::json CommandJson(const Task& task, const std::optional<Allocation>& latest);

// A notebook, shell or TensorBoard: CommandJson and its kind's fields (docs/interactive.md):
// notebook serviceAddress (with ?token=); TensorBoard serviceAddress, experimentIds, trialIds; shell
// privateKey, publicKey, addresses ([{host, port}] while it serves), agentUserGroup.
nlohmann::json ServiceTaskJson(const Task& task, const std::optional<Allocation>& latest);

// {taskId, taskType: "TASK_TYPE_COMMAND", allocations: [...], startTime, endTime, taskState,
// forkedFrom, parentId, noPause}.
nlohmann::json TaskJson(const Task& task, const std::vector<Allocation>& allocations);

}  // namespace det::master
