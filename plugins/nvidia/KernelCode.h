//===- KernelCode.h - What the nvidia checks share about PTX and SASS -----===//
//
// The few questions every check of the module asks of a kernel's code: which
// function is the kernel, which instructions a loop holds, which SASS
// opcodes are warp-group / tcgen05 MMAs, CTA barriers or shuffles, and where
// the loop's Python line is. Instruction families come from the one family
// table (gestell/Families.h); only distinctions the table does not make
// (asynchronous vs synchronous MMA, a barrier within the sync family) are
// spelled here.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_KERNELCODE_H
#define GESTELL_PLUGINS_NVIDIA_KERNELCODE_H

#include "gestell/Diagnostic.h"
#include "gestell/Families.h"
#include "gestell/StageFamilies.h"
#include "gestell/KernelView.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <vector>

namespace gestell::nvidia {

/// The kernel's PTX entry: the .entry named Kernel, else the first .entry;
/// null when the module has none.
const PtxFunction *kernelFunction(const PtxModule &M, llvm::StringRef Kernel);
/// The kernel's SASS function: the one named Kernel, else the first; null
/// when the listing has none.
const SassFunction *kernelFunction(const SassModule &M, llvm::StringRef Kernel);

/// The line that starts a function: `.entry name(` in the PTX, the
/// function's section or listing header in the SASS.
DiagLoc locate(const PtxModule &M, const PtxFunction &F);
DiagLoc locate(const SassModule &M, const SassFunction &F);

/// Loops that no other loop holds, by index into CF.Loops.
llvm::SmallVector<uint32_t, 4> outermostLoops(const ControlFlow &CF);
/// The outermost loop holding instruction Inst, or NoIndex.
uint32_t outermostLoopOf(const ControlFlow &CF, uint32_t Inst);
/// The instructions of a loop (nested loops included), in program order.
std::vector<uint32_t> loopInstructions(const ControlFlow &CF, uint32_t Loop);

/// True when Opcode is in the family Id of the run's table
/// (FamilyTable::active()).
bool inFamily(Isa I, llvm::StringRef Opcode, llvm::StringRef Id);

/// SASS warp-group MMA (Hopper): HGMMA, QGMMA, IGMMA, BGMMA.
bool isSassWarpgroupMma(llvm::StringRef Opcode);
/// SASS MMA that reads its operands from shared or tensor memory and runs
/// asynchronously: warp-group MMA and tcgen05 (UTCHMMA, UTCQMMA, ...). Not
/// HMMA / IMMA (mma.sync), whose operands are register fragments.
bool isSassAsyncMma(llvm::StringRef Opcode);
/// The wait that drains every warp-group MMA in flight:
/// `WARPGROUP.DEPBAR.LE gsb0, 0x0`.
bool isSassFullWarpgroupWait(const SassInstruction &I);
/// A CTA barrier (BAR.SYNC, BAR.RED, BAR.ARV, ...).
bool isSassBarrier(llvm::StringRef Opcode);
/// A warp shuffle (SHFL.IDX, SHFL.BFLY, ...).
bool isSassShuffle(llvm::StringRef Opcode);
/// A shared-memory load into registers (LDS, LDS.U.128; not LDSM).
bool isSassSharedLoad(llvm::StringRef Opcode);

/// PTX counterparts: bar.sync / barrier.sync / bar.red ...; shfl.sync.*;
/// ld.shared* (not ldmatrix).
bool isPtxBarrier(llvm::StringRef Opcode);
bool isPtxShuffle(llvm::StringRef Opcode);
bool isPtxSharedLoad(llvm::StringRef Opcode);

/// The Python line of a SASS loop's `for` statement. With the TTGIR: the
/// scf.for whose body shares the most Python lines with the loop's
/// instructions (the innermost on a tie), whose own location is the `for`
/// line. Without (or when no scf.for shares a line): the line of the loop's
/// back-edge branch, which often but not always carries the `for` line.
std::optional<DiagLoc> loopSource(const SassModule &M, const SassFunction &F,
                                  uint32_t Loop, const TtgirModule *Ttgir);

/// The kernel's TTGIR when it has one that reads, else null: for checks
/// that only use it to say more (loopSource), never to decide.
const TtgirModule *optionalTtgir(KernelView &V);

/// A ratio as messages print it: two decimals, trailing zeros dropped
/// ("24", "0.5", "0.83").
std::string formatRatio(double V);

} // namespace gestell::nvidia

#endif
