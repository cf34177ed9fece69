//===- gestell/ControlFlow.h - Basic blocks and loops of a function -------===//
//
// One analysis shared by the PTX and SASS views: given the number of
// instructions of a function and the instructions that transfer control
// (branches, returns, exits, traps; see Transfer), compute basic blocks,
// dominators, back edges and natural loops with nesting. PTX and SASS differ
// only in how they say which instruction goes where.
//
// Rules (the same for both views):
// - A block starts at instruction 0, at every branch target and after every
//   instruction that transfers control (a predicated one included).
// - Calls return, so they neither end a block nor add an edge.
// - An indirect branch goes to its listed targets (PTX brx.idx with a
//   .branchtargets list); with none known it has no successor, like an exit.
// - A back edge is an edge U -> H where H dominates U (dominators computed
//   from the entry block). Each header has one natural loop: H plus every
//   block that reaches a latch without passing through H. Blocks that the
//   entry cannot reach are in no loop (a self-branch after EXIT, say), and a
//   cycle without a dominating header (irreducible) is not a loop.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_CONTROLFLOW_H
#define GESTELL_CONTROLFLOW_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace gestell {

inline constexpr uint32_t NoIndex = UINT32_MAX;

/// What an instruction does to control flow.
enum class Flow : uint8_t {
  None,           ///< falls through
  Branch,         ///< jumps to a target known statically
  IndirectBranch, ///< jumps through a register (brx.idx, BRX, JMX)
  Call,           ///< calls and returns here: no edge, no block end
  Return,         ///< ret, RET
  Exit,           ///< exit, EXIT, KILL
  Trap,           ///< trap, BPT.TRAP
};

/// Lowercase name of a Flow value ("branch", "indirect-branch", ...).
const char *flowName(Flow F);

struct BasicBlock {
  uint32_t Begin = 0; ///< first instruction index
  uint32_t End = 0;   ///< one past the last instruction index
  llvm::SmallVector<uint32_t, 2> Succs;
  llvm::SmallVector<uint32_t, 2> Preds;
  uint32_t Loop = NoIndex; ///< innermost loop holding this block
  uint32_t Idom = NoIndex; ///< immediate dominator; NoIndex for the entry
                           ///< and for unreachable blocks
  bool Reachable = false;  ///< reachable from the entry block
};

/// A natural loop: a header, and the blocks that reach a back edge to it.
struct Loop {
  uint32_t Header = 0;           ///< block index
  std::vector<uint32_t> Blocks;  ///< sorted block indices, header included
  std::vector<uint32_t> Latches; ///< sorted blocks with a back edge to Header
  uint32_t Parent = NoIndex;     ///< enclosing loop
  unsigned Depth = 1;            ///< 1 = outermost
};

/// One control transfer, as the parsers describe it to buildControlFlow.
struct Transfer {
  uint32_t Inst = 0;        ///< instruction index
  Flow Kind = Flow::Branch; ///< None and Call are ignored
  bool Conditional = false; ///< predicated: may also fall through
  /// Target instruction indices (Branch: one; IndirectBranch: the known
  /// list, possibly empty). Targets outside the function are dropped.
  llvm::SmallVector<uint32_t, 1> Targets;
};

struct ControlFlow {
  std::vector<BasicBlock> Blocks;
  std::vector<Loop> Loops;       ///< preorder: outer loops before the loops
                                 ///< they hold, siblings by header
  std::vector<uint32_t> BlockOf; ///< instruction index -> block index

  // Inline: checks ask these once per instruction.
  /// Loop depth of an instruction (0 = not in a loop).
  unsigned loopDepth(uint32_t Inst) const {
    uint32_t L = loopOf(Inst);
    return L == NoIndex ? 0 : Loops[L].Depth;
  }
  bool inLoop(uint32_t Inst) const { return loopDepth(Inst) > 0; }
  /// Innermost loop holding an instruction, or NoIndex.
  uint32_t loopOf(uint32_t Inst) const {
    return Inst < BlockOf.size() ? Blocks[BlockOf[Inst]].Loop : NoIndex;
  }
  /// True when block A dominates block B (both reachable).
  bool dominates(uint32_t A, uint32_t B) const;
};

/// Builds blocks and loops for a function of NumInsts instructions.
/// Transfers must be sorted by Inst, at most one per instruction.
ControlFlow buildControlFlow(uint32_t NumInsts,
                             llvm::ArrayRef<Transfer> Transfers);

} // namespace gestell

#endif
