#include "master/task/task_states.h"

#include <gtest/gtest.h>

namespace det::master {
namespace {

TEST(TaskStatesTest, NamesRoundTrip) {
  for (TaskState s : kTaskStates) EXPECT_EQ(ParseTaskState(Name(s)), s);
  for (TaskType t : {TaskType::kTrial, TaskType::kCommand, TaskType::kNotebook, TaskType::kShell,
                     TaskType::kTensorboard, TaskType::kGeneric, TaskType::kCheckpointGc}) {
    EXPECT_EQ(ParseTaskType(Name(t)), t);
  }
  for (AllocationState s : {AllocationState::kQueued, AllocationState::kAssigned, AllocationState::kRunning,
                            AllocationState::kTerminating, AllocationState::kTerminated}) {
    EXPECT_EQ(ParseAllocationState(Name(s)), s);
  }
  EXPECT_FALSE(ParseTaskState("RUNNING").has_value());
  EXPECT_FALSE(ParseTaskType("trial").has_value());
}

TEST(TaskStatesTest, TerminalStates) {
  EXPECT_TRUE(IsTerminal(TaskState::kCompleted));
  EXPECT_TRUE(IsTerminal(TaskState::kCanceled));
  EXPECT_TRUE(IsTerminal(TaskState::kError));
  EXPECT_FALSE(IsTerminal(TaskState::kPaused));
  EXPECT_FALSE(IsTerminal(TaskState::kStoppingCanceled));
  EXPECT_TRUE(IsTerminal(AllocationState::kTerminated));
  EXPECT_FALSE(IsTerminal(AllocationState::kTerminating));
}

// Every (from, to) pair of the task state machine, as a table: rows are `from`, columns `to`, in
// kTaskStates's order (A P SP SC C X E).
TEST(TaskStatesTest, TransitionTable) {
  constexpr const char* kTable[] = {
      // A  P  SP SC C  X  E
      "1  1  1  1  1  1  1",  // ACTIVE
      "1  1  0  1  0  1  0",  // PAUSED
      "0  1  1  1  1  1  1",  // STOPPING_PAUSED
      "0  0  0  1  0  1  0",  // STOPPING_CANCELED
      "0  0  0  0  1  0  0",  // COMPLETED
      "0  0  0  0  0  1  0",  // CANCELED
      "0  0  0  0  0  0  1",  // ERROR
  };
  for (size_t from = 0; from < std::size(kTaskStates); ++from) {
    std::string row;
    for (char c : std::string(kTable[from])) {
      if (c != ' ') row += c;
    }
    for (size_t to = 0; to < std::size(kTaskStates); ++to) {
      EXPECT_EQ(CanTransition(kTaskStates[from], kTaskStates[to]), row[to] == '1')
          << Name(kTaskStates[from]) << " -> " << Name(kTaskStates[to]);
    }
  }
}

}  // namespace
}  // namespace det::master
