//===- CostlyLayoutConversionCheck.h - triton-costly-layout-conversion ----===//
//
// Layout conversion inside a loop that goes through shared memory.
//
// Every ttg.convert_layout inside an scf.for/scf.while whose cost class, as
// the SDK's layout algebra decides it the way Triton 3.6 lowers it, is
// `shared` (st/ld.shared or stmatrix/ldmatrix plus barriers, every
// iteration). Needed or not: it points at the traffic, the redundancy check
// (triton-redundant-layout-conversion) says whether it can go. A remark by
// default. Documentation: docs/checks/triton-costly-layout-conversion.md.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_TRITON_COSTLYLAYOUTCONVERSIONCHECK_H
#define GESTELL_PLUGINS_TRITON_COSTLYLAYOUTCONVERSIONCHECK_H

#include "gestell/Check.h"

namespace gestell::triton {

class CostlyLayoutConversionCheck : public Check {
public:
  static CheckInfo info();
  CostlyLayoutConversionCheck(llvm::StringRef Name, CheckContext &Context);
  void storeOptions(OptionMap &Opts) const override;
  llvm::Error check(CheckInput &In) override;

private:
  /// Report warp-shuffle conversions in loops too.
  const bool IncludeShuffles;
  /// Loop nesting depth a conversion must have (1 = any loop).
  const unsigned MinLoopDepth;
};

} // namespace gestell::triton

#endif
