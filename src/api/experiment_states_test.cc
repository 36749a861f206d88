#include "api/experiment_states.h"

#include <gtest/gtest.h>

#include <string>

namespace det::api {
namespace {

using E = ExperimentState;
using T = TrialState;

constexpr E kAllExperiment[] = {E::kActive,
                                E::kPaused,
                                E::kStoppingCanceled,
                                E::kStoppingKilled,
                                E::kStoppingCompleted,
                                E::kStoppingError,
                                E::kCompleted,
                                E::kCanceled,
                                E::kError,
                                E::kDeleting,
                                E::kDeleted,
                                E::kDeleteFailed};
constexpr T kAllTrial[] = {T::kActive,
                           T::kPaused,
                           T::kStoppingCanceled,
                           T::kStoppingKilled,
                           T::kStoppingCompleted,
                           T::kStoppingError,
                           T::kCompleted,
                           T::kCanceled,
                           T::kError};

// "1 0 1" -> "101".
std::string Row(const char* spaced) {
  std::string row;
  for (const char* c = spaced; *c != '\0'; ++c) {
    if (*c != ' ') row += *c;
  }
  return row;
}

TEST(ExperimentStatesTest, NamesRoundTrip) {
  for (E s : kAllExperiment) EXPECT_EQ(ParseExperimentState(Name(s)), s) << Name(s);
  for (T s : kAllTrial) EXPECT_EQ(ParseTrialState(Name(s)), s) << Name(s);
  EXPECT_EQ(Name(E::kStoppingKilled), "STOPPING_KILLED");
  EXPECT_EQ(Name(E::kDeleteFailed), "DELETE_FAILED");
  EXPECT_EQ(Name(T::kStoppingCompleted), "STOPPING_COMPLETED");
  // Wire spellings and display-only states are not stored names.
  EXPECT_FALSE(ParseExperimentState("STATE_ACTIVE").has_value());
  EXPECT_FALSE(ParseExperimentState("RUNNING").has_value());
  EXPECT_FALSE(ParseExperimentState("active").has_value());
  EXPECT_FALSE(ParseTrialState("DELETING").has_value());
  EXPECT_FALSE(ParseTrialState("QUEUED").has_value());
}

TEST(ExperimentStatesTest, TrialStateOfExperimentState) {
  for (E s : kAllExperiment) {
    std::optional<T> t = TrialStateOf(s);
    bool deletion = s == E::kDeleting || s == E::kDeleted || s == E::kDeleteFailed;
    EXPECT_EQ(t.has_value(), !deletion) << Name(s);
    if (t) {
      EXPECT_EQ(Name(*t), Name(s));
    }
  }
}

// Membership of every state, as a table: terminal, stopping, and where a stopping state settles.
TEST(ExperimentStatesTest, ExperimentMembership) {
  struct Expect {
    E state;
    bool terminal;
    bool stopping;
  };
  constexpr Expect kTable[] = {
      {E::kActive, false, false},
      {E::kPaused, false, false},
      {E::kStoppingCanceled, false, true},
      {E::kStoppingKilled, false, true},
      {E::kStoppingCompleted, false, true},
      {E::kStoppingError, false, true},
      {E::kCompleted, true, false},
      {E::kCanceled, true, false},
      {E::kError, true, false},
      {E::kDeleting, true, false},
      {E::kDeleted, true, false},
      {E::kDeleteFailed, true, false},
  };
  ASSERT_EQ(std::size(kTable), std::size(kAllExperiment));
  for (const Expect& e : kTable) {
    EXPECT_EQ(IsTerminal(e.state), e.terminal) << Name(e.state);
    EXPECT_EQ(IsStopping(e.state), e.stopping) << Name(e.state);
  }
  EXPECT_EQ(TerminalStateOf(E::kStoppingCanceled), E::kCanceled);
  EXPECT_EQ(TerminalStateOf(E::kStoppingKilled), E::kCanceled);
  EXPECT_EQ(TerminalStateOf(E::kStoppingCompleted), E::kCompleted);
  EXPECT_EQ(TerminalStateOf(E::kStoppingError), E::kError);
}

TEST(ExperimentStatesTest, TrialMembership) {
  struct Expect {
    T state;
    bool terminal;
    bool stopping;
  };
  constexpr Expect kTable[] = {
      {T::kActive, false, false},
      {T::kPaused, false, false},
      {T::kStoppingCanceled, false, true},
      {T::kStoppingKilled, false, true},
      {T::kStoppingCompleted, false, true},
      {T::kStoppingError, false, true},
      {T::kCompleted, true, false},
      {T::kCanceled, true, false},
      {T::kError, true, false},
  };
  ASSERT_EQ(std::size(kTable), std::size(kAllTrial));
  for (const Expect& e : kTable) {
    EXPECT_EQ(IsTerminal(e.state), e.terminal) << Name(e.state);
    EXPECT_EQ(IsStopping(e.state), e.stopping) << Name(e.state);
  }
  EXPECT_EQ(TerminalStateOf(T::kStoppingCanceled), T::kCanceled);
  EXPECT_EQ(TerminalStateOf(T::kStoppingKilled), T::kCanceled);
  EXPECT_EQ(TerminalStateOf(T::kStoppingCompleted), T::kCompleted);
  EXPECT_EQ(TerminalStateOf(T::kStoppingError), T::kError);
}

// Every (from, to) pair of the experiment state machine: rows are `from`, columns `to`, in
// kAllExperiment's order.
TEST(ExperimentStatesTest, TransitionTable) {
  constexpr const char* kTable[] = {
      // A  P  SC SK SO SE C  X  E  DG DD DF
      "1  1  1  1  1  1  1  1  1  0  0  0",  // ACTIVE
      "1  1  1  1  1  1  1  1  1  0  0  0",  // PAUSED
      "0  0  1  1  0  0  0  1  0  0  0  0",  // STOPPING_CANCELED
      "0  0  0  1  0  0  0  1  0  0  0  0",  // STOPPING_KILLED
      "0  0  0  1  1  0  1  0  0  0  0  0",  // STOPPING_COMPLETED
      "0  0  0  1  0  1  0  0  1  0  0  0",  // STOPPING_ERROR
      "0  0  0  0  0  0  1  0  0  1  0  0",  // COMPLETED
      "0  0  0  0  0  0  0  1  0  1  0  0",  // CANCELED
      "0  0  0  0  0  0  0  0  1  1  0  0",  // ERROR
      "0  0  0  0  0  0  0  0  0  1  1  1",  // DELETING
      "0  0  0  0  0  0  0  0  0  0  1  0",  // DELETED
      "0  0  0  0  0  0  0  0  0  1  0  1",  // DELETE_FAILED
  };
  ASSERT_EQ(std::size(kTable), std::size(kAllExperiment));
  for (size_t from = 0; from < std::size(kAllExperiment); ++from) {
    std::string row = Row(kTable[from]);
    ASSERT_EQ(row.size(), std::size(kAllExperiment));
    for (size_t to = 0; to < std::size(kAllExperiment); ++to) {
      EXPECT_EQ(CanTransition(kAllExperiment[from], kAllExperiment[to]), row[to] == '1')
          << Name(kAllExperiment[from]) << " -> " << Name(kAllExperiment[to]);
    }
  }
}

// What the table says about the rules built on it: terminal states are only left for deletion,
// and the experiments that may be archived or marked DELETING are the finished, not-being-deleted
// ones.
TEST(ExperimentStatesTest, TerminalStatesOnlyMoveTowardsDeletion) {
  for (E from : kAllExperiment) {
    for (E to : kAllExperiment) {
      if (from == to || !IsTerminal(from) || !CanTransition(from, to)) continue;
      EXPECT_TRUE(to == E::kDeleting || to == E::kDeleted || to == E::kDeleteFailed)
          << Name(from) << " -> " << Name(to);
    }
    bool deletable = from != E::kDeleting && CanTransition(from, E::kDeleting);
    bool finished = from == E::kCompleted || from == E::kCanceled || from == E::kError ||
                    from == E::kDeleteFailed;
    EXPECT_EQ(deletable, finished) << Name(from);
  }
}

}  // namespace
}  // namespace det::api
