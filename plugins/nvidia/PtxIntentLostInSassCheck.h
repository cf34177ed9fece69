//===- PtxIntentLostInSassCheck.h - nvidia-ptx-intent-lost-in-sass --------===//
//
// What the PTX asked for and the machine code does not deliver: a wgmma
// pipeline that ptxas serialized (the PTX keeps several wgmma.mma_async in
// flight per wgmma.wait_group; the SASS waits with WARPGROUP.DEPBAR.LE gsb0,
// 0x0 after nearly every HGMMA in the loop), setmaxnreg without USETMAXREG,
// and tensor-core / TMEM / TMA instructions that ptxas dropped (PTX count vs
// SASS count per [[mapping]] of the one family table). With the option Ptxas,
// `ptxas -v` is re-run on the PTX and its C75xx messages become notes of the
// matching result. docs/checks/nvidia-ptx-intent-lost-in-sass.md.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_PTXINTENTLOSTINSASSCHECK_H
#define GESTELL_PLUGINS_NVIDIA_PTXINTENTLOSTINSASSCHECK_H

#include "gestell/Check.h"
#include "gestell/Ptx.h"
#include "gestell/Ttgir.h"

namespace gestell::nvidia {

class PtxIntentLostInSassCheck : public Check {
public:
  static CheckInfo info();
  PtxIntentLostInSassCheck(llvm::StringRef Name, CheckContext &Context);
  void storeOptions(OptionMap &Opts) const override;
  llvm::Error check(CheckInput &In) override;

private:
  struct Code;
  struct PtxasNotes;
  /// wgmma serialized: waits per MMA in loops, PTX against SASS. The
  /// kernel's TTGIR is read from V only for a remark that names it.
  void checkWgmma(const Code &C, PtxasNotes &Notes, KernelView &V);
  /// The SASS waits for every MMA because the PTX does: a remark naming
  /// the TTGIR wait (the software pipeliner, or a Gluon author's call).
  void reportPtxWaitsItself(const Code &C, const PtxInstruction &Wait,
                            unsigned FullWaits, unsigned Mma, KernelView &V);
  /// setmaxnreg in the PTX, no USETMAXREG in the SASS.
  void checkSetmaxnreg(const Code &C, PtxasNotes &Notes);
  /// PTX count against SASS count per mapping of the family table.
  llvm::Error checkMappings(const Code &C);
  /// ptxas messages that no finding above took: reported on their own
  /// (ptxas knows best what it dropped).
  void reportPtxasAlone(const Code &C, PtxasNotes &Notes);

  /// Full waits per warp-group MMA in loops (SASS) from which the pipeline
  /// counts as serialized.
  const double SerializedWaitsPerMma;
  /// Fewer warp-group MMAs in loops than this: nothing to serialize.
  const unsigned MinMma;
  /// The mappings of the family table to compare (comma-separated ids;
  /// "*" = all).
  const std::string Mappings;
  /// A mapping fires when SASS count < MinSassPerPtx * PTX count.
  const double MinSassPerPtx;
  /// ptxas to re-run for its C75xx messages ("" = do not run; a bare name
  /// is looked up on PATH).
  const std::string Ptxas;
  const unsigned PtxasTimeout;
  /// Report what is not ptxas's doing (the PTX waits for every MMA) as a
  /// remark.
  const bool Remarks;
};

} // namespace gestell::nvidia

#endif
