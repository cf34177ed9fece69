//===- Opcodes.h - The opcodes the nvidia checks tell apart ---------------===//
//
// Which SASS opcodes are warp-group / tcgen05 MMAs, CTA barriers or
// shuffles, and their PTX counterparts. Instruction families come from the
// one family table (gestell/Families.h); only distinctions the table does
// not make (asynchronous vs synchronous MMA, a barrier within the sync
// family) are spelled here. The kernel function, its loops and the stages a
// check can do without are the SDK's toolkit (gestell/utils/).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_OPCODES_H
#define GESTELL_PLUGINS_NVIDIA_OPCODES_H

#include "gestell/Families.h"
#include "gestell/Sass.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace gestell::nvidia {

/// Opcode is Base, or Base and modifiers ("BAR" holds for "BAR.SYNC", not
/// for "BARX"): baseOpcode() == Base without searching for the '.'.
inline bool hasBaseOpcode(llvm::StringRef Opcode, llvm::StringRef Base) {
  return Opcode.starts_with(Base) &&
         (Opcode.size() == Base.size() || Opcode[Base.size()] == '.');
}

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

/// A ratio as messages print it: two decimals, trailing zeros dropped
/// ("24", "0.5", "0.83").
std::string formatRatio(double V);

} // namespace gestell::nvidia

#endif
