//===- ControlFlowTest.cpp - Blocks, dominators and loops -----------------===//
//
// Small hand-made graphs for the shapes the real kernels do not all show
// (irreducible cycles, unreachable code, conditional exits); the real
// kernels are checked in PtxTest and SassTest.
//
//===----------------------------------------------------------------------===//
#include "gestell/ControlFlow.h"

#include <gtest/gtest.h>

using namespace gestell;

namespace {
Transfer br(uint32_t At, uint32_t To, bool Cond = false) {
  Transfer T;
  T.Inst = At;
  T.Kind = Flow::Branch;
  T.Conditional = Cond;
  T.Targets.push_back(To);
  return T;
}
Transfer leave(uint32_t At, Flow K = Flow::Exit, bool Cond = false) {
  Transfer T;
  T.Inst = At;
  T.Kind = K;
  T.Conditional = Cond;
  return T;
}
std::vector<uint32_t> succs(const ControlFlow &CF, uint32_t B) {
  return {CF.Blocks[B].Succs.begin(), CF.Blocks[B].Succs.end()};
}
} // namespace

TEST(ControlFlow, StraightLineIsOneBlockWithoutLoops) {
  ControlFlow CF = buildControlFlow(5, {});
  ASSERT_EQ(CF.Blocks.size(), 1u);
  EXPECT_EQ(CF.Blocks[0].Begin, 0u);
  EXPECT_EQ(CF.Blocks[0].End, 5u);
  EXPECT_TRUE(CF.Loops.empty());
  EXPECT_EQ(CF.loopDepth(3), 0u);
  EXPECT_EQ(CF.loopOf(3), NoIndex);
  EXPECT_TRUE(buildControlFlow(0, {}).Blocks.empty());
}

TEST(ControlFlow, CallsDoNotSplitBlocks) {
  Transfer Call;
  Call.Inst = 1;
  Call.Kind = Flow::Call;
  ControlFlow CF = buildControlFlow(4, {Call});
  EXPECT_EQ(CF.Blocks.size(), 1u);
}

TEST(ControlFlow, DiamondHasNoLoop) {
  // 0: @p bra 3 | 1: x | 2: bra 4 | 3: y | 4: exit
  ControlFlow CF = buildControlFlow(5, {br(0, 3, true), br(2, 4), leave(4)});
  ASSERT_EQ(CF.Blocks.size(), 4u);
  EXPECT_EQ(succs(CF, 0), (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(succs(CF, 1), (std::vector<uint32_t>{3}));
  EXPECT_EQ(succs(CF, 2), (std::vector<uint32_t>{3}));
  EXPECT_TRUE(succs(CF, 3).empty());
  EXPECT_EQ(CF.Blocks[3].Idom, 0u);
  EXPECT_TRUE(CF.dominates(0, 3));
  EXPECT_FALSE(CF.dominates(1, 3));
  EXPECT_TRUE(CF.Loops.empty());
}

TEST(ControlFlow, NestedLoopsWithDepth) {
  // 0: a | 1: b (outer header) | 2: c (inner header) | 3: @p bra 2 |
  // 4: @q bra 1 | 5: exit
  ControlFlow CF =
      buildControlFlow(6, {br(3, 2, true), br(4, 1, true), leave(5)});
  ASSERT_EQ(CF.Loops.size(), 2u);
  const Loop &Outer = CF.Loops[0], &Inner = CF.Loops[1];
  EXPECT_EQ(CF.Blocks[Outer.Header].Begin, 1u);
  EXPECT_EQ(CF.Blocks[Inner.Header].Begin, 2u);
  EXPECT_EQ(Outer.Depth, 1u);
  EXPECT_EQ(Inner.Depth, 2u);
  EXPECT_EQ(Inner.Parent, 0u);
  EXPECT_EQ(Outer.Parent, NoIndex);
  EXPECT_EQ(CF.loopDepth(0), 0u);
  EXPECT_EQ(CF.loopDepth(1), 1u);
  EXPECT_EQ(CF.loopDepth(2), 2u);
  EXPECT_EQ(CF.loopDepth(3), 2u);
  EXPECT_EQ(CF.loopDepth(4), 1u);
  EXPECT_EQ(CF.loopDepth(5), 0u);
  EXPECT_EQ(CF.loopOf(3), 1u);
  EXPECT_TRUE(CF.inLoop(4));
}

TEST(ControlFlow, BackwardBranchIsNotABackEdgeWithoutDominance) {
  // An irreducible cycle: 0: @p bra 4 | 1..3: bra 4 | 4..5: @q bra 1 |
  // 6: exit. Blocks {1..3} and {4..5} are both entered from the entry and
  // jump to each other; neither dominates the other, so the backward branch
  // 5 -> 1 is not a back edge and there is no natural loop.
  ControlFlow CF =
      buildControlFlow(7, {br(0, 4, true), br(3, 4), br(5, 1, true), leave(6)});
  EXPECT_TRUE(CF.Loops.empty());
}

TEST(ControlFlow, UnreachableSelfLoopIsNotALoop) {
  // 0: exit | 1: bra 1 (the padding loop ptxas puts after EXIT)
  ControlFlow CF = buildControlFlow(3, {leave(0), br(1, 1)});
  ASSERT_EQ(CF.Blocks.size(), 3u);
  EXPECT_FALSE(CF.Blocks[1].Reachable);
  EXPECT_TRUE(CF.Loops.empty());
}

TEST(ControlFlow, ReachableSelfLoop) {
  // 0: a | 1: @p bra 1 (spin) | 2: exit
  ControlFlow CF = buildControlFlow(3, {br(1, 1, true), leave(2)});
  ASSERT_EQ(CF.Loops.size(), 1u);
  EXPECT_EQ(CF.Loops[0].Latches, std::vector<uint32_t>{CF.Loops[0].Header});
  EXPECT_EQ(CF.loopDepth(1), 1u);
  EXPECT_EQ(CF.loopDepth(0), 0u);
}

TEST(ControlFlow, ConditionalExitEndsBlockAndFallsThrough) {
  ControlFlow CF = buildControlFlow(3, {leave(0, Flow::Exit, true)});
  ASSERT_EQ(CF.Blocks.size(), 2u);
  EXPECT_EQ(succs(CF, 0), (std::vector<uint32_t>{1}));
}

TEST(ControlFlow, IndirectBranchWithTargets) {
  Transfer T;
  T.Inst = 0;
  T.Kind = Flow::IndirectBranch;
  T.Targets = {2, 3};
  ControlFlow CF = buildControlFlow(4, {T, leave(2, Flow::Return)});
  ASSERT_EQ(CF.Blocks.size(), 4u);
  EXPECT_EQ(succs(CF, 0), (std::vector<uint32_t>{2, 3}));
  EXPECT_FALSE(CF.Blocks[1].Reachable);
}

TEST(ControlFlow, TwoLatchesShareOneLoop) {
  // 0: header | 1: @p bra 0 | 2: @q bra 0 | 3: exit
  ControlFlow CF =
      buildControlFlow(4, {br(1, 0, true), br(2, 0, true), leave(3)});
  ASSERT_EQ(CF.Loops.size(), 1u);
  EXPECT_EQ(CF.Loops[0].Latches.size(), 2u);
  EXPECT_EQ(CF.Loops[0].Blocks.size(), 2u);
}
