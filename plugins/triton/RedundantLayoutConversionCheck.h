//===- RedundantLayoutConversionCheck.h - triton-redundant-layout-conversion =//
//
// Layout conversion the kernel does not need: a TMEM store that accepts the
// source layout, a round trip, a detour, or equivalent layouts.
//
// For every ttg.convert_layout of the TTGIR, follows its result through
// elementwise ops (arith.truncf, tt.bitcast, ...) to the ops that consume it
// and asks the SDK's layout algebra (linear layouts, never spelling):
//   1. it ends in ttng.tmem_store and the store accepts the *source* layout
//      (TMEM-compatible): directly, the reference case (Triton issue 8328,
//      the fold of PR 8353); through elementwise ops, a chain the fold does
//      not cover;
//   2. it ends in a second conversion back to a layout equivalent to the
//      source (round trip);
//   3. it ends in a second conversion whose direct form (source -> final)
//      is cheaper than the two steps (detour);
//   4. source and destination are the same linear layout for the shape
//      (the compiler folds it: a remark).
// A warning when the redundant conversion costs shuffles or shared memory,
// a remark when it stays in registers. Conversions that feed a global or
// shared-memory store are normal (coalescing) and are not judged.
// Documentation: docs/checks/triton-redundant-layout-conversion.md.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_TRITON_REDUNDANTLAYOUTCONVERSIONCHECK_H
#define GESTELL_PLUGINS_TRITON_REDUNDANTLAYOUTCONVERSIONCHECK_H

#include "gestell/Check.h"
#include "gestell/utils/ModuleConversions.h"

namespace gestell::triton {

class RedundantLayoutConversionCheck : public Check {
public:
  static CheckInfo info();
  RedundantLayoutConversionCheck(llvm::StringRef Name, CheckContext &Context);
  void storeOptions(OptionMap &Opts) const override;
  llvm::Error check(CheckInput &In) override;

private:
  /// One report per kind of findRedundantConversions (gestell/
  /// ModuleConversions.h); Gluon: the hint names the author's call.
  void tmemStore(ModuleConversions &Convs, const RedundantConversion &R,
                 bool Gluon);
  void secondConversion(ModuleConversions &Convs, const RedundantConversion &R,
                        bool Gluon);
  void equivalent(ModuleConversions &Convs, const RedundantConversion &R,
                  bool Gluon);

  /// Report conversions that stay in registers (remarks), equivalent
  /// layouts included.
  const bool ReportFree;
  /// Judge only conversions inside a loop.
  const bool LoopsOnly;
};

} // namespace gestell::triton

#endif
