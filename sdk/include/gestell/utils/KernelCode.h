//===- gestell/utils/KernelCode.h - The kernel function and its loops ----===//
//
// What most checks ask first of a kernel's PTX or SASS: which function is
// the kernel (a module may hold helpers, and a SASS listing several
// kernels), which loops no other loop holds, which instructions a loop
// holds, and the Python `for` line of a SASS loop. Loops come from the
// function's control-flow graph (gestell/ControlFlow.h).
//
//   const PtxFunction *F = kernelFunction(Ptx, In.Kernel.kernel().Name);
//   for (uint32_t L : outermostLoops(F->CF)) ...
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_UTILS_KERNELCODE_H
#define GESTELL_UTILS_KERNELCODE_H

#include "gestell/ControlFlow.h"
#include "gestell/Diagnostic.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gestell {

/// The kernel's PTX entry: the .entry named Kernel, else the first .entry;
/// null when the module has none.
const PtxFunction *kernelFunction(const PtxModule &M, llvm::StringRef Kernel);
/// The kernel's SASS function: the one named Kernel, else the first; null
/// when the listing has none.
const SassFunction *kernelFunction(const SassModule &M, llvm::StringRef Kernel);

/// Loops that no other loop holds, by index into CF.Loops.
llvm::SmallVector<uint32_t, 4> outermostLoops(const ControlFlow &CF);
/// The outermost loop holding instruction Inst, or NoIndex.
uint32_t outermostLoopOf(const ControlFlow &CF, uint32_t Inst);
/// The instructions of a loop (nested loops included), in program order.
std::vector<uint32_t> loopInstructions(const ControlFlow &CF, uint32_t Loop);

/// The Python line of a SASS loop's `for` statement. With the TTGIR: the
/// scf.for whose body shares the most Python lines with the loop's
/// instructions (the innermost on a tie), whose own location is the `for`
/// line. Without (or when no scf.for shares a line): the line of the loop's
/// back-edge branch, which often but not always carries the `for` line.
std::optional<DiagLoc> loopSource(const SassModule &M, const SassFunction &F,
                                  uint32_t Loop, const TtgirModule *Ttgir);

} // namespace gestell

#endif
