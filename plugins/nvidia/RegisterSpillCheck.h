//===- RegisterSpillCheck.h - nvidia-register-spill -----------------------===//
//
// Registers ptxas spilled to local memory: the stack frame from the cubin,
// the STL/LDL of the SASS and where they are, with the registers in use and
// the Python line of the loop that spills. A warning when spills sit inside
// a loop (paid every iteration), a remark when they are all outside loops,
// fewer in loops than the threshold, or when there is no SASS to place
// them. docs/checks/nvidia-register-spill.md.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_REGISTERSPILLCHECK_H
#define GESTELL_PLUGINS_NVIDIA_REGISTERSPILLCHECK_H

#include "gestell/Check.h"

namespace gestell::nvidia {

class RegisterSpillCheck : public Check {
public:
  static CheckInfo info();
  RegisterSpillCheck(llvm::StringRef Name, CheckContext &Context);
  void storeOptions(OptionMap &Opts) const override;
  llvm::Error check(CheckInput &In) override;

private:
  /// What the check learned of the kernel before its SASS (defined in the
  /// .cpp), and the spill instructions of its SASS function.
  struct Frame;
  struct Spills;
  void reportWithoutSass(const Frame &F, llvm::ArrayRef<std::string> Syscalls);
  void reportInLoop(CheckInput &In, const Frame &F, const SassModule &Sass,
                    const SassFunction &SF, const Spills &S);
  void reportBelowThreshold(const Frame &F, const SassModule &Sass,
                            const SassFunction &SF, const Spills &S);

  /// Spill instructions (STL/LDL) in loops from which the check warns.
  const unsigned MinLoopSpills;
  /// Report spills that do not reach the warning (outside loops, fewer in
  /// loops than MinLoopSpills, a stack frame without SASS) as a remark.
  const bool Remarks;
};

} // namespace gestell::nvidia

#endif
