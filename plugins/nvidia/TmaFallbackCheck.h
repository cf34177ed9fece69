//===- TmaFallbackCheck.h - nvidia-tma-fallback ---------------------------===//
//
// The kernel asks for tensor descriptors (tt.make_tensor_descriptor,
// tt.descriptor_load / _store, !tt.tensordesc, TTGIR's ttng.async_tma_*) in
// its .source, .ttir or .ttgir, and the PTX and SASS hold no TMA copy
// (cp.async.bulk.tensor / UTMALDG, the family table's `tma` mapping): the
// descriptors were lowered to plain loads and stores, as Triton does on
// targets without TMA (sm_80: the corpus tma_matmul_f16).
// docs/checks/nvidia-tma-fallback.md.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_TMAFALLBACKCHECK_H
#define GESTELL_PLUGINS_NVIDIA_TMAFALLBACKCHECK_H

#include "gestell/Check.h"

namespace gestell::nvidia {

class TmaFallbackCheck : public Check {
public:
  static CheckInfo info();
  TmaFallbackCheck(llvm::StringRef Name, CheckContext &Context);
  llvm::Error check(CheckInput &In) override;

private:
  /// The IR stages' descriptor uses and the first stage that asks for one
  /// (the .cpp defines them).
  struct IrStages;
  void report(CheckInput &In, const PtxModule &Ptx, const SassModule *Sass,
              const IrStages &Ir);
};

} // namespace gestell::nvidia

#endif
