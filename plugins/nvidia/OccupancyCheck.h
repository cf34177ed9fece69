//===- OccupancyCheck.h - nvidia-occupancy --------------------------------===//
//
// A kernel that cannot launch on its target (or --device): more shared
// memory, registers or threads than a block may have, which Triton turns
// into OutOfResources at launch. With a baseline, a kernel of which fewer
// blocks fit on an SM than in the baseline build, with the resource that
// crossed a boundary (Triton issue 11127: 64 -> 72 registers, two blocks
// per SM became one). Low occupancy alone is not reported: large-tile GEMMs
// run one CTA per SM by design. docs/checks/nvidia-occupancy.md.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_NVIDIA_OCCUPANCYCHECK_H
#define GESTELL_NVIDIA_OCCUPANCYCHECK_H

#include "gestell/Check.h"

namespace gestell::nvidia {

class OccupancyCheck : public gestell::Check {
public:
  static gestell::CheckInfo info();
  OccupancyCheck(llvm::StringRef Name, gestell::CheckContext &Context);
  llvm::Error check(gestell::CheckInput &In) override;
};

} // namespace gestell::nvidia

#endif
