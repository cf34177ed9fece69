//===- CalledInLoops.h - Code a call inside a loop runs (SDK-internal) ----===//
//
// A function's control flow (gestell/ControlFlow.h) puts an instruction in
// a loop or not; a call does not add an edge. Code reached only through a
// call is then in no loop of its own function, even when the call runs on
// every iteration of one: the body of a `noinline` Triton function called
// in a loop, and, at any depth, what that body calls. These are the
// instructions the counts take as in loops besides the loops' own
// (InstructionCounts.cpp).
//
// - PTX: a `.func` the module defines, called by a `call` in a loop or by a
//   function that is itself called in one. A `.noreturn` function is left
//   out: it runs at most once. Indirect calls (through a register) name no
//   function and are left out.
// - SASS (nvdisasm, cuobjdump): a subroutine is the code a CALL's target
//   reaches, following branches, that the function's entry does not reach.
//   It counts only when it can return (a RET is among it): ptxas also
//   calls code that never comes back, the sm_80 epilogue entered by
//   `@!P0 CALL.REL.NOINC` from the main loop (it ends in EXIT, and runs
//   once) and sm_100's tcgen05 guardrail traps (BPT.TRAP first).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_CALLEDINLOOPS_H
#define GESTELL_LIB_CALLEDINLOOPS_H

#include "gestell/Ptx.h"
#include "gestell/Sass.h"

#include "llvm/ADT/BitVector.h"

#include <vector>

namespace gestell {

/// Per function of M (same order), the instructions a call inside a loop
/// runs that the function's own loops do not hold. Empty when M has none
/// (most kernels call nothing): an empty BitVector marks no instruction.
std::vector<llvm::BitVector> calledInLoops(const PtxModule &M);
std::vector<llvm::BitVector> calledInLoops(const SassModule &M);

} // namespace gestell

#endif
