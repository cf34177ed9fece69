//===- NarrowGlobalLoadCheck.h - example-narrow-global-load ---------------===//
//
// Global loads inside a loop that move at most 16 bits per instruction: the
// compiler did not vectorize them.
//
// Triton vectorizes a tl.load when its axis analysis proves the addresses
// contiguous and aligned along the fastest dimension. When a stride is a
// runtime argument it cannot: every thread then loads one element per
// instruction (PTX `ld.global.b16` for fp16), in the main loop.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_EXAMPLE_NARROWGLOBALLOADCHECK_H
#define GESTELL_EXAMPLE_NARROWGLOBALLOADCHECK_H

#include "gestell/Check.h"

namespace example {

class NarrowGlobalLoadCheck : public gestell::Check {
public:
  /// Everything known about the check before it runs: registration,
  /// --list-checks, the docs and the SARIF rule all read it.
  static gestell::CheckInfo info();

  NarrowGlobalLoadCheck(llvm::StringRef Name, gestell::CheckContext &Context);
  void storeOptions(gestell::OptionMap &Opts) const override;
  llvm::Error check(gestell::CheckInput &In) override;

private:
  const unsigned MaxBits;  ///< a load this wide or narrower is "narrow"
  const unsigned MinCount; ///< report from this many narrow loads in loops
};

} // namespace example

#endif
