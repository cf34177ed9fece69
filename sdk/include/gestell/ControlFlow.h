//===- gestell/ControlFlow.h - Basic blocks and loops of a function -------===//
//
// One analysis shared by the PTX and SASS views: given a function's
// instructions in order, with which ones are labels/branch targets, branches,
// unconditional jumps and exits, compute basic blocks, back edges and natural
// loops with nesting. PTX and SASS differ only in how they describe an
// instruction (see BranchInfo).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_CONTROLFLOW_H
#define GESTELL_CONTROLFLOW_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace gestell {

inline constexpr uint32_t NoIndex = UINT32_MAX;

struct BasicBlock {
  uint32_t Begin = 0; ///< first instruction index
  uint32_t End = 0;   ///< one past the last instruction index
  llvm::SmallVector<uint32_t, 2> Succs;
  llvm::SmallVector<uint32_t, 2> Preds;
  uint32_t Loop = NoIndex; ///< innermost loop holding this block
};

/// A natural loop: a header, and the blocks that reach a back edge to it.
struct Loop {
  uint32_t Header = 0;                ///< block index
  std::vector<uint32_t> Blocks;       ///< sorted block indices, header included
  std::vector<uint32_t> Latches;      ///< blocks with a back edge to Header
  uint32_t Parent = NoIndex;          ///< enclosing loop
  unsigned Depth = 1;                 ///< 1 = outermost
};

/// How one instruction affects control flow.
struct BranchInfo {
  bool IsBranch = false;        ///< transfers control to Target
  bool IsConditional = false;   ///< predicated branch: may fall through
  bool IsTerminator = false;    ///< exit/ret/trap: no fall-through
  uint32_t Target = NoIndex;    ///< instruction index of the target
};

struct ControlFlow {
  std::vector<BasicBlock> Blocks;
  std::vector<Loop> Loops; ///< outer loops before the loops they hold
  std::vector<uint32_t> BlockOf; ///< instruction index -> block index

  /// Loop depth of an instruction (0 = not in a loop).
  unsigned loopDepth(uint32_t Inst) const;
  bool inLoop(uint32_t Inst) const { return loopDepth(Inst) > 0; }
  /// Innermost loop holding an instruction, or NoIndex.
  uint32_t loopOf(uint32_t Inst) const;
};

/// Builds blocks and loops. Branch[i] describes instruction i; an
/// instruction that is a branch target starts a block.
ControlFlow buildControlFlow(const std::vector<BranchInfo> &Branch);

} // namespace gestell

#endif
