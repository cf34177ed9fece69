//===- Baseline.h - Which baseline kernel a kernel is compared with -------===//
//
// `gestell check --baseline=PATH` gives each check the baseline build's
// kernel that matches the one it looks at. Matching is by name, target,
// num_warps and num_stages, never by cache folder or position; when that
// key leaves several candidates the kernel gets no baseline rather than a
// guess. (`gestell diff` refines the key with the TTGIR signature.)
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_BASELINE_H
#define GESTELL_DRIVER_BASELINE_H

#include "gestell/Bundle.h"

#include "llvm/ADT/ArrayRef.h"

namespace gestell::driver {

/// The one baseline kernel matching K, or null (none, or ambiguous).
const Kernel *matchBaselineKernel(const Kernel &K,
                                  llvm::ArrayRef<Kernel> Baseline);

} // namespace gestell::driver

#endif
